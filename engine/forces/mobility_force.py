"""MobilityForce: common base of the force elements acting on one mobility of one body."""

from __future__ import annotations

from engine.common.exceptions import IndexOutOfRangeError
from engine.common.stage import Stage
from engine.common.state import State
from engine.forces.compiled_terms import MOBILITY_FORCE
from engine.forces.force import Force


class MobilityForce(Force):
    """A generalized force on one u of one mobilized body (chosen by whichU, or by whichQ
    for the u with the same index as that q). Its State parameters invalidate Dynamics."""

    _PARAMS_INVALIDATE = Stage.Dynamics

    def _bind_mobility(self, forces, mobod, which: int, kind: str) -> None:
        """Check and keep ``forces``, ``mobod`` and mobility ``which`` (kind "u", or "q" for
        a q that must have a matching u); call before checking the defaults."""
        self._bind(forces)
        self._mobod = self._check_mobod(mobod)
        self._which = self._check_mobility(mobod, which, kind)
        if kind == "q" and self._which >= mobod._module.NU:
            raise IndexOutOfRangeError(
                f"{self._where()}: q {self._which} of a {mobod.getMobilizerTypeName()} "
                f"mobilizer has no matching u (it has {mobod._module.NU})"
            )

    def getMobilizedBody(self):
        return self._mobod

    def _apply_mobility_force(self, state: State, f: float, mobilityForces) -> None:
        """Add ``f`` to this element's u in ``mobilityForces``."""
        self._mobod.applyOneMobilityForce(state, self._which, f, mobilityForces)


class MobilityValueForce(MobilityForce):
    """A generalized force f on one u that is a State parameter (parameter "f")."""

    def __init__(self, forces, mobod, whichU: int, defaultForce: float = 0.0) -> None:
        self._bind_mobility(forces, mobod, whichU, "u")
        super().__init__(forces, {"f": self._real(defaultForce, "force")})

    def getWhichU(self) -> int:
        return self._which

    def calcForce(self, state: State, bodyForces, particleForces, mobilityForces) -> None:
        self._apply_mobility_force(state, self._params(state)["f"], mobilityForces)

    def _compiled_term(self, state: State, excluded: list[int]):
        iu = self._mobod._u_range(state)[0] + self._which
        return MOBILITY_FORCE, (iu,), (float(self._params(state)["f"]),)
