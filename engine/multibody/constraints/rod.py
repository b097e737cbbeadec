"""Constraint.Rod (ConstantDistance): two stations kept a fixed distance apart.

One holonomic equation ``|p_S2 - p_S1| - length`` (stations in their body frames);
the force for multiplier lambda is ``+lambda e`` on body 2 at S2 and ``-lambda e`` on
body 1 at S1, ``e`` the unit vector from S1 to S2 (lambda > 0: tension).
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError, NonPhysicalError
from engine.common.real_array import real_scalar
from engine.common.stage import Stage
from engine.common.stage_arg import stage_value
from engine.multibody.constraints.station_pair import StationPairConstraint


class Rod(StationPairConstraint):
    """``Rod(body1, point1, body2, point2, length)`` or ``Rod(body1, body2, length)``."""

    NUM_EQUATIONS = (1, 0, 0)
    TYPE_NAME = "Rod"

    def __init__(self, body1, *args) -> None:
        if len(args) == 4:
            point1, body2, point2, length = args
        elif len(args) == 2:
            body2, length = args
            point1 = point2 = np.zeros(3)
        else:
            raise InvalidArgumentError(
                "Constraint.Rod(body1, point1, body2, point2, length) or "
                "Constraint.Rod(body1, body2, length)"
            )
        self._set_stations(point1, point2)
        self._length = self._checked_length(length)
        self._ix_length = -1
        self._L = self._length
        super().__init__([body1, body2])

    @staticmethod
    def _checked_length(length) -> float:
        length = real_scalar(length, "Constraint.Rod: the rod length")
        if not (np.isfinite(length) and length > 0.0):
            raise InvalidArgumentError(
                f"Constraint.Rod: the rod length must be a positive finite number, got {length}"
                " (a zero-length rod is a Constraint.Ball)"
            )
        return length

    # ----------------------------------------------------------- parameters
    def getDefaultRodLength(self) -> float:
        return self._length

    def setDefaultRodLength(self, length: float) -> Rod:
        self._length = self._checked_length(length)
        self._matter.invalidateSubsystemTopologyCache()
        return self

    def _allocate(self, state) -> None:
        self._ix_length = self._matter.allocateDiscreteVariable(
            state, Stage.Position, self._length, name=f"Rod {self._index} length"
        )

    def _prepare(self, state) -> None:
        self._L = self.getRodLength(state)

    def setRodLength(self, state, length: float) -> None:
        """Change this State's rod length (invalidates Position stage)."""
        self._matter.setDiscreteVariable(state, self._ix_length, self._checked_length(length))

    def getRodLength(self, state) -> float:
        return float(self._matter.getDiscreteVariable(state, self._ix_length))

    # ------------------------------------------------------------ equations
    def _geometry(self, k):
        d = k.station(1, self._p2) - k.station(0, self._p1)
        r = float(np.linalg.norm(d))
        if r == 0.0:
            raise NonPhysicalError(
                f"Constraint.Rod {self._index}: its two points coincide, so the rod direction "
                "is undefined"
            )
        return d, r

    def _perr(self, k):
        d = k.station(1, self._p2) - k.station(0, self._p1)
        return np.array([np.linalg.norm(d) - self._L])

    def _pverr(self, k):
        d, r = self._geometry(k)
        v = k.station_velocity(1, self._p2) - k.station_velocity(0, self._p1)
        return np.array([d @ v / r])

    def _paerr(self, k):
        d, r = self._geometry(k)
        v = k.station_velocity(1, self._p2) - k.station_velocity(0, self._p1)
        a = k.station_acceleration(1, self._p2) - k.station_acceleration(0, self._p1)
        e = d / r
        ev = e @ v
        return np.array([e @ a + (v @ v - ev * ev) / r])

    def _forces(self, k, out, lam_p, lam_v, lam_a):
        d, r = self._geometry(k)
        f = lam_p[0] * d / r
        out.station_force(1, self._p2, f)
        out.station_force(0, self._p1, -f)

    def calcDecorativeGeometryAndAppend(self, state, stage, geometry) -> None:
        from engine.multibody.constraints.decorations import rod_line

        if stage_value(stage, "calcDecorativeGeometryAndAppend") == Stage.Position:
            geometry.extend(rod_line(self, state))
