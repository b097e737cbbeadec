"""Force.ConstantTorque: a torque fixed in Ground applied to a body."""

from __future__ import annotations

import numpy as np

from engine.common.stage import Stage
from engine.common.state import State
from engine.forces.compiled_terms import BODY_TORQUE
from engine.forces.force import Force


class ConstantTorque(Force):
    """ConstantTorque(forces, mobod, torque).

    The pure torque t_G (N m, in Ground) on the body; no potential energy. The
    torque lives in the State: ``setTorque`` invalidates Dynamics stage.
    """

    _PARAMS_INVALIDATE = Stage.Dynamics

    def __init__(self, forces, mobod, torque) -> None:
        self._bind(forces)
        self._mobod = self._check_mobod(mobod)
        t = self._vec(torque, 3, "torque")
        super().__init__(forces, {"t": t})

    def getMobilizedBody(self):
        return self._mobod

    def setDefaultTorque(self, torque) -> ConstantTorque:
        return self._set_default(t=self._vec(torque, 3, "torque"))

    def getDefaultTorque(self) -> np.ndarray:
        return self._default("t")

    def setTorque(self, state: State, torque) -> None:
        self._update(state, t=self._vec(torque, 3, "torque"))

    def getTorque(self, state: State) -> np.ndarray:
        return self._param(state, "t")

    def calcForce(self, state: State, bodyForces, particleForces, mobilityForces) -> None:
        bodyForces[self._mobod.getMobilizedBodyIndex(), 0] += self._params(state)["t"]

    def _compiled_term(self, state: State, excluded: list[int]):
        t = self._params(state)["t"]
        return BODY_TORQUE, (self._mobod.getMobilizedBodyIndex(),), (t[0], t[1], t[2])


Force.ConstantTorque = ConstantTorque  # type: ignore[attr-defined]
