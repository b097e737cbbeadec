"""Simulation > Ensemble… in the real window under Xvfb, driven by real input: the menu is
clicked, the dialog filled with key clicks and run; the ensemble runs in the background with
progress, the plot shows one curve per member or the band the members span, the 3-D view draws
the ghosts, and a member chosen in the list, or clicked as a ghost in the 3-D view, opens as a
normal run; the ghosts go when another model is opened and come back with the Ghosts box; Stop
and closing the window end a running ensemble at once."""

from __future__ import annotations

import os
import threading
import time
import warnings

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication

from app.document.examples import example_path
from app.main_window import MainWindow
from tests.app.window_activation import activate

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
    start = time.perf_counter()
    win.close()
    assert time.perf_counter() - start < 2.0  # closing after an ensemble is prompt
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


def run_ensemble(qtbot, window, members, until, dt, spread, parameter=None, wait=True):
    """Simulation > Ensemble…, the dialog filled by key clicks, Return; waits for the result
    (with ``wait``)."""
    dialog = open_ensemble_dialog(qtbot, window)
    if parameter is not None:
        type_into(qtbot, dialog.parameter_box.lineEdit(), parameter)
    type_into(qtbot, dialog.spread_box, spread)
    type_into(qtbot, dialog.members_box, members)
    type_into(qtbot, dialog.until_box, until)
    type_into(qtbot, dialog.dt_box, dt)
    qtbot.keyClick(dialog.dt_box, Qt.Key.Key_Return)
    panel = window.ensemble
    if not wait:
        return panel
    qtbot.waitUntil(lambda: panel.frame is not None or bool(panel.error), timeout=60000)
    assert not panel.error
    return panel


def read_view(window) -> np.ndarray:
    """The 3-D view's pixels, (h, w, 3), row 0 at the bottom (VTK display rows)."""
    from vtkmodules.util.numpy_support import vtk_to_numpy
    from vtkmodules.vtkRenderingCore import vtkWindowToImageFilter

    window.viewport.render_window.Render()
    grabber = vtkWindowToImageFilter()
    grabber.SetInput(window.viewport.render_window)
    grabber.ReadFrontBufferOff()
    grabber.SetInputBufferTypeToRGB()
    grabber.Update()
    image = grabber.GetOutput()
    w, h, _ = image.GetDimensions()
    return vtk_to_numpy(image.GetPointData().GetScalars()).reshape(h, w, -1)[:, :, :3].copy()


def test_double_pendulum_chaos_ensemble_from_the_menu(qtbot, window):
    dialog = open_ensemble_dialog(qtbot, window)
    assert dialog.parameter_box.currentText() == "lower.q0"
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert not dialog.isVisible()
    panel = run_ensemble(qtbot, window, "12", "3", "0.05", "1e-6")
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
    # the band instead of the curves: chosen with the keyboard in the Display box
    shown = panel.quantity_box.currentText()
    values = np.stack(
        [frame[frame["run"] == run][shown].to_numpy() for run in sorted(first.index)], axis=1
    )
    box = panel.display_box
    box.setFocus()
    qtbot.keyClick(box, Qt.Key.Key_Down)
    assert box.currentText() == "Band: min–max" and not panel._curves
    times, lower, upper, median = panel.band_data
    assert np.array_equal(times, np.sort(frame["t"].unique()))
    assert np.array_equal(lower, values.min(axis=1)) and np.array_equal(upper, values.max(axis=1))
    assert np.array_equal(median, np.median(values, axis=1))
    assert np.ptp(upper - lower) > 1e-4  # the band opens up as the members diverge
    drawn = [item for item in panel.plot.listDataItems() if item.yData is not None]
    assert any(np.array_equal(item.yData, upper) for item in drawn)
    assert any(np.array_equal(item.yData, lower) for item in drawn)
    qtbot.keyClick(box, Qt.Key.Key_Down)
    assert box.currentText() == "Band: 5–95 %"
    _, lower, upper, _ = panel.band_data
    assert np.allclose(lower, np.percentile(values, 5, axis=1), rtol=0, atol=1e-15)
    assert np.allclose(upper, np.percentile(values, 95, axis=1), rtol=0, atol=1e-15)
    assert (lower > values.min(axis=1)).any() and (upper < values.max(axis=1)).any()
    qtbot.keyClick(box, Qt.Key.Key_Home)
    assert box.currentText() == "Every member" and len(panel._curves) == 12
    assert panel.band_data is None
    # ghosts: one translucent sphere per member and body in the 3-D view
    assert panel._ghosts is not None and panel._ghosts.count == 12 * 2
    # dragging the time slider to the start puts the ghosts back at the initial pose
    end = panel._ghosts.points().copy()
    slider = panel.time_slider
    slider.setFocus()
    qtbot.keyClick(slider, Qt.Key.Key_Home)
    assert slider.value() == 0
    assert panel.time_label.text() == "t = 0 s" and panel._time_line.value() == 0.0
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
    # the 3-D view shows the opened run: the study's ghosts are gone, the dock keeps the study
    assert not panel.ghosts_shown and not panel.ghosts_box.isChecked()
    assert panel.member_list.count() == 12 and len(panel._curves) == 12
    # ticking Ghosts (a real click) overlays the study again
    box = panel.ghosts_box
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=box.rect().center())
    assert box.isChecked() and panel.ghosts_shown and panel._ghosts.count == 12 * 2


