"""Measure.Scale: a measure times a constant, ``Measure.Scale(subsystem, factor, operand)``.

Depends on the operand's stage. Like Simbody 3.7, it offers no time derivatives.
"""

from __future__ import annotations

from engine.common.stage import Stage
from engine.measures.measure import Measure, requireMeasure, splitSubsystem


class Scale(Measure):
    """factor * operand."""

    def __init__(self, *args, **kwargs) -> None:
        subsystem, rest = splitSubsystem(args, kwargs, "Scale")
        if len(rest) != 2:
            raise TypeError("Measure.Scale needs (subsystem, factor, operand)")
        self._factor = float(rest[0])
        self._operand = requireMeasure(rest[1], "Measure.Scale: operand")
        super().__init__(subsystem, self._factor * self._operand._defaultValue)

    def getScaleFactor(self) -> float:
        return self._factor

    def setScaleFactor(self, factor: float) -> Scale:
        """Change the factor (a topology change)."""
        self._factor = float(factor)
        self._invalidateTopology()
        return self

    def getOperandMeasure(self) -> Measure:
        return self._operand

    def _dependsOnStage(self, derivOrder: int) -> Stage:
        return self._operand.getDependsOnStage(derivOrder)

    def _calcCachedValue(self, state, derivOrder: int):
        return self._factor * self._operand.getValue(state, derivOrder)
