# ruff: noqa: N803, N806  (monogram names: p_G, p_BS)
"""The trail of a chosen station, driven by real input in the real window under Xvfb: click a
body in the 3-D view, open View > Teaching overlays > Trail station… with the mouse, take the
clicked point, type a coordinate, OK, play; the trail is the station's path."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialogButtonBox

from app.document.examples import example_path
from app.main_window import MainWindow
from app.trail_station_dialog import station_in_ground

pytestmark = pytest.mark.gui

LEFT = Qt.MouseButton.LeftButton


@pytest.fixture
def studio(qtbot, qsettings):
    windows = []

    def make(model_path):
        window = MainWindow(model_path=model_path, settings=qsettings, restore_layout=False)
        qtbot.addWidget(window)
        window.resize(1100, 760)
        window.show()
        qtbot.waitExposed(window)
        qtbot.waitUntil(lambda: window.simulation.snapshot is not None, timeout=60000)
        window.activateWindow()
        if QApplication.activeWindow() is not window:  # no window manager under Xvfb
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                QApplication.setActiveWindow(window)
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5000)
        qtbot.wait(200)
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.model_editor.undo_stack.setClean()
        window.close()


def open_menu_entry(qtbot, window, action) -> None:
    """Click View, then Teaching overlays, then ``action``, with the mouse."""
    menu_bar = window.menuBar()
    view = next(a for a in menu_bar.actions() if a.text() == "&View")
    qtbot.mouseClick(menu_bar, LEFT, pos=menu_bar.actionGeometry(view).center())
    view_menu = view.menu()
    qtbot.waitUntil(view_menu.isVisible, timeout=5000)
    sub = window.overlays.menu.menuAction()
    qtbot.mouseClick(view_menu, LEFT, pos=view_menu.actionGeometry(sub).center())
    menu = window.overlays.menu
    qtbot.waitUntil(menu.isVisible, timeout=5000)
    qtbot.mouseClick(menu, LEFT, pos=menu.actionGeometry(action).center())
    for _ in range(3):  # close what is still open (the menus stay up under QTest on Xvfb)
        popup = QApplication.activePopupWidget()
        if popup is None:
            break
        qtbot.keyClick(popup, Qt.Key.Key_Escape)


def point_pixel(window, p_G) -> QPoint:
    """The render widget's Qt pixel (top-left origin) where the ground point p_G is drawn."""
    scene = window.viewport.scene
    scene.render()
    x, y = scene.world_to_display(np.asarray(p_G, dtype=float))
    widget = window.viewport.interactor_widget
    return QPoint(round(x), widget.height() - 1 - round(y))


def test_trail_of_a_clicked_station_follows_that_point(studio, qtbot):
    window = studio(example_path("double_pendulum"))
    overlays = window.overlays
    snap = window.simulation.snapshot
    lower = list(snap.model.body_names).index("lower")
    bob_B = np.array([0.0, -1.0, 0.0])  # the lower bob's centre (radius 0.08) in its frame
    pixel = point_pixel(window, station_in_ground(snap.x_gb[lower], bob_B))
    QTest.mouseClick(window.viewport.interactor_widget, LEFT, Qt.KeyboardModifier.NoModifier, pixel)
    qtbot.waitUntil(lambda: overlays.last_click is not None, timeout=5000)
    body, p_BS = overlays.last_click
    assert body == "lower"
    assert np.linalg.norm(p_BS - bob_B) == pytest.approx(0.08, abs=0.01)  # on the bob's surface

    open_menu_entry(qtbot, window, overlays.trail_station_action)
    qtbot.waitUntil(lambda: overlays.station_dialog is not None, timeout=5000)
    dialog = overlays.station_dialog
    qtbot.waitExposed(dialog)
    assert dialog.mass_centre.isChecked() and not dialog.details.isEnabled()
    qtbot.mouseClick(dialog.use_click, LEFT)
    assert dialog.fixed.isChecked() and dialog.details.isEnabled()
    assert dialog.body.currentText() == "lower"
    shown = [box.value() for box in dialog.coords]
    np.testing.assert_allclose(shown, p_BS, atol=1e-4)
    # Type another x for the station: 0.3 m to the side of the bob.
    x_box = dialog.coords[0]
    qtbot.mouseClick(x_box, LEFT)
    x_box.lineEdit().selectAll()
    qtbot.keyClicks(x_box.lineEdit(), "0.3")
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    qtbot.mouseClick(ok, LEFT)
    qtbot.waitUntil(lambda: overlays.trail_station is not None, timeout=5000)
    body, station = overlays.trail_station
    assert body == "lower"
    np.testing.assert_allclose(station, [0.3, shown[1], shown[2]], atol=1e-12)
    assert overlays.actions["trail"].isChecked()  # OK turned the trail on

    trail = overlays.overlays["trail"]
    window.sim_actions["play"].trigger()
    qtbot.waitUntil(lambda: len(trail.points) >= 10, timeout=30000)
    window.sim_actions["pause"].trigger()
    qtbot.waitUntil(lambda: not window.simulation.snapshot.running, timeout=10000)
    qtbot.wait(100)
    last = window.simulation.snapshot
    # The newest trail point is the station at the pose shown; the trail traced a path.
    np.testing.assert_allclose(
        trail.points[-1], station_in_ground(last.x_gb[lower], station), atol=1e-9
    )
    assert np.ptp(trail.points, axis=0).max() > 0.05
    assert window.model_editor.undo_stack.count() == 0  # a view setting, not an edit

    # Back to the mass centre: the trail restarts from the selected body's mass centre.
    open_menu_entry(qtbot, window, overlays.trail_station_action)
    qtbot.waitUntil(lambda: overlays.station_dialog is not dialog, timeout=5000)
    dialog = overlays.station_dialog
    qtbot.waitExposed(dialog)
    assert dialog.fixed.isChecked() and dialog.body.currentText() == "lower"
    radio = dialog.mass_centre
    qtbot.mouseClick(radio, LEFT, pos=QPoint(8, radio.height() // 2))  # on its indicator
    assert radio.isChecked() and not dialog.details.isEnabled()
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), LEFT)
    qtbot.waitUntil(lambda: overlays.trail_station is None, timeout=5000)
    assert len(trail.points) <= 1
