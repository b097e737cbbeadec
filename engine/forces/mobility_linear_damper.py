"""Force.MobilityLinearDamper: a linear damper on one generalized speed."""

from __future__ import annotations

from engine.common.state import State
from engine.forces.compiled_terms import MOBILITY_DAMPER
from engine.forces.force import Force
from engine.forces.mobility_force import MobilityForce
from engine.forces.state_parameters import DampingParameter


class MobilityLinearDamper(DampingParameter, MobilityForce):
    """MobilityLinearDamper(forces, mobod, whichU, defaultDamping).

    Generalized force ``-c u`` on the chosen u (c >= 0); no potential energy. c lives
    in the State: ``setDamping`` invalidates Dynamics stage.
    """

    def __init__(self, forces, mobod, whichU: int, defaultDamping: float) -> None:
        self._bind_mobility(forces, mobod, whichU, "u")
        c = self._nonnegative(defaultDamping, "damping")
        super().__init__(forces, {"c": c})

    def getWhichU(self) -> int:
        return self._which

    def calcForce(self, state: State, bodyForces, particleForces, mobilityForces) -> None:
        u = self._mobod.getOneU(state, self._which)
        self._apply_mobility_force(state, -self._params(state)["c"] * u, mobilityForces)

    def _compiled_term(self, state: State, excluded: list[int]):
        iu = self._mobod._u_range(state)[0] + self._which
        return MOBILITY_DAMPER, (iu,), (self._params(state)["c"],)


Force.MobilityLinearDamper = MobilityLinearDamper  # type: ignore[attr-defined]
