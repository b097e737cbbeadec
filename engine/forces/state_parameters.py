"""Accessors of the State parameters several force elements share, under Simbody's names.

Each mixin reads and writes one entry of the element's parameter dict (``Force._defaults``
for the default, the element's discrete State variable for the current value), checking the
value the same way for every element that has it. Changing the State value invalidates
the element's ``_PARAMS_INVALIDATE`` stage (Dynamics for all of these).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.forces.force import Force

if TYPE_CHECKING:
    from typing import Self

    from engine.common.state import State


class DampingParameter(Force):
    """A damping coefficient c >= 0 (parameter "c"): setDefaultDamping ... getDamping."""

    def setDefaultDamping(self, damping: float) -> Self:
        return self._set_default(c=self._nonnegative(damping, "damping"))

    def getDefaultDamping(self) -> float:
        return self._defaults["c"]

    def setDamping(self, state: State, damping: float) -> None:
        self._update(state, c=self._nonnegative(damping, "damping"))

    def getDamping(self, state: State) -> float:
        return self._params(state)["c"]


class StiffnessParameter(Force):
    """A stiffness k >= 0 (parameter "k"): setDefaultStiffness ... getStiffness."""

    def setDefaultStiffness(self, stiffness: float) -> Self:
        return self._set_default(k=self._nonnegative(stiffness, "stiffness"))

    def getDefaultStiffness(self) -> float:
        return self._defaults["k"]

    def setStiffness(self, state: State, stiffness: float) -> None:
        self._update(state, k=self._nonnegative(stiffness, "stiffness"))

    def getStiffness(self, state: State) -> float:
        return self._params(state)["k"]


class ForceParameter(Force):
    """A constant scalar force f (parameter "f"): setDefaultForce ... getForce."""

    def setDefaultForce(self, force: float) -> Self:
        return self._set_default(f=self._real(force, "force"))

    def getDefaultForce(self) -> float:
        return self._defaults["f"]

    def setForce(self, state: State, force: float) -> None:
        self._update(state, f=self._real(force, "force"))

    def getForce(self, state: State) -> float:
        return self._params(state)["f"]
