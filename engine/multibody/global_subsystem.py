"""MultibodySystem's global subsystem (subsystem 1): the applied-force accumulators the
force subsystems add into at Dynamics stage (Simbody's MultibodySystemGlobalSubsystem)."""

from __future__ import annotations

import numpy as np

from engine.common.stage import Stage
from engine.common.state import State
from engine.common.subsystem import Subsystem


class MultibodySystemGlobalSubsystem(Subsystem):
    """Holds the applied-force accumulators of a MultibodySystem (subsystem 1)."""

    def __init__(self) -> None:
        super().__init__("MultibodySystemGlobalSubsystem", "0.0.1")
        self._forces_entry = -1

    def realizeSubsystemModelImpl(self, state: State) -> None:
        matter = self.getSystem().getMatterSubsystem()
        nb, nu = matter.getNumBodies(), matter.getNumMobilities()
        value = (np.zeros((nb, 6)), np.zeros(nu))
        self._forces_entry = self.allocateCacheEntry(
            state, Stage.Dynamics, value, name="applied forces (body at Bo in G, mobility)"
        )

    def realizeSubsystemDynamicsImpl(self, state: State) -> None:
        body, mobility = self.updCacheEntry(state, self._forces_entry)
        body[:] = 0.0
        mobility[:] = 0.0

    def updForces(self, state: State) -> tuple[np.ndarray, np.ndarray]:
        """The accumulators (body forces (nb, 6), mobility forces (nu,)) for writing."""
        return self.updCacheEntry(state, self._forces_entry)
