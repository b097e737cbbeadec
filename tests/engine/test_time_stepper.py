"""TimeStepper: scheduled reporters and handlers, restarts, auto-update discrete variables."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.common.events import Event, PeriodicEventReporter
from engine.common.exceptions import InvalidArgumentError
from engine.common.stage import Stage
from engine.common.subsystem import Subsystem
from engine.common.system import System
from engine.integrators import (
    Integrator,
    RungeKuttaMersonIntegrator,
    SemiExplicitEulerIntegrator,
    TimeStepper,
)
from tests.engine.integration_fixtures import (
    KickAt,
    Oscillator,
    PeriodicLogger,
    RetuneAt,
    StepCounter,
    TunableOscillator,
    makeSystem,
)


class _Sampler(PeriodicEventReporter):
    """Records (t, x) at every multiple of its interval."""

    def __init__(self, osc: Oscillator, interval: float) -> None:
        super().__init__(interval)
        self.osc = osc
        self.samples: list[tuple[float, float]] = []

    def handleEvent(self, state) -> None:
        self.samples.append((state.getTime(), float(self.osc.q(state)[0])))


def _oscillatorSystem():
    osc = Oscillator(omega=1.0, x0=1.0, v0=0.0)
    system = System("oscillator")
    system.adoptSubsystem(osc)
    return osc, system


def test_periodic_reporter_fires_at_exactly_the_requested_times():
    osc, system = _oscillatorSystem()
    sampler = _Sampler(osc, 0.1)
    system.addEventReporter(sampler)
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(1e-8)
    stepper = TimeStepper(system, integ)
    stepper.initialize(system.realizeTopology())
    stepper.stepTo(2.05)
    times = [t for t, _ in sampler.samples]
    assert times == [k * 0.1 for k in range(21)]  # the reporter's own k*interval times
    for t, x in sampler.samples:
        assert x == pytest.approx(math.cos(t), abs=1e-6)


def test_reporting_does_not_change_the_trajectory():
    results = []
    for withReporter in (False, True):
        osc, system = _oscillatorSystem()
        if withReporter:
            system.addEventReporter(_Sampler(osc, 0.01))
        integ = RungeKuttaMersonIntegrator(system)
        integ.setAccuracy(1e-6)
        stepper = TimeStepper(system, integ)
        stepper.initialize(system.realizeTopology())
        stepper.stepTo(3.0)
        results.append((stepper.getState().getY().copy(), integ.getNumStepsTaken()))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    assert results[0][1] == results[1][1]


def test_scheduled_handler_runs_at_its_exact_time_and_changes_the_trajectory():
    osc, system = _oscillatorSystem()
    kick = KickAt(osc, 0.7371, du=2.0)
    system.addEventHandler(kick)
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(1e-9)
    stepper = TimeStepper(system, integ)
    stepper.setReportAllSignificantStates(True)
    stepper.initialize(system.realizeTopology())
    statuses = []
    while stepper.getTime() < 2.0:
        statuses.append(stepper.stepTo(2.0))
    assert kick.calls == [0.7371]
    i = statuses.index(Integrator.ReachedScheduledEvent)
    assert statuses[i + 1] == Integrator.StartOfContinuousInterval  # u changed: restart
    # After the kick: x(t) from the state at 0.7371 with u increased by 2.
    t0 = 0.7371
    x0, v0 = math.cos(t0), -math.sin(t0) + 2.0
    s = stepper.getState()
    t = s.getTime()
    assert t == 2.0
    expected = x0 * math.cos(t - t0) + v0 * math.sin(t - t0)
    assert osc.q(s)[0] == pytest.approx(expected, abs=1e-6)
    assert abs(osc.q(s)[0] - math.cos(t)) > 1.0  # the kick really happened


def test_handler_that_changes_nothing_does_not_restart_the_integrator():
    osc, system = _oscillatorSystem()
    logger = PeriodicLogger(0.25)
    system.addEventHandler(logger)
    integ = RungeKuttaMersonIntegrator(system)
    stepper = TimeStepper(system, integ)
    stepper.setReportAllSignificantStates(True)
    stepper.initialize(system.realizeTopology())
    statuses = []
    while stepper.getTime() < 1.0:
        statuses.append(stepper.stepTo(1.0))
    # The event at t=1.0 is due when the next stepTo() leaves 1.0 (reports come first).
    assert logger.calls == [0.0, 0.25, 0.5, 0.75]
    assert statuses.count(Integrator.StartOfContinuousInterval) == 1  # only the first
    stepper.stepTo(1.5)
    assert logger.calls == [0.0, 0.25, 0.5, 0.75, 1.0]


def test_auto_update_discrete_variables_advance_once_per_step():
    counter = StepCounter()
    osc = Oscillator()
    system, state = makeSystem(osc, counter)
    integ = SemiExplicitEulerIntegrator(system, 0.1)
    stepper = TimeStepper(system, integ)
    stepper.initialize(state)
    # Initialization swaps in the update value once.
    assert counter.count(integ.getAdvancedState()) == 1
    counter.seen.clear()
    stepper.stepTo(1.0)
    assert integ.getNumStepsTaken() == 10
    # One swap at the start of each step...
    assert counter.count(integ.getAdvancedState()) == 1 + 10
    # ... and within each step every evaluation saw one value: the count changes only
    # between evaluations at different step starts.
    seenCounts = [n for _, n in counter.seen]
    assert seenCounts == sorted(seenCounts)
    assert set(seenCounts) <= set(range(1, 12))
    last = integ.getAdvancedState()
    assert last.getDiscreteVarLastUpdateTime(counter.getMySubsystemIndex(), counter.dv) == (
        pytest.approx(0.9)
    )


def test_auto_update_swap_invalidates_no_stage():
    counter = StepCounter()
    system, state = makeSystem(Oscillator(), counter)
    system.realize(state, Stage.Acceleration)
    ix = counter.getMySubsystemIndex()
    assert state.isDiscreteVarUpdateValueRealized(ix, counter.dv)
    state.autoUpdateDiscreteVariables()
    assert state.getSystemStage() == Stage.Acceleration
    assert counter.count(state) == 1
    assert not state.isDiscreteVarUpdateValueRealized(ix, counter.dv)


class _TimeAdvancedCounter(Subsystem):
    def __init__(self) -> None:
        super().__init__("TimeAdvancedCounter")
        self.times: list[float] = []

    def handleEventsImpl(self, state, cause, eventIds, options, results) -> None:
        if cause == Event.Cause.TimeAdvanced:
            self.times.append(state.getTime())


def test_time_advanced_events_after_every_step():
    counter = _TimeAdvancedCounter()
    system, state = makeSystem(Oscillator(), counter)
    system.setHasTimeAdvancedEvents(True)
    integ = SemiExplicitEulerIntegrator(system, 0.25)
    stepper = TimeStepper(system, integ)
    stepper.initialize(state)
    stepper.stepTo(1.0)
    # As in Simbody, a step that ends at the report time is reported as ReachedReportTime,
    # which takes precedence over TimeHasAdvanced.
    assert counter.times == pytest.approx([0.25, 0.5, 0.75])


def test_time_stepper_usage_errors():
    osc, system = _oscillatorSystem()
    other = System("other")
    with pytest.raises(InvalidArgumentError, match="different System"):
        TimeStepper(system, RungeKuttaMersonIntegrator(other))
    with pytest.raises(InvalidArgumentError):
        TimeStepper("nope")
    stepper = TimeStepper(system, RungeKuttaMersonIntegrator(system))
    stepper.initialize(system.realizeTopology())
    stepper.stepTo(0.5)
    with pytest.raises(InvalidArgumentError, match="earlier than the current time"):
        stepper.stepTo(0.25)
    assert stepper.getTime() == 0.5
    assert stepper.getIntegrator().getMethodName() == "RungeKuttaMerson"


def test_handler_changing_an_instance_variable_restarts_from_instance_stage():
    osc = TunableOscillator(omega=1.0)
    system = System("tunable")
    system.adoptSubsystem(osc)
    system.addEventHandler(RetuneAt(osc, 1.0, 2.0))
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(1e-9)
    stepper = TimeStepper(system, integ)
    stepper.initialize(system.realizeTopology())
    stepper.stepTo(2.5)
    assert system.getNumHandlerCallsThatChangedStage(Stage.Instance) == 1
    # Piecewise exact solution: cos(t) until t=1, then omega=2 from that state.
    x1, v1 = math.cos(1.0), -math.sin(1.0)
    t = 2.5 - 1.0
    expected = x1 * math.cos(2 * t) + v1 / 2 * math.sin(2 * t)
    assert osc.q(stepper.getState())[0] == pytest.approx(expected, abs=1e-6)
