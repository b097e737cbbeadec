"""Events: causes, trigger information, handlers and reporters (SimTK's Event API).

A *handler* may change the State when its event occurs; a *reporter* only looks.
Scheduled ones say when they next occur (``getNextEventTime``); triggered ones
provide a witness function (``getValue``) whose sign changes mark the event.
Handlers are added to a System with ``addEventHandler`` / ``addEventReporter``
and live in its DefaultSystemSubsystem.
"""

from __future__ import annotations

import math
from enum import IntEnum

from engine.common.exceptions import InvalidArgumentError
from engine.common.index_arg import index_value
from engine.common.stage import Stage
from engine.common.stage_arg import stage_value


class Event:
    """Namespace for event causes, as Simbody's ``Event::Cause``."""

    class Cause(IntEnum):
        Initialization = 1
        Triggered = 2
        Scheduled = 3
        TimeAdvanced = 4
        Signaled = 5
        Termination = 6
        Invalid = -1

    @staticmethod
    def getCauseName(cause: Event.Cause) -> str:
        return Event.Cause(cause).name


class EventTriggerInfo:
    """How an integrator should watch one witness function: which sign transitions
    count and how tightly (in time) to localize the crossing."""

    def __init__(self, eventId: int = -1) -> None:
        self._event_id = index_value(eventId, "EventTriggerInfo: eventId")
        self._rising = True
        self._falling = True
        self._window = 0.1

    def getEventId(self) -> int:
        return self._event_id

    def setEventId(self, eventId: int) -> EventTriggerInfo:
        self._event_id = index_value(eventId, "setEventId: eventId")
        return self

    def shouldTriggerOnRisingSignTransition(self) -> bool:
        return self._rising

    def shouldTriggerOnFallingSignTransition(self) -> bool:
        return self._falling

    def setTriggerOnRisingSignTransition(self, flag: bool) -> EventTriggerInfo:
        self._rising = bool(flag)
        return self

    def setTriggerOnFallingSignTransition(self, flag: bool) -> EventTriggerInfo:
        self._falling = bool(flag)
        return self

    def getRequiredLocalizationTimeWindow(self) -> float:
        """Width of the time window (in time units) the crossing must be bracketed in."""
        return self._window

    def setRequiredLocalizationTimeWindow(self, window: float) -> EventTriggerInfo:
        window = float(window)
        if not window > 0:
            raise InvalidArgumentError(f"localization window must be positive, got {window}")
        self._window = window
        return self

    def isTransition(self, before: float, after: float) -> bool:
        """True if the sign change from ``before`` to ``after`` is one this trigger watches.
        As Simbody's Event::classifyTransition on the signs: positive to zero or negative is
        falling, negative to zero or positive is rising; leaving zero is no transition (a
        witness that reached zero and stays there, or leaves it, does not trigger again)."""
        sb = (before > 0) - (before < 0)
        sa = (after > 0) - (after < 0)
        if sb == sa or sb == 0:
            return False
        return self._falling if sb > 0 else self._rising


class HandleEventsOptions:
    """Options passed to System.handleEvents: the accuracy constraints must meet."""

    def __init__(self, accuracy: float = 1e-4) -> None:
        self.setAccuracy(accuracy)

    def setAccuracy(self, accuracy: float) -> HandleEventsOptions:
        accuracy = float(accuracy)
        if not accuracy > 0:
            raise InvalidArgumentError(f"event accuracy must be positive, got {accuracy}")
        self._accuracy = accuracy
        return self

    def getAccuracy(self) -> float:
        return self._accuracy


class HandleEventsResults:
    """What System.handleEvents did: success or termination, and the lowest stage changed."""

    class Status(IntEnum):
        Invalid = -1
        Succeeded = 0
        ShouldTerminate = 1
        Failed = 2

    Invalid = Status.Invalid
    Succeeded = Status.Succeeded
    ShouldTerminate = Status.ShouldTerminate
    Failed = Status.Failed

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> HandleEventsResults:
        self._status = HandleEventsResults.Status.Invalid
        self._any_change = False
        self._lowest = Stage.Infinity
        self._message = ""
        return self

    def setExitStatus(self, status: Status) -> HandleEventsResults:
        self._status = HandleEventsResults.Status(status)
        return self

    def getExitStatus(self) -> Status:
        return self._status

    def setAnyChangeMade(self, changed: bool) -> HandleEventsResults:
        self._any_change = bool(changed)
        return self

    def getAnyChangeMade(self) -> bool:
        return self._any_change

    def setLowestModifiedStage(self, stage: Stage) -> HandleEventsResults:
        self._lowest = stage_value(stage, "setLowestModifiedStage")
        return self

    def getLowestModifiedStage(self) -> Stage:
        return self._lowest

    def setMessage(self, message: str) -> HandleEventsResults:
        self._message = str(message)
        return self

    def getMessage(self) -> str:
        return self._message


