"""Shared fixtures.

Qt, VTK and the app are imported inside fixtures only, so engine tests never load them.
"""

from __future__ import annotations

import os
import tempfile

import pytest

# QSettings and anything else that writes per-user configuration go to a throw-away directory,
# never to the developer's ~/.config (set before any QApplication exists).
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="mbstudio-test-config-")


@pytest.fixture
def qsettings(tmp_path):
    """A QSettings backed by an INI file private to the test."""
    from PySide6.QtCore import QSettings

    settings = QSettings(str(tmp_path / "mbstudio.ini"), QSettings.Format.IniFormat)
    yield settings
    settings.sync()


@pytest.fixture
def main_window(qtbot, qsettings):
    """The studio's MainWindow, shown and exposed; closed at teardown by pytest-qt."""
    from app.main_window import MainWindow

    window = MainWindow(settings=qsettings)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return window


@pytest.fixture
def read_render_window():
    """Function returning a vtkRenderWindow's back buffer as an (h, w, 3) uint8 array, row 0 at
    the top (``QWidget.grab()`` gives black for VTK views)."""

    def read(render_window):
        from vtkmodules.util.numpy_support import vtk_to_numpy
        from vtkmodules.vtkRenderingCore import vtkWindowToImageFilter

        render_window.Render()
        grabber = vtkWindowToImageFilter()
        grabber.SetInput(render_window)
        grabber.ReadFrontBufferOff()
        grabber.SetInputBufferTypeToRGB()
        grabber.Update()
        image = grabber.GetOutput()
        width, height, _ = image.GetDimensions()
        pixels = vtk_to_numpy(image.GetPointData().GetScalars()).reshape(height, width, -1)
        return pixels[::-1, :, :3].copy()

    return read


def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (``--dist loadgroup``) every test that drives Qt widgets runs in one
    worker, one after another: windows of two processes on one X display would take each
    other's keyboard focus. The engine's tests share out over the other workers."""
    for item in items:
        path = str(item.path)
        if (
            "qtbot" in getattr(item, "fixturenames", ())
            or item.get_closest_marker("gui") is not None
            or "/tests/app/" in path
            or "/tests/viz/" in path
        ):
            item.add_marker(pytest.mark.xdist_group("gui"))
