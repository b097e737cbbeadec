"""Shared fixtures.

Qt, VTK and the app are imported inside fixtures only, so engine tests never load them.
"""

from __future__ import annotations

import ctypes
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import pytest

from app.bootstrap import XVFB_SERVER_ARGS

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
def open_example(qtbot, qsettings):
    """open_example(name): the studio's MainWindow on the example ``name`` with the default
    layout, shown, exposed and with its first snapshot; closed at teardown by pytest-qt."""
    from app.document.examples import example_path
    from app.main_window import MainWindow

    def open_window(name: str):
        window = MainWindow(model_path=example_path(name), settings=qsettings, restore_layout=False)
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        qtbot.waitUntil(lambda: window.simulation.snapshot is not None, timeout=30000)
        return window

    return open_window


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


#: environment variable holding the pid of this worker's own Xvfb (see pytest_configure)
DISPLAY_SERVER_PID = "MBSTUDIO_TEST_DISPLAY_PID"


def _end_with_parent() -> None:
    """In the child before exec: the kernel sends it SIGTERM when this process ends (after
    every X client of this process is gone, so none sees its server vanish)."""
    ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # 1: PR_SET_PDEATHSIG


def _start_private_display() -> subprocess.Popen | None:
    """An Xvfb server of this process's own, ending with it (the display number it chose is
    put in DISPLAY); None, and DISPLAY left as it was, if it cannot be started."""
    read_end, write_end = os.pipe()
    try:
        server = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write_end), "-nolisten", "tcp", *XVFB_SERVER_ARGS.split()],
            pass_fds=(write_end,),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=_end_with_parent,
        )
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return None
    os.close(write_end)
    number = b""
    deadline = time.monotonic() + 30.0
    with os.fdopen(read_end, "rb", buffering=0) as pipe:
        while not number.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([pipe], [], [], left)[0]:
                break
            chunk = pipe.read(16)
            if not chunk:  # the server exited
                break
            number += chunk
    if not number.strip().isdigit():
        server.kill()
        server.wait()
        return None
    os.environ["DISPLAY"] = f":{number.decode().strip()}"
    os.environ[DISPLAY_SERVER_PID] = str(server.pid)  # a child process the tests leave alone
    return server


def pytest_configure(config):
    """Under pytest-xdist each worker draws on an X display of its own: windows of two
    processes on one display take each other's keyboard focus (there is no window manager
    under Xvfb), so a key sent to one window would reach nothing."""
    if os.environ.get("PYTEST_XDIST_WORKER") and os.environ.get("DISPLAY"):
        if shutil.which("Xvfb"):
            server = _start_private_display()
            if server is not None:
                return
        sys.stderr.write(
            "tests: no Xvfb of this worker's own; the workers share DISPLAY "
            f"{os.environ['DISPLAY']}\n"
        )


@pytest.fixture(autouse=True)
def _no_window_left_open():
    """After each test (and pytest-qt's closing of the widgets it was given), no studio
    window is still counted open: an open window keeps Python's automatic garbage collection
    off (``app.gui_collector``), which the tests after it would run without."""
    yield
    gui = sys.modules.get("app.gui_collector")
    if gui is not None and gui.open_windows():
        open_windows = gui.open_windows()
        gui.hand_back_for_tests()
        pytest.fail(f"{open_windows} studio window(s) left open by the test (close them)")
