"""Force.GlobalDamper: a damper on every generalized speed."""

from __future__ import annotations

from engine.common.stage import Stage
from engine.common.state import State
from engine.forces.compiled_terms import GLOBAL_DAMPER
from engine.forces.force import Force
from engine.forces.state_parameters import DampingParameter


class GlobalDamper(DampingParameter):
    """GlobalDamper(forces, matter, damping).

    Generalized force ``-c u_i`` on every mobility (c >= 0): an energy drain without
    a physical mechanism. No potential energy. c lives in the State:
    ``setDamping`` invalidates Dynamics stage.
    """

    _PARAMS_INVALIDATE = Stage.Dynamics

    def __init__(self, forces, matter, damping: float) -> None:
        self._bind(forces)
        self._matter = self._check_matter(matter)
        c = self._nonnegative(damping, "damping")
        super().__init__(forces, {"c": c})

    def calcForce(self, state: State, bodyForces, particleForces, mobilityForces) -> None:
        mobilityForces -= self._params(state)["c"] * self._matter.getU(state)

    def _compiled_term(self, state: State, excluded: list[int]):
        return GLOBAL_DAMPER, (), (self._params(state)["c"],)


Force.GlobalDamper = GlobalDamper  # type: ignore[attr-defined]
