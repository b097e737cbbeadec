"""Force.UniformGravity: a gravity vector acting on every body."""

from __future__ import annotations

import numpy as np

from engine.common.state import State
from engine.forces.compiled_terms import GRAVITY
from engine.forces.force import Force


class UniformGravity(Force):
    """UniformGravity(forces, matter, g, zeroHeight=0).

    Each body B gets the force m_B g (g in Ground, m/s^2) at its mass center;
    potential energy ``-sum m_B (g . p_com + zeroHeight)`` (as Simbody 3.7: the zero
    height is not scaled by |g|). ``setGravity`` / ``setZeroHeight`` change the
    element itself, a Topology change (as Simbody's: there are no State copies).
    """

    def __init__(self, forces, matter, g, zeroHeight: float = 0.0) -> None:
        self._bind(forces)
        self._matter = self._check_matter(matter)
        gv = self._vec(g, 3, "gravity")
        h0 = self._real(zeroHeight, "zero height")
        super().__init__(forces)
        self._g = gv
        self._h0 = h0

    def getGravity(self) -> np.ndarray:
        return self._g.copy()

    def setGravity(self, g) -> None:
        self._g = self._vec(g, 3, "gravity")
        self._forces.invalidateSubsystemTopologyCache()

    def getZeroHeight(self) -> float:
        return self._h0

    def setZeroHeight(self, height: float) -> None:
        self._h0 = self._real(height, "zero height")
        self._forces.invalidateSubsystemTopologyCache()

    def calcForce(self, state: State, bodyForces, particleForces, mobilityForces) -> None:
        pc = self._matter._position_cache(state)
        mass = self._matter._topo().mass
        f = mass[1:, None] * self._g
        bodyForces[1:, 0] += np.cross(pc.com_G[1:], f)
        bodyForces[1:, 1] += f

    def _compiled_term(self, state: State, excluded: list[int]):
        return GRAVITY, (0, 0), (float(self._g[0]), float(self._g[1]), float(self._g[2]))

    def calcPotentialEnergy(self, state: State) -> float:
        pc = self._matter._position_cache(state)
        mass = self._matter._topo().mass
        p_com = pc.p_GB[1:] + pc.com_G[1:]
        return float(-np.sum(mass[1:] * (p_com @ self._g + self._h0)))


Force.UniformGravity = UniformGravity  # type: ignore[attr-defined]
