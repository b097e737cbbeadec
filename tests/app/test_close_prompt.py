"""Closing the studio never waits for a busy simulation worker (issue 22: a window closed
while the worker was compiling the stepping kernels for the first time could not stop it).
The window closes at once; the worker, a daemon thread that touches no Qt object, ends by
itself when its long call returns. The compile is stood in for by an integrator factory that
blocks until the test lets it go; Play is clicked and the window closed with Ctrl+Q."""

from __future__ import annotations

import threading
import time

from PySide6.QtCore import Qt

from app.main_window import MainWindow
from app.simulation import session as session_module
from tests.app.sim_models import chain
from tests.app.window_activation import activate


def test_closing_during_a_long_compile_is_prompt(qtbot, qsettings, monkeypatch):
    entered, release = threading.Event(), threading.Event()
    real = session_module.make_integrator

    def slow_first_compile(*args, **kwargs):
        entered.set()
        release.wait(60)
        return real(*args, **kwargs)

    monkeypatch.setattr(session_module, "make_integrator", slow_first_compile)
    window = MainWindow(settings=qsettings, restore_layout=False)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.simulation.load_built(chain(2))
    session = window.simulation.session
    worker = session._thread
    play = window.toolbar.widgetForAction(window.sim_actions["play"])
    qtbot.mouseClick(play, Qt.MouseButton.LeftButton)
    assert entered.wait(30), "the run did not start"
    activate(qtbot, window)
    start = time.perf_counter()
    try:
        qtbot.keyClick(window, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
        closed_after = time.perf_counter() - start
        assert not window.isVisible(), "Ctrl+Q did not close the window"
        assert closed_after < 1.5, f"closing waited {closed_after:.2f} s for the worker"
        assert not window.simulation.timer.isActive()
        assert worker.is_alive() and worker.daemon  # still inside the long call: left behind
    finally:
        release.set()
    assert session_module.join_abandoned(timeout=30), "the abandoned worker did not end"
    assert not worker.is_alive()
    assert not session.running
