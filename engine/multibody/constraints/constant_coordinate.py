"""Constraint.ConstantCoordinate: one generalized coordinate held at a given value.

One holonomic equation ``q - value`` (the mobilizer must have qdot = u); multiplier
lambda is a generalized force on the matching mobility.
"""

from __future__ import annotations

import numpy as np

from engine.common.stage import Stage
from engine.multibody.constraints.mobility_constraints import (
    MobilityValueConstraint,
    require_qdot_equals_u,
)


class ConstantCoordinate(MobilityValueConstraint):
    """``ConstantCoordinate(mobilizedBody, [whichQ,] value)``."""

    NUM_EQUATIONS = (1, 0, 0)
    TYPE_NAME = "ConstantCoordinate"
    VALUE_NAME = "value"
    VALUE_STAGE = Stage.Position

    def __init__(self, mobod, *args) -> None:
        super().__init__(mobod, args)

    def _check_mobilizer(self, mobod) -> None:
        require_qdot_equals_u("ConstantCoordinate", mobod)

    def getDefaultValue(self) -> float:
        return self._default_value

    def setDefaultValue(self, value: float) -> ConstantCoordinate:
        return self._set_default_value(value)

    def getWhichQ(self) -> int:
        return self._mobilities[0][1]

    def setValue(self, state, value: float) -> None:
        self._set_value(state, value)

    def getValue(self, state) -> float:
        return self._get_value(state)

    def _perr(self, k):
        return np.array([k.q[self._q_ix[0]] - self._cur])

    def _pverr(self, k):
        return np.array([k.u[self._u_ix[0]]])

    def _paerr(self, k):
        return np.array([k.udot[self._u_ix[0]]])

    def _forces(self, k, out, lam_p, lam_v, lam_a):
        out.f[0] += lam_p[0]
