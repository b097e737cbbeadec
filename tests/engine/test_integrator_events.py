"""Triggered events: witness crossings found, localized to their window, handled."""

from __future__ import annotations

import math

import pytest

from engine.common.events import TriggeredEventReporter
from engine.common.stage import Stage
from engine.common.system import System
from engine.integrators import (
    CPodesIntegrator,
    Integrator,
    RungeKutta3Integrator,
    RungeKuttaFeldbergIntegrator,
    RungeKuttaMersonIntegrator,
    TimeStepper,
    VerletIntegrator,
)
from engine.integrators.event_localization import Trigger
from tests.engine.integration_fixtures import Ball, FloorContact

G, H0 = 9.81, 1.0
T_FIRST = math.sqrt(2 * H0 / G)  # first floor contact; later ones every 2*T_FIRST


def _bouncingBall(restitution=1.0, window=1e-6, terminateAt=None, timeScale=1.0):
    ball = Ball(g=G, h0=H0)
    contact = FloorContact(ball, restitution, window, terminateAt)
    system = System("bouncing ball")
    system.adoptSubsystem(ball)
    eventId = system.addEventHandler(contact)
    system.setDefaultTimeScale(timeScale)
    return system, ball, contact, eventId


def _integrator(cls, system, accuracy=1e-6):
    integ = cls(system)
    integ.setAccuracy(accuracy)
    integ.setMaximumStepSize(0.05)  # witnesses are sampled at step ends
    return integ


@pytest.mark.parametrize(
    ("cls", "accuracy", "tol"),
    [
        (RungeKuttaMersonIntegrator, 1e-6, 1e-9),
        (RungeKuttaFeldbergIntegrator, 1e-6, 1e-9),
        (RungeKutta3Integrator, 1e-6, 1e-9),
        (VerletIntegrator, 1e-6, 1e-9),
        # BDF is not exact on the parabola (it starts at order 1).
        (CPodesIntegrator, 1e-9, 1e-7),
    ],
)
def test_bouncing_ball_hits_the_floor_at_the_analytic_times(cls, accuracy, tol):
    system, ball, contact, _ = _bouncingBall(window=1e-4)  # window*accuracy*timeScale
    integ = _integrator(cls, system, accuracy)
    stepper = TimeStepper(system, integ)
    stepper.initialize(system.realizeTopology())
    stepper.stepTo(3.0)
    expected = [T_FIRST, 3 * T_FIRST, 5 * T_FIRST]
    assert len(contact.times) == 3
    for got, want in zip(contact.times, expected, strict=True):
        assert got == pytest.approx(want, abs=tol)
    for h in contact.heights:
        assert abs(h) < 1e-6  # handled at the floor
    # Elastic bounces: the ball is moving up with the impact speed after each one.
    s = stepper.getState()
    assert stepper.getTime() == 3.0
    energy = 0.5 * ball.u(s)[0] ** 2 + G * ball.q(s)[0]
    assert energy == pytest.approx(G * H0, rel=1e-6)


def test_integrator_reports_the_event_window_and_pre_event_state():
    system, ball, contact, eventId = _bouncingBall(window=1e-3)
    integ = _integrator(RungeKuttaMersonIntegrator, system, accuracy=1e-6)
    integ.initialize(system.realizeTopology())
    status = integ.stepTo(10.0)
    assert status == Integrator.StartOfContinuousInterval
    status = integ.stepTo(10.0)
    assert status == Integrator.ReachedEventTrigger
    tLow, tHigh = integ.getEventWindow()
    assert tLow < T_FIRST <= tHigh
    assert tHigh - tLow <= 1e-3 * 1e-6 * 1.0  # window * accuracy * time scale
    assert integ.getTriggeredEvents() == [eventId]
    assert integ.getEventTransitionsSeen() == [Trigger.Falling]
    (tEst,) = integ.getEstimatedEventTimes()
    assert tLow <= tEst <= tHigh
    # getState() is the last pre-event state, the advanced state is at tHigh.
    assert integ.isStateInterpolated()
    assert integ.getTime() == tLow
    assert ball.q(integ.getState())[0] > 0
    assert integ.getAdvancedTime() == tHigh
    assert ball.q(integ.getAdvancedState())[0] <= 0
    assert contact.times == []  # the integrator alone does not handle events