class ScheduledEventHandler:
    """A handler that occurs at times it announces. Subclasses implement
    ``getNextEventTime(state, includeCurrentTime)`` and
    ``handleEvent(state, accuracy) -> shouldTerminate``."""

    def getNextEventTime(self, state, includeCurrentTime: bool) -> float:
        raise NotImplementedError(f"{type(self).__name__} must implement getNextEventTime")

    def handleEvent(self, state, accuracy: float) -> bool:
        raise NotImplementedError(f"{type(self).__name__} must implement handleEvent")


class TriggeredEventHandler:
    """A handler whose event occurs when ``getValue(state)`` (a witness function
    evaluated at ``requiredStage``) crosses zero in a direction ``getTriggerInfo`` allows."""

    def __init__(self, requiredStage: Stage = Stage.Position) -> None:
        self._required_stage = stage_value(requiredStage, "TriggeredEventHandler", "requiredStage")
        if not Stage.Time <= self._required_stage <= Stage.Acceleration:
            raise InvalidArgumentError(
                "a witness function is evaluated at a stage from Time to Acceleration, "
                f"got {self._required_stage.getName()}"
            )
        self._trigger_info = EventTriggerInfo()

    def getRequiredStage(self) -> Stage:
        return self._required_stage

    def getTriggerInfo(self) -> EventTriggerInfo:
        return self._trigger_info

    def getValue(self, state) -> float:
        raise NotImplementedError(f"{type(self).__name__} must implement getValue")

    def handleEvent(self, state, accuracy: float) -> bool:
        raise NotImplementedError(f"{type(self).__name__} must implement handleEvent")


def _next_multiple(t: float, interval: float, include_current: bool) -> float:
    """The first time ``k*interval`` (k an integer) at or after t; strictly after t unless
    ``include_current``. Event times are always computed as ``k*interval`` so repeated
    calls agree exactly."""
    count = math.floor(t / interval)
    event_time = count * interval
    while event_time < t or (event_time == t and not include_current):
        count += 1
        event_time = count * interval
    return event_time


class PeriodicEventHandler(ScheduledEventHandler):
    """A scheduled handler that occurs at every multiple of ``eventInterval``."""

    def __init__(self, eventInterval: float = math.inf) -> None:
        self.setEventInterval(eventInterval)

    def setEventInterval(self, interval: float) -> None:
        interval = float(interval)
        if not interval > 0:
            raise InvalidArgumentError(f"event interval must be positive, got {interval}")
        self._interval = interval

    def getEventInterval(self) -> float:
        return self._interval

    def getNextEventTime(self, state, includeCurrentTime: bool) -> float:
        if math.isinf(self._interval):
            return math.inf
        return _next_multiple(state.getTime(), self._interval, includeCurrentTime)


class ScheduledEventReporter:
    """A reporter that occurs at announced times; implement ``getNextEventTime`` and
    ``handleEvent(state)`` (which must not change the State)."""

    def getNextEventTime(self, state, includeCurrentTime: bool) -> float:
        raise NotImplementedError(f"{type(self).__name__} must implement getNextEventTime")

    def handleEvent(self, state) -> None:
        raise NotImplementedError(f"{type(self).__name__} must implement handleEvent")


class TriggeredEventReporter:
    """A reporter whose event occurs at zero crossings of ``getValue(state)``."""

    def __init__(self, requiredStage: Stage = Stage.Position) -> None:
        self._required_stage = stage_value(requiredStage, "TriggeredEventReporter", "requiredStage")
        self._trigger_info = EventTriggerInfo()

    def getRequiredStage(self) -> Stage:
        return self._required_stage

    def getTriggerInfo(self) -> EventTriggerInfo:
        return self._trigger_info

    def getValue(self, state) -> float:
        raise NotImplementedError(f"{type(self).__name__} must implement getValue")

    def handleEvent(self, state) -> None:
        raise NotImplementedError(f"{type(self).__name__} must implement handleEvent")


class PeriodicEventReporter(ScheduledEventReporter):
    """A reporter that occurs at every multiple of ``eventInterval``."""

    def __init__(self, eventInterval: float) -> None:
        self.setEventInterval(eventInterval)

    def setEventInterval(self, interval: float) -> None:
        """Report every ``interval`` time units from now on (Simbody's setEventInterval)."""
        interval = float(interval)
        if not interval > 0:
            raise InvalidArgumentError(f"event interval must be positive, got {interval}")
        self._interval = interval

    def getEventInterval(self) -> float:
        return self._interval

    def getNextEventTime(self, state, includeCurrentTime: bool) -> float:
        return _next_multiple(state.getTime(), self._interval, includeCurrentTime)
