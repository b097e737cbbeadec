"""Measure: a named quantity computed from a State, with its time derivatives.

A Measure (Simbody's ``Measure_<T>``, with T a Real or a Vector) has a value and
up to ``getNumTimeDerivatives()`` time derivatives, ``getValue(state,
derivOrder)``. Derivative order k can be asked for once the State has reached
(or is working on) ``getDependsOnStage(k)``: the subsystem must be realized at
least to the stage before it. Values are cached in lazy cache entries of the
owning subsystem, so each is computed at most once per change of what it depends
on.

Measures live in a subsystem (normally the System's DefaultSystemSubsystem,
``system.updDefaultSubsystem()``), which calls their realize hooks
(``realizeMeasureTopology(subsystem, state)`` ... ``realizeMeasureReport``) and,
when a simulation starts (Event.Cause.Initialization), ``initializeMeasure``.
Measures that need no state (Constant, Zero, One, Time) also work without a
subsystem.

Values: a float, or a read-only 1-D float64 ndarray for vector measures.
"""

from __future__ import annotations

import numpy as np

from engine.common.cache_entry import CacheEntryKey
from engine.common.exceptions import (
    InvalidArgumentError,
    SimTKError,
    StageTooLowError,
    TopologyMismatchError,
)
from engine.common.index_arg import index_value
from engine.common.stage import Stage
from engine.common.subsystem import Subsystem

#: The derivative count Simbody reports for measures whose derivatives are all known
#: (std::numeric_limits<int>::max()).
INFINITE_DERIVATIVES = 2**31 - 1


def asValue(value, what: str = "value"):
    """Normalize a measure value: a finite float, or a 1-D float64 array (copied)."""
    if isinstance(value, (int, float, np.integer, np.floating)):
        v = float(value)
        if np.isnan(v):
            raise InvalidArgumentError(f"{what} is NaN; a Measure value must be a number")
        return v
    arr = np.array(value, dtype=np.float64)
    if arr.ndim == 0:
        return asValue(float(arr), what)
    if arr.ndim != 1:
        raise InvalidArgumentError(
            f"{what} must be a number or a 1-D vector, got an array of shape {arr.shape}"
        )
    if np.isnan(arr).any():
        raise InvalidArgumentError(f"{what} contains NaN; a Measure value must be numbers")
    return arr


def zeroLike(value):
    """0.0, or zeros shaped like ``value``."""
    return 0.0 if isinstance(value, float) else np.zeros_like(value)


def nanLike(value):
    """Placeholder contents for a not-yet-computed cache entry."""
    return float("nan") if isinstance(value, float) else np.full_like(value, np.nan)


def readonly(value):
    """What getValue hands out: a float, or a read-only copy of an array."""
    if isinstance(value, np.ndarray):
        out = np.array(value, dtype=np.float64)
        out.flags.writeable = False
        return out
    return float(value)


def splitSubsystem(args: tuple, kwargs: dict, name: str):
    """Simbody constructors take an optional leading Subsystem; return (subsystem, rest)."""
    from engine.common.system import System

    subsystem = kwargs.pop("subsystem", None)
    if isinstance(subsystem, System):
        subsystem = subsystem.updDefaultSubsystem()
    if subsystem is None and args and isinstance(args[0], System):
        # As Simbody's conversion of a System to its default subsystem.
        return args[0].updDefaultSubsystem(), args[1:]
    if subsystem is None and args and isinstance(args[0], Subsystem):
        if not hasattr(args[0], "adoptMeasure"):
            raise InvalidArgumentError(
                f"Measure.{name} needs a subsystem that can hold measures, such as "
                f"system.updDefaultSubsystem(); got {type(args[0]).__name__}"
            )
        return args[0], args[1:]
    if subsystem is None and args and hasattr(args[0], "adoptMeasure"):
        return args[0], args[1:]
    if subsystem is None and args and args[0] is None:
        return None, args[1:]
    return subsystem, args


