"""Constraint.ConstantCoordinate: one generalized coordinate held at a given value.

One holonomic equation ``q - value`` (the mobilizer must have qdot = u); multiplier
lambda is a generalized force on the matching mobility.
"""

from __future__ import annotations

import numpy as np

from engine.common.stage import Stage
from engine.multibody.constraints.constraint import Constraint
from engine.multibody.constraints.mobility_constraints import (
    mobility_and_value,
    require_qdot_equals_u,
)


class ConstantCoordinate(Constraint):
    """``ConstantCoordinate(mobilizedBody, [whichQ,] value)``."""

    NUM_EQUATIONS = (1, 0, 0)
    TYPE_NAME = "ConstantCoordinate"

    def __init__(self, mobod, *args) -> None:
        which, self._value = mobility_and_value("ConstantCoordinate", mobod, args, "value")
        require_qdot_equals_u("ConstantCoordinate", mobod)
        self._ix_value = -1
        self._cur = self._value
        super().__init__([], [(mobod, which)], matter=mobod.getMatterSubsystem())

    def getDefaultValue(self) -> float:
        return self._value

    def setDefaultValue(self, value: float) -> ConstantCoordinate:
        self._value = float(value)
        self._matter.invalidateSubsystemTopologyCache()
        return self

    def getMobilizedBody(self):
        return self._mobilities[0][0]

    def getWhichQ(self) -> int:
        return self._mobilities[0][1]

    def _allocate(self, state) -> None:
        self._ix_value = self._matter.allocateDiscreteVariable(
            state, Stage.Position, self._value, name=f"ConstantCoordinate {self._index}"
        )

    def _prepare(self, state) -> None:
        self._cur = float(self._matter.getDiscreteVariable(state, self._ix_value))

    def setValue(self, state, value: float) -> None:
        self._matter.setDiscreteVariable(state, self._ix_value, float(value))

    def getValue(self, state) -> float:
        return float(self._matter.getDiscreteVariable(state, self._ix_value))

    def _perr(self, k):
        return np.array([k.q[self._q_ix[0]] - self._cur])

    def _pverr(self, k):
        return np.array([k.u[self._u_ix[0]]])

    def _paerr(self, k):
        return np.array([k.udot[self._u_ix[0]]])

    def _forces(self, k, out, lam_p, lam_v, lam_a):
        out.f[0] += lam_p[0]
