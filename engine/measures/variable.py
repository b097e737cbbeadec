"""Measure.Variable: a discrete state variable whose value the user sets.

``Measure.Variable(subsystem, invalidates, defaultValue)``: the variable is
allocated at Topology with ``defaultValue``; ``setValue(state, value)`` changes
it in a State and invalidates the ``invalidates`` stage (and above) there. Its
value is available from Model stage on; all its time derivatives are zero.
"""

from __future__ import annotations

from engine.common.exceptions import InvalidArgumentError
from engine.common.stage import Stage
from engine.common.stage_arg import stage_value
from engine.measures.measure import (
    INFINITE_DERIVATIVES,
    Measure,
    asValue,
    splitSubsystem,
    zeroLike,
)


class Variable(Measure):
    """A discrete-variable measure (see the module docstring)."""

    _needsSubsystem = True

    def __init__(self, *args, **kwargs) -> None:
        subsystem, rest = splitSubsystem(args, kwargs, "Variable")
        invalidates = rest[0] if len(rest) > 0 else kwargs.pop("invalidates", Stage.Dynamics)
        default = rest[1] if len(rest) > 1 else kwargs.pop("defaultValue", 0.0)
        self._invalidates = stage_value(invalidates, "Measure.Variable", "invalidates")
        if not Stage.Model <= self._invalidates <= Stage.Report:
            raise InvalidArgumentError(
                "Measure.Variable: the invalidated stage must be between Model and Report, got "
                f"{self._invalidates.getName()}"
            )
        self._dvIndex = -1
        super().__init__(subsystem, asValue(default), numCacheEntries=0)

    def getInvalidatedStage(self) -> Stage:
        return self._invalidates

    def setInvalidatedStage(self, invalidates: Stage) -> Variable:
        self._invalidates = stage_value(invalidates, "setInvalidatedStage", "invalidates")
        self._invalidateTopology()
        return self

    def setValue(self, state, value) -> None:
        """Set the variable in ``state`` (invalidates getInvalidatedStage() and above)."""
        self._checkState(state)
        state.setDiscreteVariable(
            self.getSubsystem().getMySubsystemIndex(), self._dvIndex, asValue(value, "value")
        )

    def _dependsOnStage(self, derivOrder: int) -> Stage:
        return Stage.Empty if derivOrder > 0 else Stage.Model

    def _numTimeDerivatives(self) -> int:
        return INFINITE_DERIVATIVES

    def _getUncachedValue(self, state, derivOrder: int):
        if derivOrder > 0:
            return zeroLike(self._defaultValue)
        return state.getDiscreteVariable(self.getSubsystem().getMySubsystemIndex(), self._dvIndex)

    def _realizeTopologyVirtual(self, subsystem, state) -> None:
        self._dvIndex = state.allocateDiscreteVariable(
            subsystem.getMySubsystemIndex(),
            self._invalidates,
            self._defaultValue,
            name=f"Measure.Variable {self._measureIndex}",
        )
