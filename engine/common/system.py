"""System: a set of subsystems sharing one State, and the fixed realize() driver.

``realizeTopology()`` builds the default State (realized through Model) and
returns a copy of it; ``realizeModel(state)`` and ``realize(state, stage)``
advance a State one stage at a time, calling every subsystem's hook for that
stage (in the order ``getSubsystemRealizationOrder`` gives) and counting each
stage actually computed. Subsystem 0 is always the DefaultSystemSubsystem,
which holds event handlers, reporters and measures.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from engine.common.default_system_subsystem import DefaultSystemSubsystem
from engine.common.events import Event, HandleEventsOptions, HandleEventsResults
from engine.common.exceptions import (
    IndexOutOfRangeError,
    InvalidArgumentError,
    ProjectionFailedError,
    SimTKError,
    StageTooLowError,
    TopologyMismatchError,
)
from engine.common.index_arg import index_value
from engine.common.project_options import ProjectOptions, ProjectResults
from engine.common.stage import ALL_STAGES, Stage
from engine.common.stage_arg import stage_value
from engine.common.state import State
from engine.common.state_books import SYSTEM_STAGE as _SYSTEM_STAGE
from engine.common.state_guard import TopologyKey
from engine.common.subsystem import Subsystem
from engine.math.coordinate_axis import CoordinateAxis, CoordinateDirection, YAxis

_STAGE_HOOKS = {
    Stage.Instance: "realizeSubsystemInstanceImpl",
    Stage.Time: "realizeSubsystemTimeImpl",
    Stage.Position: "realizeSubsystemPositionImpl",
    Stage.Velocity: "realizeSubsystemVelocityImpl",
    Stage.Dynamics: "realizeSubsystemDynamicsImpl",
    Stage.Acceleration: "realizeSubsystemAccelerationImpl",
    Stage.Report: "realizeSubsystemReportImpl",
}


# Stage members and their int values, looked up once: attribute access on an Enum class
# (Stage.Model) and int(stage) cost a few hundred ns each, a lot on realize's hot path.
_SYSTEM_SERIALS = itertools.count(1)
_MODEL, _INSTANCE, _REPORT = Stage.Model, Stage.Instance, Stage.Report
_TIME, _ACCELERATION = Stage.Time, Stage.Acceleration
_INT = list(range(len(ALL_STAGES)))  # _INT[stage] == int(stage), by __index__
_POSITION_INT, _ACCELERATION_INT = int(Stage.Position), int(Stage.Acceleration)


class System:
    """Base class of every System (Simbody's System handle and Guts in one)."""

    def __init__(self, name: str = "System", version: str = "0.0.1") -> None:
        self._name = str(name)
        self._version = str(version)
        self._subsystems: list[Subsystem] = []
        self._up = CoordinateDirection(YAxis, 1)
        self._uniform_background = False
        self._time_scale = 0.1
        self._length_scale = 1.0
        self._has_time_advanced_events = False
        self._topology_version = 1
        self._serial = next(_SYSTEM_SERIALS)
        #: stamped on every State this System makes; a State fits only while its key is this
        #: very object (a new key on every topology change), so one identity test tells a
        #: State of another System or of an earlier topology
        self._topology_key = TopologyKey(self._name, self._serial, 1)
        self._topology_realized = False
        self._default_state: State | None = None
        self._next_event_id = 1
        #: realizes Position..Acceleration in one call where it can (``realize(state,
        #: first, last) -> bool``); set by systems that have one (MultibodySystem)
        self._fused_realization = None
        self.resetAllCountersToZero()
        self.adoptSubsystem(DefaultSystemSubsystem())

    # ------------------------------------------------------------ bookkeeping
    def getName(self) -> str:
        return self._name

    def getVersion(self) -> str:
        return self._version

    def adoptSubsystem(self, child: Subsystem) -> int:
        """Install ``child`` in the next subsystem slot; returns its SubsystemIndex."""
        if not isinstance(child, Subsystem):
            raise InvalidArgumentError(f"adoptSubsystem needs a Subsystem, got {type(child)}")
        index = len(self._subsystems)
        child._set_system(self, index)
        self._subsystems.append(child)
        self.invalidateSystemTopologyCache()
        return index

    def getNumSubsystems(self) -> int:
        return len(self._subsystems)

    def getSubsystem(self, index: int) -> Subsystem:
        i = index_value(index, "the subsystem index")
        if not 0 <= i < len(self._subsystems):
            raise IndexOutOfRangeError(
                f"System '{self._name}' has no subsystem {i} (it has {len(self._subsystems)})"
            )
        return self._subsystems[i]

    updSubsystem = getSubsystem

    def getDefaultSubsystem(self) -> DefaultSystemSubsystem:
        return self._subsystems[0]  # type: ignore[return-value]

    updDefaultSubsystem = getDefaultSubsystem

    def isSameSystem(self, other: System) -> bool:
        return self is other

    def createNewEventId(self) -> int:
        """A new EventId, unique within this System."""
        event_id = self._next_event_id
        self._next_event_id += 1
        return event_id

    # ------------------------------------------------------------------ hints
    def setUpDirection(self, up) -> System:
        """Hint: which coordinate direction is 'up' (default +Y)."""
        if isinstance(up, CoordinateAxis):
            up = CoordinateDirection(up, 1)
        if not isinstance(up, CoordinateDirection):
            raise InvalidArgumentError(
                f"setUpDirection needs a coordinate direction such as YAxis or -ZAxis, got {up!r}"
            )
        self._up = up
        return self

    def getUpDirection(self) -> CoordinateDirection:
        return self._up

    def setUseUniformBackground(self, use: bool) -> System:
        """Hint: draw against a plain background instead of a ground plane."""
        self._uniform_background = bool(use)
        return self

    def getUseUniformBackground(self) -> bool:
        return self._uniform_background

    def setDefaultTimeScale(self, tc: float) -> System:
        """Hint: the time scale of interesting motion (default 0.1)."""
        self._time_scale = self._positive(tc, "default time scale")
        return self

    def getDefaultTimeScale(self) -> float:
        return self._time_scale

    def setDefaultLengthScale(self, lc: float) -> System:
        """Hint: the size of a 'unit length' in this System (default 1)."""
        self._length_scale = self._positive(lc, "default length scale")
        return self

    def getDefaultLengthScale(self) -> float:
        return self._length_scale

    def setHasTimeAdvancedEvents(self, flag: bool) -> None:
        self._has_time_advanced_events = bool(flag)

    def whyNotFused(self, state: State) -> str:
        """Why this System realizes Position..Acceleration of ``state`` stage by stage
        ("" if it does them in one compiled kernel call); an mbstudio extension for the
        studio's stage inspector."""
        self._check_state(state, "whyNotFused")
        fused = self._fused_realization
        if fused is None:
            return f"this {type(self).__name__} has no fused realization installed"
        return fused.whyNotFused(state)

    def hasTimeAdvancedEvents(self) -> bool:
        return self._has_time_advanced_events

    @staticmethod
    def _positive(value: float, what: str) -> float:
        value = float(value)
        if not (value > 0 and math.isfinite(value)):
            raise InvalidArgumentError(f"{what} must be a positive finite number, got {value}")
        return value

    # --------------------------------------------------------------- topology
    def systemTopologyHasBeenRealized(self) -> bool:
        return self._topology_realized

    def getSystemTopologyCacheVersion(self) -> int:
        return self._topology_version

    def setSystemTopologyCacheVersion(self, version: int) -> None:
        self._topology_version = int(version)
        self._topology_key = TopologyKey(self._name, self._serial, self._topology_version)

    def invalidateSystemTopologyCache(self) -> None:
        """Mark the topology as changed: realizeTopology() must be called again."""
        if self._topology_realized:
            self._topology_version += 1
            self._topology_key = TopologyKey(self._name, self._serial, self._topology_version)
        self._topology_realized = False
        self._default_state = None
        self._hook_cache: dict = {}

    def realizeTopology(self) -> State:
        """Finish construction and return (a copy of) the default State, realized
        through Model stage. Does nothing new if the topology is already realized."""
        return State(self.realizeDefaultState())

    def realizeDefaultState(self) -> State:
        """Finish construction as ``realizeTopology`` does and return the default State
        itself, not a copy (Simbody's ``realizeTopology`` returns a reference to it): what
        the caller changes in it (initial u, a further realization) is what later
        ``realizeTopology`` calls copy and ``getDefaultState`` returns. For a caller that
        makes the System's initial State once, without a copy of every cache array."""
        if not self._topology_realized:
            self._hook_cache = {}
            state = State()
            state.setNumSubsystems(len(self._subsystems))
            for i, sub in enumerate(self._subsystems):
                state.initializeSubsystem(i, sub.getName(), sub.getVersion())
            state._topology_key = self._topology_key
            for i, sub in enumerate(self._subsystems):
                sub.realizeSubsystemTopologyImpl(state)
                state.advanceSubsystemToStage(i, Stage.Topology)
            state.advanceSystemToStage(Stage.Topology)
            state.setSystemTopologyStageVersion(self._topology_version)
            self._num_realizations[Stage.Topology] += 1
            self._topology_realized = True
            self._default_state = state
            self._realize_model(state)
        self._num_realize_calls += 1
        return self._default_state

    def getDefaultState(self) -> State:
        """The default State built by the last realizeTopology() (do not modify it)."""
        if not self._topology_realized or self._default_state is None:
            raise SimTKError(
                f"System '{self._name}': realizeTopology() has not been called since the last "
                "topology change, so there is no default State"
            )
        return self._default_state

    updDefaultState = getDefaultState

    def _check_state(self, state: State, what: str) -> None:
        """Raise unless ``state`` was made by this System's latest realizeTopology()."""
        if not isinstance(state, State):
            raise InvalidArgumentError(f"{what} needs a State, got {type(state).__name__}")
        if not self._topology_realized:
            raise SimTKError(
                f"{what}: System '{self._name}' has changed since realizeTopology() was last "
                "called; call system.realizeTopology() and use the State it returns"
            )
        key = state._topology_key
        if key is self._topology_key:
            return
        if key is not None and key.serial == self._serial and key.version == self._topology_version:
            state._topology_key = self._topology_key  # marked compatible by its version
            return
        if key is None:
            raise TopologyMismatchError(
                f"{what}: this State was not made by any System's realizeTopology(); use the "
                f"State that System '{self._name}'.realizeTopology() returns (or a copy of it)"
            )
        if key.serial != self._serial:
            raise TopologyMismatchError(
                f"{what}: this State was made for another System ('{key.system_name}', "
                f"system #{key.serial}), not for System '{self._name}' (system #{self._serial}); "
                "use a State from this System's realizeTopology()"
            )
        raise TopologyMismatchError(
            f"{what}: this State was made for an earlier topology of System '{self._name}' "
            f"(State topology version {key.version}, System version "
            f"{self._topology_version}); use a State from the latest realizeTopology()"
        )

    # ------------------------------------------------------------ realization
    def getSubsystemRealizationOrder(self, stage: Stage) -> Sequence[int]:
        """Subsystem indices in the order their hooks run at ``stage`` (default: index order)."""
        stage_value(stage, "getSubsystemRealizationOrder")
        return range(len(self._subsystems))

    def realizeModel(self, state: State) -> None:
        """Realize Model stage of ``state`` (allocating its later-stage variables)."""
        self._num_realize_calls += 1
        self._check_state(state, "realizeModel")
        if state.getSystemStage() >= Stage.Model:
            return
        self._realize_model(state)

    def _realize_model(self, state: State) -> None:
        for i in self.getSubsystemRealizationOrder(Stage.Model):
            if state.getSubsystemStage(i) < Stage.Model:
                self._subsystems[i].realizeSubsystemModelImpl(state)
                state.advanceSubsystemToStage(i, Stage.Model)
        state.advanceSystemToStage(Stage.Model)
        self._num_realizations[Stage.Model] += 1

    def realize(self, state: State, stage: Stage = Stage.Report) -> None:
        """Realize ``state`` through ``stage`` (default Report), one stage at a time,
        doing only the stages not already valid. The State must be at Model or later."""
        if type(stage) is not Stage:  # a Stage member needs no other check
            stage = stage_value(stage, "realize")
        self._num_realize_calls += 1
        if type(state) is not State or state._topology_key is not self._topology_key:
            self._check_state(state, "realize")  # raises if it does not fit
        current = state._bv[_SYSTEM_STAGE]  # the State's stage, an int
        if stage <= current:
            return
        fused = self._fused_realization
        if fused is not None and _TIME <= current and stage <= _ACCELERATION:
            # Position..Acceleration at most: all in one kernel call if the State qualifies
            if fused.realize(state, current + 1, _INT[stage]):
                return
            fused = None  # it does not: stage by stage below
        if current < _MODEL:
            raise StageTooLowError(
                "realize: the State must be realized through Model stage first (it is at "
                f"{ALL_STAGES[current].getName()}); call system.realizeModel(state)",
                needed=Stage.Model,
                current=ALL_STAGES[current],
            )
        if stage > _REPORT:
            raise InvalidArgumentError(
                f"realize: the highest stage realize() computes is Report, got {stage!r}"
            )
        first = _INT[current] + 1
        if first <= 3:  # Instance: the State allocates its arrays
            self._realize_stage(state, ALL_STAGES[first], first)
            first += 1
        last = _INT[stage]
        if fused is not None and first <= _ACCELERATION_INT and last >= _POSITION_INT:
            if first < _POSITION_INT:  # Time first, stage by stage
                self._realize_stage(state, ALL_STAGES[first], first)
                first += 1
            top = min(last, _ACCELERATION_INT)
            if fused.realize(state, first, top):
                if top == last:
                    return
                first = top + 1
        hook_cache = self._hook_cache
        infos = state._subs
        counts = self._num_realizations
        triggers = state._trigger_counts
        state._leave_lockstep()  # the subsystems advance one by one
        for g in range(first, last + 1):
            # _realize_stage for a runtime stage, inline (this loop is the hot path of
            # every integrator evaluation)
            hooks = hook_cache.get(g)
            if hooks is None:
                hooks = self._stage_hooks(g)
            now = ALL_STAGES[g]
            prev = ALL_STAGES[g - 1]
            for i, hook in hooks:
                info = infos[i]
                if info.stage < now:
                    if hook is not None:
                        hook(state)
                    if info.stage == prev:
                        info.stage = now
                    else:  # a hook changed the State: let the State word the error
                        state.advanceSubsystemToStage(i, now)
            state._advance_system_stage_runtime(now, g)
            counts[g] += 1
            if triggers[g]:
                for sub in self._subsystems:
                    sub.realizeSubsystemEventTriggersImpl(state, now)

    def _realize_stage(self, state: State, stage: Stage, g: int) -> None:
        """Run every subsystem's hook for ``stage`` (whose int value is ``g``)."""
        state._leave_lockstep()  # the subsystems advance one by one
        infos = state._subs
        prev = ALL_STAGES[g - 1]
        hooks = self._hook_cache.get(g)
        if hooks is None:
            hooks = self._stage_hooks(g)
        for i, hook in hooks:
            info = infos[i]
            if info.stage < stage:
                if hook is not None:
                    hook(state)
                if info.stage == prev:
                    info.stage = stage
                else:  # a hook changed the State: let the State word the error
                    state.advanceSubsystemToStage(i, stage)
        if g <= 3:  # through Instance: the State allocates its arrays
            state.advanceSystemToStage(stage)
        else:
            state._advance_system_stage_runtime(stage, g)
        self._num_realizations[g] += 1
        if state._trigger_counts[g]:
            for sub in self._subsystems:
                sub.realizeSubsystemEventTriggersImpl(state, stage)

    def _stage_hooks(self, g: int) -> list:
        """(subsystem index, bound hook, or None where the subsystem keeps the no-op
        default) in realization order; cached until the topology changes (always
        recomputed when a subclass overrides getSubsystemRealizationOrder)."""
        cache = self._hook_cache
        hooks = cache.get(g)
        if hooks is None:
            stage = ALL_STAGES[g]
            name = _STAGE_HOOKS[stage]
            default = getattr(Subsystem, name)
            hooks = []
            for i in self.getSubsystemRealizationOrder(stage):
                bound = getattr(self._subsystems[i], name)
                hooks.append((i, None if getattr(bound, "__func__", None) is default else bound))
            if type(self).getSubsystemRealizationOrder is System.getSubsystemRealizationOrder:
                cache[g] = hooks
        return hooks

    # ------------------------------------------------------------- statistics
    def resetAllCountersToZero(self) -> None:
        """Zero every statistics counter."""
        self._num_realizations = [0] * 11
        #: runs of the stages first..last in one fused kernel call (index first * 11 +
        #: last), counted once per call; getNumRealizationsOfThisStage adds them in
        self._num_stage_runs = [0] * 121
        self._num_realize_calls = 0
        self._num_prescribe_q = self._num_prescribe_u = 0
        self._num_project_q = self._num_failed_project_q = 0
        self._num_q_projections = self._num_q_err_est_projections = 0
        self._num_project_u = self._num_failed_project_u = 0
        self._num_u_projections = self._num_u_err_est_projections = 0
        self._num_handler_calls_changed_stage = [0] * 11
        self._num_handle_event_calls = 0
        self._num_report_event_calls = 0

    def getNumRealizationsOfThisStage(self, stage: Stage) -> int:
        """How many times ``stage`` was actually computed (from stage-1): the stage's own
        realizations plus the fused runs of stages first..last that included it."""
        g = int(stage_value(stage, "getNumRealizationsOfThisStage"))
        runs = self._num_stage_runs
        fused = 0
        for first in range(g + 1):
            base = first * 11
            for last in range(g, 11):
                fused += runs[base + last]
        return self._num_realizations[g] + fused

    def getNumRealizeCalls(self) -> int:
        """Calls of realizeTopology/realizeModel/realize, whether or not they had work."""
        return self._num_realize_calls

    def getNumPrescribeQCalls(self) -> int:
        return self._num_prescribe_q

    def getNumPrescribeUCalls(self) -> int:
        return self._num_prescribe_u

    def getNumProjectQCalls(self) -> int:
        return self._num_project_q

    def getNumFailedProjectQCalls(self) -> int:
        return self._num_failed_project_q

    def getNumQProjections(self) -> int:
        return self._num_q_projections

    def getNumQErrorEstimateProjections(self) -> int:
        return self._num_q_err_est_projections

    def getNumProjectUCalls(self) -> int:
        return self._num_project_u

    def getNumFailedProjectUCalls(self) -> int:
        return self._num_failed_project_u

    def getNumUProjections(self) -> int:
        return self._num_u_projections

    def getNumUErrorEstimateProjections(self) -> int:
        return self._num_u_err_est_projections

    def getNumHandlerCallsThatChangedStage(self, stage: Stage) -> int:
        return self._num_handler_calls_changed_stage[
            stage_value(stage, "getNumHandlerCallsThatChangedStage")
        ]

    def getNumHandleEventCalls(self) -> int:
        return self._num_handle_event_calls

    def getNumReportEventCalls(self) -> int:
        return self._num_report_event_calls

    # ------------------------------------------------ prescribed motion
    def _require(self, state: State, stage: Stage, what: str) -> None:
        self._check_state(state, what)
        if state.getSystemStage() < stage:
            raise StageTooLowError(
                f"{what} needs the State realized to {stage.getName()} stage, but it is at "
                f"{state.getSystemStage().getName()}; call system.realize(state, "
                f"Stage.{stage.getName()}) first",
                needed=stage,
                current=state.getSystemStage(),
            )

    def prescribeQ(self, state: State) -> bool:
        """Set prescribed q = q(t) (State at Time or later); True if anything changed."""
        self._require(state, Stage.Time, "prescribeQ")
        self._num_prescribe_q += 1
        changed = False
        for sub in self._subsystems:
            changed = sub.prescribeQImpl(state) or changed
        return changed

    def prescribeU(self, state: State) -> bool:
        """Set prescribed u = u(t, q) (State at Position or later); True if anything changed."""
        self._require(state, Stage.Position, "prescribeU")
        self._num_prescribe_u += 1
        changed = False
        for sub in self._subsystems:
            changed = sub.prescribeUImpl(state) or changed
        return changed

    def prescribe(self, state: State) -> None:
        """Set prescribed q and u; on return the State is realized through Position."""
        self.realize(state, Stage.Time)
        self.prescribeQ(state)
        self.realize(state, Stage.Position)
        self.prescribeU(state)

    def getFreeQIndex(self, state: State) -> np.ndarray:
        """Ascending system q indices not set by prescribeQ (State at Instance or later)."""
        self._require(state, Stage.Instance, "getFreeQIndex")
        prescribed: set[int] = set()
        for sub in self._subsystems:
            prescribed.update(sub.getPrescribedQIndexImpl(state))
        return np.array([i for i in range(state.getNQ()) if i not in prescribed], dtype=int)

    def getFreeUIndex(self, state: State) -> np.ndarray:
        """Ascending system u indices not set by prescribeU (State at Instance or later)."""
        self._require(state, Stage.Instance, "getFreeUIndex")
        prescribed: set[int] = set()
        for sub in self._subsystems:
            prescribed.update(sub.getPrescribedUIndexImpl(state))
        return np.array([i for i in range(state.getNU()) if i not in prescribed], dtype=int)

    # ------------------------------------------------------------- projection
    def project(self, state: State, accuracy: float = -1) -> None:
        """Apply prescribed motion, then project q and u onto the position and velocity
        constraint manifolds; on return the State is realized through Velocity."""
        options = self._project_options(accuracy)
        self.realize(state, Stage.Time)
        self.prescribeQ(state)
        self.realize(state, Stage.Position)
        self.projectQ(state, np.zeros(0), options)
        self.prescribeU(state)
        self.realize(state, Stage.Velocity)
        self.projectU(state, np.zeros(0), options)

    @staticmethod
    def _project_options(accuracy) -> ProjectOptions:
        if isinstance(accuracy, ProjectOptions):
            return accuracy
        return ProjectOptions(accuracy) if accuracy > 0 else ProjectOptions()

    def projectQ(self, state: State, *args):
        """``projectQ(state, accuracy=-1)``: set prescribed q, project free q onto the
        position constraints; realized through Position on return.

        ``projectQ(state, qErrEst, options)`` (advanced, State already at Position):
        returns ``(qErrEst, results)``; the constraint-normal part of ``qErrEst`` (an array,
        possibly empty, modified in place) is removed.
        """
        if len(args) <= 1:
            options = self._project_options(args[0] if args else -1)
            self.realize(state, Stage.Time)
            self.prescribeQ(state)
            self.realize(state, Stage.Position)
            self.projectQ(state, np.zeros(0), options)
            return None
        err_est, options = args
        return self._project_level(state, err_est, options, "q")

    def projectU(self, state: State, *args):
        """``projectU(state, accuracy=-1)`` or ``projectU(state, uErrEst, options)`` —
        as projectQ, for velocities (realized through Velocity on return)."""
        if len(args) <= 1:
            options = self._project_options(args[0] if args else -1)
            self.realize(state, Stage.Position)
            self.prescribeU(state)
            self.realize(state, Stage.Velocity)
            self.projectU(state, np.zeros(0), options)
            return None
        err_est, options = args
        return self._project_level(state, err_est, options, "u")

    def _project_level(self, state: State, err_est, options, level: str):
        stage = Stage.Position if level == "q" else Stage.Velocity
        self._require(state, stage, f"project{level.upper()}")
        err_est = np.zeros(0) if err_est is None else err_est
        results = ProjectResults()
        if level == "q":
            self._num_project_q += 1
        else:
            self._num_project_u += 1
        for sub in self._subsystems:
            hook = sub.projectQImpl if level == "q" else sub.projectUImpl
            hook(state, err_est, options, results)
        if not results.isValid():
            results.setExitStatus(ProjectResults.Succeeded)
        if results.getExitStatus() != ProjectResults.Succeeded:
            if level == "q":
                self._num_failed_project_q += 1
            else:
                self._num_failed_project_u += 1
            if not options.isOptionSet(ProjectOptions.DontThrow):
                raise ProjectionFailedError(
                    results.getMessage()
                    or f"project{level.upper()} could not reach accuracy "
                    f"{options.getRequiredAccuracy():g}"
                )
        if results.getAnyChangeMade():
            if level == "q":
                self._num_q_projections += 1
                self._num_q_err_est_projections += int(np.size(err_est) > 0)
            else:
                self._num_u_projections += 1
                self._num_u_err_est_projections += int(np.size(err_est) > 0)
            self.realize(state, stage)
        return err_est, results

    # ------------------------------------------------------ kinematic N matrix
    def _multiply(self, state: State, vec, from_u: bool, pinv: bool, transpose: bool, what: str):
        self._require(state, Stage.Position, what)
        nq, nu = state.getNQ(), state.getNU()
        n_in = nu if from_u else nq
        n_out = nq if from_u else nu
        arr = np.asarray(vec, dtype=np.float64)
        if arr.shape != (n_in,):
            raise InvalidArgumentError(
                f"{what}: expected a vector of length {n_in}, got shape {arr.shape}"
            )
        out = np.zeros(n_out)
        for i, sub in enumerate(self._subsystems):
            qs, nqs = state.getQStart(i), state.getNQ(i)
            us, nus = state.getUStart(i), state.getNU(i)
            src = (us, nus) if from_u else (qs, nqs)
            dst = (qs, nqs) if from_u else (us, nus)
            if src[1] == 0 and dst[1] == 0:
                continue
            hook = sub.multiplyByNPInvImpl if pinv else sub.multiplyByNImpl
            hook(state, transpose, arr[src[0] : src[0] + src[1]], out[dst[0] : dst[0] + dst[1]])
        return out

    def multiplyByN(self, state: State, u) -> np.ndarray:
        """dq = N u (State at Position or later)."""
        return self._multiply(state, u, True, False, False, "multiplyByN")

    def multiplyByNTranspose(self, state: State, fq) -> np.ndarray:
        """fu = ~N fq."""
        return self._multiply(state, fq, False, False, True, "multiplyByNTranspose")

    def multiplyByNPInv(self, state: State, dq) -> np.ndarray:
        """u = pinv(N) dq."""
        return self._multiply(state, dq, False, True, False, "multiplyByNPInv")

    def multiplyByNPInvTranspose(self, state: State, fu) -> np.ndarray:
        """fq = ~pinv(N) fu."""
        return self._multiply(state, fu, True, True, True, "multiplyByNPInvTranspose")

    # -------------------------------------------------------------- geometry
    def calcDecorativeGeometryAndAppend(self, state: State, stage: Stage, geometry=None) -> list:
        """Append every subsystem's decorative geometry computable at ``stage`` to
        ``geometry`` (a list, created if None) and return it. The State must be
        realized to ``stage``."""
        stage = stage_value(stage, "calcDecorativeGeometryAndAppend")
        self._require(state, stage, "calcDecorativeGeometryAndAppend")
        geometry = [] if geometry is None else geometry
        for sub in self._subsystems:
            sub.calcDecorativeGeometryAndAppendImpl(state, stage, geometry)
        return geometry

    # ----------------------------------------------------------------- events
    def addEventHandler(self, handler) -> int:
        """Adopt a Scheduled or Triggered event handler; returns its EventId."""
        return self.getDefaultSubsystem().addEventHandler(handler)

    def addEventReporter(self, reporter) -> int:
        """Adopt a Scheduled or Triggered event reporter; returns its EventId."""
        return self.getDefaultSubsystem().addEventReporter(reporter)

    def handleEvents(
        self, state: State, cause, eventIds, options: HandleEventsOptions | None = None
    ) -> HandleEventsResults:
        """Let the handlers of ``eventIds`` change ``state``; the results say whether to
        terminate and the lowest stage that was modified (Infinity if none)."""
        self._check_state(state, "handleEvents")
        self._num_handle_event_calls += 1
        options = options or HandleEventsOptions()
        results = HandleEventsResults()
        results.setExitStatus(HandleEventsResults.Succeeded)
        before = state.getSystemStageVersions()
        for sub in self._subsystems:
            sub.handleEventsImpl(state, Event.Cause(cause), list(eventIds), options, results)
        lowest = state.getLowestSystemStageDifference(before)
        results.setLowestModifiedStage(lowest)
        results.setAnyChangeMade(lowest < Stage.Infinity)
        if lowest < Stage.Infinity:
            self._num_handler_calls_changed_stage[lowest] += 1
        return results

    def reportEvents(self, state: State, cause, eventIds) -> None:
        """Let the reporters of ``eventIds`` look at ``state`` (they may not change it)."""
        self._check_state(state, "reportEvents")
        self._num_report_event_calls += 1
        # System.txt: reportEvents() calls count as having "changed" Stage::Report.
        self._num_handler_calls_changed_stage[Stage.Report] += 1
        for sub in self._subsystems:
            sub.reportEventsImpl(state, Event.Cause(cause), list(eventIds))

    def calcEventTriggerInfo(self, state: State) -> list:
        """EventTriggerInfo for every event trigger slot, in the State's global order."""
        self._require(state, Stage.Instance, "calcEventTriggerInfo")
        per_sub = [sub.calcEventTriggerInfoImpl(state) for sub in self._subsystems]
        infos = []
        for stage in ALL_STAGES:
            for entries in per_sub:
                infos.extend(info for s, info in entries if s == stage)
        return infos

    def _next_time(self, state: State, include_current: bool, reports: bool):
        self._require(state, Stage.Time, "calcTimeOfNextScheduledEvent")
        t_next, ids = math.inf, []
        for sub in self._subsystems:
            hook = (
                sub.calcTimeOfNextScheduledReportImpl
                if reports
                else sub.calcTimeOfNextScheduledEventImpl
            )
            t, sub_ids = hook(state, include_current)
            if t < t_next:
                t_next, ids = t, list(sub_ids)
            elif t == t_next and t < math.inf:
                ids.extend(sub_ids)
        return t_next, ids

    def calcTimeOfNextScheduledEvent(self, state: State, includeCurrentTime: bool):
        """(tNextEvent, eventIds) of the next scheduled event (inf, [] if none)."""
        return self._next_time(state, includeCurrentTime, reports=False)

    def calcTimeOfNextScheduledReport(self, state: State, includeCurrentTime: bool):
        """(tNextReport, eventIds) of the next scheduled report (inf, [] if none)."""
        return self._next_time(state, includeCurrentTime, reports=True)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} '{self._name}' with {len(self._subsystems)} subsystems>"
