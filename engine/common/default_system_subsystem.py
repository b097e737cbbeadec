"""DefaultSystemSubsystem: subsystem 0 of every System.

It owns the System's event handlers and reporters (added with
``System.addEventHandler`` / ``addEventReporter``), allocates a witness slot for
each triggered one, evaluates those witnesses after each stage is realized, and
dispatches handleEvents / reportEvents to the handlers whose EventIds occurred.
Measures with state (e.g. Measure.Integrate's z) also live here.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.common.events import (
    Event,
    ScheduledEventHandler,
    ScheduledEventReporter,
    TriggeredEventHandler,
    TriggeredEventReporter,
)
from engine.common.exceptions import InvalidArgumentError
from engine.common.stage import ALL_STAGES, Stage
from engine.common.subsystem import Subsystem

if TYPE_CHECKING:
    from engine.common.state import State


@dataclass
class _Registered:
    """An event handler or reporter with its EventId and witness slot."""

    obj: Any
    event_id: int
    is_reporter: bool
    trigger_stage: Stage | None = None
    trigger_index: int = -1


class DefaultSystemSubsystem(Subsystem):
    """Subsystem 0: event handlers, event reporters and measures of the System."""

    def __init__(self) -> None:
        super().__init__("DefaultSystemSubsystem", "0.0.1")
        self._scheduled: list[_Registered] = []
        self._triggered: list[_Registered] = []
        self._measures: list[Any] = []

    # ----------------------------------------------------------- registration
    def addEventHandler(self, handler) -> int:
        """Adopt a ScheduledEventHandler or TriggeredEventHandler; returns its EventId."""
        return self._register(handler, reporter=False)

    def addEventReporter(self, reporter) -> int:
        """Adopt a ScheduledEventReporter or TriggeredEventReporter; returns its EventId."""
        return self._register(reporter, reporter=True)

    def _register(self, obj, reporter: bool) -> int:
        scheduled_types = (ScheduledEventReporter,) if reporter else (ScheduledEventHandler,)
        triggered_types = (TriggeredEventReporter,) if reporter else (TriggeredEventHandler,)
        kind = "reporter" if reporter else "handler"
        if isinstance(obj, scheduled_types):
            target = self._scheduled
        elif isinstance(obj, triggered_types):
            target = self._triggered
        else:
            raise InvalidArgumentError(
                f"addEvent{kind.capitalize()} needs a Scheduled or Triggered event {kind}, "
                f"got {type(obj).__name__}"
            )
        event_id = self.getSystem().createNewEventId()
        target.append(_Registered(obj, event_id, reporter))
        self.invalidateSubsystemTopologyCache()
        return event_id

    def _host_measure(self, measure) -> None:
        """Give ``measure`` (owned by any subsystem of this System) its realize calls."""
        self._measures.append(measure)
        self.invalidateSubsystemTopologyCache()

    def getMeasureHost(self) -> DefaultSystemSubsystem:
        return self

    def getEventHandlersAndReporters(self) -> list[tuple[int, Any]]:
        """(EventId, object) of every registered handler and reporter."""
        return [(r.event_id, r.obj) for r in self._scheduled + self._triggered]

    # ------------------------------------------------------------ realization
    def realizeSubsystemTopologyImpl(self, state: State) -> None:
        for reg in self._triggered:
            stage = reg.obj.getRequiredStage()
            reg.trigger_stage = stage
            reg.trigger_index = state.allocateEventTrigger(self.getMySubsystemIndex(), stage, 1)
        for m in self._measures:
            m.realizeMeasureTopology(self, state)

    def _forward(self, hook: str, state: State) -> None:
        for m in self._measures:
            getattr(m, hook)(self, state)

    def realizeSubsystemModelImpl(self, state: State) -> None:
        self._forward("realizeMeasureModel", state)

    def realizeSubsystemInstanceImpl(self, state: State) -> None:
        self._forward("realizeMeasureInstance", state)

    def realizeSubsystemTimeImpl(self, state: State) -> None:
        self._forward("realizeMeasureTime", state)

    def realizeSubsystemPositionImpl(self, state: State) -> None:
        self._forward("realizeMeasurePosition", state)

    def realizeSubsystemVelocityImpl(self, state: State) -> None:
        self._forward("realizeMeasureVelocity", state)

    def realizeSubsystemDynamicsImpl(self, state: State) -> None:
        self._forward("realizeMeasureDynamics", state)

    def realizeSubsystemAccelerationImpl(self, state: State) -> None:
        self._forward("realizeMeasureAcceleration", state)

    def realizeSubsystemReportImpl(self, state: State) -> None:
        self._forward("realizeMeasureReport", state)

    def realizeSubsystemEventTriggersImpl(self, state: State, stage: Stage) -> None:
        values = None
        for reg in self._triggered:
            if reg.trigger_stage == stage:
                if values is None:
                    values = state.updEventTriggersByStage(self.getMySubsystemIndex(), stage)
                values[reg.trigger_index] = float(reg.obj.getValue(state))

    # ----------------------------------------------------------------- events
    def calcEventTriggerInfoImpl(self, state: State) -> list:
        infos = []
        for stage in ALL_STAGES:
            regs = [r for r in self._triggered if r.trigger_stage == stage]
            for reg in sorted(regs, key=lambda r: r.trigger_index):
                info = copy.copy(reg.obj.getTriggerInfo())
                info.setEventId(reg.event_id)
                infos.append((stage, info))
        return infos

    def _next_scheduled(self, state: State, include_current: bool, reporters: bool):
        # As Simbody's DefaultSystemSubsystem: an announced time before the current
        # time (or at it, unless include_current) is ignored.
        t_next, ids = math.inf, []
        now = state.getTime()
        for reg in self._scheduled:
            if reg.is_reporter != reporters:
                continue
            t = float(reg.obj.getNextEventTime(state, include_current))
            if not (t > now or (include_current and t == now)):
                continue
            if t < t_next:
                t_next, ids = t, [reg.event_id]
            elif t == t_next and t < math.inf:
                ids.append(reg.event_id)
        return t_next, ids

    def calcTimeOfNextScheduledEventImpl(self, state: State, includeCurrentTime: bool):
        return self._next_scheduled(state, includeCurrentTime, reporters=False)

    def calcTimeOfNextScheduledReportImpl(self, state: State, includeCurrentTime: bool):
        return self._next_scheduled(state, includeCurrentTime, reporters=True)

    def handleEventsImpl(self, state: State, cause, eventIds, options, results) -> None:
        if cause == Event.Cause.Initialization:
            # As Simbody's Subsystem::Guts::handleEvents: measures set their state
            # variables (Integrate's z, Minimum's running extreme, ...) to initial values.
            for m in self._measures:
                m.initializeMeasure(self, state)
        if cause not in (Event.Cause.Triggered, Event.Cause.Scheduled):
            return
        wanted = set(int(e) for e in eventIds)
        accuracy = options.getAccuracy()
        for reg in self._scheduled + self._triggered:
            if reg.event_id in wanted and not reg.is_reporter:
                if reg.obj.handleEvent(state, accuracy):
                    results.setExitStatus(results.ShouldTerminate)

    def reportEventsImpl(self, state: State, cause, eventIds) -> None:
        wanted = set(int(e) for e in eventIds)
        for reg in self._scheduled + self._triggered:
            if reg.event_id in wanted and reg.is_reporter:
                reg.obj.handleEvent(state)
