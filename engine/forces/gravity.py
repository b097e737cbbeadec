"""Force.Gravity: uniform gravity along a direction, excluding chosen bodies."""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.common.stage import Stage
from engine.common.state import State
from engine.forces.compiled_terms import GRAVITY
from engine.forces.force import Force
from engine.forces.gravity_kernel import add_gravity_forces

_NO_EXCLUSIONS = np.zeros(0, dtype=np.int64)  # the kernel's "no body excluded"


class Gravity(Force):
    """Gravity(forces, matter, down, magnitude, zeroHeight=0), Gravity(forces, matter, g_G)
    (a zero vector is magnitude 0, down -Y) or Gravity(forces, matter, magnitude) (down
    opposite the System's up direction).

    Each non-excluded body B gets the force m_B g d at its mass center (d the unit
    down direction in G, g >= 0 in m/s^2); potential energy
    sum m_B g (-(d . p_com) - zeroHeight). Ground is always excluded.
    The parameters (d, g, zeroHeight, exclusions) live in the State; changing one
    invalidates Dynamics stage (the State falls back to Velocity, as Simbody 3.7
    does). ``setDefault...`` changes the defaults (a Topology change).
    """

    _PARAMS_INVALIDATE = Stage.Dynamics

    def __init__(self, forces, matter, down, magnitude=None, zeroHeight: float = 0.0) -> None:
        self._bind(forces)
        self._matter = self._check_matter(matter)
        if magnitude is None and np.ndim(down) == 0:
            up = forces.getSystem().getUpDirection().asVec3()
            d, g = -up, self._magnitude(down)
        elif magnitude is None:
            d, g = self._split_gravity_vector(down, np.array([0.0, -1.0, 0.0]))
        else:
            d, g = self._unit(down), self._magnitude(magnitude)
        h0 = self._real(zeroHeight, "zero height")
        super().__init__(forces, {"d": d, "g": g, "h0": h0, "excluded": frozenset()})

    # ------------------------------------------------------------- checking
    def _unit(self, down) -> np.ndarray:
        d = self._vec(down, 3, "down direction")
        n = float(np.linalg.norm(d))
        if n == 0:
            raise InvalidArgumentError("Force.Gravity: the down direction must not be zero")
        return d / n

    def _magnitude(self, g) -> float:
        return self._nonnegative(g, "gravity magnitude")

    def _split_gravity_vector(self, gravity, keep_down) -> tuple[np.ndarray, float]:
        """(down, magnitude) of a gravity vector; a zero vector is magnitude 0 with the
        down direction ``keep_down`` (as Simbody)."""
        v = self._vec(gravity, 3, "gravity vector")
        n = float(np.linalg.norm(v))
        if n == 0:
            return np.array(keep_down, dtype=np.float64), 0.0
        return v / n, n

    def _body_index(self, mobod, unbuilt_ok: bool = False) -> int:
        """MobilizedBodyIndex of a handle or an index. With ``unbuilt_ok`` (the default
        exclusions, as Simbody's) any index >= 0 is accepted, also of a body not added yet;
        an exclusion past the last body built has no effect."""
        if isinstance(mobod, (int, np.integer)):
            b = int(mobod)
            if unbuilt_ok and b >= self._matter.getNumBodies():
                return b
            self._matter.getMobilizedBody(b)
            return b
        return self._check_mobod(mobod).getMobilizedBodyIndex()

    # -------------------------------------------------------------- defaults
    def setDefaultBodyIsExcluded(self, mobod, isExcluded: bool) -> Gravity:
        b = self._body_index(mobod, unbuilt_ok=True)
        excluded = set(self._defaults["excluded"])
        if b != 0:
            (excluded.add if isExcluded else excluded.discard)(b)
        return self._set_default(excluded=frozenset(excluded))

    def getDefaultBodyIsExcluded(self, mobod) -> bool:
        b = self._body_index(mobod, unbuilt_ok=True)
        return b == 0 or b in self._defaults["excluded"]

    def setDefaultGravityVector(self, gravity) -> Gravity:
        d, g = self._split_gravity_vector(gravity, self._defaults["d"])
        return self._set_default(d=d, g=g)

    def setDefaultDownDirection(self, down) -> Gravity:
        return self._set_default(d=self._unit(down))

    def setDefaultMagnitude(self, g: float) -> Gravity:
        return self._set_default(g=self._magnitude(g))

    def setDefaultZeroHeight(self, zeroHeight: float) -> Gravity:
        return self._set_default(h0=self._real(zeroHeight, "zero height"))

    def getDefaultGravityVector(self) -> np.ndarray:
        return self._defaults["g"] * self._defaults["d"]

    def getDefaultDownDirection(self) -> np.ndarray:
        return self._default("d")

    def getDefaultMagnitude(self) -> float:
        return self._defaults["g"]

    def getDefaultZeroHeight(self) -> float:
        return self._defaults["h0"]

    # ------------------------------------------------------- State values
    def setBodyIsExcluded(self, state: State, mobod, isExcluded: bool) -> Gravity:
        b = self._body_index(mobod)
        excluded = set(self._params(state)["excluded"])
        if b != 0:
            (excluded.add if isExcluded else excluded.discard)(b)
        self._update(state, excluded=frozenset(excluded))
        return self

    def getBodyIsExcluded(self, state: State, mobod) -> bool:
        b = self._body_index(mobod)
        return b == 0 or b in self._params(state)["excluded"]

    def setGravityVector(self, state: State, gravity) -> Gravity:
        d, g = self._split_gravity_vector(gravity, self._params(state)["d"])
        self._update(state, d=d, g=g)
        return self

    def setDownDirection(self, state: State, down) -> Gravity:
        self._update(state, d=self._unit(down))
        return self

    def setMagnitude(self, state: State, g: float) -> Gravity:
        self._update(state, g=self._magnitude(g))
        return self

    def setZeroHeight(self, state: State, zeroHeight: float) -> Gravity:
        self._update(state, h0=self._real(zeroHeight, "zero height"))
        return self

    def getGravityVector(self, state: State) -> np.ndarray:
        p = self._params(state)
        return p["g"] * p["d"]

    def getDownDirection(self, state: State) -> np.ndarray:
        return self._param(state, "d")

    def getMagnitude(self, state: State) -> float:
        return self._params(state)["g"]

    def getZeroHeight(self, state: State) -> float:
        return self._params(state)["h0"]

    # ------------------------------------------------------------ physics
    def _included(self, state: State, excluded) -> slice | np.ndarray:
        """The bodies gravity acts on: a slice 1: when none is excluded, else a mask."""
        if not excluded:
            return slice(1, None)
        nb = self._matter.getNumBodies()
        mask = np.ones(nb, dtype=bool)
        mask[0] = False
        mask[[b for b in excluded if b < nb]] = False
        return mask

    def calcForce(self, state: State, bodyForces, particleForces, mobilityForces) -> None:
        p = self._params(state)
        pc = self._matter._position_cache(state)
        mass = self._matter._topo().mass
        excluded = p["excluded"]
        excluded = np.array(sorted(excluded), dtype=np.int64) if excluded else _NO_EXCLUSIONS
        g, d = p["g"], p["d"]
        add_gravity_forces(mass, pc.com_G, excluded, g * d[0], g * d[1], g * d[2], bodyForces)

    def _compiled_term(self, state: State, excluded: list[int]):
        p = self._params(state)
        first = len(excluded)
        excluded.extend(sorted(p["excluded"]))
        g, d = p["g"], p["d"]
        return GRAVITY, (first, len(excluded) - first), (g * d[0], g * d[1], g * d[2])

    def calcPotentialEnergy(self, state: State) -> float:
        p = self._params(state)
        pc = self._matter._position_cache(state)
        mass = self._matter._topo().mass
        which = self._included(state, p["excluded"])
        heights = -((pc.p_GB[which] + pc.com_G[which]) @ p["d"]) - p["h0"]
        return float(mass[which] @ heights) * p["g"]

    # ------------------------------------------------------- force cache
    def _cache_key(self, state: State):
        versions = state.getSystemStageVersions()
        p = self._params(state)
        return (
            id(state),
            tuple(versions[: int(Stage.Position) + 1]),
            p["g"],
            tuple(p["d"]),
            p["excluded"],
        )

    def _body_forces(self, state: State) -> np.ndarray:
        """Gravity's body forces (nb, 2, 3) at each Bo in G, computed once per change of q
        or of the gravity parameters (Simbody's force cache)."""
        key = self._cache_key(state)
        cached = self.__dict__.get("_force_cache")
        if cached is not None and cached[0] == key:
            return cached[1]
        F = np.zeros((self._matter.getNumBodies(), 2, 3))
        self.calcForce(state, F, None, None)
        self._force_cache = (key, F)
        self._num_evaluations = self.getNumEvaluations() + 1
        return self._force_cache[1]

    def getBodyForce(self, state: State, mobod) -> np.ndarray:
        """The spatial force (2, 3) [torque, force] gravity applies to the body, at its
        origin Bo, in Ground (Position stage); zero for excluded bodies and Ground."""
        b = self._body_index(mobod)
        return self._body_forces(state)[b].copy()

    def getNumEvaluations(self) -> int:
        """How many times the body forces were computed for getBodyForce."""
        return self.__dict__.get("_num_evaluations", 0)

    def isForceCacheValid(self, state: State) -> bool:
        cached = self.__dict__.get("_force_cache")
        return cached is not None and cached[0] == self._cache_key(state)

    def invalidateForceCache(self, state: State) -> None:
        self._force_cache = None

    def getPotentialEnergy(self, state: State) -> float:
        """This element's potential energy in ``state`` (Position stage), J."""
        return self.calcPotentialEnergy(state)


Force.Gravity = Gravity  # type: ignore[attr-defined]
