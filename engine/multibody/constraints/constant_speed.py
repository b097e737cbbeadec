"""Constraint.ConstantSpeed: one generalized speed held at a given value.

One nonholonomic equation ``u - speed``; multiplier lambda is a generalized force on
that mobility. It does work (calcPower is nonzero in general).
"""

from __future__ import annotations

import numpy as np

from engine.common.stage import Stage
from engine.multibody.constraints.constraint import Constraint
from engine.multibody.constraints.mobility_constraints import mobility_and_value


class ConstantSpeed(Constraint):
    """``ConstantSpeed(mobilizedBody, [whichU,] speed)``."""

    NUM_EQUATIONS = (0, 1, 0)
    TYPE_NAME = "ConstantSpeed"

    def __init__(self, mobod, *args) -> None:
        which, self._speed = mobility_and_value("ConstantSpeed", mobod, args, "speed")
        self._ix_speed = -1
        self._cur = self._speed
        super().__init__([], [(mobod, which)], matter=mobod.getMatterSubsystem())

    def getDefaultSpeed(self) -> float:
        return self._speed

    def setDefaultSpeed(self, speed: float) -> ConstantSpeed:
        self._speed = float(speed)
        self._matter.invalidateSubsystemTopologyCache()
        return self

    def getMobilizedBody(self):
        return self._mobilities[0][0]

    def getWhichU(self) -> int:
        return self._mobilities[0][1]

    def _allocate(self, state) -> None:
        self._ix_speed = self._matter.allocateDiscreteVariable(
            state, Stage.Velocity, self._speed, name=f"ConstantSpeed {self._index} speed"
        )

    def _prepare(self, state) -> None:
        self._cur = float(self._matter.getDiscreteVariable(state, self._ix_speed))

    def setSpeed(self, state, speed: float) -> None:
        self._matter.setDiscreteVariable(state, self._ix_speed, float(speed))

    def getSpeed(self, state) -> float:
        return float(self._matter.getDiscreteVariable(state, self._ix_speed))

    def _verr(self, k):
        return np.array([k.u[self._u_ix[0]] - self._cur])

    def _vaerr(self, k):
        return np.array([k.udot[self._u_ix[0]]])

    def _forces(self, k, out, lam_p, lam_v, lam_a):
        out.f[0] += lam_v[0]
