"""Integrator: the machinery every SimTK time integrator shares.

An Integrator advances a copy of a State (the *advanced state*) along the
trajectory of its System. ``initialize(state)`` copies and prepares the State;
``stepTo(reportTime, scheduledEventTime)`` takes internal steps until something
worth reporting happens and says what that was (a SuccessfulStepStatus). Between
internal steps it can return *interpolated* states at report times and the
last state before a triggered event (``getState()``); the advanced state
(``getAdvancedState()``) is how far it has really gone.

Concrete methods (one file each) supply ``_attemptODEStep`` (an explicit step
with an error estimate) or override ``_attemptDAEStep`` when projection must be
interleaved with the step. This class supplies the rest, as Simbody's
IntegratorRep / AbstractIntegratorRep do:

* step-size control on the weighted error norm (error_norm.py), with relative
  and absolute accuracy, RMS or infinity norm;
* prescribed motion (System.prescribeQ/U) before every evaluation, and
  constraint projection of q, u and the error estimate after each step
  (System.projectQ/projectU advanced forms) when the State has qErr/uErr;
* witness (event trigger) monitoring and localization (event_localization.py);
* auto-update of discrete variables at the start of every step;
* statistics, and StepFailedError messages that say what went wrong.

Time is in the System's time unit; accuracy is a dimensionless fraction.
"""

from __future__ import annotations

import math
from enum import IntEnum

import numpy as np

from engine.common.events import Event, HandleEventsOptions, HandleEventsResults
from engine.common.exceptions import (
    ComputationInterruptedError,
    InvalidArgumentError,
    SimTKError,
    StepFailedError,
)
from engine.common.index_arg import index_value
from engine.common.project_options import ProjectOptions, ProjectResults
from engine.common.stage import Stage
from engine.common.stage_arg import stage_value
from engine.common.state import State
from engine.common.system import System
from engine.integrators.error_norm import calcErrorNorm, calcRelativeScaling, describeYIndex
from engine.integrators.event_localization import (
    SIGNIFICANT_REAL,
    findEventCandidates,
)
from engine.integrators.step_control import (
    MAX_TINY_STEPS,
    adjusted_step_size,
    min_resolvable_step,
    step_underflows,
    tiny_step_count,
    trial_step_end,
)
from engine.multibody.kernels.interrupt_request import InterruptRequest, watching

#: Exceptions that make a trial step fail (the step is retried smaller) instead of
#: ending the simulation at once. Programming errors (TypeError, AttributeError, ...)
#: are not caught.
_RECOVERABLE = (SimTKError, ArithmeticError, ValueError, np.linalg.LinAlgError)


#: Bootstrapping stages that raise the cubic Hermite interpolant to order 4 or 5: each
#: stage evaluates the derivatives at these fractions of the step on the previous
#: interpolant and fits a polynomial matching them (besides the end values and slopes).
_BOOTSTRAP_STAGES = {4: [(1.0 / 3.0,)], 5: [(1.0 / 3.0,), (1.0 / 3.0, 2.0 / 3.0)]}


def _solveHermite(thetas: list[float], rows: list[np.ndarray]) -> np.ndarray:
    """Coefficients c (powers of theta, one row each) of the polynomial p with p(0) =
    rows[0], p(1) = rows[1], p'(0) = rows[2], p'(1) = rows[3] and p'(thetas[i]) =
    rows[4+i] (derivatives with respect to theta, i.e. h*ydot)."""
    n = 4 + len(thetas)
    A = np.zeros((n, n))
    A[0, 0] = 1.0
    A[1, :] = 1.0
    powers = np.arange(n)
    A[2, 1] = 1.0
    A[3, 1:] = powers[1:]
    for i, th in enumerate(thetas):
        A[4 + i, 1:] = powers[1:] * th ** (powers[1:] - 1)
    return np.linalg.solve(A, np.vstack(rows))


class SuccessfulStepStatus(IntEnum):
    """Why stepTo() returned (Simbody's ``Integrator::SuccessfulStepStatus``)."""

    ReachedReportTime = 1
    ReachedEventTrigger = 2
    ReachedScheduledEvent = 3
    TimeHasAdvanced = 4
    ReachedStepLimit = 5
    EndOfSimulation = 6
    StartOfContinuousInterval = 7
    InvalidSuccessfulStepStatus = -1


class TerminationReason(IntEnum):
    """Why the simulation ended (Simbody's ``Integrator::TerminationReason``)."""

    ReachedFinalTime = 1
    AnUnrecoverableErrorOccurred = 2
    EventHandlerRequestedTermination = 3
    InvalidTerminationReason = -1


class _Comm(IntEnum):
    """What the caller has already been told about the current step."""

    CompletedInternalStepNoEvent = 0
    CompletedInternalStepWithEvent = 1
    StepHasBeenReturnedNoEvent = 2
    StepHasBeenReturnedWithEvent = 3
    FinalTimeHasBeenReturned = 4
    Invalid = -1


class _StepInterruptedError(Exception):
    """A step saw the integrator's interrupt request (``interruptStep``): ``stepTo``
    returns ReachedStepLimit with the State at the last completed step."""


class _TrialStepError(Exception):
    """A trial step produced something unusable (its message says what)."""


def _allFinite(a: np.ndarray) -> bool:
    """True if every entry of the float array ``a`` is finite (NaN and inf are not)."""
    return bool(np.isfinite(a).all())


def _bool(value, what: str) -> bool:
    if not isinstance(value, (bool, np.bool_, int)):
        raise InvalidArgumentError(f"{what} needs True or False, got {value!r}")
    return bool(value)


