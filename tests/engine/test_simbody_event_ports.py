"""Simbody event usage ported line by line (issue 21): announced times in the past are
ignored, and a witness that reaches zero and stays there triggers once."""

from __future__ import annotations

import pytest

from engine import (
    Body,
    Force,
    GeneralForceSubsystem,
    Inertia,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    RungeKuttaMersonIntegrator,
    SimbodyMatterSubsystem,
    Stage,
    TimeStepper,
    Transform,
    Vec3,
    YAxis,
)
from engine.common.events import (
    ScheduledEventHandler,
    ScheduledEventReporter,
    TriggeredEventReporter,
)


def _pendulum():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.Gravity(forces, matter, -YAxis, 9.81)
    body = Body.Rigid(MassProperties(1.0, Vec3(0), Inertia(1)))
    pendulum = MobilizedBody.Pin(
        matter.Ground(), Transform(Vec3(0)), body, Transform(Vec3(0, 1, 0))
    )
    return system, pendulum


class FixedTimeHandler(ScheduledEventHandler):
    """getNextEventTime always answers 0.5, before and after it has passed."""

    def __init__(self) -> None:
        self.times: list[float] = []

    def getNextEventTime(self, state, includeCurrentTime):
        return 0.5

    def handleEvent(self, state, accuracy):
        self.times.append(state.getTime())
        return False


class FixedTimeReporter(ScheduledEventReporter):
    def __init__(self) -> None:
        self.times: list[float] = []

    def getNextEventTime(self, state, includeCurrentTime):
        return 0.5

    def handleEvent(self, state):
        self.times.append(state.getTime())


class StepDown(TriggeredEventReporter):
    """Witness 1 before t = 1 and exactly 0 from then on (Stage::Time)."""

    def __init__(self) -> None:
        super().__init__(Stage.Time)
        self.times: list[float] = []

    def getValue(self, state):
        return 1.0 if state.getTime() < 1 else 0.0

    def handleEvent(self, state):
        self.times.append(state.getTime())


@pytest.mark.parametrize("kind", [FixedTimeHandler, FixedTimeReporter])
def test_a_scheduled_time_already_past_is_ignored(kind):
    system, pendulum = _pendulum()
    watcher = kind()
    if kind is FixedTimeHandler:
        system.addEventHandler(watcher)
    else:
        system.addEventReporter(watcher)
    state = system.realizeTopology()
    pendulum.setOneQ(state, 0, 0.5)
    integ = RungeKuttaMersonIntegrator(system)
    ts = TimeStepper(system, integ)
    ts.initialize(state)
    ts.stepTo(1.0)
    assert ts.getTime() == 1.0
    assert watcher.times == [0.5]
    ts.stepTo(2.0)
    assert ts.getTime() == 2.0 and watcher.times == [0.5]


def test_a_witness_that_drops_to_zero_and_stays_there_triggers_once():
    system, pendulum = _pendulum()
    reporter = StepDown()
    system.addEventReporter(reporter)
    state = system.realizeTopology()
    pendulum.setOneQ(state, 0, 0.5)
    integ = RungeKuttaMersonIntegrator(system)
    ts = TimeStepper(system, integ)
    ts.initialize(state)
    ts.stepTo(1.001)
    assert ts.getTime() == 1.001
    assert len(reporter.times) == 1
    assert reporter.times[0] == pytest.approx(1.0, abs=1e-3)
    # Simbody takes 5 steps; the repeated trigger took 148.
    assert integ.getNumStepsTaken() <= 8
    ts.stepTo(1.5)
    assert len(reporter.times) == 1
