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


def test_a_structural_edit_samples_the_new_model_once():
    """A rebuilt model's start is sampled when it is installed; the command's end does not
    sample it again on a copy of its State (on a 20,000-body chain that copy and its
    realization cost 0.07-0.19 s of every structural edit). A pose set afterwards is
    sampled again."""
    import dataclasses

    from app.branch_switch import ModelVersion

    data = model_io.load(example_path("double_pendulum")).data
    session = SimulationSession(build(data))
    session.start()
    try:
        _wait_for(lambda: session.latest() is not None)
        sampled = []
        original = session._sample_row

        def counting_sample_row(state):
            sampled.append(state)
            return original(state)

        session._sample_row = counting_sample_row
        last = data.bodies[-1]
        third = dataclasses.replace(last, name="third", parent=last.name)
        longer = dataclasses.replace(data, bodies=[*data.bodies, third])
        session.rebuild(ModelVersion(longer), "topology")
        _wait_for(lambda: [b.name for b in session.built.data.bodies][-1] == "third")
        time.sleep(0.3)  # anything the worker would do after the command
        assert len(sampled) == 1 and sampled[0] is session._state
        assert len(session.samples) == 1
        session.set_q("third", 0, 0.3)
        _wait_for(lambda: len(sampled) == 2)
        assert sampled[1] is not session._state  # (a copy: the live State keeps its stages)
        assert len(session.samples) == 1
    finally:
        session.stop()
