"""Force.MobilityConstantForce: a constant generalized force on one mobility."""

from __future__ import annotations

from engine.common.stage import Stage
from engine.common.state import State
from engine.forces.force import Force


class MobilityConstantForce(Force):
    """MobilityConstantForce(forces, mobod, whichU, defaultForce=0).

    Adds the constant f (N or N m, as the u's units require) to the chosen u; no
    potential energy. f lives in the State: ``setForce`` invalidates Dynamics stage.
    """

    _PARAMS_INVALIDATE = Stage.Dynamics

    def __init__(self, forces, mobod, whichU: int, defaultForce: float = 0.0) -> None:
        self._bind(forces)
        self._mobod = self._check_mobod(mobod)
        self._which = self._check_mobility(mobod, whichU, "u")
        f = self._real(defaultForce, "force")
        super().__init__(forces, {"f": f})

    def getMobilizedBody(self):
        return self._mobod

    def getWhichU(self) -> int:
        return self._which

    def setDefaultForce(self, force: float) -> MobilityConstantForce:
        return self._set_default(f=self._real(force, "force"))

    def getDefaultForce(self) -> float:
        return self._defaults["f"]

    def setForce(self, state: State, force: float) -> None:
        self._update(state, f=self._real(force, "force"))

    def getForce(self, state: State) -> float:
        return self._params(state)["f"]

    def calcForce(self, state: State, bodyForces, particleForces, mobilityForces) -> None:
        f = self._params(state)["f"]
        self._mobod.applyOneMobilityForce(state, self._which, f, mobilityForces)


Force.MobilityConstantForce = MobilityConstantForce  # type: ignore[attr-defined]
