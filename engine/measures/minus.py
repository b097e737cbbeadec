"""Measure.Minus: the difference of two measures, ``Measure.Minus(subsystem, left, right)``.

Its value depends on the later of the operands' stages. Like Simbody 3.7, it
offers no time derivatives.
"""

from __future__ import annotations

from engine.common.stage import Stage
from engine.measures.measure import Measure, requireMeasure, splitSubsystem


class Minus(Measure):
    """left - right."""

    def __init__(self, *args, **kwargs) -> None:
        subsystem, rest = splitSubsystem(args, kwargs, "Minus")
        if len(rest) != 2:
            raise TypeError("Measure.Minus needs (subsystem, left, right)")
        self._left = requireMeasure(rest[0], "Measure.Minus: left")
        self._right = requireMeasure(rest[1], "Measure.Minus: right")
        super().__init__(subsystem, self._left._defaultValue - self._right._defaultValue)

    def _dependsOnStage(self, derivOrder: int) -> Stage:
        return max(
            self._left.getDependsOnStage(derivOrder), self._right.getDependsOnStage(derivOrder)
        )

    def _calcCachedValue(self, state, derivOrder: int):
        return self._left.getValue(state, derivOrder) - self._right.getValue(state, derivOrder)