def test_localization_window_scales_with_accuracy_and_time_scale():
    widths = []
    for accuracy, timeScale in [(1e-3, 1.0), (1e-5, 1.0), (1e-5, 0.1)]:
        system, _, _, _ = _bouncingBall(window=0.1, timeScale=timeScale)
        integ = _integrator(RungeKuttaMersonIntegrator, system, accuracy)
        integ.initialize(system.realizeTopology())
        while integ.stepTo(10.0) != Integrator.ReachedEventTrigger:
            pass
        tLow, tHigh = integ.getEventWindow()
        assert tLow < T_FIRST <= tHigh
        assert tHigh - tLow <= 0.1 * accuracy * timeScale
        widths.append(tHigh - tLow)
    assert widths[0] > widths[1] > widths[2]


def test_handler_termination_ends_the_simulation_with_the_right_reason():
    system, _, contact, _ = _bouncingBall(window=1e-4, terminateAt=2)
    integ = _integrator(RungeKuttaMersonIntegrator, system)
    stepper = TimeStepper(system, integ)
    stepper.initialize(system.realizeTopology())
    status = stepper.stepTo(10.0)
    assert status == Integrator.EndOfSimulation
    assert integ.isSimulationOver()
    assert integ.getTerminationReason() == Integrator.EventHandlerRequestedTermination
    assert len(contact.times) == 2
    assert stepper.getTime() == pytest.approx(3 * T_FIRST, abs=1e-9)
    assert stepper.stepTo(11.0) == Integrator.EndOfSimulation


def test_handler_that_changes_the_state_restarts_the_continuous_interval():
    system, ball, contact, _ = _bouncingBall(window=1e-4)
    integ = _integrator(RungeKuttaMersonIntegrator, system)
    stepper = TimeStepper(system, integ)
    stepper.setReportAllSignificantStates(True)
    stepper.initialize(system.realizeTopology())
    statuses = []
    while stepper.getTime() < 1.0:
        statuses.append(stepper.stepTo(1.0))
    i = statuses.index(Integrator.ReachedEventTrigger)
    assert statuses[i + 1] == Integrator.StartOfContinuousInterval
    assert system.getNumHandlerCallsThatChangedStage(Stage.Velocity) == 1


def test_rising_only_trigger_ignores_falling_crossings():
    system, ball, contact, _ = _bouncingBall()
    contact.getTriggerInfo().setTriggerOnRisingSignTransition(True)
    contact.getTriggerInfo().setTriggerOnFallingSignTransition(False)
    integ = _integrator(RungeKuttaMersonIntegrator, system)
    stepper = TimeStepper(system, integ)
    stepper.initialize(system.realizeTopology())
    stepper.stepTo(1.0)
    assert contact.times == []  # the ball fell through the floor
    assert ball.q(stepper.getState())[0] < 0


class _CrossingLog(TriggeredEventReporter):
    """Reports when the ball passes a height, going either way."""

    def __init__(self, ball: Ball, height: float) -> None:
        super().__init__(Stage.Position)
        self.ball, self.height = ball, height
        self.getTriggerInfo().setRequiredLocalizationTimeWindow(1e-4)
        self.times: list[float] = []

    def getValue(self, state) -> float:
        return float(self.ball.q(state)[0]) - self.height

    def handleEvent(self, state) -> None:
        self.times.append(state.getTime())


def test_triggered_reporter_sees_each_crossing_without_changing_anything():
    system, ball, contact, _ = _bouncingBall(window=1e-4)
    log = _CrossingLog(ball, 0.5)
    system.addEventReporter(log)
    integ = _integrator(RungeKuttaMersonIntegrator, system)
    stepper = TimeStepper(system, integ)
    stepper.initialize(system.realizeTopology())
    stepper.stepTo(2.0)
    tHalf = math.sqrt(2 * 0.5 / G)  # falling through h=0.5
    expected = [tHalf, 2 * T_FIRST - tHalf, 2 * T_FIRST + tHalf, 4 * T_FIRST - tHalf]
    assert len(log.times) == 4
    for got, want in zip(log.times, expected, strict=True):
        assert got == pytest.approx(want, abs=1e-9)
    assert len(contact.times) == 2
