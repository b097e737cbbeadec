"""Simulation > Ensemble… in the real window under Xvfb, driven by real input: the menu is
clicked, the dialog filled with key clicks and run; the ensemble runs in the background with
progress, the plot shows one curve per member, the 3-D view draws the ghosts, and a member
chosen in the list opens as a normal run."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from app.document.examples import example_path
from app.main_window import MainWindow

pytestmark = pytest.mark.gui


@pytest.fixture
def window(qtbot, qsettings):
    win = MainWindow(
        model_path=example_path("double_pendulum"), settings=qsettings, restore_layout=False
    )
    qtbot.addWidget(win)
    win.resize(1100, 760)
    win.show()
    qtbot.waitExposed(win)
    qtbot.waitUntil(lambda: win.simulation.snapshot is not None, timeout=60000)
    win.activateWindow()
    if QApplication.activeWindow() is not win:  # no window manager under Xvfb
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            QApplication.setActiveWindow(win)
    qtbot.wait(200)
    yield win
    win.model_editor.undo_stack.setClean()
    win.close()
    alive = [t for t in threading.enumerate() if t.name.startswith("mbstudio-") and t.is_alive()]
    assert not alive


def open_ensemble_dialog(qtbot, window):
    menu_bar = window.menuBar()
    sim = next(a for a in menu_bar.actions() if a.text() == "&Simulation")
    qtbot.mouseClick(menu_bar, Qt.MouseButton.LeftButton, pos=menu_bar.actionGeometry(sim).center())
    menu = sim.menu()
    qtbot.waitUntil(menu.isVisible, timeout=5000)
    action = window.ensemble.action
    qtbot.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(action).center())
    qtbot.waitUntil(
        lambda: window.ensemble.dialog is not None and window.ensemble.dialog.isVisible(),
        timeout=5000,
    )
    return window.ensemble.dialog


def type_into(qtbot, box, text: str) -> None:
    box.setFocus()
    box.selectAll()
    qtbot.keyClicks(box, text)


def test_double_pendulum_chaos_ensemble_from_the_menu(qtbot, window):
    dialog = open_ensemble_dialog(qtbot, window)
    assert dialog.parameter_box.currentText() == "lower.q0"
    type_into(qtbot, dialog.spread_box, "1e-6")
    type_into(qtbot, dialog.members_box, "12")
    type_into(qtbot, dialog.until_box, "3")
    type_into(qtbot, dialog.dt_box, "0.05")
    qtbot.keyClick(dialog.dt_box, Qt.Key.Key_Return)
    panel = window.ensemble
    qtbot.waitUntil(lambda: panel.frame is not None or bool(panel.error), timeout=120000)
    assert not panel.error
    assert panel.progress_bar.value() == 1000
    frame = panel.frame
    first = frame.groupby("run").first()
    assert len(first) == 12 and (first["status"] == "ok").all()
    q0 = first["param:lower.q0"].to_numpy()
    assert np.allclose(np.diff(q0), 1e-6, rtol=1e-6, atol=0)  # 1e-6 rad apart
    # one curve per member in the Ensemble dock, the members listed
    assert len(panel._curves) == 12 and panel.member_list.count() == 12
    assert panel.quantity_box.currentText().startswith("q:")
    # chaos: 1e-6 rad apart at the start, visibly apart after 3 s
    last = frame[frame["time_index"] == frame["time_index"].max()]
    assert np.ptp(last["q:lower[0]"]) > 1e-4
    # ghosts: one translucent sphere per member and body in the 3-D view
    assert panel._ghosts is not None and panel._ghosts.count == 12 * 2
    # dragging the time slider to the start puts the ghosts back at the initial pose
    end = panel._ghosts.points().copy()
    slider = panel.time_slider
    slider.setFocus()
    qtbot.keyClick(slider, Qt.Key.Key_Home)
    assert slider.value() == 0
    start = panel._ghosts.points()
    assert np.abs(start - end).max() > 0.1
    assert np.ptp(start[1::2], axis=0).max() < 1e-5  # the lower bobs, 1e-6 rad apart
    # choose member 7 in the list with the mouse and open it as a normal run
    lst = panel.member_list
    item = lst.item(7)
    lst.scrollToItem(item)
    qtbot.mouseClick(
        lst.viewport(), Qt.MouseButton.LeftButton, pos=lst.visualItemRect(item).center()
    )
    assert lst.currentRow() == 7
    qtbot.mouseClick(panel.open_button, Qt.MouseButton.LeftButton)
    doc = window.model_editor.document
    lower = next(b for b in doc.bodies if b.name == "lower")
    assert lower.q[0] == q0[7]
    qtbot.waitUntil(lambda: window.simulation.document is doc, timeout=20000)
