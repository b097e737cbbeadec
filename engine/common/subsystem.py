"""Subsystem: one computational piece of a System, with its own slot in the State.

A subsystem allocates its state variables and cache entries in its
``realizeSubsystemTopologyImpl`` / ``realizeSubsystemModelImpl`` hooks and fills
its cache in the per-stage ``realizeSubsystem<Stage>Impl`` hooks, which
``System.realize`` calls in order. Hooks that a subsystem does not need do
nothing. The helper methods (``allocateQ``, ``getCacheEntry``, ...) are the
State's methods with this subsystem's index filled in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from engine.common.events import EventTriggerInfo
from engine.common.exceptions import InvalidArgumentError, SimTKError
from engine.common.index_arg import index_value
from engine.common.stage import ALL_STAGES, Stage
from engine.common.stage_arg import stage_value

if TYPE_CHECKING:
    from engine.common.state import State
    from engine.common.system import System


class Subsystem:
    """Base class of every subsystem (Simbody's Subsystem handle and Guts in one)."""

    def __init__(self, name: str = "Subsystem", version: str = "0.0.1") -> None:
        self._name = str(name)
        self._version = str(version)
        self._system: System | None = None
        self._index = -1

    # ------------------------------------------------------------ bookkeeping
    def getName(self) -> str:
        return self._name

    def getVersion(self) -> str:
        return self._version

    def isInSystem(self) -> bool:
        return self._system is not None

    def isInSameSystem(self, other: Subsystem) -> bool:
        return self._system is not None and self._system is other._system

    def getSystem(self) -> System:
        if self._system is None:
            raise SimTKError(f"subsystem '{self._name}' has not been added to a System")
        return self._system

    def getMySubsystemIndex(self) -> int:
        if self._system is None:
            raise SimTKError(f"subsystem '{self._name}' has not been added to a System")
        return self._index

    def _set_system(self, system: System, index: int) -> None:
        if self._system is not None:
            raise SimTKError(
                f"subsystem '{self._name}' already belongs to a System; a subsystem can be "
                "adopted only once"
            )
        self._system = system
        self._index = index

    def setSystem(self, system: System, index: int) -> None:
        """Tell this subsystem which System holds it and its SubsystemIndex there (Simbody's
        Subsystem::setSystem; System.adoptSubsystem calls it)."""
        self._set_system(system, int(index))

    # ---------------------------------------------------------------- measures
    def adoptMeasure(self, measure) -> int:
        """Make this subsystem the owner of ``measure``; returns its index among this
        subsystem's measures. The measure's state resources and realize calls come from the
        System's DefaultSystemSubsystem (its host), whichever subsystem owns it."""
        if self._system is None:
            raise InvalidArgumentError(
                f"subsystem '{self._name}' cannot hold measures before it is added to a System "
                "(its measures live in the System's state); add it first, or use "
                "system.updDefaultSubsystem()"
            )
        owned = self.__dict__.setdefault("_owned_measures", [])
        host = self.getSystem().getDefaultSubsystem()
        host._host_measure(measure)
        owned.append(measure)
        return len(owned) - 1

    def getMeasureHost(self) -> Subsystem:
        """The subsystem that allocates and realizes this subsystem's measures."""
        return self.getSystem().getDefaultSubsystem()

    def getNumMeasures(self) -> int:
        return len(self.__dict__.get("_owned_measures", ()))

    def getMeasure(self, index: int):
        owned = self.__dict__.get("_owned_measures", [])
        i = index_value(index, "the measure index")
        if not 0 <= i < len(owned):
            raise InvalidArgumentError(
                f"subsystem '{self._name}' has {len(owned)} measures; there is no measure {i}"
            )
        return owned[i]

    def invalidateSubsystemTopologyCache(self) -> None:
        """Call after any topology change: the System must be realizeTopology()'d again."""
        if self._system is not None:
            self._system.invalidateSystemTopologyCache()

    def subsystemTopologyHasBeenRealized(self) -> bool:
        return self._system is not None and self._system.systemTopologyHasBeenRealized()

    def getStage(self, state: State) -> Stage:
        """This subsystem's current stage in ``state``."""
        return state.getSubsystemStage(self._index)

    # ------------------------------------------------------- realization hooks
    def realizeSubsystemTopologyImpl(self, state: State) -> None:
        """Allocate Topology-stage resources (variables that exist in every State)."""

    def realizeSubsystemModelImpl(self, state: State) -> None:
        """Allocate resources that depend on Model-stage choices."""

    def realizeSubsystemInstanceImpl(self, state: State) -> None:
        """Compute Instance-stage cache (from instance variables)."""

    def realizeSubsystemTimeImpl(self, state: State) -> None:
        """Compute Time-stage cache."""

    def realizeSubsystemPositionImpl(self, state: State) -> None:
        """Compute Position-stage cache (from q)."""

    def realizeSubsystemVelocityImpl(self, state: State) -> None:
        """Compute Velocity-stage cache (from u)."""

    def realizeSubsystemDynamicsImpl(self, state: State) -> None:
        """Compute Dynamics-stage cache (forces, energies)."""

    def realizeSubsystemAccelerationImpl(self, state: State) -> None:
        """Compute Acceleration-stage cache (udot, zdot, multipliers)."""

    def realizeSubsystemReportImpl(self, state: State) -> None:
        """Compute Report-stage cache (outputs not needed for integration)."""

    def realizeSubsystemEventTriggersImpl(self, state: State, stage: Stage) -> None:
        """After the System reached ``stage``: fill this subsystem's witness values for it."""

    # --------------------------------------------------- solver / helper hooks
    def calcDecorativeGeometryAndAppendImpl(self, state: State, stage: Stage, geometry) -> None:
        """Append the decorative geometry computable at ``stage`` to the list ``geometry``."""

    def prescribeQImpl(self, state: State) -> bool:
        """Set prescribed q's from time; return True if anything changed."""
        return False

    def prescribeUImpl(self, state: State) -> bool:
        """Set prescribed u's from time and q; return True if anything changed."""
        return False

    def getPrescribedQIndexImpl(self, state: State) -> list[int]:
        """System q indices this subsystem prescribes."""
        return []

    def getPrescribedUIndexImpl(self, state: State) -> list[int]:
        """System u indices this subsystem prescribes."""
        return []

    def projectQImpl(self, state: State, qErrEst, options, results) -> None:
        """Project this subsystem's q onto its position constraints (nothing by default)."""

    def projectUImpl(self, state: State, uErrEst, options, results) -> None:
        """Project this subsystem's u onto its velocity constraints (nothing by default)."""

    def multiplyByNImpl(self, state: State, transpose: bool, inp, out) -> None:
        """out = N*inp (or ~N*inp) for this subsystem's q/u partition; identity by default."""
        out[:] = inp

    def multiplyByNPInvImpl(self, state: State, transpose: bool, inp, out) -> None:
        """out = pinv(N)*inp (or its transpose); identity by default."""
        out[:] = inp

    def handleEventsImpl(self, state: State, cause, eventIds, options, results) -> None:
        """Handle the listed events (only those this subsystem owns)."""

    def reportEventsImpl(self, state: State, cause, eventIds) -> None:
        """Report the listed events (only those this subsystem owns)."""

    def calcEventTriggerInfoImpl(self, state: State) -> list:
        """``(stage, EventTriggerInfo)`` for each of this subsystem's event triggers, stage
        by stage in slot order. By default, a default EventTriggerInfo for every slot."""
        index = self.getMySubsystemIndex()
        return [
            (stage, EventTriggerInfo())
            for stage in ALL_STAGES
            for _ in range(state.getNEventTriggersByStage(index, stage))
        ]

    def calcTimeOfNextScheduledEventImpl(self, state: State, includeCurrentTime: bool):
        """(time, [eventIds]) of this subsystem's next scheduled event (inf, [] if none)."""
        return np.inf, []

    def calcTimeOfNextScheduledReportImpl(self, state: State, includeCurrentTime: bool):
        """(time, [eventIds]) of this subsystem's next scheduled report (inf, [] if none)."""
        return np.inf, []

    # ------------------------------------------------ State helper shortcuts
    def allocateQ(self, state: State, qInit) -> int:
        return state.allocateQ(self._index, qInit)

    def allocateU(self, state: State, uInit) -> int:
        return state.allocateU(self._index, uInit)

    def allocateZ(self, state: State, zInit) -> int:
        return state.allocateZ(self._index, zInit)

    def allocateQErr(self, state: State, n: int) -> int:
        return state.allocateQErr(self._index, n)

    def allocateUErr(self, state: State, n: int) -> int:
        return state.allocateUErr(self._index, n)

    def allocateUDotErr(self, state: State, n: int) -> int:
        return state.allocateUDotErr(self._index, n)

    def allocateEventTriggersByStage(self, state: State, stage: Stage, n: int) -> int:
        stage = stage_value(stage, "allocateEventTriggersByStage")
        return state.allocateEventTrigger(self._index, stage, n)

    def allocateDiscreteVariable(self, state: State, invalidates: Stage, value: Any, name=None):
        invalidates = stage_value(invalidates, "allocateDiscreteVariable", "invalidates")
        return state.allocateDiscreteVariable(self._index, invalidates, value, name)

    def allocateAutoUpdateDiscreteVariable(
        self, state: State, invalidates: Stage, value: Any, updateDependsOn: Stage, name=None
    ) -> int:
        what = "allocateAutoUpdateDiscreteVariable"
        invalidates = stage_value(invalidates, what, "invalidates")
        updateDependsOn = stage_value(updateDependsOn, what, "updateDependsOn")
        return state.allocateAutoUpdateDiscreteVariable(
            self._index, invalidates, value, updateDependsOn, name
        )

    def allocateCacheEntry(self, state: State, *args, name=None) -> int:
        return state.allocateCacheEntry(self._index, *args, name=name)

    def allocateLazyCacheEntry(self, state: State, earliest: Stage, value: Any, name=None):
        earliest = stage_value(earliest, "allocateLazyCacheEntry", "earliest")
        return state.allocateLazyCacheEntry(self._index, earliest, value, name)

    def getQ(self, state: State) -> np.ndarray:
        return state.getQ(self._index)

    def getU(self, state: State) -> np.ndarray:
        return state.getU(self._index)

    def getZ(self, state: State) -> np.ndarray:
        return state.getZ(self._index)

    def updQ(self, state: State) -> np.ndarray:
        return state.updQ(self._index)

    def updU(self, state: State) -> np.ndarray:
        return state.updU(self._index)

    def updZ(self, state: State) -> np.ndarray:
        return state.updZ(self._index)

    def getQStart(self, state: State) -> int:
        return state.getQStart(self._index)

    def getNQ(self, state: State) -> int:
        return state.getNQ(self._index)

    def getUStart(self, state: State) -> int:
        return state.getUStart(self._index)

    def getNU(self, state: State) -> int:
        return state.getNU(self._index)

    def getZStart(self, state: State) -> int:
        return state.getZStart(self._index)

    def getNZ(self, state: State) -> int:
        return state.getNZ(self._index)

    # ---- this subsystem's slice of the State's pools (Simbody's Subsystem helpers) ----
    def getUWeights(self, state: State) -> np.ndarray:
        return state.getUWeights(self._index)

    def getZWeights(self, state: State) -> np.ndarray:
        return state.getZWeights(self._index)

    def getQErrWeights(self, state: State) -> np.ndarray:
        return state.getQErrWeights(self._index)

    def getUErrWeights(self, state: State) -> np.ndarray:
        return state.getUErrWeights(self._index)

    def getQDot(self, state: State) -> np.ndarray:
        return state.getQDot(self._index)

    def getUDot(self, state: State) -> np.ndarray:
        return state.getUDot(self._index)

    def getZDot(self, state: State) -> np.ndarray:
        return state.getZDot(self._index)

    def getQDotDot(self, state: State) -> np.ndarray:
        return state.getQDotDot(self._index)

    def updQDot(self, state: State) -> np.ndarray:
        return state.updQDot(self._index)

    def updUDot(self, state: State) -> np.ndarray:
        return state.updUDot(self._index)

    def updZDot(self, state: State) -> np.ndarray:
        return state.updZDot(self._index)

    def updQDotDot(self, state: State) -> np.ndarray:
        return state.updQDotDot(self._index)

    def getQErr(self, state: State) -> np.ndarray:
        return state.getQErr(self._index)

    def getUErr(self, state: State) -> np.ndarray:
        return state.getUErr(self._index)

    def getUDotErr(self, state: State) -> np.ndarray:
        return state.getUDotErr(self._index)

    def getMultipliers(self, state: State) -> np.ndarray:
        return state.getMultipliers(self._index)

    def updQErr(self, state: State) -> np.ndarray:
        return state.updQErr(self._index)

    def updUErr(self, state: State) -> np.ndarray:
        return state.updUErr(self._index)

    def updUDotErr(self, state: State) -> np.ndarray:
        return state.updUDotErr(self._index)

    def updMultipliers(self, state: State) -> np.ndarray:
        return state.updMultipliers(self._index)

    def getEventTriggersByStage(self, state: State, stage: Stage) -> np.ndarray:
        stage = stage_value(stage, "getEventTriggersByStage")
        return state.getEventTriggersByStage(self._index, stage)

    def updEventTriggersByStage(self, state: State, stage: Stage) -> np.ndarray:
        stage = stage_value(stage, "updEventTriggersByStage")
        return state.updEventTriggersByStage(self._index, stage)

    def getQErrStart(self, state: State) -> int:
        return state.getQErrStart(self._index)

    def getNQErr(self, state: State) -> int:
        return state.getNQErr(self._index)

    def getUErrStart(self, state: State) -> int:
        return state.getUErrStart(self._index)

    def getNUErr(self, state: State) -> int:
        return state.getNUErr(self._index)

    def getUDotErrStart(self, state: State) -> int:
        return state.getUDotErrStart(self._index)

    def getNUDotErr(self, state: State) -> int:
        return state.getNUDotErr(self._index)

    def getMultipliersStart(self, state: State) -> int:
        return state.getMultipliersStart(self._index)

    def getNMultipliers(self, state: State) -> int:
        return state.getNMultipliers(self._index)

    def getEventTriggerStartByStage(self, state: State, stage: Stage) -> int:
        stage = stage_value(stage, "getEventTriggerStartByStage")
        return state.getEventTriggerStartByStage(self._index, stage)

    def getNEventTriggersByStage(self, state: State, stage: Stage) -> int:
        stage = stage_value(stage, "getNEventTriggersByStage")
        return state.getNEventTriggersByStage(self._index, stage)

    def _set_slice(self, state: State, values, upd, count: int, what: str) -> None:
        arr = np.array(values, dtype=np.float64).reshape(-1)
        if arr.size != count:
            raise InvalidArgumentError(
                f"{self._name}.{what}: this subsystem has {count} {what[3:].lower()}, "
                f"got {arr.size} values"
            )
        if not np.isfinite(arr).all():
            raise InvalidArgumentError(f"{self._name}.{what}: values must be finite, got {arr}")
        upd(state)[:] = arr

    def setQ(self, state: State, q) -> None:
        """Set this subsystem's q (backs the State up to Time stage)."""
        self._set_slice(state, q, self.updQ, self.getNQ(state), "setQ")

    def setU(self, state: State, u) -> None:
        """Set this subsystem's u (backs the State up to Position stage)."""
        self._set_slice(state, u, self.updU, self.getNU(state), "setU")

    def setZ(self, state: State, z) -> None:
        """Set this subsystem's z (backs the State up to Velocity stage)."""
        self._set_slice(state, z, self.updZ, self.getNZ(state), "setZ")

    def advanceToStage(self, state: State, stage: Stage) -> None:
        """Declare this subsystem realized to ``stage`` (the next stage after its current one)."""
        state.advanceSubsystemToStage(self._index, stage_value(stage, "advanceToStage"))

    def isSameSubsystem(self, other: Subsystem) -> bool:
        return self is other

    def updSystem(self) -> System:
        return self.getSystem()

    def getDiscreteVarLastUpdateTime(self, state: State, index: int) -> float:
        return state.getDiscreteVarLastUpdateTime(self._index, index)

    def getDiscreteVarUpdateIndex(self, state: State, index: int) -> int | None:
        return state.getDiscreteVarUpdateIndex(self._index, index)

    def getDiscreteVarUpdateValue(self, state: State, index: int) -> Any:
        return state.getDiscreteVarUpdateValue(self._index, index)

    def updDiscreteVarUpdateValue(self, state: State, index: int) -> Any:
        return state.updDiscreteVarUpdateValue(self._index, index)

    def isDiscreteVarUpdateValueRealized(self, state: State, index: int) -> bool:
        return state.isDiscreteVarUpdateValueRealized(self._index, index)

    def markDiscreteVarUpdateValueRealized(self, state: State, index: int) -> None:
        state.markDiscreteVarUpdateValueRealized(self._index, index)

    def getDiscreteVariable(self, state: State, index: int) -> Any:
        return state.getDiscreteVariable(self._index, index)

    def updDiscreteVariable(self, state: State, index: int) -> Any:
        return state.updDiscreteVariable(self._index, index)

    def setDiscreteVariable(self, state: State, index: int, value: Any) -> None:
        state.setDiscreteVariable(self._index, index, value)

    def getCacheEntry(self, state: State, index: int) -> Any:
        return state.getCacheEntry(self._index, index)

    def updCacheEntry(self, state: State, index: int) -> Any:
        return state.updCacheEntry(self._index, index)

    def isCacheValueRealized(self, state: State, index: int) -> bool:
        return state.isCacheValueRealized(self._index, index)

    def markCacheValueRealized(self, state: State, index: int) -> None:
        state.markCacheValueRealized(self._index, index)

    def markCacheValueNotRealized(self, state: State, index: int) -> None:
        state.markCacheValueNotRealized(self._index, index)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} '{self._name}' index={self._index}>"