def test_clicking_a_ghost_opens_that_member(qtbot, window):
    """Three members of the upper angle 0.6 rad apart: a real click on the pixel where member
    2's lower ghost is drawn opens member 2; a click on empty background opens nothing."""
    panel = run_ensemble(qtbot, window, "3", "0.1", "0.05", "0.6", parameter="upper.q0")
    first = panel.frame.groupby("run").first()
    q0 = first["param:upper.q0"].to_numpy()
    assert np.allclose(np.diff(q0), 0.6)
    ghosts = panel._ghosts
    assert ghosts.count == 6  # member k: its upper body at 2k, its lower at 2k + 1
    widget = window.viewport.interactor_widget
    renderer = window.viewport.renderer
    height = window.viewport.render_window.GetSize()[1]
    before = window.model_editor.document
    # empty background (a corner of the view): nothing opens
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton, pos=QPoint(4, 4))
    qtbot.wait(100)
    assert window.model_editor.document is before
    # where VTK draws member 2's lower ghost: the pixel changes when the ghosts are hidden
    renderer.SetWorldPoint(*ghosts.points()[5], 1.0)
    renderer.WorldToDisplay()
    x, y, _ = renderer.GetDisplayPoint()
    x, y = int(round(x)), int(round(y))
    assert 0 < x < widget.width() and 0 < y < widget.height()
    shown = read_view(window)[y, x].astype(int)
    ghosts.actor.VisibilityOff()
    hidden = read_view(window)[y, x].astype(int)
    ghosts.actor.VisibilityOn()
    read_view(window)
    assert np.abs(shown - hidden).max() > 20
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton, pos=QPoint(x, height - 1 - y))
    qtbot.waitUntil(lambda: window.model_editor.document is not before, timeout=5000)
    doc = window.model_editor.document
    upper = next(b for b in doc.bodies if b.name == "upper")
    assert upper.q[0] == q0[2]
    assert panel.member_list.currentRow() == 2
    qtbot.waitUntil(lambda: window.simulation.document is doc, timeout=20000)
    # the opened run replaces the ghosts in the view: they are no longer drawn there, and a
    # click where member 2's ghost was opens nothing more
    assert not panel.ghosts_shown and not panel.ghosts_box.isChecked()
    assert np.abs(read_view(window)[y, x].astype(int) - shown).max() > 20
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton, pos=QPoint(x, height - 1 - y))
    qtbot.wait(100)
    assert window.model_editor.document is doc


def test_stop_and_closing_end_a_running_ensemble_at_once(qtbot, qsettings):
    """A long ensemble (100 members for 60 s): Stop (a real click) while its members are
    built ends it within 2 s with a message and nothing drawn; a second one is advancing when
    Ctrl+Q closes the window, which takes less than 2 s and leaves no thread or child process
    behind."""
    import psutil

    from app.studies.ensemble import BUILD_SHARE

    before = set(threading.enumerate())
    win = MainWindow(
        model_path=example_path("double_pendulum"), settings=qsettings, restore_layout=False
    )
    win.resize(1100, 760)
    win.show()
    qtbot.waitExposed(win)
    qtbot.waitUntil(lambda: win.simulation.snapshot is not None, timeout=60000)
    activate(qtbot, win)
    panel = run_ensemble(qtbot, win, "100", "60", "0.1", "1e-6", wait=False)
    qtbot.waitUntil(lambda: panel._progress > 0, timeout=60000)  # building the members
    thread = panel._thread
    qtbot.mouseClick(panel.stop_button, Qt.MouseButton.LeftButton)
    thread.join(timeout=2.0)
    assert not thread.is_alive()
    qtbot.waitUntil(lambda: "stopped" in panel.status_label.text(), timeout=2000)
    assert panel.frame is None and not panel.ghosts_shown and not panel.stop_button.isEnabled()
    activate(qtbot, win)
    panel = run_ensemble(qtbot, win, "100", "60", "0.1", "1e-6", wait=False)
    qtbot.waitUntil(lambda: panel._progress > BUILD_SHARE, timeout=60000)  # advancing
    thread = panel._thread
    assert thread.is_alive()
    activate(qtbot, win)
    start = time.perf_counter()
    qtbot.keyClick(win, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)  # Quit
    closed_after = time.perf_counter() - start
    assert not win.isVisible(), "Ctrl+Q did not close the window"
    assert closed_after < 2.0, f"closing took {closed_after:.2f} s"
    assert not thread.is_alive()
    left = [t for t in set(threading.enumerate()) - before if t.is_alive()]
    assert not left, left
    display_server = int(os.environ.get("MBSTUDIO_TEST_DISPLAY_PID", "-1"))  # tests/conftest.py
    assert not [p for p in psutil.Process().children(recursive=True) if p.pid != display_server]
    win.deleteLater()
