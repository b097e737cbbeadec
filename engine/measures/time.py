"""Measure.Time: the State's time t (time units); d/dt = 1, higher derivatives 0."""

from __future__ import annotations

from engine.common.stage import Stage
from engine.measures.measure import INFINITE_DERIVATIVES, Measure, splitSubsystem


class Time(Measure):
    """``Measure.Time(subsystem)`` or ``Measure.Time()``: the current time."""

    def __init__(self, *args, **kwargs) -> None:
        subsystem, _ = splitSubsystem(args, kwargs, "Time")
        super().__init__(subsystem, 0.0, numCacheEntries=0)

    def _dependsOnStage(self, derivOrder: int) -> Stage:
        return Stage.Empty if derivOrder > 0 else Stage.Time

    def _numTimeDerivatives(self) -> int:
        return INFINITE_DERIVATIVES

    def _getUncachedValue(self, state, derivOrder: int):
        if derivOrder == 0:
            return state.getTime()
        return 1.0 if derivOrder == 1 else 0.0
