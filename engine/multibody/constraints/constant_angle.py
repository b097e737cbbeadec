"""Constraint.ConstantAngle: an axis on the follower keeps a fixed angle to one on the base.

One holonomic equation ``a . b - cos(angle)`` (a = base axis, b = follower axis, in A).
Its derivative is ``(w_F - w_B) . (b x a)``; multiplier lambda gives the torque
``lambda (b x a)`` on the follower and its negative on the base.
"""

from __future__ import annotations

import math

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.common.real_array import real_scalar
from engine.multibody.constraints.constraint import Constraint, as_unit_vec3
from engine.multibody.constraints.kinematics import cross


class ConstantAngle(Constraint):
    """``ConstantAngle(baseBody, defaultAxisOnB, followerBody, defaultAxisOnF, angle=pi/2)``."""

    NUM_EQUATIONS = (1, 0, 0)
    TYPE_NAME = "ConstantAngle"

    def __init__(self, baseBody, axisOnB, followerBody, axisOnF, angle: float = math.pi / 2):
        self._a = as_unit_vec3(axisOnB, "ConstantAngle base axis")
        self._b = as_unit_vec3(axisOnF, "ConstantAngle follower axis")
        angle = real_scalar(angle, "ConstantAngle: angle")
        if not 0.0 <= angle <= math.pi:
            raise InvalidArgumentError(f"ConstantAngle: angle must be in [0, pi], got {angle}")
        self._angle = angle
        self._cos = math.cos(angle)
        super().__init__([baseBody, followerBody])

    def getDefaultAngle(self) -> float:
        return self._angle

    def getDefaultBaseAxis(self) -> np.ndarray:
        return self._a.copy()

    def getDefaultFollowerAxis(self) -> np.ndarray:
        return self._b.copy()

    def getBaseMobilizedBody(self):
        return self._bodies[0]

    def getFollowerMobilizedBody(self):
        return self._bodies[1]

    def _axes(self, k):
        return k.R[0] @ self._a, k.R[1] @ self._b

    def _perr(self, k):
        a, b = self._axes(k)
        return np.array([a @ b - self._cos])

    def _pverr(self, k):
        a, b = self._axes(k)
        return np.array([(k.w[1] - k.w[0]) @ cross(b, a)])

    def _paerr(self, k):
        a, b = self._axes(k)
        w0, w1 = k.w[0], k.w[1]
        return np.array(
            [
                (k.b[1] - k.b[0]) @ cross(b, a)
                + (w1 - w0) @ (cross(cross(w1, b), a) + cross(b, cross(w0, a)))
            ]
        )

    def _forces(self, k, out, lam_p, lam_v, lam_a):
        a, b = self._axes(k)
        t = lam_p[0] * cross(b, a)
        out.torque(1, t)
        out.torque(0, -t)
