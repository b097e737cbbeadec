"""Pause in the middle of one long step (issue 22: "Every long computation must be
interruptible within a second"): a ladder of 600 Rods takes seconds per integrator step;
a click on Pause while the worker is inside one stops the run within a second, the worker
idle (the State lock free) and the State at the last completed step; Ctrl+Q inside one
closes the window and ends the worker within a second."""

from __future__ import annotations

import sys
import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from app.main_window import MainWindow
from tests.app.test_simulate_reliability import _ladder
from tests.app.window_activation import activate

pytestmark = pytest.mark.gui


def _click(window, key: str) -> None:
    button = window.toolbar.widgetForAction(window.sim_actions[key])
    QTest.mouseClick(button, Qt.MouseButton.LeftButton)


def _inside_a_step(session) -> bool:
    """The worker thread is inside the compiled constrained steps (its Python frames, read
    from the outside: the kernel itself runs without the interpreter)."""
    frame = sys._current_frames().get(session._thread.ident)
    while frame is not None:
        if frame.f_code.co_name == "_takeConstrainedCompiledSteps":
            return True
        frame = frame.f_back
    return False


def _worker_idle(session) -> bool:
    """The worker has stopped stepping: the run is paused and it holds no State lock."""
    snap = session.latest()
    if snap is None or snap.running:
        return False
    lock = session._state.getStateLock()
    if not lock.acquire(blocking=False):
        return False
    lock.release()
    return True


def test_pause_and_close_inside_a_multi_second_step_act_within_a_second(qtbot, qsettings, tmp_path):
    path = _ladder(tmp_path, 600, both=True)
    window = MainWindow(model_path=path, settings=qsettings, restore_layout=False)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.simulation.snapshot is not None, timeout=60000)
    session = window.simulation.session
    _click(window, "play")
    pause = window.sim_actions["pause"]
    qtbot.waitUntil(lambda: pause.isEnabled() and _inside_a_step(session), timeout=60000)
    qtbot.wait(300)  # well inside the first step, which takes seconds
    integ = session._stepper.getIntegrator()
    assert _inside_a_step(session) and integ.getNumStepsTaken() == 0
    clicked = time.monotonic()
    _click(window, "pause")
    qtbot.waitUntil(lambda: _worker_idle(session), timeout=30000)
    took = time.monotonic() - clicked
    assert took < 1.0, f"the worker went idle {took:.2f} s after Pause"
    assert integ.getNumStepsTaken() == 0  # the step in progress was dropped
    assert session.latest().time == 0.0
    play = window.sim_actions["play"]
    qtbot.waitUntil(play.isEnabled, timeout=5000)

    # closing the window inside a step: the worker ends within a second, not left behind
    _click(window, "play")
    qtbot.waitUntil(lambda: _inside_a_step(session), timeout=30000)
    qtbot.wait(300)
    assert _inside_a_step(session)
    worker = session._thread
    activate(qtbot, window)
    closing = time.monotonic()
    qtbot.keyClick(window, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
    assert not window.isVisible(), "Ctrl+Q did not close the window"
    worker.join(5)
    took = time.monotonic() - closing
    assert not worker.is_alive() and took < 1.0, f"the worker ended {took:.2f} s after Ctrl+Q"
