"""Force.Gravity: uniform gravity along a direction, excluding chosen bodies."""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.common.stage import Stage
from engine.common.state import State
from engine.forces.force import Force
from engine.math.vec import as_vec3


class Gravity(Force):
    """Gravity(forces, matter, down_direction, magnitude, zero_height=0).

    Each non-excluded body B gets the force m_B g d at its mass center (d the unit
    down direction); potential energy sum m_B g (-(d . p_com) - zero_height).
    Parameters live in the State: changing one backs it up to Velocity stage.
    """

    def __init__(self, forces, matter, down, magnitude: float, zeroHeight: float = 0.0) -> None:
        d = as_vec3(down, "down direction")
        n = np.linalg.norm(d)
        if n == 0:
            raise InvalidArgumentError("gravity's down direction must not be the zero vector")
        g = float(magnitude)
        if not np.isfinite(g) or g < 0:
            raise InvalidArgumentError(f"gravity magnitude must be >= 0 and finite, got {g}")
        self._matter = matter
        self._default = {"d": d / n, "g": g, "h0": float(zeroHeight)}
        self._params_index = -1
        super().__init__(forces)

    def _realize_topology(self, forces, state: State) -> None:
        self._params_index = forces.allocateDiscreteVariable(
            state, Stage.Dynamics, dict(self._default), name=f"Gravity {self._index} parameters"
        )

    def _params(self, state: State) -> dict:
        return self._forces.getDiscreteVariable(state, self._params_index)

    def _update(self, state: State, **changes) -> None:
        params = dict(self._params(state))
        params.update(changes)
        self._forces.setDiscreteVariable(state, self._params_index, params)

    def setMagnitude(self, state: State, g: float) -> None:
        if not float(g) >= 0:
            raise InvalidArgumentError(f"gravity magnitude must be >= 0, got {g}")
        self._update(state, g=float(g))

    def getMagnitude(self, state: State) -> float:
        return self._params(state)["g"]

    def setDownDirection(self, state: State, down) -> None:
        d = as_vec3(down, "down direction")
        self._update(state, d=d / np.linalg.norm(d))

    def getDownDirection(self, state: State) -> np.ndarray:
        return self._params(state)["d"].copy()

    def getGravityVector(self, state: State) -> np.ndarray:
        p = self._params(state)
        return p["g"] * p["d"]

    def calcForce(self, state: State, bodyForces, particleForces, mobilityForces) -> None:
        pc = self._matter._position_cache(state)
        mass = self._matter._topo().mass
        gvec = self.getGravityVector(state)
        f = mass[1:, None] * gvec
        bodyForces[1:, 0] += np.cross(pc.com_G[1:], f)
        bodyForces[1:, 1] += f

    def calcPotentialEnergy(self, state: State) -> float:
        p = self._params(state)
        pc = self._matter._position_cache(state)
        mass = self._matter._topo().mass
        heights = -((pc.p_GB[1:] + pc.com_G[1:]) @ p["d"]) - p["h0"]
        return float(np.sum(mass[1:] * p["g"] * heights))


Force.Gravity = Gravity  # type: ignore[attr-defined]