class Measure:
    """Base class of every measure (see the module docstring).

    Subclasses set how many cache entries they use (value plus cached derivatives)
    and implement ``_dependsOnStage``, ``_numTimeDerivatives`` and either
    ``_calcCachedValue`` or ``_getUncachedValue``.
    """

    #: Measures that need state resources (z, discrete variables, cache) set this.
    _needsSubsystem = False

    def __init__(self, subsystem=None, defaultValue=0.0, numCacheEntries: int = 1) -> None:
        from engine.common.system import System

        self._subsystem = None  # the subsystem that allocates and realizes this measure
        self._owner = None  # the subsystem that owns it (adoptMeasure)
        self._measureIndex = -1
        self._defaultValue = asValue(defaultValue, "default value")
        self._numCacheEntries = int(numCacheEntries)
        self._cacheIx: list[int] = []
        self._topologyVersion: int | None = None
        if isinstance(subsystem, System):
            subsystem = subsystem.updDefaultSubsystem()
        if subsystem is not None:
            if not hasattr(subsystem, "adoptMeasure"):
                raise InvalidArgumentError(
                    f"{type(self).__name__} needs a subsystem that can hold measures, such as "
                    f"system.updDefaultSubsystem(); got {type(subsystem).__name__}"
                )
            self._measureIndex = subsystem.adoptMeasure(self)
            self._owner = subsystem
            self._subsystem = subsystem.getMeasureHost()

    # ------------------------------------------------------------- identity
    def isInSubsystem(self) -> bool:
        return self._subsystem is not None

    def getSubsystem(self):
        """The subsystem that owns this measure."""
        if self._subsystem is None:
            raise SimTKError(f"this {type(self).__name__} measure is not in a subsystem")
        return self._owner if self._owner is not None else self._subsystem

    def getSubsystemMeasureIndex(self) -> int:
        self.getSubsystem()
        return self._measureIndex

    def isSameMeasure(self, other: Measure) -> bool:
        return self is other

    def getDefaultValue(self):
        return readonly(self._defaultValue)

    def setDefaultValue(self, value) -> Measure:
        """Change the default value (a topology change: realizeTopology() again)."""
        self._defaultValue = asValue(value, "default value")
        self._invalidateTopology()
        return self

    def _invalidateTopology(self) -> None:
        if self._subsystem is not None:
            self._subsystem.invalidateSubsystemTopologyCache()

    # -------------------------------------------------------------- queries
    def getNumTimeDerivatives(self) -> int:
        """How many time derivatives getValue can deliver (INFINITE_DERIVATIVES if all)."""
        return int(self._numTimeDerivatives())

    def getDependsOnStage(self, derivOrder: int = 0) -> Stage:
        """The stage that derivative ``derivOrder`` (0 = the value) depends on."""
        derivOrder = self._checkDerivOrder(derivOrder, "getDependsOnStage")
        return Stage(self._dependsOnStage(derivOrder))

    def _checkDerivOrder(self, derivOrder, what: str) -> int:
        """``derivOrder`` as an int from 0 to getNumTimeDerivatives(); InvalidArgumentError
        (IndexOutOfRangeError for a non-integer) naming ``what`` otherwise."""
        n = self.getNumTimeDerivatives()
        derivOrder = index_value(derivOrder, f"{type(self).__name__}.{what}: derivOrder")
        if not 0 <= derivOrder <= n:
            raise InvalidArgumentError(
                f"{type(self).__name__}.{what}: derivOrder {derivOrder} is out of range; this "
                f"Measure allows 0-{n}"
            )
        return derivOrder

    def getValue(self, state, derivOrder: int = 0):
        """The value (derivOrder 0) or a time derivative, in the measure's units per
        time unit**derivOrder. The State must be realized at least to the stage before
        ``getDependsOnStage(derivOrder)``."""
        derivOrder = self._checkDerivOrder(derivOrder, "getValue")
        stage = Stage(self._dependsOnStage(derivOrder))
        if stage > Stage.Empty:
            current = self._currentStage(state)
            if current < stage - 1:
                raise StageTooLowError(
                    f"{type(self).__name__}.getValue(derivOrder={derivOrder}) depends on "
                    f"{stage.getName()} stage, so the State must be realized at least to "
                    f"{(stage - 1).getName()}; it is at {current.getName()}. Call "
                    f"system.realize(state, Stage.{stage.getName()}) first.",
                    needed=stage - 1,
                    current=current,
                )
        if derivOrder < self._numCacheEntries:
            if self._subsystem is None:
                return readonly(self._calcCachedValue(state, derivOrder))
            self._checkState(state)
            sub = self._subsystem.getMySubsystemIndex()
            ix = self._cacheIx[derivOrder]
            if state.isCacheValueRealized(sub, ix):
                return readonly(state.getCacheEntry(sub, ix))
            value = self._calcCachedValue(state, derivOrder)
            if (
                state.getSubsystemStage(sub)
                >= state.getCacheEntryInfo(CacheEntryKey(sub, ix)).earliest
            ):
                state.setCacheEntryValue(sub, ix, value)
                state.markCacheValueRealized(sub, ix)
            return readonly(value)
        if self._subsystem is not None:
            self._checkState(state)
        elif self._needsSubsystem:
            raise SimTKError(
                f"this {type(self).__name__} measure keeps state variables, so it must be "
                "adopted by a subsystem (pass system.updDefaultSubsystem() to its constructor)"
            )
        return readonly(self._getUncachedValue(state, derivOrder))

    def _currentStage(self, state) -> Stage:
        if self._subsystem is not None:
            return state.getSubsystemStage(self._subsystem.getMySubsystemIndex())
        return state.getSystemStage()

    def _checkState(self, state) -> None:
        """The State must have this measure's resources (made by realizeTopology)."""
        if self._topologyVersion is None or (
            state.getSystemTopologyStageVersion() != self._topologyVersion
        ):
            raise TopologyMismatchError(
                f"this State has no resources for the {type(self).__name__} measure: it was "
                "made before the measure was added (or for another System). Call "
                "system.realizeTopology() and use the State it returns."
            )

    # -------------------------------------------------------- subclass hooks
    def _dependsOnStage(self, derivOrder: int) -> Stage:
        raise NotImplementedError

    def _numTimeDerivatives(self) -> int:
        return 0

    def _calcCachedValue(self, state, derivOrder: int):
        raise NotImplementedError(
            f"{type(self).__name__} must implement _calcCachedValue for derivOrder {derivOrder}"
        )

    def _getUncachedValue(self, state, derivOrder: int):
        raise NotImplementedError(
            f"{type(self).__name__} must implement _getUncachedValue for derivOrder {derivOrder}"
        )

    def _realizeTopologyVirtual(self, subsystem, state) -> None:
        """Allocate state variables (z, discrete variables) at Topology stage."""

    def _allocateValueCacheEntry(self, subsystem, state, derivOrder: int, default) -> int:
        stage = max(Stage(self._dependsOnStage(derivOrder)), Stage.Topology)
        return state.allocateLazyCacheEntry(
            subsystem.getMySubsystemIndex(),
            stage,
            default,
            name=f"{type(self).__name__} measure {self._measureIndex} d{derivOrder}",
        )

    # ------------------------------------------------- hooks the subsystem calls
    def realizeMeasureTopology(self, subsystem, state) -> None:
        """Allocate this measure's cache entries and state variables in ``state``."""
        if self._subsystem is None:
            self._subsystem = subsystem
        elif self._subsystem is not subsystem:
            raise SimTKError(f"a {type(self).__name__} measure can belong to only one subsystem")
        if self._measureIndex < 0:
            for i in range(subsystem.getNumMeasures()):
                if subsystem.getMeasure(i) is self:
                    self._measureIndex = i
                    break
        self._cacheIx = []
        for k in range(self._numCacheEntries):
            default = self._defaultValue if k == 0 else nanLike(self._defaultValue)
            self._cacheIx.append(self._allocateValueCacheEntry(subsystem, state, k, default))
        self._realizeTopologyVirtual(subsystem, state)
        self._topologyVersion = subsystem.getSystem().getSystemTopologyCacheVersion()

    def realizeMeasureModel(self, subsystem, state) -> None:
        """Model-stage hook (nothing by default)."""

    def realizeMeasureInstance(self, subsystem, state) -> None:
        """Instance-stage hook (nothing by default)."""

    def realizeMeasureTime(self, subsystem, state) -> None:
        """Time-stage hook (nothing by default)."""

    def realizeMeasurePosition(self, subsystem, state) -> None:
        """Position-stage hook (nothing by default)."""

    def realizeMeasureVelocity(self, subsystem, state) -> None:
        """Velocity-stage hook (nothing by default)."""

    def realizeMeasureDynamics(self, subsystem, state) -> None:
        """Dynamics-stage hook (nothing by default)."""

    def realizeMeasureAcceleration(self, subsystem, state) -> None:
        """Acceleration-stage hook (Integrate sets its zdot here)."""

    def realizeMeasureReport(self, subsystem, state) -> None:
        """Report-stage hook (nothing by default)."""

    def initializeMeasure(self, subsystem, state) -> None:
        """At the start of a simulation: set this measure's state variables to their
        initial values (nothing by default)."""

    def __repr__(self) -> str:
        where = f" #{self._measureIndex}" if self._subsystem is not None else ""
        return f"<Measure.{type(self).__name__}{where}>"


def requireMeasure(value, what: str) -> Measure:
    """``value`` if it is a Measure, else InvalidArgumentError naming ``what``."""
    if not isinstance(value, Measure):
        raise InvalidArgumentError(f"{what} must be a Measure, got {type(value).__name__}")
    return value
