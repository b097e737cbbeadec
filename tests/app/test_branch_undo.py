"""Undo and redo around a switch of branches, driven by real clicks and key presses: a switch
to a branch run with other parameters is undone (and redone) as one command, without forking
the history again."""

from __future__ import annotations

import warnings

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from app.document.examples import example_path
from app.main_window import MainWindow

pytestmark = pytest.mark.gui

CTRL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier


def _click_action(window, key: str) -> None:
    button = window.toolbar.widgetForAction(window.sim_actions[key])
    QTest.mouseClick(button, Qt.MouseButton.LeftButton)


def _choose_branch(bar, qtbot) -> None:
    """Open the branch switcher with a click and choose the (one) branch in its list."""
    box = bar.branch_box
    assert box.count() == 2
    QTest.mouseClick(box, Qt.MouseButton.LeftButton)
    view = box.view()
    qtbot.waitUntil(view.isVisible, timeout=3000)
    QTest.keyClick(view, Qt.Key.Key_Down)
    QTest.keyClick(view, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not view.isVisible(), timeout=3000)


def _click_timeline(timeline, t: float) -> float:
    """Click the timeline at the pixel column of time ``t``; the time under that pixel."""
    x = round(timeline.x_of(t))
    clicked = timeline.time_at(x)
    QTest.mouseClick(timeline, Qt.MouseButton.LeftButton, pos=QPoint(x, timeline.height() // 2))
    return clicked


def _key(qtbot, window, widget, key, modifiers) -> None:
    """A key press on ``widget`` in the active ``window`` (shortcuts need an active window;
    Xvfb has no window manager to activate it)."""
    window.activateWindow()
    if QApplication.activeWindow() is not window:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            QApplication.setActiveWindow(window)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=3000)
    widget.setFocus()
    QTest.keyClick(widget, key, modifiers)


def test_undo_after_a_branch_switch_switches_back_without_a_new_branch(qtbot, qsettings):
    window = MainWindow(model_path=example_path("double_pendulum"), settings=qsettings)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.simulation.snapshot is not None, timeout=10000)
    panel, timeline, bar = window.simulation, window.timeline.timeline, window.timeline
    editor = window.model_editor
    editor.interactive = False
    stack = editor.undo_stack

    def shown_mass() -> float:
        return float(editor.properties.field("mass").text())

    def lines() -> tuple:
        return session.current_line(), [name for name, *_ in session.branches()]

    try:
        _click_action(window, "play")
        qtbot.waitUntil(lambda: panel.snapshot.time > 0.5, timeout=15000)
        _click_action(window, "pause")
        qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
        session = panel.session
        old_end = session.history_span()[1]
        fork = session.recorded_time(_click_timeline(timeline, 0.2))
        qtbot.waitUntil(lambda: panel.snapshot.time == fork, timeout=5000)
        # Type mass 3 for "lower" in Properties: the run forks there; run on a little.
        view = editor.tree.view
        rect = view.visualRect(editor.tree.model.index_of("body:lower"))
        QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
        field = editor.properties.field("mass")
        old_mass = float(field.text())
        field.setFocus()
        field.selectAll()
        QTest.keyClicks(field, "3")
        QTest.keyClick(field, Qt.Key.Key_Return)
        qtbot.waitUntil(
            lambda: lines() == ("Main line", ["Branch 1, before the edit"]), timeout=5000
        )
        _click_action(window, "play")
        qtbot.waitUntil(lambda: panel.snapshot.time > fork + 0.2, timeout=10000)
        _click_action(window, "pause")
        qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
        new_end = session.history_span()[1]
        qtbot.waitUntil(bar.branch_box.isVisible, timeout=5000)
        assert stack.count() == 1

        # Switch to the branch left by the edit: its parameters show in Properties.
        _choose_branch(bar, qtbot)
        qtbot.waitUntil(lambda: session.history_span()[1] == old_end, timeout=5000)
        qtbot.waitUntil(lambda: shown_mass() == old_mass, timeout=5000)
        assert lines() == ("Branch 1", ["Main line"])
        assert stack.count() == 2 and stack.undoText() == "Switch to Branch 1"
        # Look at a moment in the middle of the branch, then Ctrl+Z: back to the edited line
        # with its mass; no branch is made, whatever moment was shown.
        _click_timeline(timeline, (fork + old_end) / 2)
        qtbot.waitUntil(lambda: fork < panel.snapshot.time < old_end, timeout=5000)
        _key(qtbot, window, timeline, Qt.Key.Key_Z, CTRL)
        qtbot.waitUntil(lambda: session.history_span()[1] == new_end, timeout=5000)
        qtbot.waitUntil(lambda: shown_mass() == 3.0, timeout=5000)
        qtbot.waitUntil(lambda: session.built.data.body("lower").mass == 3.0, timeout=5000)
        assert lines() == ("Main line", ["Branch 1, before the edit"])
        assert bar.branch_box.count() == 2
        qtbot.waitUntil(lambda: bar.branch_box.itemText(0) == "Main line (shown)", timeout=5000)
        # Redo (Ctrl+Shift+Z) switches to the branch again.
        _key(qtbot, window, timeline, Qt.Key.Key_Z, CTRL | SHIFT)
        qtbot.waitUntil(lambda: session.history_span()[1] == old_end, timeout=5000)
        qtbot.waitUntil(lambda: shown_mass() == old_mass, timeout=5000)
        qtbot.waitUntil(lambda: session.built.data.body("lower").mass == old_mass, timeout=5000)
        assert lines() == ("Branch 1", ["Main line"])
        # Undo twice: the switch, then the edit itself (shown at the end of its line: nothing
        # later to keep, so still one branch).
        _key(qtbot, window, timeline, Qt.Key.Key_Z, CTRL)
        qtbot.waitUntil(lambda: shown_mass() == 3.0, timeout=5000)
        _key(qtbot, window, timeline, Qt.Key.Key_Z, CTRL)
        qtbot.waitUntil(lambda: shown_mass() == old_mass, timeout=5000)
        qtbot.waitUntil(lambda: session.built.data.body("lower").mass == old_mass, timeout=5000)
        assert session.history_span()[1] == new_end and stack.index() == 0
        assert lines() == ("Main line", ["Branch 1, before the edit"])
    finally:
        window.close()


