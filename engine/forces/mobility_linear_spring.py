"""Force.MobilityLinearSpring: a linear spring on one generalized coordinate."""

from __future__ import annotations

from engine.common.exceptions import IndexOutOfRangeError
from engine.common.stage import Stage
from engine.common.state import State
from engine.forces.force import Force


class MobilityLinearSpring(Force):
    """MobilityLinearSpring(forces, mobod, whichQ, defaultStiffness, defaultQZero).

    Generalized force ``-k (q - q0)`` on the mobilizer's u with the same index as q
    (meaningful where that qdot = u); potential energy ``k (q - q0)^2 / 2``. k >= 0
    (N/m or N m/rad). k and q0 live in the State: ``setStiffness``/``setQZero``
    invalidate Dynamics stage (the State falls back to Velocity).
    """

    _PARAMS_INVALIDATE = Stage.Dynamics

    def __init__(self, forces, mobod, whichQ: int, defaultStiffness: float, defaultQZero: float):
        self._bind(forces)
        self._mobod = self._check_mobod(mobod)
        self._which = self._check_mobility(mobod, whichQ, "q")
        if self._which >= mobod._module.NU:
            raise IndexOutOfRangeError(
                f"Force.MobilityLinearSpring: q {self._which} of a {mobod.getMobilizerTypeName()} "
                f"mobilizer has no matching u (it has {mobod._module.NU})"
            )
        k = self._nonnegative(defaultStiffness, "stiffness")
        q0 = self._real(defaultQZero, "q zero")
        super().__init__(forces, {"k": k, "q0": q0})

    def getMobilizedBody(self):
        return self._mobod

    def getWhichQ(self) -> int:
        return self._which

    def setDefaultStiffness(self, stiffness: float) -> MobilityLinearSpring:
        return self._set_default(k=self._nonnegative(stiffness, "stiffness"))

    def setDefaultQZero(self, qZero: float) -> MobilityLinearSpring:
        return self._set_default(q0=self._real(qZero, "q zero"))

    def getDefaultStiffness(self) -> float:
        return self._defaults["k"]

    def getDefaultQZero(self) -> float:
        return self._defaults["q0"]

    def setStiffness(self, state: State, stiffness: float) -> None:
        self._update(state, k=self._nonnegative(stiffness, "stiffness"))

    def setQZero(self, state: State, qZero: float) -> None:
        self._update(state, q0=self._real(qZero, "q zero"))

    def getStiffness(self, state: State) -> float:
        return self._params(state)["k"]

    def getQZero(self, state: State) -> float:
        return self._params(state)["q0"]

    def calcForce(self, state: State, bodyForces, particleForces, mobilityForces) -> None:
        p = self._params(state)
        q = self._mobod.getOneQ(state, self._which)
        self._mobod.applyOneMobilityForce(
            state, self._which, -p["k"] * (q - p["q0"]), mobilityForces
        )

    def calcPotentialEnergy(self, state: State) -> float:
        p = self._params(state)
        x = self._mobod.getOneQ(state, self._which) - p["q0"]
        return 0.5 * p["k"] * x * x


Force.MobilityLinearSpring = MobilityLinearSpring  # type: ignore[attr-defined]
