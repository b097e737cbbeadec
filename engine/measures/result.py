"""Measure.Result: a cache entry whose value the user computes and sets.

``Measure.Result(subsystem, dependsOn, invalidated)``: the value is valid from the
``dependsOn`` stage on, until that stage is invalidated; ``setValue(state, v)``
stores it and marks it valid (the subsystem must be realized to ``dependsOn``);
``markAsNotValid`` also invalidates the ``invalidated`` stage and above. Reading
it while not valid raises CacheEntryOutOfDateError. No time derivatives.
"""

from __future__ import annotations

from engine.common.exceptions import (
    CacheEntryOutOfDateError,
    InvalidArgumentError,
    StageTooLowError,
)
from engine.common.stage import Stage
from engine.common.stage_arg import stage_value
from engine.measures.measure import Measure, asValue, readonly, splitSubsystem


class Result(Measure):
    """A user-set cached result (see the module docstring)."""

    _needsSubsystem = True

    def __init__(self, *args, **kwargs) -> None:
        subsystem, rest = splitSubsystem(args, kwargs, "Result")
        dependsOn = rest[0] if len(rest) > 0 else kwargs.pop("dependsOn", Stage.Topology)
        invalidated = rest[1] if len(rest) > 1 else kwargs.pop("invalidated", Stage.Infinity)
        dependsOn = stage_value(dependsOn, "Measure.Result", "dependsOn")
        invalidated = stage_value(invalidated, "Measure.Result", "invalidated")
        self._dependsOn = Stage.Topology if dependsOn == Stage.Empty else dependsOn
        self._invalidated = invalidated
        if not self._invalidated > self._dependsOn:
            raise InvalidArgumentError(
                f"Measure.Result: invalidated stage {self._invalidated.getName()} must be later "
                f"than the dependsOn stage {self._dependsOn.getName()}"
            )
        super().__init__(subsystem, kwargs.pop("defaultValue", 0.0), numCacheEntries=1)

    def getInvalidatedStage(self) -> Stage:
        return self._invalidated

    def setDependsOnStage(self, dependsOn: Stage) -> Result:
        dependsOn = stage_value(dependsOn, "setDependsOnStage", "dependsOn")
        dependsOn = Stage.Topology if dependsOn == Stage.Empty else dependsOn
        if not dependsOn < self._invalidated:
            raise InvalidArgumentError(
                f"Measure.Result.setDependsOnStage: {dependsOn.getName()} is not earlier than "
                f"the invalidated stage {self._invalidated.getName()}; change that first"
            )
        self._dependsOn = dependsOn
        self._invalidateTopology()
        return self

    def setInvalidatedStage(self, invalidated: Stage) -> Result:
        invalidated = stage_value(invalidated, "setInvalidatedStage", "invalidated")
        if not invalidated > self._dependsOn:
            raise InvalidArgumentError(
                f"Measure.Result.setInvalidatedStage: {invalidated.getName()} is not later "
                f"than the dependsOn stage {self._dependsOn.getName()}; change that first"
            )
        self._invalidated = invalidated
        self._invalidateTopology()
        return self

    def _ix(self, state) -> tuple[int, int]:
        self._checkState(state)
        return self.getSubsystem().getMySubsystemIndex(), self._cacheIx[0]

    def isValid(self, state) -> bool:
        sub, ix = self._ix(state)
        return state.isCacheValueRealized(sub, ix)

    def markAsValid(self, state) -> None:
        """Declare the stored value current; the subsystem must be at dependsOn."""
        sub, ix = self._ix(state)
        stage = state.getSubsystemStage(sub)
        if stage < self._dependsOn:
            raise StageTooLowError(
                f"Measure.Result.markAsValid: its value depends on {self._dependsOn.getName()} "
                f"stage but the subsystem is only at {stage.getName()}; realize the State to "
                f"{self._dependsOn.getName()} first",
                needed=self._dependsOn,
                current=stage,
            )
        state.markCacheValueRealized(sub, ix)

    def markAsNotValid(self, state) -> None:
        sub, ix = self._ix(state)
        state.markCacheValueNotRealized(sub, ix)
        if self._invalidated < Stage.Infinity:
            state.invalidateAllCacheAtOrAbove(max(self._invalidated, Stage.Instance))

    def updValue(self, state):
        """Mark not valid and return the stored value (arrays are writable in place;
        for a float, use setValue)."""
        self.markAsNotValid(state)
        sub, ix = self._ix(state)
        return state.updCacheEntry(sub, ix)

    def setValue(self, state, value) -> None:
        """Store ``value`` and mark it valid."""
        self.markAsNotValid(state)
        sub, ix = self._ix(state)
        state.setCacheEntryValue(sub, ix, asValue(value, "value"))
        self.markAsValid(state)

    def getValue(self, state, derivOrder: int = 0):
        self._checkDerivOrder(derivOrder, "getValue")
        sub, ix = self._ix(state)
        if not state.isCacheValueRealized(sub, ix):
            raise CacheEntryOutOfDateError(
                "Measure.Result.getValue() was called when the value was not yet valid. Result "
                "measures must have their values calculated and set externally (setValue, or "
                "updValue then markAsValid)."
            )
        return readonly(state.getCacheEntry(sub, ix))

    def _dependsOnStage(self, derivOrder: int) -> Stage:
        return Stage.Empty if derivOrder > 0 else self._dependsOn

    def _numTimeDerivatives(self) -> int:
        return 0