def test_the_worker_switches_to_a_branch_object_and_back_and_rebuilds_if_it_is_gone():
    """SimulationSession.switch_to_branch: the request holds the branch to bring back; the
    worker leaves in it the branch the replaced future became (so it switches back), and a
    branch no longer held makes the worker simulate the request's model instead."""
    import dataclasses
    import time

    from app.branch_switch import BranchSwitch, ModelVersion
    from app.document import build, model_io
    from app.simulation.session import Settings, SimulationSession

    def wait_for(predicate, timeout: float = 20.0) -> None:
        end = time.monotonic() + timeout
        while not predicate():
            assert time.monotonic() < end, "condition not met in time"
            time.sleep(0.01)

    data = model_io.load(example_path("double_pendulum")).data
    session = SimulationSession(build(data), Settings(report_interval=0.05))
    session.start()
    try:
        session.play()
        wait_for(lambda: session.history_span()[1] >= 0.3)
        session.pause()
        wait_for(lambda: not session.running)
        fork = session.recorded_time(0.1)
        session.show_recorded(fork)
        heavier = data.copy()
        heavier.bodies[-1] = dataclasses.replace(heavier.bodies[-1], mass=3.0)
        session.rebuild(ModelVersion(heavier), "parameters")  # forks at the State shown
        wait_for(lambda: len(session.branches()) == 1)
        session.play()  # the edited line gets a future of its own
        wait_for(lambda: session.history_span()[1] >= fork + 0.1)
        session.pause()
        wait_for(lambda: not session.running)
        (before_edit,) = session.history_branches()
        request = BranchSwitch(before_edit)
        session.switch_to_branch(request)
        wait_for(lambda: session.current_line().startswith("Branch 1"))
        wait_for(lambda: session.built.data.bodies[-1].mass == data.bodies[-1].mass)
        assert [name for name, *_ in session.branches()] == ["Main line"]
        wait_for(lambda: request.branch is not before_edit)  # set after the switch
        assert request.branch is session.history_branches()[0]
        session.switch_to_branch(request)  # the same request goes back
        wait_for(lambda: session.current_line() == "Main line")
        wait_for(lambda: session.built.data.bodies[-1].mass == 3.0)
        assert [name for name, *_ in session.branches()] == ["Branch 1, before the edit"]
        # A branch that is gone (a reset clears the history): the request's model runs.
        gone = BranchSwitch(request.branch, ModelVersion(data))
        session.reset()
        wait_for(lambda: session.branches() == [])
        session.switch_to_branch(gone)
        wait_for(lambda: session.built.data.bodies[-1].mass == data.bodies[-1].mass)
        assert gone.branch is None and session.branches() == []
    finally:
        session.stop()
