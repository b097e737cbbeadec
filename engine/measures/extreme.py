"""Measure.Extreme and its kinds Minimum, Maximum, MinAbs, MaxAbs.

``Measure.Minimum(subsystem, operand)`` (etc.) tracks the most extreme value its
operand has taken during a simulation, element by element for vectors. The
running extreme is an auto-update discrete variable: at every evaluation the
candidate ``extreme(previous, operand now)`` is computed into its update value
(also at Acceleration stage, so it is recorded at every step even if nobody
reads it) and becomes the variable's value when the integrator starts the next
step. It is therefore the extreme over the states the integrator visited (step
ends and reported states), not over the continuous trajectory in between. When
a simulation starts (Initialization) it is set to the operand's value;
``setValue`` sets it explicitly, ``getTimeOfExtremeValue`` says when it was last
changed. Same derivatives and stages as the operand (a derivative is nonzero
only while the operand is at a new extreme).
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.common.stage import Stage
from engine.measures.measure import (
    Measure,
    asValue,
    requireMeasure,
    splitSubsystem,
    zeroLike,
)


class Extreme(Measure):
    """Running extreme of an operand (see the module docstring)."""

    class Operation(IntEnum):
        MaxAbs = 0
        Maximum = 1
        MinAbs = 2
        Minimum = 3

    MaxAbs = Operation.MaxAbs
    Maximum = Operation.Maximum
    MinAbs = Operation.MinAbs
    Minimum = Operation.Minimum

    _needsSubsystem = True
    _defaultOperation = Operation.MaxAbs

    def __init__(self, *args, **kwargs) -> None:
        subsystem, rest = splitSubsystem(args, kwargs, type(self).__name__)
        operand = rest[0] if rest else kwargs.pop("operand")
        op = rest[1] if len(rest) > 1 else kwargs.pop("op", self._defaultOperation)
        self._operand = requireMeasure(operand, f"Measure.{type(self).__name__}: operand")
        try:
            self._operation = Extreme.Operation(op)
        except ValueError as exc:
            raise InvalidArgumentError(
                f"Measure.Extreme: unknown operation {op!r}; use Extreme.Minimum, Maximum, "
                "MinAbs or MaxAbs"
            ) from exc
        self._extremeIx = -1
        super().__init__(subsystem, self._operand._defaultValue, numCacheEntries=0)

    # ---------------------------------------------------------------- access
    def getOperandMeasure(self) -> Measure:
        return self._operand

    def setOperandMeasure(self, operand: Measure) -> Extreme:
        self._operand = requireMeasure(operand, "setOperandMeasure: operand")
        self._invalidateTopology()
        return self

    def getOperation(self) -> Extreme.Operation:
        return self._operation

    def setOperation(self, op) -> Extreme:
        self._operation = Extreme.Operation(op)
        self._invalidateTopology()
        return self

    def _sub(self) -> int:
        return self.getSubsystem().getMySubsystemIndex()

    def setValue(self, state, value) -> None:
        """Set the running extreme in ``state``."""
        self._checkState(state)
        sub = self._sub()
        state.setDiscreteVariable(sub, self._extremeIx, asValue(value, "value"))
        state.markCacheValueNotRealized(sub, state.getDiscreteVarUpdateIndex(sub, self._extremeIx))

    def getTimeOfExtremeValue(self, state) -> float:
        """When the extreme was last changed: now if the operand is at a new extreme."""
        self._checkState(state)
        if self._ensureExtremeHasBeenUpdated(state):
            return state.getTime()
        return state.getDiscreteVarLastUpdateTime(self._sub(), self._extremeIx)

    # --------------------------------------------------------------- helpers
    def _isNewExtreme(self, new, old):
        op = self._operation
        if op == Extreme.Maximum:
            return new > old
        if op == Extreme.Minimum:
            return new < old
        if op == Extreme.MaxAbs:
            return np.abs(new) > np.abs(old)
        return np.abs(new) < np.abs(old)

    def _ensureExtremeHasBeenUpdated(self, state) -> bool:
        sub = self._sub()
        if state.isDiscreteVarUpdateValueRealized(sub, self._extremeIx):
            return True
        prev = state.getDiscreteVariable(sub, self._extremeIx)
        f = self._operand.getValue(state)
        newer = self._isNewExtreme(f, prev)
        if not np.any(newer):
            return False
        value = np.where(newer, f, prev)
        value = float(value) if isinstance(prev, float) else np.array(value, dtype=np.float64)
        entry = state.getDiscreteVarUpdateIndex(sub, self._extremeIx)
        state.setCacheEntryValue(sub, entry, value)
        state.markDiscreteVarUpdateValueRealized(sub, self._extremeIx)
        return True

    # ------------------------------------------------------------------ hooks
    def _numTimeDerivatives(self) -> int:
        return self._operand.getNumTimeDerivatives()

    def _dependsOnStage(self, derivOrder: int) -> Stage:
        return self._operand.getDependsOnStage(derivOrder)

    def _getUncachedValue(self, state, derivOrder: int):
        sub = self._sub()
        hasNew = self._ensureExtremeHasBeenUpdated(state)
        if derivOrder > 0:
            return (
                self._operand.getValue(state, derivOrder)
                if hasNew
                else zeroLike(self._defaultValue)
            )
        if hasNew:
            return state.getDiscreteVarUpdateValue(sub, self._extremeIx)
        return state.getDiscreteVariable(sub, self._extremeIx)

    def _realizeTopologyVirtual(self, subsystem, state) -> None:
        init = {
            Extreme.Minimum: np.inf,
            Extreme.Maximum: -np.inf,
            Extreme.MinAbs: np.inf,
            Extreme.MaxAbs: 0.0,
        }[self._operation]
        default = self._defaultValue
        value = init if isinstance(default, float) else np.full_like(default, init)
        self._extremeIx = state.allocateAutoUpdateDiscreteVariable(
            subsystem.getMySubsystemIndex(),
            Stage.Dynamics,
            value,
            max(self._operand.getDependsOnStage(0), Stage.Topology),
            name=f"{type(self).__name__} measure {self._measureIndex} extreme",
        )

    def realizeMeasureAcceleration(self, subsystem, state) -> None:
        # Record a new extreme at every step even if nobody reads the measure.
        if state.getSubsystemStage(
            subsystem.getMySubsystemIndex()
        ) >= self._operand.getDependsOnStage(0):
            self._ensureExtremeHasBeenUpdated(state)

    def initializeMeasure(self, subsystem, state) -> None:
        stage = self._operand.getDependsOnStage(0)
        if stage > Stage.Model and state.getSystemStage() < stage:
            subsystem.getSystem().realize(state, stage)
        self.setValue(state, self._operand.getValue(state))


class Minimum(Extreme):
    """Smallest value the operand has taken."""

    _defaultOperation = Extreme.Operation.Minimum


class Maximum(Extreme):
    """Largest value the operand has taken."""

    _defaultOperation = Extreme.Operation.Maximum


class MinAbs(Extreme):
    """Value of smallest magnitude the operand has taken (sign kept)."""

    _defaultOperation = Extreme.Operation.MinAbs


class MaxAbs(Extreme):
    """Value of largest magnitude the operand has taken (sign kept)."""

    _defaultOperation = Extreme.Operation.MaxAbs
