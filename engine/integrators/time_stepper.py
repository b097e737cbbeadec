"""TimeStepper: drives an Integrator through a simulation, handling events.

``TimeStepper(system, integrator)``; ``initialize(state)`` initializes the
integrator (which runs the Initialization event handlers, initializes Measures
and auto-updates discrete variables); ``stepTo(time)`` advances to ``time``,
on the way

* calling scheduled reporters (System.reportEvents, cause Scheduled) at their
  times, on the exact (interpolated) state at that time;
* calling scheduled handlers (System.handleEvents, cause Scheduled) on the
  advanced state at their exact time;
* when a witness function crosses zero in a watched direction, calling the
  triggered reporters and handlers (cause Triggered) on the advanced state at the
  end of the localized window (the pre-event state at the start of the window is
  available from getState() while the integrator reports ReachedEventTrigger);
* calling TimeAdvanced handlers if the System asks for them;
* after a handler, restarting the integrator from the lowest modified stage
  (HandleEventsResults.getLowestModifiedStage) and ending the simulation if the
  handler asked for termination (Integrator.EventHandlerRequestedTermination).

The integrator never advances past ``time`` (the State at ``time`` ends a real
step) and auto-updates discrete variables at the start of every step.
stepTo returns the integrator's SuccessfulStepStatus: ReachedReportTime when
``time`` is reached, EndOfSimulation if the simulation ended first; with
setReportAllSignificantStates(True) it also returns at every event, restart and
step limit.
"""

from __future__ import annotations

import math

from engine.common.events import Event, HandleEventsOptions, HandleEventsResults
from engine.common.exceptions import InvalidArgumentError, SimTKError
from engine.common.stage import Stage
from engine.common.state import State
from engine.common.system import System
from engine.integrators.integrator import Integrator, SuccessfulStepStatus


class TimeStepper:
    """Runs a simulation of ``system`` with ``integrator`` (Simbody's TimeStepper)."""

    def __init__(self, system: System, integrator: Integrator | None = None) -> None:
        if not isinstance(system, System):
            raise InvalidArgumentError(
                f"TimeStepper needs the System to simulate, got {type(system).__name__}"
            )
        self._system = system
        self._integ: Integrator | None = None
        self._reportAll = False
        self._lastEventTime = -math.inf
        self._lastReportTime = -math.inf
        if integrator is not None:
            self.setIntegrator(integrator)

    def setIntegrator(self, integrator: Integrator) -> None:
        if not isinstance(integrator, Integrator):
            raise InvalidArgumentError(
                f"setIntegrator needs an Integrator, got {type(integrator).__name__}"
            )
        if integrator.getSystem() is not self._system:
            raise InvalidArgumentError(
                "setIntegrator: the integrator was made for a different System than this "
                "TimeStepper's; construct it with the same System"
            )
        self._integ = integrator

    def getIntegrator(self) -> Integrator:
        if self._integ is None:
            raise SimTKError("TimeStepper has no integrator; call setIntegrator() first")
        return self._integ

    updIntegrator = getIntegrator

    def getSystem(self) -> System:
        return self._system

    def setReportAllSignificantStates(self, reportAll: bool) -> None:
        """If True, stepTo() also returns after every event, restart and step limit."""
        self._reportAll = bool(reportAll)

    def getReportAllSignificantStates(self) -> bool:
        return self._reportAll

    def initialize(self, initState: State) -> None:
        """Initialize the integrator from a copy of ``initState`` (see Integrator.initialize)."""
        self.getIntegrator().initialize(initState)
        self._lastEventTime = -math.inf
        self._lastReportTime = -math.inf

    def getState(self) -> State:
        """The integrator's current trajectory State."""
        return self.getIntegrator().getState()

    def getTime(self) -> float:
        return self.getState().getTime()

    def stepTo(self, time: float) -> SuccessfulStepStatus:
        """Advance to ``time`` (time units), handling and reporting events on the way;
        see the module docstring for what is returned."""
        integ = self.getIntegrator()
        system = self._system
        time = float(time)
        if math.isnan(time) or time < integ.getTime():
            raise InvalidArgumentError(
                f"TimeStepper.stepTo({time}): the time is earlier than the current time "
                f"{integ.getTime()}; a simulation only goes forward"
            )
        options = HandleEventsOptions(integ.getConstraintToleranceInUse())
        status = SuccessfulStepStatus.EndOfSimulation
        while not integ.isSimulationOver():
            state = integ.getState()
            currentTime = state.getTime()
            system.realize(state, Stage.Time)
            nextEvent, eventIds = system.calcTimeOfNextScheduledEvent(
                state, self._lastEventTime != currentTime
            )
            nextReport, reportIds = system.calcTimeOfNextScheduledReport(
                state, self._lastReportTime != currentTime
            )
            # As Simbody 3.7: never integrate past ``time`` (so the State returned at
            # ``time`` is the end of a real step, not an interpolation).
            reportTime = min(nextReport, time)
            status = integ.stepTo(reportTime, min(nextEvent, time))
            results = None
            if status in (
                SuccessfulStepStatus.ReachedStepLimit,
                SuccessfulStepStatus.StartOfContinuousInterval,
            ):
                if self._reportAll:
                    return status
                continue
            if status == SuccessfulStepStatus.ReachedReportTime:
                if integ.getTime() >= nextReport:
                    system.reportEvents(integ.getState(), Event.Cause.Scheduled, reportIds)
                    self._lastReportTime = integ.getTime()
                if integ.getTime() >= time or self._reportAll:
                    return status
                continue
            if status == SuccessfulStepStatus.ReachedScheduledEvent:
                if integ.getTime() < nextEvent:
                    continue  # reached ``time`` itself, not a scheduled event
                advanced = integ.updAdvancedState()
                system.realize(advanced, Stage.Time)
                results = system.handleEvents(advanced, Event.Cause.Scheduled, eventIds, options)
                self._lastEventTime = integ.getTime()
            elif status == SuccessfulStepStatus.TimeHasAdvanced:
                results = system.handleEvents(
                    integ.updAdvancedState(), Event.Cause.TimeAdvanced, [], options
                )
            elif status == SuccessfulStepStatus.ReachedEventTrigger:
                ids = integ.getTriggeredEvents()
                advanced = integ.updAdvancedState()
                system.reportEvents(advanced, Event.Cause.Triggered, ids)
                results = system.handleEvents(advanced, Event.Cause.Triggered, ids, options)
            elif status == SuccessfulStepStatus.EndOfSimulation:
                return status
            else:  # pragma: no cover - the integrator returns only the statuses above
                raise SimTKError(f"TimeStepper: unexpected integrator status {status!r}")
            exit_status = results.getExitStatus()
            if exit_status == HandleEventsResults.Failed:
                raise SimTKError(
                    f"an event handler failed at t={integ.getAdvancedTime()}"
                    + (f": {results.getMessage()}" if results.getMessage() else "")
                )
            integ.reinitialize(
                results.getLowestModifiedStage(),
                exit_status == HandleEventsResults.ShouldTerminate,
            )
            if self._reportAll:
                return status
        return SuccessfulStepStatus.EndOfSimulation

    def __repr__(self) -> str:
        return f"<TimeStepper for {self._system!r} with {self._integ!r}>"
