"""GeneralForceSubsystem: a container of Force elements, each enable-able per State."""

from __future__ import annotations

from engine.common.exceptions import IndexOutOfRangeError
from engine.common.stage import Stage
from engine.common.state import State
from engine.common.subsystem import Subsystem


class GeneralForceSubsystem(Subsystem):
    """Applies its force elements at Dynamics stage (Simbody's GeneralForceSubsystem)."""

    def __init__(self, system=None) -> None:
        super().__init__("GeneralForceSubsystem", "3.7")
        self._forces: list = []
        self._enabled_index = -1
        self._pe_entry = -1
        if system is not None:
            system.addForceSubsystem(self)

    def adoptForce(self, force) -> int:
        """Add a force element; returns its ForceIndex."""
        self._forces.append(force)
        self.invalidateSubsystemTopologyCache()
        return len(self._forces) - 1

    def getNumForces(self) -> int:
        return len(self._forces)

    def getForce(self, index: int):
        if not 0 <= int(index) < len(self._forces):
            raise IndexOutOfRangeError(
                f"no force {int(index)}: this subsystem has {len(self._forces)} forces"
            )
        return self._forces[int(index)]

    def realizeSubsystemTopologyImpl(self, state: State) -> None:
        for force in self._forces:
            force._realize_topology(self, state)
        defaults = [not f._disabled_by_default for f in self._forces]
        self._enabled_index = self.allocateDiscreteVariable(
            state, Stage.Instance, defaults, name="force enabled flags"
        )

    def realizeSubsystemModelImpl(self, state: State) -> None:
        self._pe_entry = self.allocateCacheEntry(
            state, Stage.Dynamics, 0.0, name="potential energy"
        )

    def isForceDisabled(self, state: State, index: int) -> bool:
        return not self.getDiscreteVariable(state, self._enabled_index)[int(index)]

    def setForceIsDisabled(self, state: State, index: int, disabled: bool) -> None:
        """Disable or enable one force element (backs the State up to Model stage)."""
        flags = list(self.getDiscreteVariable(state, self._enabled_index))
        flags[int(index)] = not disabled
        self.setDiscreteVariable(state, self._enabled_index, flags)

    def realizeSubsystemDynamicsImpl(self, state: State) -> None:
        system = self.getSystem()
        body, mobility = system.getGlobalSubsystem().updForces(state)
        nb = body.shape[0]
        body_view = body.reshape(nb, 2, 3)
        enabled = self.getDiscreteVariable(state, self._enabled_index)
        pe = 0.0
        for force, on in zip(self._forces, enabled, strict=True):
            if on:
                force.calcForce(state, body_view, None, mobility)
                pe += force.calcPotentialEnergy(state)
        state.setCacheEntryValue(self.getMySubsystemIndex(), self._pe_entry, pe)

    def calcPotentialEnergy(self, state: State) -> float:
        """Total potential energy of the enabled elements (Dynamics stage), J."""
        return float(self.getCacheEntry(state, self._pe_entry))
