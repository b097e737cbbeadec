"""Pause during the Step button's one long step (issue 22: "Every long computation must be
interruptible within a second"): a ladder of 600 Rods takes seconds per integrator step;
a click on Pause while the worker is inside the step that a click on Step started drops
that step within a second, the State as before it and the status bar saying so."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from app.main_window import MainWindow
from tests.app.test_pause_long_step import _inside_a_step, _worker_idle
from tests.app.test_simulate_reliability import _ladder

pytestmark = pytest.mark.gui


def _click(window, key: str) -> None:
    button = window.toolbar.widgetForAction(window.sim_actions[key])
    QTest.mouseClick(button, Qt.MouseButton.LeftButton)


def test_pause_inside_the_step_of_the_step_button_drops_it_within_a_second(
    qtbot, qsettings, tmp_path
):
    path = _ladder(tmp_path, 600, both=True)
    window = MainWindow(model_path=path, settings=qsettings, restore_layout=False)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.simulation.snapshot is not None, timeout=60000)
    session = window.simulation.session
    pause = window.sim_actions["pause"]
    assert not pause.isEnabled()
    _click(window, "step")
    assert pause.isEnabled(), "Pause is not offered during a step"
    qtbot.waitUntil(lambda: _inside_a_step(session), timeout=60000)
    qtbot.wait(300)  # well inside the step, which takes seconds
    integ = session._stepper.getIntegrator()
    assert _inside_a_step(session) and integ.getNumStepsTaken() == 0
    clicked = time.monotonic()
    _click(window, "pause")
    qtbot.waitUntil(lambda: _worker_idle(session) and not session.stepping, timeout=30000)
    took = time.monotonic() - clicked
    assert took < 1.0, f"the worker went idle {took:.2f} s after Pause"
    assert integ.getNumStepsTaken() == 0  # the step in progress was dropped
    assert session._state.getTime() == 0.0
    qtbot.waitUntil(lambda: "interrupted" in window.statusBar().currentMessage(), timeout=5000)
    step = window.sim_actions["step"]
    qtbot.waitUntil(step.isEnabled, timeout=5000)
    assert not pause.isEnabled()
