"""Explicit ("lazy") realization of SimbodyMatterSubsystem's kinematics and inertias.

Simbody splits part of the Position and Velocity realizations into pieces a user may request
early or force again (spec: realizePositionKinematics ... invalidateArticulatedBodyVelocity):

- position kinematics (body poses) and velocity kinematics (body velocities): computed by
  realize(Position/Velocity), or earlier from Instance stage on request;
- composite body inertias (CBIs): computed only on request, valid until q changes;
- articulated body inertias (ABIs) and the articulated-body velocity terms: computed by
  realize(Acceleration), or on request.

Each piece is a cache entry whose prerequisites (q, u, the pieces it is built from) make it
stale when they change. Spatial inertias are about each body origin Bo, in Ground.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import StageTooLowError
from engine.common.stage import Stage
from engine.common.state import State
from engine.math.inertia import Inertia, UnitInertia
from engine.math.spatial_inertia import ArticulatedInertia, SpatialInertia
from engine.multibody.kernels.composite_body import calc_composite_inertias
from engine.multibody.kernels.stage_kernels import articulated_inertias, articulated_solve
from engine.multibody.matter.arguments import body_index

_PK, _VK, _CBI, _ABI, _ABV = "pk", "vk", "cbi", "abi", "abv"


def _spatial_inertia_from_matrix(R: np.ndarray) -> SpatialInertia:
    """SpatialInertia from its 6x6 matrix [[I, m[c]x], [-m[c]x, m 1]] (about the same point)."""
    m = float(R[3, 3])
    if m == 0.0:
        return SpatialInertia._make(0.0, np.zeros(3), np.zeros((3, 3)))
    mc = np.array([R[2, 4], R[0, 5], R[1, 3]])
    return SpatialInertia._make(m, mc / m, R[0:3, 0:3] / m)


class GroundSpatialInertia(SpatialInertia):
    """Ground's composite (and articulated) inertia: infinite mass and moments of inertia,
    mass center at the origin. Simbody's matrix form of it has NaN products and couplings
    (inf * 0); here those are 0 so that nothing returns NaN."""

    __slots__ = ()

    def __init__(self) -> None:
        self._set(np.inf, np.zeros(3), UnitInertia._trusted(np.diag([np.inf] * 3)))

    def calcMassMoment(self) -> np.ndarray:
        return np.zeros(3)

    def calcInertia(self) -> Inertia:
        return Inertia._trusted(np.diag([np.inf] * 3))

    def toSpatialMat(self) -> np.ndarray:
        return np.diag([np.inf] * 6)

    def shift(self, S) -> SpatialInertia:
        return self

    def reexpress(self, R_FB) -> SpatialInertia:
        return self

    def __repr__(self) -> str:
        return "GroundSpatialInertia(mass=inf)"


def _ground_spatial_inertia() -> SpatialInertia:
    return GroundSpatialInertia()


class LazyRealizationMixin:
    """realize/is.../invalidate... for position and velocity kinematics, composite and
    articulated body inertias and articulated-body velocity; the inertia getters."""

    # -------------------------------------------------------------- allocation
    def _allocate_lazy_operator_entries(self, state: State) -> None:
        """Allocate the lazy pieces' cache entries (called at the end of Model realization)."""
        sx = self.getMySubsystemIndex()
        nb = self._topo().nb
        ix = self._ix.extra

        def entry(name, latest, q, u, prereqs, value, label):
            keys = [(sx, ix[p]) for p in prereqs]
            ix[name] = state.allocateCacheEntryWithPrerequisites(
                sx, Stage.Instance, latest, q, u, False, [], keys, value, name=label
            )

        entry(_PK, Stage.Position, True, False, [], None, "position kinematics (lazy part)")
        entry(_VK, Stage.Velocity, True, True, [_PK], None, "velocity kinematics (lazy part)")
        entry(_CBI, Stage.Infinity, True, False, [_PK], np.zeros((nb, 6, 6)), "composite inertias")
        abi = (np.zeros((nb, 6, 6)), np.zeros((nb, 6, 6)), np.zeros((nb, 6, 6)))
        entry(_ABI, Stage.Acceleration, True, False, [_PK], abi, "articulated body inertias")
        entry(
            _ABV,
            Stage.Acceleration,
            True,
            True,
            [_VK, _ABI],
            np.zeros(self._topo().nu),
            "articulated body velocity terms (udot of the inertial forces alone)",
        )

    def _lazy(self, name: str) -> int:
        return self._ix.extra[name]

    def _realized(self, state: State, name: str) -> bool:
        return state.isCacheValueRealized(self.getMySubsystemIndex(), self._lazy(name))

    def _mark(self, state: State, name: str) -> None:
        state.markCacheValueRealized(self.getMySubsystemIndex(), self._lazy(name))

    def _matter_stage(self, state: State) -> Stage:
        return state.getSubsystemStage(self.getMySubsystemIndex())

    def _require_position_kinematics(self, state: State, what: str) -> None:
        """Position stage, or Instance stage with position kinematics realized."""
        self._require(state, Stage.Instance, what)
        if not self.isPositionKinematicsRealized(state):
            current = self._matter_stage(state)
            raise StageTooLowError(
                f"{what} needs position kinematics: realize the State to Position stage (or "
                f"call realizePositionKinematics) first; the matter subsystem is at "
                f"{current.getName()}",
                needed=Stage.Position,
                current=current,
            )

    def _require_velocity_kinematics(self, state: State, what: str) -> None:
        """Velocity stage, or Instance stage with velocity kinematics realized."""
        self._require(state, Stage.Instance, what)
        if not self.isVelocityKinematicsRealized(state):
            current = self._matter_stage(state)
            raise StageTooLowError(
                f"{what} needs velocity kinematics: realize the State to Velocity stage (or "
                f"call realizeVelocityKinematics) first; the matter subsystem is at "
                f"{current.getName()}",
                needed=Stage.Velocity,
                current=current,
            )

    # -------------------------------------------------------- position kinematics
    def realizePositionKinematics(self, state: State) -> None:
        """Body poses from q (needs Instance stage); does nothing if already current."""
        self._require(state, Stage.Instance, "realizePositionKinematics")
        if self.isPositionKinematicsRealized(state):
            return
        self.realizeSubsystemPositionImpl(state)
        self._mark(state, _PK)

    def isPositionKinematicsRealized(self, state: State) -> bool:
        return self._matter_stage(state) >= Stage.Instance and self._realized(state, _PK)

    def invalidatePositionKinematics(self, state: State) -> None:
        """Make position kinematics stale; Position stage and above are invalidated too."""
        self._require(state, Stage.Instance, "invalidatePositionKinematics")
        if self._matter_stage(state) >= Stage.Position:
            state.invalidateAllCacheAtOrAbove(Stage.Position)
        state.markCacheValueNotRealized(self.getMySubsystemIndex(), self._lazy(_PK))

    # -------------------------------------------------------- velocity kinematics
    def realizeVelocityKinematics(self, state: State) -> None:
        """Body velocities from u (needs position kinematics); nothing if already current."""
        what = "realizeVelocityKinematics"
        self._require_position_kinematics(state, what)
        if self.isVelocityKinematicsRealized(state):
            return
        self.realizeSubsystemVelocityImpl(state)
        self._mark(state, _VK)

    def isVelocityKinematicsRealized(self, state: State) -> bool:
        return self.isPositionKinematicsRealized(state) and self._realized(state, _VK)

    def invalidateVelocityKinematics(self, state: State) -> None:
        """Make velocity kinematics stale; Velocity stage and above are invalidated too."""
        self._require(state, Stage.Instance, "invalidateVelocityKinematics")
        if self._matter_stage(state) >= Stage.Velocity:
            self._keep_abis(state)
            state.invalidateAllCacheAtOrAbove(Stage.Velocity)
        state.markCacheValueNotRealized(self.getMySubsystemIndex(), self._lazy(_VK))

    # -------------------------------------------------- composite body inertias
    def _cbi_matrices(self, state: State, what: str) -> np.ndarray:
        self._require_position_kinematics(state, what)
        R = state.updCacheEntry(self.getMySubsystemIndex(), self._lazy(_CBI))
        if not self._realized(state, _CBI):
            pc = state.updCacheEntry(self.getMySubsystemIndex(), self._ix.position)
            calc_composite_inertias(self._topo().parent, pc.p_GB, pc.Phi_G, R)
            self._mark(state, _CBI)
        return R

    def realizeCompositeBodyInertias(self, state: State) -> None:
        """Compute every composite body inertia if q changed since the last time."""
        self._cbi_matrices(state, "realizeCompositeBodyInertias")

    def isCompositeBodyInertiasRealized(self, state: State) -> bool:
        return self.isPositionKinematicsRealized(state) and self._realized(state, _CBI)

    def invalidateCompositeBodyInertias(self, state: State) -> None:
        self._require(state, Stage.Instance, "invalidateCompositeBodyInertias")
        state.markCacheValueNotRealized(self.getMySubsystemIndex(), self._lazy(_CBI))

    def calcCompositeBodyInertias(self, state: State) -> list[SpatialInertia]:
        """Spatial inertia of each body's subtree (outboard mobilizers welded) about its Bo, in
        G, indexed by MobilizedBodyIndex; Ground's is infinite (Position stage; O(n))."""
        what = "calcCompositeBodyInertias"
        self._require_position_kinematics(state, what)
        pc = state.updCacheEntry(self.getMySubsystemIndex(), self._ix.position)
        R = np.zeros((self._topo().nb, 6, 6))
        calc_composite_inertias(self._topo().parent, pc.p_GB, pc.Phi_G, R)
        return [_ground_spatial_inertia()] + [_spatial_inertia_from_matrix(r) for r in R[1:]]

    def getCompositeBodyInertia(self, state: State, mbx) -> SpatialInertia:
        """The composite body inertia of one body (realizes all of them if needed)."""
        what = "getCompositeBodyInertia"
        b = body_index(self, mbx, f"{what}: mbx")
        R = self._cbi_matrices(state, what)
        return _ground_spatial_inertia() if b == 0 else _spatial_inertia_from_matrix(R[b])

    # ------------------------------------------------- articulated body inertias
    def _abi_arrays(self, state: State, what: str):
        """(P, D^-1, U) per body: from the Acceleration cache if realized, else the lazy entry
        (computed on first use)."""
        self._require_position_kinematics(state, what)
        if self._matter_stage(state) >= Stage.Acceleration:
            ac = self._acceleration_cache(state)
            return ac.P_abi, ac.D_inv, ac.U_cols
        arrays = state.updCacheEntry(self.getMySubsystemIndex(), self._lazy(_ABI))
        if not self._realized(state, _ABI):
            topo = self._topo()
            pc = state.updCacheEntry(self.getMySubsystemIndex(), self._ix.position)
            free = np.zeros(topo.nb, dtype=np.int64)
            articulated_inertias(
                topo.parent,
                topo.nus,
                free,
                pc.H_G,
                pc.Phi_G,
                pc.p_GB,
                *arrays,
                np.zeros((6, 12)),
                np.zeros((6, 6)),
            )
            self._mark(state, _ABI)
        return arrays

    def _keep_abis(self, state: State) -> None:
        """Before Acceleration stage is invalidated for a reason that leaves q alone, keep the
        ABIs that realization computed (they stay valid until q changes)."""
        if self._matter_stage(state) >= Stage.Acceleration and self._realized(state, _ABI):
            ac = self._acceleration_cache(state)
            kept = state.updCacheEntry(self.getMySubsystemIndex(), self._lazy(_ABI))
            for dst, src in zip(kept, (ac.P_abi, ac.D_inv, ac.U_cols), strict=True):
                dst[...] = src
            self._mark(state, _ABI)

    def realizeArticulatedBodyInertias(self, state: State) -> None:
        """Compute the articulated body inertias if q changed since the last time."""
        self._abi_arrays(state, "realizeArticulatedBodyInertias")

    def isArticulatedBodyInertiasRealized(self, state: State) -> bool:
        return self.isPositionKinematicsRealized(state) and self._realized(state, _ABI)

    def invalidateArticulatedBodyInertias(self, state: State) -> None:
        """Make the ABIs stale; Acceleration stage is invalidated too."""
        self._require(state, Stage.Instance, "invalidateArticulatedBodyInertias")
        if self._matter_stage(state) >= Stage.Acceleration:
            state.invalidateAllCacheAtOrAbove(Stage.Acceleration)
        state.markCacheValueNotRealized(self.getMySubsystemIndex(), self._lazy(_ABI))

    def getArticulatedBodyInertia(self, state: State, mbx) -> ArticulatedInertia:
        """Articulated body inertia of one body about its Bo, in G (realizes all ABIs if
        needed). Ground's is infinite, like its composite body inertia."""
        what = "getArticulatedBodyInertia"
        b = body_index(self, mbx, f"{what}: mbx")
        P = self._abi_arrays(state, what)[0]
        if b == 0:
            inf = np.diag([np.inf, np.inf, np.inf])
            return ArticulatedInertia._make(inf, np.zeros((3, 3)), inf)
        return ArticulatedInertia._make(P[b][3:, 3:], P[b][0:3, 3:], P[b][0:3, 0:3])

    def getMobilizerCentrifugalForces(self, state: State, mbx) -> np.ndarray:
        """(Deprecated in Simbody, an internal quantity) P a + b: the body's articulated body
        inertia times its mobilizer Coriolis acceleration plus its gyroscopic force, at Bo in
        G (2, 3) (Velocity stage; realizes the ABIs if needed). Prefer
        getTotalCentrifugalForces."""
        what = "getMobilizerCentrifugalForces"
        self._require(state, Stage.Velocity, what)
        b = body_index(self, mbx, f"{what}: mbx")
        if b == 0:
            return np.zeros((2, 3))
        P = self._abi_arrays(state, what)[0]
        vc = state.updCacheEntry(self.getMySubsystemIndex(), self._ix.velocity)
        return (P[b] @ vc.coriolis[b] + vc.gyroscopic[b]).reshape(2, 3)

    # ------------------------------------------------- articulated body velocity
    def realizeArticulatedBodyVelocity(self, state: State) -> None:
        """The velocity-dependent articulated-body terms (here: the accelerations the inertial
        forces alone produce). Velocity kinematics and the ABIs must already be realized."""
        what = "realizeArticulatedBodyVelocity"
        self._require(state, Stage.Instance, what)
        if not (
            self.isVelocityKinematicsRealized(state)
            and self.isArticulatedBodyInertiasRealized(state)
        ):
            raise StageTooLowError(
                f"{what}: realize velocity kinematics and articulated body inertias first "
                "(realizeVelocityKinematics, realizeArticulatedBodyInertias, or realize(Velocity) "
                "then realizeArticulatedBodyInertias)",
                needed=Stage.Velocity,
                current=self._matter_stage(state),
            )
        if self.isArticulatedBodyVelocityRealized(state):
            return
        topo = self._topo()
        sx = self.getMySubsystemIndex()
        pc = state.updCacheEntry(sx, self._ix.position)
        vc = state.updCacheEntry(sx, self._ix.velocity)
        P, Di, U = self._abi_arrays(state, what)
        udot = state.updCacheEntry(sx, self._lazy(_ABV))
        zero = np.zeros((topo.nb, 6))
        articulated_solve(
            topo.parent,
            topo.us,
            topo.nus,
            np.zeros(topo.nb, dtype=np.int64),
            pc.H_G,
            pc.p_GB,
            P,
            Di,
            U,
            vc.coriolis,
            vc.gyroscopic,
            zero,
            np.zeros(topo.nu),
            udot,
            np.zeros((topo.nb, 6)),
            np.zeros((topo.nb, 6)),
            np.zeros(topo.nu),
        )
        self._mark(state, _ABV)

    def isArticulatedBodyVelocityRealized(self, state: State) -> bool:
        return (
            self.isArticulatedBodyInertiasRealized(state)
            and self.isVelocityKinematicsRealized(state)
            and self._realized(state, _ABV)
        )

    def invalidateArticulatedBodyVelocity(self, state: State) -> None:
        """Make the articulated-body velocity terms stale; Acceleration stage too."""
        self._require(state, Stage.Instance, "invalidateArticulatedBodyVelocity")
        if self._matter_stage(state) >= Stage.Acceleration:
            self._keep_abis(state)
            state.invalidateAllCacheAtOrAbove(Stage.Acceleration)
        state.markCacheValueNotRealized(self.getMySubsystemIndex(), self._lazy(_ABV))
