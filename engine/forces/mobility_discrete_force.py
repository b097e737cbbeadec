"""Force.MobilityDiscreteForce: a generalized force held in the State."""

from __future__ import annotations

from engine.common.state import State
from engine.forces.force import Force
from engine.forces.mobility_force import MobilityValueForce


class MobilityDiscreteForce(MobilityValueForce):
    """MobilityDiscreteForce(forces, mobod, whichU, defaultForce=0).

    Adds the State's value f to the chosen u (for forces an event handler or a
    controller changes at discrete times); no potential energy. ``setMobilityForce``
    invalidates Dynamics stage; ``setDefaultMobilityForce`` is a Topology change.
    """

    def setDefaultMobilityForce(self, defaultForce: float) -> MobilityDiscreteForce:
        return self._set_default(f=self._real(defaultForce, "force"))

    def getDefaultMobilityForce(self) -> float:
        return self._defaults["f"]

    def setMobilityForce(self, state: State, f: float) -> None:
        self._update(state, f=self._real(f, "force"))

    def getMobilityForce(self, state: State) -> float:
        return self._params(state)["f"]


Force.MobilityDiscreteForce = MobilityDiscreteForce  # type: ignore[attr-defined]
