"""While the view draws a frame the worker waits between steps (software OpenGL's threads get
the CPU): the session side (waits before every step while the GUI is busy, bounded), and the
window side (the view clears the session's gui_idle while it renders and sets it after)."""

from __future__ import annotations

import math
import time

import pytest

from app.simulation.session import (
    FAST_OWN_CORE_SHARE,
    GUI_WAIT_MAX,
    Pacing,
    Settings,
    SimulationSession,
)
from tests.app.sim_models import chain


class RecordingEvent:
    """Stands in for threading.Event: records the worker's waits."""

    def __init__(self, idle: bool) -> None:
        self.idle = idle
        self.waits: list[float] = []

    def is_set(self) -> bool:
        return self.idle

    def wait(self, timeout=None) -> bool:
        self.waits.append(timeout)
        return self.idle


@pytest.mark.parametrize("idle", [True, False])
def test_worker_waits_before_each_step_while_the_gui_draws(idle, monkeypatch):
    from engine.integrators import TimeStepper

    calls = []  # the stepping calls (a paced run's stepTo may also return short of its time)
    step_to = TimeStepper.stepTo
    monkeypatch.setattr(TimeStepper, "stepTo", lambda s, t: calls.append(t) or step_to(s, t))
    session = SimulationSession(chain(2), Settings(report_interval=0.01))  # not started
    session.gui_idle = RecordingEvent(idle)
    session._cmd_step()  # one reporting interval, here in this thread
    assert session.samples.total >= 1 and session._state.getTime() == pytest.approx(0.01)
    assert calls
    if idle:
        assert session.gui_idle.waits == []
    else:
        assert session.gui_idle.waits == [GUI_WAIT_MAX] * len(calls)


@pytest.mark.parametrize("own_core", [True, False])
def test_fast_worker_waits_for_frames_only_while_it_lacks_a_core(own_core):
    """As fast as possible, a worker whose stepping calls get a whole core goes on while the
    view draws (a wait would only idle that core); one that gets less waits before each call."""
    session = SimulationSession(chain(2), Settings(pacing=Pacing.FAST))  # not started
    session.gui_idle = RecordingEvent(False)  # the view is drawing all along
    session._core_share = 1.0 if own_core else 0.3
    session.note_core_share = lambda cpu, wall: None  # the share stays as given
    assert session.has_own_core() is own_core
    session._advance(math.inf, time.perf_counter() + 0.3)
    assert session._stepper.getTime() > 0
    waits = session.gui_idle.waits
    if own_core:
        assert waits == []
    else:
        assert waits and set(waits) == {GUI_WAIT_MAX}


def test_core_share_follows_the_stepping_calls():
    session = SimulationSession(chain(1), Settings(pacing=Pacing.FAST))  # not started
    assert not session.has_own_core()  # nothing measured: wait, as on a busy machine
    session.note_core_share(0.010, 0.0101)
    assert session.has_own_core()
    for _ in range(3):  # a few calls that got a third of a core
        session.note_core_share(0.003, 0.009)
    assert not session.has_own_core()
    for _ in range(20):
        session.note_core_share(0.0095, 0.010)
    assert session._core_share >= FAST_OWN_CORE_SHARE and session.has_own_core()
    session.note_core_share(0.0001, 0.0002)  # under a millisecond: left out
    assert session.has_own_core()


@pytest.mark.gui
def test_view_marks_the_gui_busy_while_it_renders(qtbot, qsettings):
    from app.main_window import MainWindow
    from tests.app.sim_models import chain as make_chain

    window = MainWindow(settings=qsettings, restore_layout=False)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    panel = window.simulation
    panel.load_built(make_chain(2))
    qtbot.waitUntil(lambda: panel.snapshot is not None, timeout=10000)
    seen = []
    # recorded inside each render (VTK's StartEvent comes from within Render)
    window.viewport.render_window.AddObserver(
        "StartEvent", lambda *_: seen.append(panel.session.gui_idle.is_set())
    )
    window.viewport.request_render()
    qtbot.waitUntil(lambda: len(seen) > 0, timeout=5000)
    assert not any(seen)  # busy during every render
    assert panel.session.gui_idle.is_set()  # and idle after it
    window.close()
