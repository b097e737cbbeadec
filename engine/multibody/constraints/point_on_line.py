"""Constraint.PointOnLine: a follower station kept on a line fixed in the line body.

Two holonomic equations ``x . d, y . d`` with ``d = R_AL^T (p_S - p_Lo) - P0`` (line
point P0 and direction z in the line body L), ``x = normalize(z x e_k)`` for the axis k
where |z_k| is smallest (lowest index on ties) and ``y = z x x``. Forces as for two
PointInPlane constraints with normals x and y.
"""

from __future__ import annotations

import numpy as np

from engine.multibody.constraints.constraint import Constraint, as_unit_vec3, as_vec3
from engine.multibody.constraints.point_in_plane import (
    point_on_surface_errors,
    point_on_surface_forces,
)


def perpendicular_axes(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    k = int(np.argmin(np.abs(z)))
    e = np.zeros(3)
    e[k] = 1.0
    x = np.cross(z, e)
    x /= np.linalg.norm(x)
    return x, np.cross(z, x)


class PointOnLine(Constraint):
    """``PointOnLine(lineBody, defaultLineDirection, defaultPointOnLine, followerBody,
    defaultFollowerPoint)``."""

    NUM_EQUATIONS = (2, 0, 0)
    TYPE_NAME = "PointOnLine"

    def __init__(self, lineBody, lineDirection, pointOnLine, followerBody, followerPoint):
        self._z = as_unit_vec3(lineDirection, "PointOnLine direction")
        self._p0 = as_vec3(pointOnLine, "PointOnLine point on line")
        self._s = as_vec3(followerPoint, "PointOnLine follower point")
        x, y = perpendicular_axes(self._z)
        self._normals = [x, y]
        self._heights = [float(x @ self._p0), float(y @ self._p0)]
        super().__init__([lineBody, followerBody])

    def getDefaultLineDirection(self) -> np.ndarray:
        return self._z.copy()

    def getDefaultPointOnLine(self) -> np.ndarray:
        return self._p0.copy()

    def getDefaultFollowerPoint(self) -> np.ndarray:
        return self._s.copy()

    def getLineMobilizedBody(self):
        return self._bodies[0]

    def getFollowerMobilizedBody(self):
        return self._bodies[1]

    def _perr(self, k):
        return point_on_surface_errors(k, 0, self._normals, self._heights, 1, self._s, "p")

    def _pverr(self, k):
        return point_on_surface_errors(k, 0, self._normals, self._heights, 1, self._s, "v")

    def _paerr(self, k):
        return point_on_surface_errors(k, 0, self._normals, self._heights, 1, self._s, "a")

    def _forces(self, k, out, lam_p, lam_v, lam_a):
        point_on_surface_forces(k, out, 0, self._normals, 1, self._s, lam_p)
