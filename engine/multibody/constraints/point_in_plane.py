"""Constraint.PointInPlane: a follower station kept on a plane fixed in the plane body.

One holonomic equation ``n . (p_S - p_P) - height`` (n and height in the plane body P,
S the follower point). Its derivative is ``n . (v_S - v_C)`` with C the plane body's
point coincident with S; multiplier lambda gives ``+lambda n`` on the follower at S and
``-lambda n`` on the plane body at C.
"""

from __future__ import annotations

import numpy as np

from engine.common.real_array import real_scalar
from engine.multibody.constraints.constraint import Constraint, as_unit_vec3, as_vec3
from engine.multibody.constraints.kinematics import cross


def point_on_surface_errors(k, kp: int, normals_P, heights, kf: int, s_F, level: str):
    """Errors ``n_i . (p_S - p_P) - h_i`` (and derivatives) for normals fixed in body kp."""
    p_S = k.station(kf, s_F)
    ns = [k.R[kp] @ n for n in normals_P]
    if level == "p":
        d = p_S - k.p[kp]
        return np.array([n @ d - h for n, h in zip(ns, heights, strict=True)])
    c_P = k.station_in_body(kp, p_S)
    dv = k.station_velocity(kf, s_F) - k.station_velocity(kp, c_P)
    if level == "v":
        return np.array([n @ dv for n in ns])
    da = k.station_acceleration(kf, s_F) - k.station_acceleration(kp, c_P)
    acc = da - 2.0 * cross(k.w[kp], dv)
    return np.array([n @ acc for n in ns])


def point_on_surface_forces(k, out, kp: int, normals_P, kf: int, s_F, lam) -> None:
    p_S = k.station(kf, s_F)
    f = sum(lam[i] * (k.R[kp] @ n) for i, n in enumerate(normals_P))
    out.station_force(kf, s_F, f)
    out.station_force(kp, k.station_in_body(kp, p_S), -f)


class PointInPlane(Constraint):
    """``PointInPlane(planeBody, defaultPlaneNormal, defaultPlaneHeight, followerBody,
    defaultFollowerPoint)``."""

    NUM_EQUATIONS = (1, 0, 0)
    TYPE_NAME = "PointInPlane"

    def __init__(self, planeBody, planeNormal, planeHeight, followerBody, followerPoint):
        self._n = as_unit_vec3(planeNormal, "PointInPlane normal")
        self._h = real_scalar(planeHeight, "PointInPlane: planeHeight")
        self._s = as_vec3(followerPoint, "PointInPlane follower point")
        super().__init__([planeBody, followerBody])

    def getDefaultPlaneNormal(self) -> np.ndarray:
        return self._n.copy()

    def getDefaultPlaneHeight(self) -> float:
        return self._h

    def getDefaultFollowerPoint(self) -> np.ndarray:
        return self._s.copy()

    def getPlaneMobilizedBody(self):
        return self._bodies[0]

    def getFollowerMobilizedBody(self):
        return self._bodies[1]

    def _perr(self, k):
        return point_on_surface_errors(k, 0, [self._n], [self._h], 1, self._s, "p")

    def _pverr(self, k):
        return point_on_surface_errors(k, 0, [self._n], [self._h], 1, self._s, "v")

    def _paerr(self, k):
        return point_on_surface_errors(k, 0, [self._n], [self._h], 1, self._s, "a")

    def _forces(self, k, out, lam_p, lam_v, lam_a):
        point_on_surface_forces(k, out, 0, [self._n], 1, self._s, lam_p)
