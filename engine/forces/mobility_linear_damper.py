"""Force.MobilityLinearDamper: a linear damper on one generalized speed."""

from __future__ import annotations

from engine.common.stage import Stage
from engine.common.state import State
from engine.forces.force import Force


class MobilityLinearDamper(Force):
    """MobilityLinearDamper(forces, mobod, whichU, defaultDamping).

    Generalized force ``-c u`` on the chosen u (c >= 0); no potential energy. c lives
    in the State: ``setDamping`` invalidates Dynamics stage.
    """

    _PARAMS_INVALIDATE = Stage.Dynamics

    def __init__(self, forces, mobod, whichU: int, defaultDamping: float) -> None:
        self._bind(forces)
        self._mobod = self._check_mobod(mobod)
        self._which = self._check_mobility(mobod, whichU, "u")
        c = self._nonnegative(defaultDamping, "damping")
        super().__init__(forces, {"c": c})

    def getMobilizedBody(self):
        return self._mobod

    def getWhichU(self) -> int:
        return self._which

    def setDefaultDamping(self, damping: float) -> MobilityLinearDamper:
        return self._set_default(c=self._nonnegative(damping, "damping"))

    def getDefaultDamping(self) -> float:
        return self._defaults["c"]

    def setDamping(self, state: State, damping: float) -> None:
        self._update(state, c=self._nonnegative(damping, "damping"))

    def getDamping(self, state: State) -> float:
        return self._params(state)["c"]

    def calcForce(self, state: State, bodyForces, particleForces, mobilityForces) -> None:
        u = self._mobod.getOneU(state, self._which)
        f = -self._params(state)["c"] * u
        self._mobod.applyOneMobilityForce(state, self._which, f, mobilityForces)


Force.MobilityLinearDamper = MobilityLinearDamper  # type: ignore[attr-defined]
