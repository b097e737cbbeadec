"""Every integrator the studio offers runs from the GUI, and the simulation worker survives
any exception in a command (issue 22: choosing SemiExplicitEuler killed the worker)."""

from __future__ import annotations

import threading
import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from app.main_window import MainWindow
from app.simulation.integrators import INTEGRATORS, make_integrator
from app.simulation.session import Pacing, Settings, SimulationSession
from tests.app.sim_models import chain


def worker_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "mbstudio-simulation" and t.is_alive()]


@pytest.mark.parametrize("name", list(INTEGRATORS))
def test_every_offered_integrator_is_constructible(name):
    built = chain(1)
    integ = make_integrator(name, built.system, 1e-3)
    assert integ.getMethodName()
    with pytest.raises(ValueError):
        make_integrator(name, built.system, -1e-3)
    with pytest.raises(ValueError):
        make_integrator(name, built.system, 1e-3, step_size=-0.01)


def test_the_worker_survives_an_exception_in_a_command(monkeypatch):
    session = SimulationSession(chain(1), Settings(pacing=Pacing.FAST))
    session.start()
    try:

        def broken(self):
            raise RuntimeError("a command that breaks")

        monkeypatch.setattr(SimulationSession, "_cmd_pause", broken)
        session.pause()
        deadline = time.monotonic() + 20
        while "a command that breaks" not in (session.latest() or Settings()).__dict__.get(
            "error", ""
        ):
            assert time.monotonic() < deadline, "the failure was not reported"
            time.sleep(0.02)
        assert worker_threads()
        monkeypatch.undo()
        session.play()
        deadline = time.monotonic() + 120  # the first play may compile the stepping kernels
        while session.latest().time < 0.05:
            assert time.monotonic() < deadline, "the worker no longer runs"
            time.sleep(0.02)
    finally:
        session.stop()
    assert not worker_threads()


@pytest.mark.gui
def test_choosing_semi_explicit_euler_in_the_combo_and_playing(qtbot, qsettings):
    window = MainWindow(settings=qsettings, restore_layout=False)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    panel = window.simulation
    panel.load_built(chain(1, q0=1.0))
    qtbot.waitUntil(lambda: panel.snapshot is not None, timeout=10000)
    step_edit = panel.step_size_edit
    assert not step_edit.isEnabled()  # RungeKuttaMerson controls its own step

    combo = panel.integrator_box
    QTest.mouseClick(combo, Qt.MouseButton.LeftButton)
    view = combo.view()
    qtbot.waitUntil(lambda: view.isVisible(), timeout=5000)
    target = combo.findText("SemiExplicitEuler")
    for _ in range(target - combo.currentIndex()):  # arrow down through the open list
        QTest.keyClick(view, Qt.Key.Key_Down)
    QTest.keyClick(view, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: combo.currentText() == "SemiExplicitEuler", timeout=5000)
    assert step_edit.isEnabled()

    step_edit.setFocus()
    QTest.keyClicks(step_edit, "0.002")
    QTest.keyClick(step_edit, Qt.Key.Key_Return)
    qtbot.waitUntil(
        lambda: (
            panel.session.settings.integrator == "SemiExplicitEuler"
            and panel.session.settings.step_size == 0.002
        ),
        timeout=5000,
    )

    # a negative accuracy is refused with a message, not silently replaced
    accuracy = panel.accuracy_box
    accuracy.lineEdit().selectAll()
    QTest.keyClicks(accuracy.lineEdit(), "-1e-3")
    QTest.keyClick(accuracy.lineEdit(), Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "accuracy" in window.statusBar().currentMessage().lower(), timeout=5000)
    assert 0 < panel.session.settings.accuracy < 1

    play = window.toolbar.widgetForAction(window.sim_actions["play"])
    QTest.mouseClick(play, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.snapshot.running and panel.snapshot.time > 0.1, timeout=120000)
    assert not panel.banner.isVisible()
    assert worker_threads()
    window.close()
    assert not worker_threads()
