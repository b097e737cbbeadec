"""Force: the base of every force element in a GeneralForceSubsystem.

A force element implements ``calcForce(state, bodyForces, particleForces,
mobilityForces)``, adding body forces ((nb, 2, 3): torque and force at Bo, in
G) and mobility forces, and ``calcPotentialEnergy(state)``. ``Force.Gravity``,
``Force.Custom`` and the other elements are attributes of this class.
"""

from __future__ import annotations

from engine.common.state import State


class Force:
    """Base class and handle of a force element."""

    def __init__(self, forces) -> None:
        self._forces = forces
        self._disabled_by_default = False
        self._index = forces.adoptForce(self)

    def getForceIndex(self) -> int:
        return self._index

    def getForceSubsystem(self):
        return self._forces

    def _realize_topology(self, forces, state: State) -> None:
        """Allocate per-State variables (override when parameters live in the State)."""

    def disable(self, state: State) -> None:
        self._forces.setForceIsDisabled(state, self._index, True)

    def enable(self, state: State) -> None:
        self._forces.setForceIsDisabled(state, self._index, False)

    def isDisabled(self, state: State) -> bool:
        return self._forces.isForceDisabled(state, self._index)

    def setDisabledByDefault(self, disabled: bool) -> None:
        self._disabled_by_default = bool(disabled)
        self._forces.invalidateSubsystemTopologyCache()

    def isDisabledByDefault(self) -> bool:
        return self._disabled_by_default

    def calcForce(self, state: State, bodyForces, particleForces, mobilityForces) -> None:
        """Add this element's forces (default: none)."""

    def calcPotentialEnergy(self, state: State) -> float:
        """This element's potential energy, J (default 0)."""
        return 0.0
