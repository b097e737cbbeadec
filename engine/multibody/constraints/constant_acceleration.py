"""Constraint.ConstantAcceleration: one generalized acceleration held at a given value.

One acceleration-only equation ``udot - acceleration``; multiplier lambda is a
generalized force on that mobility.
"""

from __future__ import annotations

import numpy as np

from engine.common.stage import Stage
from engine.multibody.constraints.constraint import Constraint
from engine.multibody.constraints.mobility_constraints import mobility_and_value


class ConstantAcceleration(Constraint):
    """``ConstantAcceleration(mobilizedBody, [whichU,] acceleration)``."""

    NUM_EQUATIONS = (0, 0, 1)
    TYPE_NAME = "ConstantAcceleration"

    def __init__(self, mobod, *args) -> None:
        which, self._acc = mobility_and_value("ConstantAcceleration", mobod, args, "acceleration")
        self._ix_acc = -1
        self._cur = self._acc
        super().__init__([], [(mobod, which)], matter=mobod.getMatterSubsystem())

    def getDefaultAcceleration(self) -> float:
        return self._acc

    def setDefaultAcceleration(self, acceleration: float) -> ConstantAcceleration:
        self._acc = float(acceleration)
        self._matter.invalidateSubsystemTopologyCache()
        return self

    def getMobilizedBody(self):
        return self._mobilities[0][0]

    def getWhichU(self) -> int:
        return self._mobilities[0][1]

    def _allocate(self, state) -> None:
        self._ix_acc = self._matter.allocateDiscreteVariable(
            state, Stage.Acceleration, self._acc, name=f"ConstantAcceleration {self._index}"
        )

    def _prepare(self, state) -> None:
        self._cur = float(self._matter.getDiscreteVariable(state, self._ix_acc))

    def setAcceleration(self, state, acceleration: float) -> None:
        self._matter.setDiscreteVariable(state, self._ix_acc, float(acceleration))

    def getAcceleration(self, state) -> float:
        return float(self._matter.getDiscreteVariable(state, self._ix_acc))

    def _aerr(self, k):
        return np.array([k.udot[self._u_ix[0]] - self._cur])

    def _forces(self, k, out, lam_p, lam_v, lam_a):
        out.f[0] += lam_a[0]
