"""Constraint.Ball (CoincidentPoints): a station of body 2 kept on a station of body 1.

Three holonomic equations ``p_AS2 - p_AS1`` in the ancestor frame A. Their time
derivative is ``v_AS2 - v_AC`` with C the point of body 1 coincident with S2 (the
acceleration equations ``a_AS2 - a_AC``, as Simbody 3.7), and the
force for multipliers lambda is ``+lambda`` (in A) on body 2 at S2 and ``-lambda`` on
body 1 at C.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.common.real_array import real_scalar
from engine.common.stage import Stage
from engine.common.stage_arg import stage_value
from engine.multibody.constraints.kinematics import cross
from engine.multibody.constraints.station_pair import StationPairConstraint


def coincident_point_errors(
    k, b1: int, s1, b2: int, s2, level: str, exact: bool = True
) -> np.ndarray:
    """perr/pverr/paerr of 'station s2 of body b2 on station s1 of body b1', in A.

    ``exact``: paerr is the exact derivative of pverr, ``a_S2 - a_C - w_1 x (v_S2 - v_C)``
    (Weld); otherwise ``a_S2 - a_C`` (Ball, as Simbody 3.7; the two agree when the
    velocity equations are satisfied)."""
    p2 = k.station(b2, s2)
    if level == "p":
        return p2 - k.station(b1, s1)
    c_B1 = k.station_in_body(b1, p2)  # point of body 1 coincident with S2
    v2 = k.station_velocity(b2, s2)
    vc = k.station_velocity(b1, c_B1)
    if level == "v":
        return v2 - vc
    a2 = k.station_acceleration(b2, s2)
    ac = k.station_acceleration(b1, c_B1)
    if not exact:
        return a2 - ac
    return a2 - ac - cross(k.w[b1], v2 - vc)


def coincident_point_forces(k, out, b1: int, b2: int, s2, f_A) -> None:
    """+f_A on body b2 at s2, -f_A on body b1 at the point coincident with s2."""
    c_B1 = k.station_in_body(b1, k.station(b2, s2))
    out.station_force(b2, s2, f_A)
    out.station_force(b1, c_B1, -f_A)


class Ball(StationPairConstraint):
    """``Ball(body1, point1, body2, point2)`` or ``Ball(body1, body2)`` (origins)."""

    NUM_EQUATIONS = (3, 0, 0)
    TYPE_NAME = "Ball"

    def __init__(self, body1, *args) -> None:
        if len(args) == 3:
            point1, body2, point2 = args
        elif len(args) == 1:
            (body2,) = args
            point1 = point2 = np.zeros(3)
        else:
            raise InvalidArgumentError(
                "Constraint.Ball(body1, point1, body2, point2) or Constraint.Ball(body1, body2)"
            )
        self._set_stations(point1, point2)
        self._radius = 0.1
        super().__init__([body1, body2])

    def setDefaultRadius(self, r: float) -> Ball:
        self._radius = real_scalar(r, "Constraint.Ball.setDefaultRadius: r")
        return self

    def getDefaultRadius(self) -> float:
        return self._radius

    def _perr(self, k):
        return coincident_point_errors(k, 0, self._p1, 1, self._p2, "p")

    def _pverr(self, k):
        return coincident_point_errors(k, 0, self._p1, 1, self._p2, "v")

    def _paerr(self, k):
        return coincident_point_errors(k, 0, self._p1, 1, self._p2, "a", exact=False)

    def _forces(self, k, out, lam_p, lam_v, lam_a):
        coincident_point_forces(k, out, 0, 1, self._p2, np.asarray(lam_p, dtype=float))

    def calcDecorativeGeometryAndAppend(self, state, stage, geometry) -> None:
        from engine.multibody.constraints.decorations import ball_points

        if stage_value(stage, "calcDecorativeGeometryAndAppend") == Stage.Position:
            geometry.extend(ball_points(self, state))
