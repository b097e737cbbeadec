"""Measure.Integrate: the time integral of another measure, kept in z variables.

``Measure.Integrate(subsystem, deriv, ic, initAlloc=0.0)`` allocates one
continuous state variable z per element of the value (sized by ``initAlloc``)
and sets its zdot to ``deriv``'s value at Acceleration stage, so any integrator
integrates it with the rest of the State. When a simulation starts
(Initialization event) z is set to ``ic``'s value (or to ``initAlloc`` if there
is no ic measure); ``setValue(state, v)`` sets it directly. The value is
available from Time stage on; derivative k is ``deriv``'s derivative k-1.
Units: deriv's units times the time unit.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError, SimTKError
from engine.common.stage import Stage
from engine.measures.measure import (
    INFINITE_DERIVATIVES,
    Measure,
    asValue,
    requireMeasure,
    splitSubsystem,
)


class Integrate(Measure):
    """Integral of a derivative measure (see the module docstring)."""

    _needsSubsystem = True

    def __init__(self, *args, **kwargs) -> None:
        subsystem, rest = splitSubsystem(args, kwargs, "Integrate")
        deriv = rest[0] if len(rest) > 0 else kwargs.pop("deriv", None)
        ic = rest[1] if len(rest) > 1 else kwargs.pop("ic", None)
        initAlloc = rest[2] if len(rest) > 2 else kwargs.pop("initAlloc", 0.0)
        self._deriv = None if deriv is None else requireMeasure(deriv, "Measure.Integrate: deriv")
        self._ic = None if ic is None else requireMeasure(ic, "Measure.Integrate: ic")
        self._zIndex = -1
        super().__init__(subsystem, asValue(initAlloc, "initAlloc"), numCacheEntries=1)

    def _size(self) -> int:
        return 1 if isinstance(self._defaultValue, float) else self._defaultValue.size

    # ---------------------------------------------------------------- access
    def getDerivativeMeasure(self) -> Measure:
        if self._deriv is None:
            raise SimTKError("no derivative measure is available for this integrated measure")
        return self._deriv

    def getInitialConditionMeasure(self) -> Measure:
        if self._ic is None:
            raise SimTKError(
                "no initial condition measure is available for this integrated measure"
            )
        return self._ic

    def setDerivativeMeasure(self, deriv: Measure) -> Integrate:
        self._deriv = requireMeasure(deriv, "setDerivativeMeasure: deriv")
        self._invalidateTopology()
        return self

    def setInitialConditionMeasure(self, ic: Measure) -> Integrate:
        self._ic = requireMeasure(ic, "setInitialConditionMeasure: ic")
        self._invalidateTopology()
        return self

    def setValue(self, state, value) -> None:
        """Set the integral's z variable(s) in ``state`` (same size as initAlloc)."""
        self._checkState(state)
        value = asValue(value, "value")
        if np.size(value) != self._size():
            raise InvalidArgumentError(
                f"Measure.Integrate.setValue: expected {self._size()} element(s), got "
                f"{np.size(value)}"
            )
        sub = self.getSubsystem().getMySubsystemIndex()
        state.updZ(sub)[self._zIndex : self._zIndex + self._size()] = value

    # ------------------------------------------------------------------ hooks
    def _numTimeDerivatives(self) -> int:
        if self._deriv is None:
            return INFINITE_DERIVATIVES
        n = self._deriv.getNumTimeDerivatives()
        return n + 1 if n < INFINITE_DERIVATIVES else n

    def _dependsOnStage(self, derivOrder: int) -> Stage:
        if derivOrder == 0:
            return Stage.Time
        if self._deriv is None:
            return Stage.Empty
        return self._deriv.getDependsOnStage(derivOrder - 1)

    def _allocateValueCacheEntry(self, subsystem, state, derivOrder: int, default) -> int:
        # The value is a copy of z, so it must go stale whenever z changes.
        return state.allocateCacheEntryWithPrerequisites(
            subsystem.getMySubsystemIndex(),
            Stage.Time,
            Stage.Infinity,
            False,
            False,
            True,
            [],
            [],
            default,
            name=f"Integrate measure {self._measureIndex} value",
        )

    def _calcCachedValue(self, state, derivOrder: int):
        z = state.getZ(self.getSubsystem().getMySubsystemIndex())
        part = z[self._zIndex : self._zIndex + self._size()]
        return float(part[0]) if isinstance(self._defaultValue, float) else part.copy()

    def _getUncachedValue(self, state, derivOrder: int):
        if self._deriv is None:
            return 0.0 * self._defaultValue
        return self._deriv.getValue(state, derivOrder - 1)

    def _realizeTopologyVirtual(self, subsystem, state) -> None:
        init = np.atleast_1d(np.asarray(self._defaultValue, dtype=np.float64))
        self._zIndex = state.allocateZ(subsystem.getMySubsystemIndex(), init)

    def realizeMeasureAcceleration(self, subsystem, state) -> None:
        zdot = state.updZDot(subsystem.getMySubsystemIndex())
        n = self._size()
        if self._deriv is None:
            zdot[self._zIndex : self._zIndex + n] = 0.0
        else:
            zdot[self._zIndex : self._zIndex + n] = self._deriv.getValue(state)

    def initializeMeasure(self, subsystem, state) -> None:
        sub = subsystem.getMySubsystemIndex()
        if self._ic is not None:
            _realizeFor(subsystem, state, self._ic.getDependsOnStage(0))
            value = self._ic.getValue(state)
        else:
            value = self._defaultValue
        state.updZ(sub)[self._zIndex : self._zIndex + self._size()] = value


def _realizeFor(subsystem, state, stage: Stage) -> None:
    """Make sure ``state`` is realized far enough to evaluate something at ``stage``."""
    if stage > Stage.Model and state.getSystemStage() < stage - 1:
        subsystem.getSystem().realize(state, stage - 1)
