"""Force.MobilityLinearSpring: a linear spring on one generalized coordinate."""

from __future__ import annotations

from engine.common.state import State
from engine.forces.compiled_terms import MOBILITY_SPRING
from engine.forces.force import Force
from engine.forces.mobility_force import MobilityForce
from engine.forces.state_parameters import StiffnessParameter


class MobilityLinearSpring(StiffnessParameter, MobilityForce):
    """MobilityLinearSpring(forces, mobod, whichQ, defaultStiffness, defaultQZero).

    Generalized force ``-k (q - q0)`` on the mobilizer's u with the same index as q
    (meaningful where that qdot = u); potential energy ``k (q - q0)^2 / 2``. k >= 0
    (N/m or N m/rad). k and q0 live in the State: ``setStiffness``/``setQZero``
    invalidate Dynamics stage (the State falls back to Velocity).
    """

    def __init__(self, forces, mobod, whichQ: int, defaultStiffness: float, defaultQZero: float):
        self._bind_mobility(forces, mobod, whichQ, "q")
        k = self._nonnegative(defaultStiffness, "stiffness")
        q0 = self._real(defaultQZero, "q zero")
        super().__init__(forces, {"k": k, "q0": q0})

    def getWhichQ(self) -> int:
        return self._which

    def setDefaultQZero(self, qZero: float) -> MobilityLinearSpring:
        return self._set_default(q0=self._real(qZero, "q zero"))

    def getDefaultQZero(self) -> float:
        return self._defaults["q0"]

    def setQZero(self, state: State, qZero: float) -> None:
        self._update(state, q0=self._real(qZero, "q zero"))

    def getQZero(self, state: State) -> float:
        return self._params(state)["q0"]

    def calcForce(self, state: State, bodyForces, particleForces, mobilityForces) -> None:
        p = self._params(state)
        q = self._mobod.getOneQ(state, self._which)
        self._apply_mobility_force(state, -p["k"] * (q - p["q0"]), mobilityForces)

    def _compiled_term(self, state: State, excluded: list[int]):
        p = self._params(state)
        iq = self._mobod._q_range(state)[0] + self._which
        iu = self._mobod._u_range(state)[0] + self._which
        return MOBILITY_SPRING, (iq, iu), (p["k"], p["q0"])

    def calcPotentialEnergy(self, state: State) -> float:
        p = self._params(state)
        x = self._mobod.getOneQ(state, self._which) - p["q0"]
        return 0.5 * p["k"] * x * x


Force.MobilityLinearSpring = MobilityLinearSpring  # type: ignore[attr-defined]
