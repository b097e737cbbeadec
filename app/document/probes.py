"""Probe measures: engine Measures (``engine.measures.Measure`` subclasses) that read one
quantity of a body from the State, for plots and for use as operands of other measures.

Each is cached in a lazy cache entry of its subsystem (the System's default subsystem),
valid from the stage it depends on until that stage is invalidated, like Simbody's own
measures. No time derivatives (Differentiate approximates them).

- ``StationHeight(subsystem, mobod, p_BS)``: p_GS · up (m), up = the System's up direction
  at the time of the call (Position stage);
- ``StationSpeed(subsystem, mobod, p_BS)``: |v_GS| (m/s) (Velocity stage);
- ``JointCoordinate(subsystem, mobod, which)``: q[which] of the mobilizer (Position stage);
- ``JointSpeed(subsystem, mobod, which)``: u[which] of the mobilizer (Velocity stage).
"""

# ruff: noqa: N802, N803  (the engine Measure hooks keep Simbody's names)
from __future__ import annotations

import numpy as np

from engine.common.stage import Stage
from engine.measures import Measure


class _BodyProbe(Measure):
    """A measure of one mobilized body; subclasses set STAGE and _calc."""

    STAGE = Stage.Position

    def __init__(self, subsystem, mobod, where) -> None:
        self._mobod = mobod
        self._where = where
        super().__init__(subsystem, 0.0, numCacheEntries=1)

    def _dependsOnStage(self, derivOrder: int) -> Stage:
        return self.STAGE

    def _numTimeDerivatives(self) -> int:
        return 0

    def _calcCachedValue(self, state, derivOrder: int) -> float:
        return float(self._calc(state))


class StationHeight(_BodyProbe):
    """Height of station ``p_BS`` (m, in B) along the System's up direction."""

    def __init__(self, subsystem, mobod, p_BS) -> None:  # noqa: N803
        super().__init__(subsystem, mobod, np.asarray(p_BS, dtype=np.float64))

    def _calc(self, state) -> float:
        up = self.getSubsystem().getSystem().getUpDirection().asVec3()
        return float(np.dot(self._mobod.findStationLocationInGround(state, self._where), up))


class StationSpeed(_BodyProbe):
    """Speed (m/s) in Ground of station ``p_BS`` (m, in B)."""

    STAGE = Stage.Velocity

    def __init__(self, subsystem, mobod, p_BS) -> None:  # noqa: N803
        super().__init__(subsystem, mobod, np.asarray(p_BS, dtype=np.float64))

    def _calc(self, state) -> float:
        return float(np.linalg.norm(self._mobod.findStationVelocityInGround(state, self._where)))


class JointCoordinate(_BodyProbe):
    """Generalized coordinate ``which`` of the body's mobilizer."""

    def __init__(self, subsystem, mobod, which: int) -> None:
        super().__init__(subsystem, mobod, int(which))

    def _calc(self, state) -> float:
        return self._mobod.getOneQ(state, self._where)


class JointSpeed(_BodyProbe):
    """Generalized speed ``which`` of the body's mobilizer."""

    STAGE = Stage.Velocity

    def __init__(self, subsystem, mobod, which: int) -> None:
        super().__init__(subsystem, mobod, int(which))

    def _calc(self, state) -> float:
        return self._mobod.getOneU(state, self._where)


PROBES = {
    "StationHeight": StationHeight,
    "StationSpeed": StationSpeed,
    "JointCoordinate": JointCoordinate,
    "JointSpeed": JointSpeed,
}
