""" "As fast as possible" in the real window: the double pendulum example, pacing chosen with
the keyboard in the toolbar's pacing box, played and paused with the Space key on the 3-D
view; the State it stops at is, bit for bit and in as many integrator steps, the one a
headless TimeStepper run with the same maximum step reaches at that time; a headless run
reporting every interval takes no fewer steps."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from app.document import build, model_io
from app.document.examples import example_path
from app.main_window import MainWindow
from app.simulation.session import FAST_HORIZON_INTERVALS
from tests.app.test_fast_pacing import headless_run

pytestmark = pytest.mark.gui


def test_fast_run_in_the_window_equals_the_headless_run(qtbot, qsettings):
    window = MainWindow(model_path=example_path("double_pendulum"), settings=qsettings)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    if QApplication.activeWindow() is not window:  # no window manager under Xvfb
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            QApplication.setActiveWindow(window)
    panel = window.simulation
    qtbot.waitUntil(lambda: panel.snapshot is not None, timeout=10000)
    try:
        box = panel.pacing_box
        box.setFocus()
        QTest.keyClick(box, Qt.Key.Key_Home)
        QTest.keyClick(box, Qt.Key.Key_Down)
        assert box.currentText() == "as fast as possible"
        qtbot.waitUntil(lambda: panel.session.settings.pacing.value == box.currentText())
        view = window.viewport.interactor_widget
        QTest.keyClick(view, Qt.Key.Key_Space)
        qtbot.waitUntil(lambda: panel.snapshot.running and panel.snapshot.time > 3.0, timeout=30000)
        QTest.keyClick(view, Qt.Key.Key_Space)
        qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
        session = panel.session
        stepper = session._stepper
        state = stepper.getState()
        steps = stepper.getIntegrator().getNumStepsTaken()
        settings = session.settings
        assert panel.snapshot.time == state.getTime()
        assert not panel.snapshot.error
    finally:
        window.close()
    t_final = state.getTime()
    built = build(model_io.load(example_path("double_pendulum")))
    grid = FAST_HORIZON_INTERVALS * settings.report_interval
    ref, ref_steps = headless_run(built, t_final, grid, settings, settings.report_interval)
    assert ref.getTime() == t_final
    assert np.array_equal(state.getQ(), ref.getQ())
    assert np.array_equal(state.getU(), ref.getU())
    assert steps == ref_steps
    # The run a headless user would make, reporting every interval, takes no fewer steps (its
    # States part from these within seconds: the double pendulum is chaotic; see
    # test_fast_pacing for the accuracy on a chain).
    built = build(model_io.load(example_path("double_pendulum")))
    _, every_steps = headless_run(built, t_final, settings.report_interval, settings)
    assert 0.9 * every_steps <= steps <= every_steps
