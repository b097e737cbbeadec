"""Constraint.ConstantAcceleration: one generalized acceleration held at a given value.

One acceleration-only equation ``udot - acceleration``; multiplier lambda is a
generalized force on that mobility.
"""

from __future__ import annotations

import numpy as np

from engine.common.stage import Stage
from engine.multibody.constraints.mobility_constraints import MobilityValueConstraint


class ConstantAcceleration(MobilityValueConstraint):
    """``ConstantAcceleration(mobilizedBody, [whichU,] acceleration)``."""

    NUM_EQUATIONS = (0, 0, 1)
    TYPE_NAME = "ConstantAcceleration"
    VALUE_NAME = "acceleration"
    VALUE_STAGE = Stage.Acceleration

    def __init__(self, mobod, *args) -> None:
        super().__init__(mobod, args)

    def getDefaultAcceleration(self) -> float:
        return self._default_value

    def setDefaultAcceleration(self, acceleration: float) -> ConstantAcceleration:
        return self._set_default_value(acceleration)

    def getWhichU(self) -> int:
        return self._mobilities[0][1]

    def setAcceleration(self, state, acceleration: float) -> None:
        self._set_value(state, acceleration)

    def getAcceleration(self, state) -> float:
        return self._get_value(state)

    def _aerr(self, k):
        return np.array([k.udot[self._u_ix[0]] - self._cur])

    def _forces(self, k, out, lam_p, lam_v, lam_a):
        out.f[0] += lam_a[0]
