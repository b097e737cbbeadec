"""Force.DiscreteForces: arbitrary body and mobility forces held in the State."""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.common.stage import Stage
from engine.common.state import State
from engine.forces.force import Force


def _read_only(a: np.ndarray) -> np.ndarray:
    v = a.view()
    v.flags.writeable = False
    return v


class DiscreteForces(Force):
    """DiscreteForces(forces, matter).

    Body spatial forces ((nb, 2, 3): torque, force at Bo, in G) and mobility forces
    ((nu,)) stored in the State, applied until changed (for event handlers and
    controllers). Either set may be empty (length 0), meaning all zero, as in a new
    State. Every change invalidates Dynamics stage (the State falls back to Velocity).
    """

    _PARAMS_INVALIDATE = Stage.Dynamics

    def __init__(self, forces, matter) -> None:
        self._bind(forces)
        self._matter = self._check_matter(matter)
        super().__init__(forces, {"mobility": np.zeros(0), "body": np.zeros((0, 2, 3))})

    def _sizes(self) -> tuple[int, int]:
        return self._matter.getNumBodies(), self._matter.getNumMobilities()

    def _u_index(self, mobod, whichU) -> int:
        self._check_mobod(mobod)
        if mobod.getMatterSubsystem() is not self._matter:
            raise InvalidArgumentError(
                "Force.DiscreteForces: the mobilized body is not in this element's matter subsystem"
            )
        i = self._check_mobility(mobod, whichU, "u")
        return int(self._matter._topo().us[mobod.getMobilizedBodyIndex()]) + i

    def _body_index(self, mobod) -> int:
        self._check_mobod(mobod)
        if mobod.getMatterSubsystem() is not self._matter:
            raise InvalidArgumentError(
                "Force.DiscreteForces: the mobilized body is not in this element's matter subsystem"
            )
        return mobod.getMobilizedBodyIndex()

    # ------------------------------------------------------------- clearing
    def clearAllForces(self, state: State) -> None:
        self._update(state, mobility=np.zeros(0), body=np.zeros((0, 2, 3)))

    def clearAllMobilityForces(self, state: State) -> None:
        self._update(state, mobility=np.zeros(0))

    def clearAllBodyForces(self, state: State) -> None:
        self._update(state, body=np.zeros((0, 2, 3)))

    # -------------------------------------------------------------- setting
    def setAllMobilityForces(self, state: State, f) -> None:
        """All nu mobility forces at once (an empty sequence clears them)."""
        _, nu = self._sizes()
        arr = np.asarray(f, dtype=np.float64).reshape(-1)
        if arr.size == 0:
            self.clearAllMobilityForces(state)
            return
        self._update(state, mobility=self._vec(arr, nu, "mobility forces"))

    def setAllBodyForces(self, state: State, bodyForcesInG) -> None:
        """All nb body forces ((nb, 2, 3) at Bo, in G) at once (empty clears them)."""
        nb, _ = self._sizes()
        arr = np.asarray(bodyForcesInG, dtype=np.float64)
        if arr.size == 0:
            self.clearAllBodyForces(state)
            return
        if arr.shape not in ((nb, 2, 3), (nb, 6)):
            raise InvalidArgumentError(
                f"Force.DiscreteForces: body forces must have shape ({nb}, 2, 3), got {arr.shape}"
            )
        self._update(state, body=self._vec(arr, 6 * nb, "body forces").reshape(nb, 2, 3))

    def setOneMobilityForce(self, state: State, mobod, whichU: int, force: float) -> None:
        i = self._u_index(mobod, whichU)
        f = self._real(force, "mobility force")
        current = self._params(state)["mobility"]
        arr = current.copy() if current.size else np.zeros(self._sizes()[1])
        arr[i] = f
        self._update(state, mobility=arr)

    def setOneBodyForce(self, state: State, mobod, spatialForceInG) -> None:
        b = self._body_index(mobod)
        F = self._vec(spatialForceInG, 6, "spatial force").reshape(2, 3)
        self._update(state, body=self._with_body(state, b, F, add=False))

    def addForceToBodyPoint(self, state: State, mobod, pointInB, forceInG) -> None:
        """Add force f_G acting at station pointInB of the body (State at Position stage)."""
        b = self._body_index(mobod)
        s = self._vec(pointInB, 3, "point")
        f = self._vec(forceInG, 3, "force")
        r = mobod.expressVectorInGroundFrame(state, s)
        F = np.array([np.cross(r, f), f])
        self._update(state, body=self._with_body(state, b, F, add=True))

    def _with_body(self, state: State, b: int, F: np.ndarray, add: bool) -> np.ndarray:
        current = self._params(state)["body"]
        arr = current.copy() if current.size else np.zeros((self._sizes()[0], 2, 3))
        arr[b] = arr[b] + F if add else F
        return arr

    # -------------------------------------------------------------- getting
    def getOneMobilityForce(self, state: State, mobod, whichU: int) -> float:
        i = self._u_index(mobod, whichU)
        arr = self._params(state)["mobility"]
        return float(arr[i]) if arr.size else 0.0

    def getOneBodyForce(self, state: State, mobod) -> np.ndarray:
        b = self._body_index(mobod)
        arr = self._params(state)["body"]
        return arr[b].copy() if arr.size else np.zeros((2, 3))

    def getAllMobilityForces(self, state: State) -> np.ndarray:
        """The stored mobility forces (length 0 if none were set), read-only."""
        return _read_only(self._params(state)["mobility"])

    def getAllBodyForces(self, state: State) -> np.ndarray:
        """The stored body forces ((0, 2, 3) if none were set), read-only."""
        return _read_only(self._params(state)["body"])

    def calcForce(self, state: State, bodyForces, particleForces, mobilityForces) -> None:
        p = self._params(state)
        if p["mobility"].size:
            mobilityForces += p["mobility"]
        if p["body"].size:
            bodyForces += p["body"]


Force.DiscreteForces = DiscreteForces  # type: ignore[attr-defined]
