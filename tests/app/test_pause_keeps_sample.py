"""Commands that change no value of the State shown (Pause, Play, Settings, Realize to) leave
the plot sample of a model not run yet as it is: the worker realizes nothing for them (on a
model with hundreds of constraints one realization to Acceleration costs as much as a step,
which made a Pause inside a multi-second step take over half a second)."""

from __future__ import annotations

import time

from app.document import build, model_io
from app.document.examples import example_path
from app.simulation.session import SimulationSession
from engine import Stage


def _wait_for(predicate, timeout: float = 20.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, "condition not met in time"
        time.sleep(0.01)


def test_pause_and_settings_realize_nothing_on_a_model_not_run_yet():
    session = SimulationSession(build(model_io.load(example_path("double_pendulum")).data))
    session.start()
    try:
        _wait_for(lambda: session.latest() is not None)
        realized: list[Stage] = []
        system = session.system
        original = system.realize

        def counting_realize(state, stage=Stage.Report):
            realized.append(Stage(stage))
            return original(state, stage)

        system.realize = counting_realize
        published = session.latest()
        session.pause()
        session.set_settings(accuracy=1e-4)
        _wait_for(lambda: session.latest() is not published and session.settings.accuracy == 1e-4)
        time.sleep(0.2)  # anything the worker would do after the commands
        assert realized == []
        assert len(session.samples) == 1 and session._state.getTime() == 0.0
    finally:
        session.stop()
