"""EventLog: the events a System's handlers and reporters saw during a run, as marks for the
timeline (time, kind, what happened).

``EventLog.watch(system)`` wraps the System's ``handleEvents`` and ``reportEvents`` (on that
one System object) so that every call with a Triggered or Scheduled cause is noted with the
time of the State it was given and the names of the handlers or reporters it was for.
Initialization and TimeAdvanced calls (every run makes them, with no event behind them) are
not noted. The log keeps the most recent ``MAX_MARKS`` marks. Qt-free; the worker thread
writes and any thread reads (under the log's lock).
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass

from engine.common.events import Event

MAX_MARKS = 5000

#: Mark kinds, as the timeline colours them.
HANDLED = "handled"
REPORTED = "reported"
ASSEMBLED = "assembled"


@dataclass(frozen=True)
class EventMark:
    """One event at time ``t`` (seconds): ``kind`` is HANDLED, REPORTED or ASSEMBLED and
    ``text`` says what happened in words ("Triggered event handled by Bounce")."""

    t: float
    kind: str
    text: str


def _name(obj) -> str:
    name = getattr(obj, "name", None)
    return str(name) if isinstance(name, str) and name else type(obj).__name__


class EventLog:
    """See the module docstring."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._marks: deque[EventMark] = deque(maxlen=MAX_MARKS)
        self._names: dict[int, str] = {}
        self._system = None
        #: Changes whenever the marks change (readers compare it to skip copying them).
        self.version = 0

    def watch(self, system) -> None:
        """Note the events ``system`` handles and reports from now on."""
        if getattr(system, "_mbstudio_event_log", None) is self:
            self._system = system  # names are looked up in the System being run
            self._names = {}
            return  # already watched (a reset installs the same System again)
        self._system = system
        handle, report = system.handleEvents, system.reportEvents

        def handle_events(state, cause, eventIds, options=None):  # noqa: N803 - Simbody's name
            self._note(state, cause, eventIds, HANDLED)
            return handle(state, cause, eventIds, options)

        def report_events(state, cause, eventIds):  # noqa: N803
            self._note(state, cause, eventIds, REPORTED)
            return report(state, cause, eventIds)

        system.handleEvents = handle_events
        system.reportEvents = report_events
        system._mbstudio_event_log = self

    def _name_of(self, event_id: int) -> str:
        if event_id not in self._names:
            listing = self._system.getDefaultSubsystem().getEventHandlersAndReporters
            self._names = {int(i): _name(obj) for i, obj in listing()}
        return self._names.get(event_id, f"event {event_id}")

    def _note(self, state, cause, ids, kind: str) -> None:
        cause = Event.Cause(cause)
        if cause not in (Event.Cause.Triggered, Event.Cause.Scheduled):
            return
        names = ", ".join(self._name_of(int(i)) for i in ids) or "no one"
        verb = "handled" if kind == HANDLED else "reported"
        self.add(EventMark(float(state.getTime()), kind, f"{cause.name} event {verb} by {names}"))

    def add(self, mark: EventMark) -> None:
        with self._lock:
            self._marks.append(mark)
            self.version += 1

    def drop_after(self, t: float) -> None:
        """Forget the marks later than ``t`` (a run going on from ``t`` makes a new future)."""
        with self._lock:
            kept = [m for m in self._marks if m.t <= t]
            if len(kept) != len(self._marks):
                self._marks = deque(kept, maxlen=MAX_MARKS)
                self.version += 1

    def take_after(self, t: float) -> list[EventMark]:
        """Remove and return the marks later than ``t``, oldest first (the future a run
        going on from ``t`` leaves, kept with its branch)."""
        with self._lock:
            taken = [m for m in self._marks if m.t > t]
            if taken:
                self._marks = deque((m for m in self._marks if m.t <= t), maxlen=MAX_MARKS)
                self.version += 1
            return taken

    def extend(self, marks) -> None:
        """Add ``marks`` (a branch's, brought back), after the ones held."""
        marks = list(marks)
        if marks:
            with self._lock:
                self._marks.extend(marks)
                self.version += 1

    def clear(self) -> None:
        with self._lock:
            self._marks.clear()
            self.version += 1

    def marks(self) -> list[EventMark]:
        """Every mark kept, in the order they happened."""
        with self._lock:
            return list(self._marks)
