"""Events: handlers and reporters registered on a System, witness values, trigger info,
scheduled times, handleEvents / reportEvents and their counters."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.common.events import (
    Event,
    EventTriggerInfo,
    HandleEventsOptions,
    HandleEventsResults,
    PeriodicEventHandler,
    PeriodicEventReporter,
    TriggeredEventHandler,
)
from engine.common.exceptions import InvalidArgumentError, StageTooLowError
from engine.common.stage import ALL_STAGES, Stage
from engine.common.system import System
from tests.engine.framework_fixtures import (
    AtTimes,
    HarmonicOscillator,
    Printer,
    SpeedWitnessReporter,
    ThresholdWitness,
    Ticker,
    realized,
)


@pytest.fixture
def evsys():
    """An oscillator system with a Position witness, a Velocity reporter witness, two
    scheduled handlers and a periodic reporter."""
    system = System("events")
    osc = HarmonicOscillator(n=2, q0=[0.3, 0.1], u0=[-0.5, 0.0])
    system.adoptSubsystem(osc)
    h = {
        "speed": SpeedWitnessReporter(osc),
        "witness": ThresholdWitness(osc, threshold=0.2),
        "ticker": Ticker(0.25),
        "at": AtTimes([0.5, 0.625]),
        "printer": Printer(0.5),
    }
    ids = {
        "speed": system.addEventReporter(h["speed"]),
        "witness": system.addEventHandler(h["witness"]),
        "ticker": system.addEventHandler(h["ticker"]),
        "at": system.addEventHandler(h["at"]),
        "printer": system.addEventReporter(h["printer"]),
    }
    return system, osc, h, ids


def test_handlers_live_in_the_default_subsystem(evsys):
    system, osc, h, ids = evsys
    assert len(set(ids.values())) == 5  # distinct EventIds
    registered = dict(system.getDefaultSubsystem().getEventHandlersAndReporters())
    assert {registered[ids[k]] is h[k] for k in h} == {True}
    fresh = system.createNewEventId()
    assert fresh not in ids.values()


def test_wrong_kinds_are_refused(evsys):
    system, osc, h, ids = evsys
    with pytest.raises(InvalidArgumentError, match="handler"):
        system.addEventHandler(h["printer"])  # a reporter is not a handler
    with pytest.raises(InvalidArgumentError, match="reporter"):
        system.addEventReporter(h["ticker"])
    with pytest.raises(InvalidArgumentError):
        system.addEventHandler(object())
    assert len(system.getDefaultSubsystem().getEventHandlersAndReporters()) == 5


def test_handler_parameters_are_checked():
    with pytest.raises(InvalidArgumentError, match="positive"):
        PeriodicEventHandler(0.0)
    with pytest.raises(InvalidArgumentError, match="positive"):
        PeriodicEventReporter(-1.0)
    with pytest.raises(InvalidArgumentError, match="Time to Acceleration"):
        TriggeredEventHandler(Stage.Report)
    with pytest.raises(InvalidArgumentError, match="positive"):
        EventTriggerInfo().setRequiredLocalizationTimeWindow(0.0)
    with pytest.raises(InvalidArgumentError, match="positive"):
        HandleEventsOptions(0.0)


def test_witness_values_appear_after_realize(evsys):
    system, osc, h, ids = evsys
    s = realized(system, Stage.Time)
    assert s.getNEventTriggersByStage(Stage.Position) == 2  # witness, oscillator's q0
    assert s.getNEventTriggersByStage(Stage.Velocity) == 2  # speed reporter, oscillator's u0
    assert s.getNEventTriggersByStage(0, Stage.Position) == 1
    with pytest.raises(StageTooLowError):
        s.getEventTriggersByStage(Stage.Position)
    system.realize(s, Stage.Position)
    # Stage-major, then subsystem: DefaultSystemSubsystem (0) first.
    np.testing.assert_allclose(s.getEventTriggersByStage(Stage.Position), [0.1, 0.3])
    np.testing.assert_allclose(s.getEventTriggersByStage(0, Stage.Position), [0.1])
    system.realize(s, Stage.Velocity)
    np.testing.assert_allclose(s.getEventTriggersByStage(Stage.Velocity), [-0.5, -0.5])
    s.setQ([0.05, 0.1])
    system.realize(s, Stage.Position)
    np.testing.assert_allclose(s.getEventTriggersByStage(0, Stage.Position), [-0.15])
    # The global vector holds every stage's values in the same order.
    start = s.getEventTriggerStartByStage(Stage.Position)
    np.testing.assert_allclose(s.getEventTriggers()[start : start + 2], [-0.15, 0.05])


def test_event_trigger_info_order_and_ids(evsys):
    system, osc, h, ids = evsys
    h["witness"].getTriggerInfo().setTriggerOnRisingSignTransition(False)
    s = realized(system, Stage.Instance)
    infos = system.calcEventTriggerInfo(s)
    # One info per trigger slot, in the State's global order.
    assert len(infos) == s.getNEventTriggers() == 4
    assert [i.getEventId() for i in infos] == [ids["witness"], -1, ids["speed"], -1]
    assert not infos[0].shouldTriggerOnRisingSignTransition()
    assert infos[0].shouldTriggerOnFallingSignTransition()
    assert infos[1].shouldTriggerOnRisingSignTransition()  # a default info
    # The handler's own info is not modified by the System's copy.
    assert h["witness"].getTriggerInfo().getEventId() == -1
    with pytest.raises(StageTooLowError, match="Instance"):
        system.calcEventTriggerInfo(system.realizeTopology())  # at Model


def test_trigger_info_transitions():
    info = EventTriggerInfo()
    assert info.isTransition(-1.0, 1.0) and info.isTransition(1.0, -1.0)
    assert info.isTransition(-1.0, 0.0) and info.isTransition(2.0, 0.0)
    # As Simbody's Event::classifyTransition: leaving zero is no transition.
    assert not info.isTransition(0.0, 2.0) and not info.isTransition(0.0, -2.0)
    assert not info.isTransition(1.0, 2.0) and not info.isTransition(0.0, 0.0)
    info.setTriggerOnFallingSignTransition(False)
    assert info.isTransition(-1.0, 1.0) and not info.isTransition(1.0, -1.0)
    assert info.getRequiredLocalizationTimeWindow() == 0.1


def test_time_of_next_scheduled_event(evsys):
    system, osc, h, ids = evsys
    s = realized(system, Stage.Time)
    assert system.calcTimeOfNextScheduledEvent(s, True) == (0.0, [ids["ticker"]])
    assert system.calcTimeOfNextScheduledEvent(s, False) == (0.25, [ids["ticker"]])
    s.setTime(0.5)
    system.realize(s, Stage.Time)
    # Tie at the current time: both handlers; excluding it, the earliest later one.
    t, got = system.calcTimeOfNextScheduledEvent(s, True)
    assert t == 0.5 and sorted(got) == sorted([ids["ticker"], ids["at"]])
    assert system.calcTimeOfNextScheduledEvent(s, False) == (0.625, [ids["at"]])
    s.setTime(0.6)
    system.realize(s, Stage.Time)
    assert system.calcTimeOfNextScheduledEvent(s, True) == (0.625, [ids["at"]])
    s.setTime(0.7)
    system.realize(s, Stage.Time)
    assert system.calcTimeOfNextScheduledEvent(s, True) == (0.75, [ids["ticker"]])
    # Reporters are separate.
    assert system.calcTimeOfNextScheduledReport(s, False) == (1.0, [ids["printer"]])
    s.setTime(1.0)
    system.realize(s, Stage.Time)
    assert system.calcTimeOfNextScheduledReport(s, True) == (1.0, [ids["printer"]])
    assert system.calcTimeOfNextScheduledReport(s, False) == (1.5, [ids["printer"]])
    s.invalidateAll(Stage.Time)
    with pytest.raises(StageTooLowError, match="Time"):
        system.calcTimeOfNextScheduledEvent(s, True)


def test_no_scheduled_events_means_infinity():
    system = System()
    system.addEventHandler(PeriodicEventHandler())  # default interval: never
    s = realized(system, Stage.Time)
    assert system.calcTimeOfNextScheduledEvent(s, True) == (math.inf, [])
    assert system.calcTimeOfNextScheduledReport(s, True) == (math.inf, [])


def test_periodic_times_are_exact_multiples():
    """Event times are computed as k*interval, so stepping from event to event visits
    exactly those times and each is found again when the current time is included."""
    system = System()
    eid = system.addEventHandler(Ticker(0.1))
    s = realized(system, Stage.Time)
    for k in range(1, 13):
        t, got = system.calcTimeOfNextScheduledEvent(s, False)
        assert got == [eid] and t == k * 0.1
        s.setTime(t)
        system.realize(s, Stage.Time)
        assert system.calcTimeOfNextScheduledEvent(s, True) == (t, [eid])


def test_handle_events_calls_the_right_handlers(evsys):
    system, osc, h, ids = evsys
    s = realized(system, Stage.Acceleration)
    results = system.handleEvents(s, Event.Cause.Scheduled, [ids["ticker"], ids["printer"]])
    assert h["ticker"].calls == [0.0]
    assert h["at"].calls == [] and h["witness"].calls == [] and h["printer"].calls == []
    assert results.getExitStatus() == HandleEventsResults.Succeeded
    assert results.getLowestModifiedStage() == Stage.Infinity
    assert not results.getAnyChangeMade()
    assert s.getSystemStage() == Stage.Acceleration
    system.handleEvents(s, Event.Cause.Triggered, [ids["witness"]], HandleEventsOptions(1e-6))
    assert h["witness"].calls == [0.0]
    assert system.getNumHandleEventCalls() == 2


def test_handle_events_reports_the_lowest_modified_stage(evsys):
    system, osc, h, ids = evsys
    h["ticker"].action = lambda state: state.updU().__setitem__(0, 9.0)
    h["at"].action = lambda state: osc.setDiscreteVariable(state, osc.dv_m, 2.0)
    s = realized(system, Stage.Acceleration)
    counts = [system.getNumHandlerCallsThatChangedStage(g) for g in ALL_STAGES]

    r = system.handleEvents(s, Event.Cause.Scheduled, [ids["ticker"]])
    assert r.getLowestModifiedStage() == Stage.Velocity and r.getAnyChangeMade()
    assert s.getU()[0] == 9.0
    assert system.getNumHandlerCallsThatChangedStage(Stage.Velocity) == counts[Stage.Velocity] + 1

    # Realized again inside the handler: the version numbers still show the change.
    def change_and_realize(state):
        state.setZ([4.0])
        system.realize(state, Stage.Acceleration)

    h["ticker"].action = change_and_realize
    system.realize(s, Stage.Acceleration)
    r = system.handleEvents(s, Event.Cause.Scheduled, [ids["ticker"]])
    assert r.getLowestModifiedStage() == Stage.Dynamics
    assert s.getSystemStage() == Stage.Acceleration

    r = system.handleEvents(s, Event.Cause.Scheduled, [ids["at"], ids["ticker"]])
    assert r.getLowestModifiedStage() == Stage.Instance
    assert system.getNumHandlerCallsThatChangedStage(Stage.Instance) == counts[Stage.Instance] + 1

    # A handler that changes nothing (even if it realizes further) reports Infinity.
    h["ticker"].action = lambda state: system.realize(state, Stage.Report)
    system.realize(s, Stage.Dynamics)
    before = [system.getNumHandlerCallsThatChangedStage(g) for g in ALL_STAGES[:-1]]
    r = system.handleEvents(s, Event.Cause.Scheduled, [ids["ticker"]])
    assert r.getLowestModifiedStage() == Stage.Infinity and not r.getAnyChangeMade()
    assert [system.getNumHandlerCallsThatChangedStage(g) for g in ALL_STAGES[:-1]] == before


def test_handle_events_should_terminate(evsys):
    system, osc, h, ids = evsys
    h["witness"].action = lambda state: True
    s = realized(system, Stage.Acceleration)
    r = system.handleEvents(s, Event.Cause.Triggered, [ids["ticker"], ids["witness"]])
    assert r.getExitStatus() == HandleEventsResults.ShouldTerminate
    assert h["witness"].calls == [0.0] and h["ticker"].calls == [0.0]
    r = system.handleEvents(s, Event.Cause.Scheduled, [ids["ticker"]])
    assert r.getExitStatus() == HandleEventsResults.Succeeded


def test_report_events_calls_reporters_only(evsys):
    system, osc, h, ids = evsys
    s = realized(system, Stage.Report)
    s.setTime(0.5)
    system.realize(s, Stage.Report)
    report_before = system.getNumHandlerCallsThatChangedStage(Stage.Report)
    system.reportEvents(s, Event.Cause.Scheduled, list(ids.values()))
    assert h["printer"].calls == [0.5] and h["speed"].calls == [0.5]
    assert h["ticker"].calls == [] and h["at"].calls == [] and h["witness"].calls == []
    assert system.getNumReportEventCalls() == 1 and system.getNumHandleEventCalls() == 0
    # System.txt: reportEvents() calls count as having "changed" Stage::Report.
    assert system.getNumHandlerCallsThatChangedStage(Stage.Report) == report_before + 1
    assert s.getSystemStage() == Stage.Report


def test_adding_a_handler_changes_topology(evsys):
    system, osc, h, ids = evsys
    s = realized(system, Stage.Instance)
    assert s.getNEventTriggers() == 4
    system.addEventHandler(ThresholdWitness(osc, threshold=1.0, index=1))
    s2 = realized(system, Stage.Position)
    assert s2.getNEventTriggers() == 5
    np.testing.assert_allclose(s2.getEventTriggersByStage(0, Stage.Position), [0.1, -0.9])


def test_cause_names():
    assert Event.getCauseName(Event.Cause.Triggered) == "Triggered"
    assert Event.getCauseName(Event.Cause.Scheduled) == "Scheduled"
    assert int(Event.Cause.Initialization) == 1
