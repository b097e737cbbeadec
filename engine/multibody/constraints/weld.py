"""Constraint.Weld (CoincidentFrames): frame 2 on body 2 kept on frame 1 on body 1.

Six holonomic equations: three orientation equations ``RF.x.RB.y, RF.y.RB.z,
RF.z.RB.x`` (RB = frame 1, RF = frame 2; see ``orientation_math``), then the three
coincident-point equations ``p_AO2 - p_AO1`` of the frame origins, in A (as Ball).
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.common.stage import Stage
from engine.common.stage_arg import stage_value
from engine.multibody.constraints.ball import coincident_point_errors, coincident_point_forces
from engine.multibody.constraints.constraint import Constraint, as_transform
from engine.multibody.constraints.orientation_math import orientation_errors, orientation_forces


class Weld(Constraint):
    """``Weld(body1, frame1, body2, frame2)`` (Transforms fixed on each body) or
    ``Weld(body1, body2)`` (body frames)."""

    NUM_EQUATIONS = (6, 0, 0)
    TYPE_NAME = "Weld"

    def __init__(self, body1, *args) -> None:
        if len(args) == 3:
            frame1, body2, frame2 = args
        elif len(args) == 1:
            (body2,) = args
            frame1 = frame2 = None
        else:
            raise InvalidArgumentError(
                "Constraint.Weld(body1, frame1, body2, frame2) or Constraint.Weld(body1, body2)"
            )
        self._R1, self._o1 = as_transform(frame1, "Constraint.Weld frame1")
        self._R2, self._o2 = as_transform(frame2, "Constraint.Weld frame2")
        super().__init__([body1, body2])

    def getDefaultFrameOnBody1(self):
        from engine.math.rotation import Rotation
        from engine.math.transform import Transform

        return Transform(Rotation(self._R1), self._o1)

    def getDefaultFrameOnBody2(self):
        from engine.math.rotation import Rotation
        from engine.math.transform import Transform

        return Transform(Rotation(self._R2), self._o2)

    def getBody1Mobilizer(self):
        return self._bodies[0]

    def getBody2Mobilizer(self):
        return self._bodies[1]

    def _errors(self, k, level):
        rot = orientation_errors(k, 0, self._R1, 1, self._R2, level)
        pos = coincident_point_errors(k, 0, self._o1, 1, self._o2, level)
        return np.concatenate((rot, pos))

    def _perr(self, k):
        return self._errors(k, "p")

    def _pverr(self, k):
        return self._errors(k, "v")

    def _paerr(self, k):
        return self._errors(k, "a")

    def _forces(self, k, out, lam_p, lam_v, lam_a):
        orientation_forces(k, out, 0, self._R1, 1, self._R2, lam_p[0:3])
        coincident_point_forces(k, out, 0, 1, self._o2, np.asarray(lam_p[3:6], dtype=float))

    def calcDecorativeGeometryAndAppend(self, state, stage, geometry) -> None:
        from engine.multibody.constraints.decorations import weld_frames

        if stage_value(stage, "calcDecorativeGeometryAndAppend") == Stage.Position:
            geometry.extend(weld_frames(self, state))
