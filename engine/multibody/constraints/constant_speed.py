"""Constraint.ConstantSpeed: one generalized speed held at a given value.

One nonholonomic equation ``u - speed``; multiplier lambda is a generalized force on
that mobility. It does work (calcPower is nonzero in general).
"""

from __future__ import annotations

import numpy as np

from engine.common.stage import Stage
from engine.multibody.constraints.mobility_constraints import MobilityValueConstraint


class ConstantSpeed(MobilityValueConstraint):
    """``ConstantSpeed(mobilizedBody, [whichU,] speed)``."""

    NUM_EQUATIONS = (0, 1, 0)
    TYPE_NAME = "ConstantSpeed"
    VALUE_NAME = "speed"
    VALUE_STAGE = Stage.Velocity
    VARIABLE_SUFFIX = " speed"

    def __init__(self, mobod, *args) -> None:
        super().__init__(mobod, args)

    def getDefaultSpeed(self) -> float:
        return self._default_value

    def setDefaultSpeed(self, speed: float) -> ConstantSpeed:
        return self._set_default_value(speed)

    def getWhichU(self) -> int:
        return self._mobilities[0][1]

    def setSpeed(self, state, speed: float) -> None:
        self._set_value(state, speed)

    def getSpeed(self, state) -> float:
        return self._get_value(state)

    def _verr(self, k):
        return np.array([k.u[self._u_ix[0]] - self._cur])

    def _vaerr(self, k):
        return np.array([k.udot[self._u_ix[0]]])

    def _forces(self, k, out, lam_p, lam_v, lam_a):
        out.f[0] += lam_v[0]
