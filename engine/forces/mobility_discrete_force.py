"""Force.MobilityDiscreteForce: a generalized force held in the State."""

from __future__ import annotations

from engine.common.stage import Stage
from engine.common.state import State
from engine.forces.force import Force


class MobilityDiscreteForce(Force):
    """MobilityDiscreteForce(forces, mobod, whichU, defaultForce=0).

    Adds the State's value f to the chosen u (for forces an event handler or a
    controller changes at discrete times); no potential energy. ``setMobilityForce``
    invalidates Dynamics stage; ``setDefaultMobilityForce`` is a Topology change.
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

    def setDefaultMobilityForce(self, defaultForce: float) -> MobilityDiscreteForce:
        return self._set_default(f=self._real(defaultForce, "force"))

    def getDefaultMobilityForce(self) -> float:
        return self._defaults["f"]

    def setMobilityForce(self, state: State, f: float) -> None:
        self._update(state, f=self._real(f, "force"))

    def getMobilityForce(self, state: State) -> float:
        return self._params(state)["f"]

    def calcForce(self, state: State, bodyForces, particleForces, mobilityForces) -> None:
        f = self._params(state)["f"]
        self._mobod.applyOneMobilityForce(state, self._which, f, mobilityForces)


Force.MobilityDiscreteForce = MobilityDiscreteForce  # type: ignore[attr-defined]
