"""Constraint.ConstantOrientation: a follower frame keeps its orientation in a base frame.

Three holonomic equations ``RF.x.RB.y, RF.y.RB.z, RF.z.RB.x`` with RB the base body's
frame (base rotation fixed on the base body) and RF the follower's; only the relative
rotation is constrained (translation free). Forces are pure torques
(see ``orientation_math``).
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.multibody.constraints.constraint import Constraint, as_mat33
from engine.multibody.constraints.orientation_math import orientation_errors, orientation_forces


class ConstantOrientation(Constraint):
    """``ConstantOrientation(baseBody, defaultFrameOnB, followerBody, defaultFrameOnF)``
    (Rotations fixed on each body)."""

    NUM_EQUATIONS = (3, 0, 0)
    TYPE_NAME = "ConstantOrientation"

    def __init__(self, baseBody, *args) -> None:
        if len(args) == 3:
            R_B, followerBody, R_F = args
        elif len(args) == 1:
            (followerBody,) = args
            R_B = R_F = np.eye(3)
        else:
            raise InvalidArgumentError(
                "Constraint.ConstantOrientation(baseBody, frameOnB, followerBody, frameOnF)"
            )
        self._RB = as_mat33(R_B, "ConstantOrientation base rotation")
        self._RF = as_mat33(R_F, "ConstantOrientation follower rotation")
        super().__init__([baseBody, followerBody])

    def getDefaultBaseRotation(self):
        from engine.math.rotation import Rotation

        return Rotation(self._RB)

    def getDefaultFollowerRotation(self):
        from engine.math.rotation import Rotation

        return Rotation(self._RF)

    def getBaseMobilizedBody(self):
        return self._bodies[0]

    def getFollowerMobilizedBody(self):
        return self._bodies[1]

    def _perr(self, k):
        return orientation_errors(k, 0, self._RB, 1, self._RF, "p")

    def _pverr(self, k):
        return orientation_errors(k, 0, self._RB, 1, self._RF, "v")

    def _paerr(self, k):
        return orientation_errors(k, 0, self._RB, 1, self._RF, "a")

    def _forces(self, k, out, lam_p, lam_v, lam_a):
        orientation_forces(k, out, 0, self._RB, 1, self._RF, lam_p)