class Integrator:
    """Base class of every integrator (Simbody's ``Integrator`` and ``IntegratorRep``).

    Not used directly: make a concrete one such as ``RungeKuttaMersonIntegrator(system)``.
    """

    SuccessfulStepStatus = SuccessfulStepStatus
    TerminationReason = TerminationReason
    ReachedReportTime = SuccessfulStepStatus.ReachedReportTime
    ReachedEventTrigger = SuccessfulStepStatus.ReachedEventTrigger
    ReachedScheduledEvent = SuccessfulStepStatus.ReachedScheduledEvent
    TimeHasAdvanced = SuccessfulStepStatus.TimeHasAdvanced
    ReachedStepLimit = SuccessfulStepStatus.ReachedStepLimit
    EndOfSimulation = SuccessfulStepStatus.EndOfSimulation
    StartOfContinuousInterval = SuccessfulStepStatus.StartOfContinuousInterval
    InvalidSuccessfulStepStatus = SuccessfulStepStatus.InvalidSuccessfulStepStatus
    ReachedFinalTime = TerminationReason.ReachedFinalTime
    AnUnrecoverableErrorOccurred = TerminationReason.AnUnrecoverableErrorOccurred
    EventHandlerRequestedTermination = TerminationReason.EventHandlerRequestedTermination
    InvalidTerminationReason = TerminationReason.InvalidTerminationReason

    #: Set by each concrete integrator.
    _methodName = "Integrator"
    _minOrder = 1
    _maxOrder = 1
    _hasErrorControl = True
    #: Order of the interpolant used between steps (see _interpolateY).
    _interpolationOrder = 3

    def __init__(self, system: System) -> None:
        if not isinstance(system, System):
            raise InvalidArgumentError(
                f"{type(self).__name__} needs the System to integrate, got {type(system).__name__}"
            )
        self._system = system
        self._userInitStepSize: float | None = None
        self._userMinStepSize: float | None = None
        self._userMaxStepSize: float | None = None
        self._userAccuracy: float | None = None
        self._userConsTol: float | None = None
        self._userFinalTime: float | None = None
        self._userInternalStepLimit: int | None = None
        self._userUseInfinityNorm: bool | None = None
        self._userReturnEveryInternalStep: bool | None = None
        self._userProjectEveryStep: bool | None = None
        self._userAllowInterpolation: bool | None = None
        self._userProjectInterpolatedStates: bool | None = None
        self._userForceFullNewton: bool | None = None
        self._initialized = False
        self._advanced: State | None = None
        self._interp: State | None = None
        self._useInterp = False
        self._comm = _Comm.Invalid
        self._startOfContinuousInterval = False
        self._terminationReason = TerminationReason.InvalidTerminationReason
        self._accuracyInUse = math.nan
        self._consTol = math.nan
        #: (yErrEst, norm, worst) when the attempt that returned yErrEst also computed the
        #: error test's norm (RungeKuttaMersonIntegrator's compiled attempt)
        self._knownErrorNorm: tuple | None = None
        self._timeScale = system.getDefaultTimeScale()
        self._triggerInfos: list = []
        self._tLow = self._tHigh = math.nan
        self._triggeredEvents: list[int] = []
        self._estimatedEventTimes: list[float] = []
        self._eventTransitionsSeen: list = []
        self._currentStepSize = math.nan
        self._lastStepSize = math.nan
        self._actualInitialStepSizeTaken = math.nan
        self._lastWorstState = -1
        self._failure = ""
        self._failureExc: BaseException | None = None
        self._stepInProgress = False
        self._stepSerial = 0
        self._tinySteps = 0
        self._denseKey = None
        self._denseCoef = None
        self._scratch: State | None = None
        self.resetAllStatistics()

    # ----------------------------------------------------------- method facts
    def getMethodName(self) -> str:
        """Simbody's name for the method, e.g. ``"RungeKuttaMerson"``."""
        return self._methodName

    def getMethodMinOrder(self) -> int:
        return self._minOrder

    def getMethodMaxOrder(self) -> int:
        return self._maxOrder

    def methodHasErrorControl(self) -> bool:
        return self._hasErrorControl

    def getSystem(self) -> System:
        return self._system

    # --------------------------------------------------------------- settings
    @staticmethod
    def _positive_or_unset(value, what: str) -> float | None:
        value = float(value)
        if value == -1:
            return None
        if not (value > 0 and math.isfinite(value)):
            raise InvalidArgumentError(
                f"{what} must be a positive, finite time (or -1 to use the default), got {value}"
            )
        return value

    def setAccuracy(self, accuracy: float) -> None:
        """Relative accuracy to maintain (dimensionless, 0 < accuracy < 1; default 1e-3).
        -1 restores the default. Takes effect at the next initialize()."""
        accuracy = float(accuracy)
        if accuracy == -1:
            self._userAccuracy = None
            return
        if not 0 < accuracy < 1:
            raise InvalidArgumentError(
                "setAccuracy: accuracy is a fraction of each variable's unit change and must be "
                f"between 0 and 1 (e.g. 1e-3, the default, or 1e-8); got {accuracy}"
            )
        self._userAccuracy = accuracy

    def setConstraintTolerance(self, consTol: float) -> None:
        """Fraction of each constraint's unit error allowed (0 < tol <= 1; default
        accuracy/10). -1 restores the default. Takes effect at the next initialize()."""
        consTol = float(consTol)
        if consTol == -1:
            self._userConsTol = None
            return
        if not 0 < consTol <= 1:
            raise InvalidArgumentError(
                f"setConstraintTolerance: the tolerance must be in (0, 1], got {consTol}"
            )
        self._userConsTol = consTol

    def setFinalTime(self, tFinal: float) -> None:
        """Never advance past ``tFinal`` (time units); stepTo() then returns
        EndOfSimulation. -1 means no final time."""
        tFinal = float(tFinal)
        if tFinal == -1:
            self._userFinalTime = None
            return
        if not math.isfinite(tFinal):
            raise InvalidArgumentError(f"setFinalTime: final time must be finite, got {tFinal}")
        self._userFinalTime = tFinal

    def _check_step_sizes(self, init, mn, mx) -> None:
        if init is not None and mn is not None and init < mn:
            raise InvalidArgumentError(
                f"initial step size {init} is smaller than the minimum step size {mn}"
            )
        if init is not None and mx is not None and init > mx:
            raise InvalidArgumentError(
                f"initial step size {init} is larger than the maximum step size {mx}"
            )
        if mn is not None and mx is not None and mn > mx:
            raise InvalidArgumentError(
                f"minimum step size {mn} is larger than the maximum step size {mx}"
            )

    def setInitialStepSize(self, stepSize: float) -> None:
        """First step to try after initialize() (time units; -1 for the default,
        a tenth of the System's time scale)."""
        h = self._positive_or_unset(stepSize, "setInitialStepSize: the step size")
        self._check_step_sizes(h, self._userMinStepSize, self._userMaxStepSize)
        self._userInitStepSize = h

    def setMinimumStepSize(self, stepSize: float) -> None:
        """Smallest step the error control may shrink to (time units; -1: no limit).
        At this size a step is accepted even if its error estimate is too large."""
        h = self._positive_or_unset(stepSize, "setMinimumStepSize: the step size")
        self._check_step_sizes(self._userInitStepSize, h, self._userMaxStepSize)
        self._userMinStepSize = h

    def setMaximumStepSize(self, stepSize: float) -> None:
        """Largest step to take (time units; -1: no limit)."""
        h = self._positive_or_unset(stepSize, "setMaximumStepSize: the step size")
        self._check_step_sizes(self._userInitStepSize, self._userMinStepSize, h)
        self._userMaxStepSize = h

    def setFixedStepSize(self, stepSize: float) -> None:
        """Take every step with this size (time units): sets the initial, minimum and
        maximum step sizes (steps are still shortened to land on report times)."""
        h = float(stepSize)
        if not (h > 0 and math.isfinite(h)):
            raise InvalidArgumentError(
                f"setFixedStepSize: the step size must be positive and finite, got {stepSize}"
            )
        self._userInitStepSize = self._userMinStepSize = self._userMaxStepSize = h

    def setInternalStepLimit(self, nSteps: int) -> None:
        """Return ReachedStepLimit after this many internal steps in one stepTo()
        (0 or negative: no limit)."""
        n = index_value(nSteps, "setInternalStepLimit: nSteps")
        self._userInternalStepLimit = n if n > 0 else None

    def setUseInfinityNorm(self, useInfinityNorm: bool) -> None:
        """Use the max-abs norm instead of RMS for error and constraint tests."""
        self._userUseInfinityNorm = _bool(useInfinityNorm, "setUseInfinityNorm")

    def isInfinityNormInUse(self) -> bool:
        return self._userUseInfinityNorm is True

    def setReturnEveryInternalStep(self, shouldReturn: bool) -> None:
        """Make stepTo() return TimeHasAdvanced after every internal step."""
        self._userReturnEveryInternalStep = _bool(shouldReturn, "setReturnEveryInternalStep")

    def setProjectEveryStep(self, forceProject: bool) -> None:
        """Project onto the constraint manifold after every step, even when the
        constraint errors are already within tolerance."""
        self._userProjectEveryStep = _bool(forceProject, "setProjectEveryStep")

    def setAllowInterpolation(self, shouldInterpolate: bool) -> None:
        """If False, internal steps end exactly at report times instead of stepping
        past them and interpolating back."""
        self._userAllowInterpolation = _bool(shouldInterpolate, "setAllowInterpolation")

    def setProjectInterpolatedStates(self, shouldProject: bool) -> None:
        """If False, interpolated (reported) states are not projected onto the constraints."""
        self._userProjectInterpolatedStates = _bool(shouldProject, "setProjectInterpolatedStates")

    def setForceFullNewton(self, forceFullNewton: bool) -> None:
        """Ask projections to use full Newton iterations (recompute the iteration matrix)."""
        self._userForceFullNewton = _bool(forceFullNewton, "setForceFullNewton")

    def getAccuracyInUse(self) -> float:
        """Accuracy chosen at initialize() (NaN before the first initialize())."""
        return self._accuracyInUse

    def getConstraintToleranceInUse(self) -> float:
        """Constraint tolerance chosen at initialize() (NaN before initialize())."""
        return self._consTol

    # ------------------------------------------------------------- statistics
    def resetAllStatistics(self) -> None:
        """Zero every counter."""
        self._statsRealizations = 0
        self._statsRealizationFailures = 0
        self._statsQProjections = self._statsUProjections = 0
        self._statsQProjectionFailures = self._statsUProjectionFailures = 0
        self._resetMethodStatistics()

    def _resetMethodStatistics(self) -> None:
        self._statsStepsTaken = 0
        self._statsStepsAttempted = 0
        self._statsErrorTestFailures = 0
        self._statsConvergenceTestFailures = 0
        self._statsConvergentIterations = 0
        self._statsDivergentIterations = 0

    def getNumStepsTaken(self) -> int:
        return self._statsStepsTaken

    def getNumStepsAttempted(self) -> int:
        return self._statsStepsAttempted

    def getNumRealizations(self) -> int:
        """Evaluations of the state derivatives (realizations to Acceleration)."""
        return self._statsRealizations

    def getNumRealizationFailures(self) -> int:
        return self._statsRealizationFailures

    def getNumQProjections(self) -> int:
        return self._statsQProjections

    def getNumUProjections(self) -> int:
        return self._statsUProjections

    def getNumProjections(self) -> int:
        return self._statsQProjections + self._statsUProjections

    def getNumQProjectionFailures(self) -> int:
        return self._statsQProjectionFailures

    def getNumUProjectionFailures(self) -> int:
        return self._statsUProjectionFailures

    def getNumProjectionFailures(self) -> int:
        return self._statsQProjectionFailures + self._statsUProjectionFailures

    def getNumErrorTestFailures(self) -> int:
        """Step attempts rejected (error estimate too large, or the step failed to
        converge and had to be retried smaller)."""
        return self._statsErrorTestFailures

    def getNumConvergenceTestFailures(self) -> int:
        return self._statsConvergenceTestFailures

    def getNumConvergentIterations(self) -> int:
        return self._statsConvergentIterations

    def getNumDivergentIterations(self) -> int:
        return self._statsDivergentIterations

    def getNumIterations(self) -> int:
        return self._statsConvergentIterations + self._statsDivergentIterations

    def getActualInitialStepSizeTaken(self) -> float:
        """Size of the first successful step after initialize() (NaN until there is one)."""
        return self._actualInitialStepSizeTaken

    def getPreviousStepSizeTaken(self) -> float:
        """Size of the last successful internal step (time units)."""
        return self._lastStepSize

    def getPredictedNextStepSize(self) -> float:
        """The step size the next internal step will try first (time units)."""
        return self._currentStepSize

    def getPreviousStepWorstState(self) -> int:
        """Index in y of the variable with the largest error in the last error test
        (-1 if none); see also the StepFailedError message."""
        return self._lastWorstState

    # ------------------------------------------------------------ state access
    def _requireInitialized(self, what: str) -> None:
        if not self._initialized:
            raise SimTKError(
                f"{type(self).__name__}.{what}: the integrator has not been initialized; "
                "call initialize(state) first"
            )

    def getState(self) -> State:
        """The current trajectory State: interpolated (report times, pre-event state)
        or the advanced state. Realized through at least Velocity."""
        self._requireInitialized("getState")
        return self._interp if self._useInterp else self._advanced

    def isStateInterpolated(self) -> bool:
        return self._useInterp

    def getAdvancedState(self) -> State:
        """The State the integrator has actually advanced to."""
        self._requireInitialized("getAdvancedState")
        return self._advanced

    def updAdvancedState(self) -> State:
        """Writable advanced state (for event handlers); call reinitialize() after
        changing it."""
        self._requireInitialized("updAdvancedState")
        return self._advanced

    def getTime(self) -> float:
        """Time of getState()."""
        return self.getState().getTime()

    def getAdvancedTime(self) -> float:
        return self.getAdvancedState().getTime()

    def isSimulationOver(self) -> bool:
        return self._comm == _Comm.FinalTimeHasBeenReturned

    def getTerminationReason(self) -> TerminationReason:
        """Why the simulation ended; InvalidTerminationReason while it has not."""
        return self._terminationReason

    @staticmethod
    def getSuccessfulStepStatusString(status) -> str:
        try:
            return SuccessfulStepStatus(status).name
        except ValueError:
            return f"UNKNOWN SUCCESSFUL STEP STATUS {int(status)}"

    @staticmethod
    def getTerminationReasonString(reason) -> str:
        try:
            return TerminationReason(reason).name
        except ValueError:
            return f"UNKNOWN TERMINATION REASON {int(reason)}"

    # ----------------------------------------------------------- event queries
    def _requireEventReturned(self, what: str) -> None:
        if self._comm != _Comm.StepHasBeenReturnedWithEvent:
            t = self._advanced.getTime() if self._advanced is not None else math.nan
            raise SimTKError(
                f"Integrator.{what}() was called at time {t} but no event had triggered; it is "
                "only available right after stepTo() returned ReachedEventTrigger"
            )

    def getEventWindow(self) -> np.ndarray:
        """[tLow, tHigh]: the triggered events happened in (tLow, tHigh]."""
        self._requireEventReturned("getEventWindow")
        return np.array([self._tLow, self._tHigh])

    def getTriggeredEvents(self) -> list[int]:
        """EventIds of the triggered events, ordered by estimated occurrence time."""
        self._requireEventReturned("getTriggeredEvents")
        return list(self._triggeredEvents)

    def getEstimatedEventTimes(self) -> list[float]:
        self._requireEventReturned("getEstimatedEventTimes")
        return list(self._estimatedEventTimes)

    def getEventTransitionsSeen(self) -> list:
        """Trigger.Rising or Trigger.Falling for each triggered event."""
        self._requireEventReturned("getEventTransitionsSeen")
        return list(self._eventTransitionsSeen)

    # ----------------------------------------------------------- initializing
    def initialize(self, initState: State) -> None:
        """Copy ``initState`` and prepare to integrate from it: realize Instance,
        apply prescribed motion, project onto the constraints, let initialization
        handlers (and Measures) set up, realize Acceleration and auto-update discrete
        variables. Statistics of the method are reset. Raises
        ComputationInterruptedError (the integrator then not initialized) if
        ``interruptStep`` is called meanwhile."""
        if not isinstance(initState, State):
            raise InvalidArgumentError(f"initialize needs a State, got {type(initState).__name__}")
        request = self._interrupt()
        try:
            with watching(request):
                self._initialize(initState)
        except ComputationInterruptedError:
            self._initialized = False
            request.clear()
            raise

    # ------------------------------------------------------------ interrupting
    #: the InterruptRequest this integrator's long computations look at (made on first use)
    _interruptRequest: InterruptRequest | None = None

    def interruptStep(self) -> None:
        """Ask a ``stepTo`` or ``initialize`` running in another thread to return as soon
        as it can: between steps, or within milliseconds inside a step, a projection or
        an acceleration realization of a model with many constraints. The step in
        progress is not taken: the advanced State stays at the last completed step, and
        ``stepTo`` returns ReachedStepLimit (which a TimeStepper returns when it reports
        all significant States); ``initialize`` raises ComputationInterruptedError. A
        request made while nothing runs makes the next ``stepTo`` return at once.
        Thread-safe; an mbstudio extension."""
        self._interrupt().set()

    def _interrupt(self) -> InterruptRequest:
        """This integrator's InterruptRequest."""
        request = self._interruptRequest
        if request is None:
            request = self._interruptRequest = InterruptRequest()
        return request

    def _initialize(self, initState: State) -> None:
        """``initialize`` under this integrator's interrupt request."""
        system = self._system
        self._initialized = False
        self._advanced = State(initState)
        self._interp = None
        self._useInterp = False
        advanced = self._advanced
        system.realizeModel(advanced)
        system.realize(advanced, Stage.Instance)
        self._timeScale = system.getDefaultTimeScale()
        self._accuracyInUse = self._userAccuracy if self._userAccuracy is not None else 1e-3
        self._consTol = (
            self._userConsTol if self._userConsTol is not None else self._accuracyInUse / 10
        )
        self._terminationReason = TerminationReason.InvalidTerminationReason
        self._realizeAndProjectKinematicsWithThrow(
            advanced, ProjectOptions.ForceProjection, ProjectOptions.ForceFullNewton
        )
        results = system.handleEvents(
            advanced, Event.Cause.Initialization, [], HandleEventsOptions(self._consTol)
        )
        status = results.getExitStatus()
        if status == HandleEventsResults.ShouldTerminate:
            raise SimTKError(
                "Integrator initialization failed: an initialization event handler requested "
                "termination" + (f" ({results.getMessage()})" if results.getMessage() else "")
            )
        if status == HandleEventsResults.Failed:
            raise SimTKError(
                "Integrator initialization failed: an initialization event handler failed"
                + (f" ({results.getMessage()})" if results.getMessage() else "")
            )
        self._realizeStateDerivatives(advanced)
        # Swap in the auto-update values computed from the initial state; this one time
        # the swapped-in values were never realized, so recompute everything after Model.
        advanced.autoUpdateDiscreteVariables()
        advanced.invalidateAllCacheAtOrAbove(Stage.Instance)
        self._realizeStateDerivatives(advanced)
        self._refreshEventTriggerInfo()
        self._saveAdvancedStateAsPrevious()
        self._saveAdvancedStateDerivsAsPrevious()
        self._comm = _Comm.CompletedInternalStepNoEvent
        self._startOfContinuousInterval = True
        self._stepInProgress = False
        self._initialized = True
        self._methodInitialize(advanced)

    def _methodInitialize(self, state: State) -> None:
        """Choose the first step size and reset the method statistics."""
        h = self._userInitStepSize if self._userInitStepSize is not None else self._timeScale / 10
        if self._userMinStepSize is not None:
            h = max(h, self._userMinStepSize)
        if self._userMaxStepSize is not None:
            h = min(h, self._userMaxStepSize)
        self._currentStepSize = h
        self._lastStepSize = h
        self._actualInitialStepSizeTaken = math.nan if self._hasErrorControl else h
        self._resetMethodStatistics()

    def reinitialize(self, stage: Stage, shouldTerminate: bool) -> None:
        """After an event handler changed the advanced state: restart the continuous
        interval if anything below Report changed; end the simulation if asked."""
        stage = stage_value(stage, "reinitialize")
        self._requireInitialized("reinitialize")
        if stage < Stage.Report:
            self._startOfContinuousInterval = True
            self._useInterp = False
        if shouldTerminate:
            self._terminate(TerminationReason.EventHandlerRequestedTermination)
        self._methodReinitialize(stage, shouldTerminate)

    def _methodReinitialize(self, stage: Stage, shouldTerminate: bool) -> None:
        """Concrete integrators with history (multistep methods) restart here."""

    def _terminate(self, reason: TerminationReason) -> None:
        self._comm = _Comm.FinalTimeHasBeenReturned
        self._useInterp = False
        self._terminationReason = reason

    def _refreshEventTriggerInfo(self) -> None:
        self._triggerInfos = self._system.calcEventTriggerInfo(self._advanced)

    # ---------------------------------------------------------------- stepping
    def stepBy(self, interval: float, advanceIntervalLimit: float = math.inf):
        """stepTo(t + interval, t + advanceIntervalLimit) from the current time t."""
        t = self.getState().getTime()
        return self.stepTo(t + float(interval), t + float(advanceIntervalLimit))

    def stepTo(self, reportTime: float, scheduledEventTime: float = math.inf):
        """Advance until reportTime, a scheduled event at scheduledEventTime, a
        triggered event, the final time, or another reason to return control;
        returns the SuccessfulStepStatus saying which. Never advances past
        scheduledEventTime or the final time. Raises StepFailedError if a step cannot
        be taken (the advanced state is then restored to the start of that step)."""
        self._requireInitialized("stepTo")
        reportTime = float(reportTime)
        scheduledEventTime = float(scheduledEventTime)
        t = self.getState().getTime()
        if math.isnan(reportTime) or reportTime < t:
            raise InvalidArgumentError(
                f"stepTo: the report time {reportTime} is earlier than the current time {t}; "
                "an integrator can only go forward"
            )
        if math.isnan(scheduledEventTime) or scheduledEventTime < t:
            raise InvalidArgumentError(
                f"stepTo: the scheduled event time {scheduledEventTime} is earlier than the "
                f"current time {t}"
            )
        request = self._interrupt()
        try:
            # A trial state or error estimate that overflows is detected and named by
            # the step itself (see _TrialStepError), not worth a numpy warning.
            with np.errstate(over="ignore", invalid="ignore"), watching(request):
                return self._stepTo(reportTime, scheduledEventTime)
        except (_StepInterruptedError, ComputationInterruptedError):
            self._restorePrevious()
            request.clear()
            self._useInterp = False
            self._comm = _Comm.StepHasBeenReturnedNoEvent
            return SuccessfulStepStatus.ReachedStepLimit
        except StepFailedError:
            self._restorePrevious()
            self._terminate(TerminationReason.AnUnrecoverableErrorOccurred)
            raise
        except (_TrialStepError, *_RECOVERABLE) as exc:
            # Evaluating an accepted (not trial) state failed: nothing smaller to try.
            t = self._advanced.getTime()
            self._restorePrevious()
            self._terminate(TerminationReason.AnUnrecoverableErrorOccurred)
            raise StepFailedError(
                f"{self._methodName} integrator step failed at t={t:.17g}: "
                + (str(exc) if isinstance(exc, _TrialStepError) else f"{type(exc).__name__}: {exc}")
            ) from (None if isinstance(exc, _TrialStepError) else exc)
        except BaseException:
            self._restorePrevious()
            raise

    def _restorePrevious(self) -> None:
        if not self._stepInProgress:
            return  # the advanced state is a completed step
        self._stepInProgress = False
        adv = self._advanced
        if adv.getTime() != self._tPrev or not np.array_equal(adv.getY(), self._yPrev):
            adv.setTime(self._tPrev)
            adv.setY(self._yPrev)

    def _stepTo(self, reportTime: float, scheduledEventTime: float):
        if self._startOfContinuousInterval:
            # A handler may have changed Instance-stage (or earlier) variables.
            self._system.realize(self._advanced, Stage.Instance)
            self._refreshEventTriggerInfo()
            self._startOfContinuousInterval = False
            self._comm = _Comm.StepHasBeenReturnedNoEvent
            return SuccessfulStepStatus.StartOfContinuousInterval
        finalTime = self._userFinalTime if self._userFinalTime is not None else math.inf
        tMax = min(scheduledEventTime, finalTime)
        tReturn = min(reportTime, tMax)
        if self._userAllowInterpolation is False:
            tMax = tReturn
        internalStepsTaken = 0
        request = self._interrupt()
        while True:
            if request.is_set():
                raise _StepInterruptedError()
            comm = self._comm
            tAdv = self._advanced.getTime()
            if comm == _Comm.FinalTimeHasBeenReturned:
                raise StepFailedError(
                    f"Integrator.stepTo(t={reportTime}): the simulation is already over "
                    f"({self._terminationReason.name} at t={tAdv}). Check isSimulationOver() "
                    "or the EndOfSimulation status, or call initialize() to restart."
                )
            if comm == _Comm.StepHasBeenReturnedNoEvent:
                if tAdv >= finalTime:
                    self._useInterp = False
                    self._terminate(TerminationReason.ReachedFinalTime)
                    return SuccessfulStepStatus.EndOfSimulation
            elif comm == _Comm.CompletedInternalStepWithEvent:
                if reportTime <= self._tLow:
                    if reportTime < tAdv:
                        self._createInterpolatedState(reportTime)
                        self._useInterp = True
                    else:
                        self._useInterp = False
                    return SuccessfulStepStatus.ReachedReportTime
                self._createInterpolatedState(self._tLow)
                self._useInterp = True
                self._comm = _Comm.StepHasBeenReturnedWithEvent
                return SuccessfulStepStatus.ReachedEventTrigger
            else:  # CompletedInternalStepNoEvent or StepHasBeenReturnedWithEvent
                if comm == _Comm.StepHasBeenReturnedWithEvent:
                    self._useInterp = False
                if reportTime <= tAdv:
                    if reportTime < tAdv:
                        self._createInterpolatedState(reportTime)
                        self._useInterp = True
                    else:
                        self._useInterp = False
                        self._comm = _Comm.StepHasBeenReturnedNoEvent
                    return SuccessfulStepStatus.ReachedReportTime
                self._useInterp = False
                reason = None
                if tAdv >= scheduledEventTime:
                    reason = SuccessfulStepStatus.ReachedScheduledEvent
                elif self._userReturnEveryInternalStep or self._system.hasTimeAdvancedEvents():
                    reason = SuccessfulStepStatus.TimeHasAdvanced
                elif tAdv >= finalTime:
                    reason = SuccessfulStepStatus.ReachedReportTime
                elif (
                    self._userInternalStepLimit is not None
                    and internalStepsTaken >= self._userInternalStepLimit
                ):
                    reason = SuccessfulStepStatus.ReachedStepLimit
                if reason is not None:
                    self._comm = _Comm.StepHasBeenReturnedNoEvent
                    return reason

            tNow = self.getState().getTime()
            if tNow == reportTime:
                return SuccessfulStepStatus.ReachedReportTime
            if tNow == scheduledEventTime:
                return SuccessfulStepStatus.ReachedScheduledEvent

            limit = self._userInternalStepLimit
            taken = self._takeCompiledSteps(
                tMax,
                min(reportTime, scheduledEventTime, finalTime),
                math.inf if limit is None else limit - internalStepsTaken,
            )
            if taken:
                internalStepsTaken += taken
                self._comm = _Comm.CompletedInternalStepNoEvent
                continue

            # Advance: the advanced state becomes the previous one; its derivatives are
            # recorded before the auto-update variables are swapped in (System.txt).
            advanced = self._advanced
            self._saveAdvancedStateAsPrevious()
            self._stepInProgress = True
            self._realizeStateDerivatives(advanced)
            self._checkDerivatives(advanced)
            self._saveAdvancedStateDerivsAsPrevious()
            advanced.autoUpdateDiscreteVariables()
            self._stepSerial += 1
            eventOccurred = self._takeOneStep(tMax, reportTime)
            self._stepInProgress = False
            internalStepsTaken += 1
            self._statsStepsTaken += 1
            self._comm = (
                _Comm.CompletedInternalStepWithEvent
                if eventOccurred
                else _Comm.CompletedInternalStepNoEvent
            )

    def whyNotCompiledSteps(self) -> str:
        """Why this integrator takes its steps one by one through the State ("" if it
        takes runs of them in one compiled call); an mbstudio extension for the studio's
        stage inspector. Requires initialize()."""
        self._requireInitialized("whyNotCompiledSteps")
        return self._compiledStepsObstacle(self._advanced)

    def _compiledStepsObstacle(self, advanced: State) -> str:
        """whyNotCompiledSteps for the advanced State ``advanced`` ("" = no obstacle)."""
        return f"{self._methodName} has no compiled stepping (RungeKuttaMerson has)"

    def _takeCompiledSteps(self, tMax: float, tStop: float, maxSteps: float) -> int:
        """Take, in compiled code, the internal steps toward ``tMax`` that the loop
        below would take while the time is before ``tStop`` (at most ``maxSteps``),
        leaving the integrator and the advanced state as the loop would; the number
        taken (0: the loop takes the next step itself). Methods with such a kernel
        override this."""
        return 0

    # ------------------------------------------------------ one internal step
    def _takeOneStep(self, tMax: float, tReport: float) -> bool:
        """Advance from the previous state toward tMax; True if an event triggered
        (then the advanced state is at tHigh of the localized window)."""
        self._advanceOneStep(tMax)
        if not self._advanced.getTime() > self._tPrev:
            raise self._stepFailed(self._tPrev, 0.0, "time did not advance")
        return self._findEvents(tReport)

    def _minResolvableStep(self, t: float) -> float:
        return min_resolvable_step(t)

    def _advanceOneStep(self, tMax: float) -> None:
        """Error-controlled step loop (Simbody's AbstractIntegratorRep::takeOneStep)."""
        t0 = self._tPrev
        system = self._system
        self._failure, self._failureExc = "", None
        while True:
            h = self._currentStepSize
            t1, limited = trial_step_end(t0, h, tMax)
            if step_underflows(t0, t1, h, limited):
                raise self._stepFailed(t0, h, "step size underflow")
            self._statsStepsAttempted += 1
            self._knownErrorNorm = None
            converged, yErrEst, errOrder, numIterations = self._guardedAttempt(t1)
            if converged:
                if self._hasErrorControl:
                    known = self._knownErrorNorm
                    if known is not None and known[0] is yErrEst:  # a kernel computed it
                        errNorm, worst = known[1], known[2]
                    else:
                        errNorm, worst = calcErrorNorm(
                            system,
                            self._advanced,
                            yErrEst,
                            self._uScalePrev,
                            self._zScalePrev,
                            self.isInfinityNormInUse(),
                        )
                    self._lastWorstState = worst
                    if errNorm > self._accuracyInUse:
                        self._failure = self._errorTestMessage(errNorm, worst)
                else:
                    errNorm = 0.0
                self._statsConvergentIterations += numIterations
            else:
                errNorm = math.inf
                self._statsConvergenceTestFailures += 1
                self._statsDivergentIterations += numIterations
                if not self._hasErrorControl:
                    raise self._stepFailed(t0, t1 - t0, "the step could not be completed")
            atMinimum = self._userMinStepSize is not None and h <= self._userMinStepSize
            if not converged and atMinimum:
                raise self._stepFailed(t0, t1 - t0, "the step failed even at the minimum step size")
            success = (
                self._adjustStepSize(errNorm, errOrder, limited) if self._hasErrorControl else True
            )
            if success:
                self._lastStepSize = t1 - t0
                if math.isnan(self._actualInitialStepSizeTaken):
                    self._actualInitialStepSizeTaken = self._lastStepSize
                self._checkProgress(t0, t1, limited)
                return
            self._statsErrorTestFailures += 1

    def _checkProgress(self, t0: float, t1: float, limited: bool) -> None:
        """Fail rather than crawl: many consecutive steps at the resolution limit of
        time mean the integration makes no practical progress."""
        self._tinySteps = tiny_step_count(t0, t1, limited, self._tinySteps)
        if self._tinySteps > MAX_TINY_STEPS:
            self._tinySteps = 0
            self._failure = (
                f"the last {MAX_TINY_STEPS} steps were all shorter than 1000 times the "
                "smallest resolvable time step"
            )
            raise self._stepFailed(t0, t1 - t0, "step size underflow")

    def _guardedAttempt(self, t1: float):
        try:
            return self._attemptDAEStep(t1)
        except _TrialStepError as exc:
            self._failure, self._failureExc = str(exc), None
        except ComputationInterruptedError:
            raise
        except _RECOVERABLE as exc:
            self._failure = f"evaluating the trial step raised {type(exc).__name__}: {exc}"
            self._failureExc = exc
        return False, None, self._minOrder + 1, 1

    def _errorTestMessage(self, errNorm: float, worst: int) -> str:
        norm = "infinity" if self.isInfinityNormInUse() else "RMS"
        return (
            f"its estimated error {errNorm:.3g} (weighted {norm} norm, a fraction of each "
            f"variable's unit change) exceeded the accuracy {self._accuracyInUse:g}; the largest "
            f"error was in {describeYIndex(self._advanced, worst)}"
        )

    def _stepFailed(self, t0: float, h: float, what: str) -> StepFailedError:
        why = self._failure or "no reason was recorded"
        settings = f"accuracy {self._accuracyInUse:g}, constraint tolerance {self._consTol:g}"
        if self._userMinStepSize is not None:
            settings += f", minimum step size {self._userMinStepSize:g}"
        msg = (
            f"{self._methodName} integrator step failed at t={t0:.17g}: {what} "
            f"(step size h={h:.3g}, {settings}). The last attempt failed because {why}."
        )
        if "underflow" in what:
            stiff = (
                ""
                if self._methodName.startswith("CPodes")
                else " the system may be too stiff for an explicit method (try CPodesIntegrator),"
            )
            msg += (
                " The step size had to shrink until time could no longer advance; the "
                f"derivatives may be discontinuous or non-finite there,{stiff} or the accuracy "
                "may be tighter than double precision allows."
            )
        err = StepFailedError(msg)
        err.__cause__ = self._failureExc
        return err

    def _adjustStepSize(self, err: float, errOrder: int, limited: bool) -> bool:
        """Choose the next step size from the error norm; True if this step is
        accepted (Simbody's AbstractIntegratorRep::adjustStepSize)."""
        h = self._currentStepSize
        mn, mx = self._userMinStepSize, self._userMaxStepSize
        newH = adjusted_step_size(
            h,
            err,
            errOrder,
            limited,
            self._accuracyInUse,
            0.0 if mn is None else mn,
            math.inf if mx is None else mx,
        )
        self._currentStepSize = newH
        return newH >= h

    # ---------------------------------------------------------- DAE/ODE steps
    def _attemptDAEStep(self, t1: float):
        """Explicit ODE step, then projection of q, u and the error estimate unless the
        error is hopeless. Returns (converged, yErrEst, errOrder, numIterations)."""
        converged, yErrEst, errOrder = self._attemptODEStep(t1)
        if not converged:
            return False, yErrEst, errOrder, 1
        advanced = self._advanced
        if advanced.getNQErr() == 0 and advanced.getNUErr() == 0:
            return True, yErrEst, errOrder, 1  # nothing to project
        errNorm, _ = calcErrorNorm(
            self._system,
            advanced,
            yErrEst,
            self._uScalePrev,
            self._zScalePrev,
            self.isInfinityNormInUse(),
        )
        if errNorm > 2.0**errOrder * self._accuracyInUse:
            return True, yErrEst, errOrder, 1
        limit = self._projectionLimit()
        if not self._localProjectQAndQErrEstNoThrow(advanced, yErrEst, limit):
            return False, yErrEst, errOrder, 1
        self._system.prescribeU(advanced)
        self._system.realize(advanced, Stage.Velocity)
        if not self._localProjectUAndUErrEstNoThrow(advanced, yErrEst, limit):
            return False, yErrEst, errOrder, 1
        return True, yErrEst, errOrder, 1

    def _attemptODEStep(self, t1: float):
        """(converged, yErrEst, errOrder) for an explicit step to t1; the advanced state
        ends at (t1, y1) realized through Velocity."""
        raise NotImplementedError(f"{type(self).__name__} must implement _attemptODEStep")

    def _projectionLimit(self) -> float:
        tol = self._consTol
        return max(2 * tol, math.sqrt(tol))

    # ------------------------------------------------------- state evaluation
    def _realizeStateDerivatives(self, state: State) -> None:
        """Realize through Acceleration, counting it as one derivative evaluation."""
        if state.getSystemStage() < Stage.Acceleration:
            self._statsRealizations += 1
            self._statsRealizationFailures += 1
            self._system.realize(state, Stage.Acceleration)
            self._statsRealizationFailures -= 1

    def _setAdvancedState(self, t: float, y: np.ndarray) -> None:
        adv = self._advanced
        try:
            adv.setY(y)  # checks y (finite, right size) before changing anything
        except InvalidArgumentError:
            if _allFinite(y):
                raise
            k = int(np.flatnonzero(~np.isfinite(y))[0])
            raise _TrialStepError(
                f"the trial state at t={t:.17g} had {describeYIndex(adv, k)} = {y[k]}"
            ) from None
        adv.setTime(t)

    def _checkDerivatives(self, state: State) -> np.ndarray:
        """ydot of a State realized to Acceleration; _TrialStepError naming the variable
        if any entry is not finite."""
        ydot = state.getYDot()
        if not _allFinite(ydot):
            k = int(np.flatnonzero(~np.isfinite(ydot))[0])
            raise _TrialStepError(
                f"the time derivative of {describeYIndex(state, k)} was {ydot[k]} at "
                f"t={state.getTime():.17g}"
            )
        return ydot

    def _setAdvancedStateAndRealizeDerivatives(
        self, t: float, y: np.ndarray, out: np.ndarray | None = None
    ) -> np.ndarray:
        """Set (t, y), apply prescribed motion, realize Acceleration; returns a copy of
        ydot (written into ``out`` if given)."""
        self._setAdvancedStateAndRealizeKinematics(t, y)
        self._realizeStateDerivatives(self._advanced)
        ydot = self._checkDerivatives(self._advanced)
        if out is None:
            return ydot.copy()
        np.copyto(out, ydot)
        return out

    def _setAdvancedStateAndRealizeKinematics(self, t: float, y: np.ndarray) -> None:
        """Set (t, y), apply prescribed motion, realize Velocity."""
        system, adv = self._system, self._advanced
        self._setAdvancedState(t, y)
        fused = system._fused_realization
        if fused is not None and fused.compiledDerivatives(adv) is not None:
            # nothing is prescribed: one realize call does Time..Velocity
            system.realize(adv, Stage.Velocity)
            return
        system.realize(adv, Stage.Time)
        system.prescribeQ(adv)
        system.realize(adv, Stage.Position)
        system.prescribeU(adv)
        system.realize(adv, Stage.Velocity)

    # ------------------------------------------------------------- projection
    def _projectOptions(self, *extra) -> ProjectOptions:
        options = ProjectOptions(self._consTol)
        for opt in extra:
            options.setOption(opt)
        if self._userProjectEveryStep:
            options.setOption(ProjectOptions.ForceProjection)
        if self._userUseInfinityNorm:
            options.setOption(ProjectOptions.UseInfinityNorm)
        if self._userForceFullNewton:
            options.setOption(ProjectOptions.ForceFullNewton)
        return options

    def _localProjectQAndQErrEstNoThrow(self, s: State, yErrEst, limit=math.inf) -> bool:
        """Project q (and the q part of yErrEst, in place) onto the position
        constraints; False (a convergence failure for this step) if it fails."""
        if s.getNQErr() == 0:
            return True
        options = self._projectOptions(ProjectOptions.LocalOnly, ProjectOptions.DontThrow)
        options.setProjectionLimit(limit)
        qErrEst = yErrEst[: s.getNQ()] if yErrEst is not None else np.zeros(0)
        _, results = self._system.projectQ(s, qErrEst, options)
        if results.getExitStatus() != ProjectResults.Succeeded:
            self._statsQProjectionFailures += 1
            self._failure = "position projection failed" + (
                f": {results.getMessage()}" if results.getMessage() else ""
            )
            return False
        if results.getAnyChangeMade():
            self._statsQProjections += 1
        return True

    def _localProjectUAndUErrEstNoThrow(self, s: State, yErrEst, limit=math.inf) -> bool:
        """As _localProjectQAndQErrEstNoThrow, for u and the velocity constraints."""
        if s.getNUErr() == 0:
            return True
        options = self._projectOptions(ProjectOptions.LocalOnly, ProjectOptions.DontThrow)
        options.setProjectionLimit(limit)
        nq, nu = s.getNQ(), s.getNU()
        uErrEst = yErrEst[nq : nq + nu] if yErrEst is not None else np.zeros(0)
        _, results = self._system.projectU(s, uErrEst, options)
        if results.getExitStatus() != ProjectResults.Succeeded:
            self._statsUProjectionFailures += 1
            self._failure = "velocity projection failed" + (
                f": {results.getMessage()}" if results.getMessage() else ""
            )
            return False
        if results.getAnyChangeMade():
            self._statsUProjections += 1
        return True

    def _realizeAndProjectKinematicsWithThrow(self, s: State, *extra) -> None:
        """Prescribe, realize and project q then u (raising ProjectionFailedError if a
        projection fails); realized through Velocity on return."""
        system = self._system
        system.realize(s, Stage.Time)
        system.prescribeQ(s)
        system.realize(s, Stage.Position)
        if s.getNQErr():
            self._statsQProjectionFailures += 1
            _, results = system.projectQ(s, np.zeros(0), self._projectOptions(*extra))
            self._statsQProjectionFailures -= 1
            if results.getAnyChangeMade():
                self._statsQProjections += 1
        system.prescribeU(s)
        system.realize(s, Stage.Velocity)
        if s.getNUErr():
            self._statsUProjectionFailures += 1
            _, results = system.projectU(s, np.zeros(0), self._projectOptions(*extra))
            self._statsUProjectionFailures -= 1
            if results.getAnyChangeMade():
                self._statsUProjections += 1

    # ----------------------------------------------------- previous-step data
    def _saveAdvancedStateAsPrevious(self) -> None:
        s = self._advanced
        self._tPrev = s.getTime()
        self._yPrev = s.getY().copy()
        nq, nu = s.getNQ(), s.getNU()
        self._nqPrev, self._nuPrev = nq, nu
        self._uScalePrev = calcRelativeScaling(s.getU(), s.getUWeights())
        self._zScalePrev = calcRelativeScaling(s.getZ(), s.getZWeights())

    def _saveAdvancedStateDerivsAsPrevious(self) -> None:
        s = self._advanced
        self._ydotPrev = s.getYDot().copy()
        self._qdotdotPrev = s.getQDotDot().copy()
        self._triggersPrev = s.getEventTriggers().copy()

    def _prevParts(self):
        """(q0, u0, z0, qdot0, udot0, zdot0) of the step start (copies)."""
        nq, nu = self._nqPrev, self._nuPrev
        y, f = self._yPrev, self._ydotPrev
        return (
            y[:nq],
            y[nq : nq + nu],
            y[nq + nu :],
            f[:nq],
            f[nq : nq + nu],
            f[nq + nu :],
        )

    # ------------------------------------------------------------ interpolation
    def _interpolateY(self, t: float) -> np.ndarray:
        """y(t) for tPrev <= t <= tAdvanced, with an interpolant of the method's order
        (``_interpolationOrder``): linear (1), cubic Hermite from the end values and
        derivatives (3), or that cubic refined with 1 (order 4) or 2 (order 5) extra
        derivative evaluations inside the step (Hermite-Birkhoff bootstrapping)."""
        adv = self._advanced
        t0, t1 = self._tPrev, adv.getTime()
        y0, y1 = self._yPrev, adv.getY()
        if t1 <= t0 or t >= t1:
            return y1.copy()
        if t <= t0:
            return y0.copy()
        theta = (t - t0) / (t1 - t0)
        if self._interpolationOrder <= 1:
            return (1.0 - theta) * y0 + theta * y1
        coef = self._denseCoefficients()
        return np.polynomial.polynomial.polyval(theta, coef, tensor=False).T.copy()

    def _denseCoefficients(self) -> np.ndarray:
        """Polynomial coefficients (in theta = (t-t0)/h, lowest power first, one row per
        power) of the interpolant for the current step; cached per step."""
        adv = self._advanced
        key = (self._tPrev, adv.getTime(), self._stepSerial)
        if self._denseKey == key:
            return self._denseCoef
        self._realizeStateDerivatives(adv)
        t0, t1 = self._tPrev, adv.getTime()
        h = t1 - t0
        rows = [self._yPrev, adv.getY().copy(), h * self._ydotPrev, h * adv.getYDot()]
        coef = _solveHermite([], rows)
        try:
            for thetas in _BOOTSTRAP_STAGES.get(self._interpolationOrder, ()):
                values = [
                    h
                    * self._evaluateDerivatives(
                        t0 + th * h, np.polynomial.polynomial.polyval(th, coef, tensor=False)
                    )
                    for th in thetas
                ]
                coef = _solveHermite(list(thetas), rows + values)
        except ComputationInterruptedError:
            raise
        except (_TrialStepError, *_RECOVERABLE):
            pass  # keep the lower-order interpolant built so far
        self._denseKey, self._denseCoef = key, coef
        return coef

    def _evaluateDerivatives(self, t: float, y: np.ndarray) -> np.ndarray:
        """ydot at (t, y), evaluated on a scratch copy of the advanced state (the fresh
        copy that _createInterpolatedState is about to fill, if there is one: copying a
        State is far dearer than realizing it)."""
        if not _allFinite(y):
            raise _TrialStepError("non-finite interpolated state")
        s = self._scratch if self._scratch is not None else State(self._advanced)
        system = self._system
        s.setTime(t)
        s.setY(y)
        system.realize(s, Stage.Time)
        system.prescribeQ(s)
        system.realize(s, Stage.Position)
        system.prescribeU(s)
        self._realizeStateDerivatives(s)
        return self._checkDerivatives(s).copy()

    def _createInterpolatedState(self, t: float, reuse: State | None = None) -> None:
        """Make the interpolated State at t (realized through Velocity, projected unless
        setProjectInterpolatedStates(False)): a copy of the advanced state, or ``reuse``,
        a copy of it made earlier while the advanced state has not changed since (its
        time and y are overwritten, which invalidates everything a copy would not hold)."""
        interp = State(self._advanced) if reuse is None else reuse
        self._scratch = interp  # scratch for any derivative evaluations of the interpolant
        try:
            y = self._interpolateY(t)
        finally:
            self._scratch = None
        interp.setTime(t)
        interp.setY(y)
        system = self._system
        if self._userProjectInterpolatedStates is False:
            system.realize(interp, Stage.Time)
            system.prescribeQ(interp)
            system.realize(interp, Stage.Position)
            system.prescribeU(interp)
            system.realize(interp, Stage.Velocity)
        else:
            self._realizeAndProjectKinematicsWithThrow(interp, ProjectOptions.LocalOnly)
        self._interp = interp

    def _backUpAdvancedStateByInterpolation(self, t: float) -> None:
        """Move the advanced state back to t (tPrev <= t <= tAdvanced), projected."""
        y = self._interpolateY(t)
        adv = self._advanced
        adv.setTime(t)
        adv.setY(y)
        self._stepSerial += 1
        self._realizeAndProjectKinematicsWithThrow(adv, ProjectOptions.LocalOnly)

    # ------------------------------------------------------------------ events
    def _witnessValuesAt(self, t: float, reuse: State | None = None) -> np.ndarray:
        self._createInterpolatedState(t, reuse)
        self._realizeStateDerivatives(self._interp)
        return self._interp.getEventTriggers().copy()

    def _findEvents(self, tReport: float) -> bool:
        """Look for watched witness sign changes over the step just taken and narrow
        them to their localization windows; True if any triggered (the advanced state
        is then moved back to tHigh)."""
        e0 = self._triggersPrev
        if e0.size == 0:
            return False
        adv = self._advanced
        t0, t1 = self._tPrev, adv.getTime()
        minWindow = SIGNIFICANT_REAL * max(1.0, t1)
        self._realizeStateDerivatives(adv)
        e1 = adv.getEventTriggers().copy()
        infos = self._triggerInfos
        acc, ts = self._accuracyInUse, self._timeScale
        cands, ests, trans, earliest, narrowest = findEventCandidates(
            infos, None, t0, e0, t1, e1, 1.0, minWindow, acc, ts
        )
        if not cands:
            return False
        tLow, tHigh = t0, t1
        eLow, eHigh = e0, e1
        if tHigh - tLow <= narrowest and not (tLow < tReport < tHigh):
            self._setTriggeredEvents(tLow, tHigh, cands, ests, trans, eHigh)
            return True
        bias = 1.0
        sideTwoItersAgo = sidePrevIter = 0
        scratch: State | None = None
        for _ in range(2000):
            if sideTwoItersAgo != 0 and sidePrevIter != 0:
                if sideTwoItersAgo != sidePrevIter:
                    bias = 1.0
                else:
                    bias = bias / 2 if sidePrevIter < 0 else bias * 2
            tMid = tReport if tLow < tReport < tHigh else earliest
            # One State copy serves every trial time of this localization (the advanced
            # state stays put meanwhile); the user has not been given it.
            eMid = self._witnessValuesAt(tMid, scratch)
            scratch = self._interp
            newC, newE, newT, earliestN, narrowestN = findEventCandidates(
                infos, cands, tLow, eLow, tMid, eMid, bias, minWindow, acc, ts
            )
            if newC:
                sideTwoItersAgo, sidePrevIter = sidePrevIter, -1
                tHigh, eHigh = tMid, eMid
            else:
                newC, newE, newT, earliestN, narrowestN = findEventCandidates(
                    infos, cands, tMid, eMid, tHigh, eHigh, bias, minWindow, acc, ts
                )
                sideTwoItersAgo, sidePrevIter = sidePrevIter, 1
                tLow, eLow = tMid, eMid
                if not newC:  # cannot happen for a consistent witness; keep the old list
                    newC, newE, newT = cands, [tHigh] * len(cands), trans
                    earliestN, narrowestN = tHigh, narrowest
            cands, ests, trans = newC, newE, newT
            earliest, narrowest = earliestN, narrowestN
            if tHigh - tLow <= narrowest:
                break
        else:
            raise StepFailedError(
                f"{self._methodName} integrator could not localize the event(s) "
                f"{[infos[i].getEventId() for i in cands]} between t={tLow!r} and t={tHigh!r}"
            )
        self._setTriggeredEvents(tLow, tHigh, cands, ests, trans, eHigh)
        if tHigh < adv.getTime():
            self._backUpAdvancedStateByInterpolation(tHigh)
            self._realizeStateDerivatives(adv)
        return True

    def _setTriggeredEvents(self, tLow, tHigh, cands, ests, trans, eHigh) -> None:
        self._tLow, self._tHigh = float(tLow), float(tHigh)
        infos = self._triggerInfos
        order = sorted(range(len(cands)), key=lambda k: (ests[k], infos[cands[k]].getEventId()))
        self._triggeredEvents = [infos[cands[k]].getEventId() for k in order]
        self._estimatedEventTimes = [min(max(float(ests[k]), tLow), tHigh) for k in order]
        self._eventTransitionsSeen = [trans[k] for k in order]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} '{self._methodName}' for {self._system!r}>"
