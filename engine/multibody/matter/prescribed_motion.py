"""Prescribed motion in SimbodyMatterSubsystem: Motions, locks, free/known index lists,
System.prescribe hooks, motion multipliers and the free-mobility M^-1.

Each mobilizer is driven as a whole (all its mobilities) by its lock if it is locked, else
by its Motion if it has one, else free. The (level, method) of that driver gives the
methods for q, u and udot (``calc_all_methods``, Simbody's table); the layout is decided at
Instance stage (locks are Instance-stage State variables). A mobility is "known" at a
level when its method there is not Free.

Equations of motion (spec, "Detailed Description"; docs/conventions.md §10):

    M udot + G^T lambda + tau = f - bias,      tau = {0, tau_p}

The known udot_p come from the Motions and locks; forward dynamics is the hybrid
articulated-body method (``kernels.stage_kernels.articulated_inertias`` and
``articulated_solve`` with a ``known`` body mask) in which prescribed bodies pass their
articulated inertia through unprojected, so ``multiplyByMInv`` is M_ff^-1 on the free
mobilities (prescribed entries neither read nor written) and the constraint solve of
``MatterConstraintsMixin`` (which applies M^-1 through ``multiplyByMInv``) automatically
keeps the prescribed udot fixed. The motion multipliers tau_p are what the equations leave
at the known-udot slots: ``tau = -(M udot + bias - f - J^T F + G^T lambda)``; the motion
power is ``-tau . u``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.common.stage import Stage
from engine.common.stage_arg import stage_value
from engine.common.state import State
from engine.common.state_copy import shared_when_copied
from engine.multibody.kernels.n_operators import N_OP, NDOT_OP, NINV_OP
from engine.multibody.kernels.stage_kernels import articulated_inertias, articulated_solve
from engine.multibody.motions.motion import MotionLevel, MotionMethod, calc_all_methods

_FREE = int(MotionMethod.Free)
_ZERO = int(MotionMethod.Zero)
_DISCRETE = int(MotionMethod.Discrete)
_PRESCRIBED = int(MotionMethod.Prescribed)


def _ints(values) -> np.ndarray:
    return np.asarray(values, dtype=np.int64)


def _index_ranges(starts: np.ndarray, counts: np.ndarray, chosen: np.ndarray) -> np.ndarray:
    """The indices starts[b] .. starts[b] + counts[b] - 1 of the chosen bodies b, in body
    order (int64)."""
    starts, counts = starts[chosen], counts[chosen]
    total = int(counts.sum())
    first = np.cumsum(counts) - counts
    return np.repeat(starts - first, counts) + np.arange(total, dtype=np.int64)


@shared_when_copied
@dataclass
class PrescribedLayout:
    """Per-body driver and methods, and the index lists (matter-local), Instance stage.
    Never changed once stored (each Instance realization stores a new one), so State
    copies share it."""

    level: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    methods: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), dtype=np.int64))
    locked: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    known_body: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    free_q: np.ndarray = field(default_factory=lambda: _ints([]))
    free_u: np.ndarray = field(default_factory=lambda: _ints([]))
    free_udot: np.ndarray = field(default_factory=lambda: _ints([]))
    known_q: np.ndarray = field(default_factory=lambda: _ints([]))
    known_u: np.ndarray = field(default_factory=lambda: _ints([]))
    known_udot: np.ndarray = field(default_factory=lambda: _ints([]))

    @property
    def any_known_udot(self) -> bool:
        return self.known_udot.size > 0


class MatterPrescribedMotionMixin:
    """Motions and locks of the matter subsystem (see the module docstring)."""

    # ------------------------------------------------------------ topology
    def _prescribed_realize_topology(self, state: State) -> None:
        """Allocate the locks (Instance-stage variable), the layout and the hybrid
        articulated inertias; let each Motion allocate its own State variables."""
        topo = self._topo()
        nb = topo.nb
        ix = self._ix.extra
        no_level = MotionLevel.NoLevel
        levels = [m._default_lock_level for m in self._mobods]
        if levels.count(no_level) == len(levels):  # (no body locked by default)
            defaults = (None,) * len(levels)
        else:
            defaults = tuple(None if v == no_level else (int(v), None) for v in levels)
        ix["locks"] = self.allocateDiscreteVariable(
            state, Stage.Instance, defaults, name="mobilizer locks"
        )
        ix["prescribed_layout"] = self.allocateCacheEntry(
            state, Stage.Instance, PrescribedLayout(), name="prescribed motion layout"
        )
        ix["hybrid_abi"] = self.allocateLazyCacheEntry(
            state,
            Stage.Position,
            (np.zeros((nb, 6, 6)), np.zeros((nb, 6, 6)), np.zeros((nb, 6, 6))),
            name="hybrid free/prescribed articulated body inertias",
        )
        # the bodies with a Motion (giving a body a Motion is a topology change)
        motions = [m._motion for m in self._mobods]
        ix["motion_bodies"] = moving = (
            []
            if motions.count(None) == len(motions)
            else [b for b, motion in enumerate(motions) if b > 0 and motion is not None]
        )
        for b in moving:
            self._mobods[b]._motion._realize_topology(state, self)

    # ----------------------------------------------------------------- locks
    def _lock_entry(self, state: State, mobod):
        self._require(state, Stage.Model, "the lock of a mobilized body")
        return self.getDiscreteVariable(state, self._ix.extra["locks"])[
            mobod.getMobilizedBodyIndex()
        ]

    def _lock_value(self, state: State, mobod, entry) -> np.ndarray:
        """The values of a lock entry; a default lock holds the default q or zeros."""
        level, value = entry
        if value is not None:
            return np.asarray(value, dtype=np.float64)
        b = mobod.getMobilizedBodyIndex()
        if level == MotionLevel.Position:
            return self._reference_q(state, b, mobod._default_q)
        return np.zeros(int(self._topo().nus[b]))

    def _reference_q(self, state: State, b: int, default=None) -> np.ndarray:
        """The q in use of body b in a default State: ``default`` if given, else the
        mobilizer's reference q (zero angles in Euler-angle mode)."""
        if default is None:
            default = np.array(self._mobods[b]._module.DEFAULT_Q, dtype=np.float64)
            if self._topo().uses_quaternion[b] and self.getUseEulerAngles(state):
                default[0:4] = 0.0
        return np.asarray(default, dtype=np.float64)[: self._num_q_in_use(state, b)]

    def _set_lock(self, state: State, mobod, level: MotionLevel, value) -> None:
        ix = self._ix.extra["locks"]
        locks = list(self.getDiscreteVariable(state, ix))
        b = mobod.getMobilizedBodyIndex()
        locks[b] = (
            None if level == MotionLevel.NoLevel else (int(level), tuple(float(v) for v in value))
        )
        self.setDiscreteVariable(state, ix, tuple(locks))

    # -------------------------------------------------------- Instance stage
    def realizeSubsystemInstanceImpl(self, state: State) -> None:
        sup = getattr(super(), "realizeSubsystemInstanceImpl", None)
        if sup is not None:
            sup(state)
        self._prescribed_realize_instance(state)

    def _prescribed_realize_instance(self, state: State) -> None:
        topo = self._topo()
        nb = topo.nb
        locks = self.getDiscreteVariable(state, self._ix.extra["locks"])
        lay = PrescribedLayout(
            level=np.full(nb, int(MotionLevel.NoLevel), dtype=np.int64),
            methods=np.full((nb, 3), _FREE, dtype=np.int64),
            locked=np.zeros(nb, dtype=bool),
            known_body=np.zeros(nb, dtype=np.int64),
        )
        # only locked and prescribed bodies need a look; every other body is free
        special = set(self._ix.extra["motion_bodies"])
        if locks.count(None) != len(locks):  # (some body is locked)
            special.update(b for b in range(1, nb) if locks[b] is not None)
        for b in sorted(special):
            mobod = self._mobods[b]
            if locks[b] is not None:
                level, method = MotionLevel(locks[b][0]), MotionMethod.Discrete
                lay.locked[b] = True
            else:
                level = mobod._motion.getLevel(state)
                method = mobod._motion.getLevelMethod(state)
            if level != MotionLevel.NoLevel:
                lay.level[b] = int(level)
                lay.methods[b] = calc_all_methods(level, method)
        lay.known_body[1:] = lay.methods[1:, 2] != _FREE
        nq = np.asarray(topo.nqs, dtype=np.int64).copy()
        if self.getUseEulerAngles(state):
            nq[np.asarray(topo.uses_quaternion, dtype=bool)] -= 1
        body = np.arange(nb) >= 1  # Ground has no mobilities
        qs, us, nus = (np.asarray(a, dtype=np.int64) for a in (topo.qs, topo.us, topo.nus))
        known = lay.methods != _FREE
        lay.known_q = _index_ranges(qs, nq, body & known[:, 0])
        lay.free_q = _index_ranges(qs, nq, body & ~known[:, 0])
        lay.known_u = _index_ranges(us, nus, body & known[:, 1])
        lay.free_u = _index_ranges(us, nus, body & ~known[:, 1])
        lay.known_udot = _index_ranges(us, nus, body & known[:, 2])
        lay.free_udot = _index_ranges(us, nus, body & ~known[:, 2])
        state.setCacheEntryValue(
            self.getMySubsystemIndex(), self._ix.extra["prescribed_layout"], lay
        )

    def _prescribed_layout(self, state: State) -> PrescribedLayout:
        self._require(state, Stage.Instance, "the prescribed-motion layout")
        return self._instance_info(state).playout

    def _motion_methods(self, state: State, mobod) -> np.ndarray:
        return self._prescribed_layout(state).methods[mobod.getMobilizedBodyIndex()]

    # ------------------------------------------------------------ index lists
    def getFreeQIndex(self, state: State) -> np.ndarray:
        """Matter q indices that are neither locked nor prescribed (Instance stage)."""
        return self._prescribed_layout(state).free_q.copy()

    def getFreeUIndex(self, state: State) -> np.ndarray:
        """Matter u indices that are neither locked nor prescribed (Instance stage)."""
        return self._prescribed_layout(state).free_u.copy()

    def getFreeUDotIndex(self, state: State) -> np.ndarray:
        """Matter u indices whose udot is unknown (computed from forces)."""
        return self._prescribed_layout(state).free_udot.copy()

    def getKnownUDotIndex(self, state: State) -> np.ndarray:
        """Matter u indices whose udot is known (locked or prescribed)."""
        return self._prescribed_layout(state).known_udot.copy()

    def packFreeQ(self, state: State, allQ) -> np.ndarray:
        """The free entries of a q-like vector, in order."""
        free = self.getFreeQIndex(state)
        return self._vector(allQ, self._topo().nq, "packFreeQ: allQ")[free].copy()

    def unpackFreeQ(self, state: State, packedFreeQ, unpackedFreeQ=None) -> np.ndarray:
        """A q-like vector with the free entries from ``packedFreeQ``; the others are taken
        from ``unpackedFreeQ`` if given, else 0."""
        return self._unpack(state, self.getFreeQIndex(state), self._topo().nq, packedFreeQ,
                            unpackedFreeQ, "unpackFreeQ", "Q")  # fmt: skip

    def packFreeU(self, state: State, allU) -> np.ndarray:
        """The free entries of a u-like vector, in order."""
        free = self.getFreeUIndex(state)
        return self._vector(allU, self._topo().nu, "packFreeU: allU")[free].copy()

    def unpackFreeU(self, state: State, packedFreeU, unpackedFreeU=None) -> np.ndarray:
        """A u-like vector with the free entries from ``packedFreeU``; the others are taken
        from ``unpackedFreeU`` if given, else 0."""
        return self._unpack(state, self.getFreeUIndex(state), self._topo().nu, packedFreeU,
                            unpackedFreeU, "unpackFreeU", "U")  # fmt: skip

    def _unpack(self, state, free, n, packed, base, what, which) -> np.ndarray:
        packed = self._vector(packed, free.size, f"{what}: packedFree{which}")
        out = np.zeros(n) if base is None else self._vector(base, n, f"{what}: unpackedFree{which}")
        out = out.copy()
        out[free] = packed
        return out

    # --------------------------------------------------- System.prescribe hooks
    def getPrescribedQIndexImpl(self, state: State) -> list[int]:
        q0 = state.getQStart(self.getMySubsystemIndex())
        return [q0 + int(i) for i in self._prescribed_layout(state).known_q]

    def getPrescribedUIndexImpl(self, state: State) -> list[int]:
        u0 = state.getUStart(self.getMySubsystemIndex())
        return [u0 + int(i) for i in self._prescribed_layout(state).known_u]

    def _prescribed_q_values(self, state: State, lay: PrescribedLayout):
        """{body: q values} for every body whose q is set by prescribeQ."""
        out = {}
        for b in np.flatnonzero(lay.methods[:, 0] != _FREE):
            b = int(b)
            mobod = self._mobods[b]
            nq = self._num_q_in_use(state, b)
            method = lay.methods[b, 0]
            if lay.locked[b]:
                entry = self.getDiscreteVariable(state, self._ix.extra["locks"])[b]
                if entry[0] == MotionLevel.Position:
                    out[b] = self._lock_value(state, mobod, entry)
            elif method == _PRESCRIBED:
                out[b] = mobod._motion.calcPrescribedPosition(state, nq)
            elif method == _ZERO:
                out[b] = self._reference_q(state, b)
        return out

    def prescribeQImpl(self, state: State) -> bool:
        lay = self._prescribed_layout(state)
        if lay.known_q.size == 0:
            return False
        values = self._prescribed_q_values(state, lay)
        if not values:
            return False
        q = self.updQ(state)
        topo = self._topo()
        for b, v in values.items():
            s = int(topo.qs[b])
            q[s : s + v.size] = v
        return True

    def _prescribed_u_values(self, state: State, lay: PrescribedLayout):
        """{body: u values} for every body whose u is set by prescribeU (Position stage)."""
        topo = self._topo()
        out = {}
        qdot = None
        for b in np.flatnonzero(lay.methods[:, 1] != _FREE):
            b = int(b)
            mobod = self._mobods[b]
            nu = int(topo.nus[b])
            method = lay.methods[b, 1]
            if lay.locked[b]:
                entry = self.getDiscreteVariable(state, self._ix.extra["locks"])[b]
                if entry[0] == MotionLevel.Velocity:
                    out[b] = self._lock_value(state, mobod, entry)
                elif entry[0] == MotionLevel.Position:
                    out[b] = np.zeros(nu)
            elif method == _ZERO:
                out[b] = np.zeros(nu)
            elif method == _PRESCRIBED and lay.level[b] == MotionLevel.Velocity:
                out[b] = mobod._motion.calcPrescribedVelocity(state, nu)
            elif method == _PRESCRIBED:  # Position level: u = N^-1 qdot (block diagonal)
                if qdot is None:
                    qdot = np.zeros(topo.nq)
                nq = self._num_q_in_use(state, b)
                s = int(topo.qs[b])
                qdot[s : s + nq] = mobod._motion.calcPrescribedPositionDot(state, nq)
                out[b] = None
        if qdot is not None:
            u = self._n_times(state, NINV_OP, False, qdot)
            for b, v in out.items():
                if v is None:
                    s = int(topo.us[b])
                    out[b] = u[s : s + int(topo.nus[b])]
        return out

    def prescribeUImpl(self, state: State) -> bool:
        lay = self._prescribed_layout(state)
        if lay.known_u.size == 0:
            return False
        values = self._prescribed_u_values(state, lay)
        if not values:
            return False
        u = self.updU(state)
        topo = self._topo()
        for b, v in values.items():
            s = int(topo.us[b])
            u[s : s + v.size] = v
        return True

    def _known_udot(self, state: State, lay: PrescribedLayout) -> np.ndarray:
        """A nu vector holding the prescribed udot at the known slots (Velocity stage)."""
        topo = self._topo()
        udot = np.zeros(topo.nu)
        qdd = None
        pos_bodies = []
        for b in np.flatnonzero(lay.known_body):
            b = int(b)
            mobod = self._mobods[b]
            s, nu = int(topo.us[b]), int(topo.nus[b])
            method, level = lay.methods[b, 2], lay.level[b]
            if lay.locked[b]:
                entry = self.getDiscreteVariable(state, self._ix.extra["locks"])[b]
                if entry[0] == MotionLevel.Acceleration:
                    udot[s : s + nu] = self._lock_value(state, mobod, entry)
            elif method != _PRESCRIBED:
                continue  # Zero or Discrete: udot = 0
            elif level == MotionLevel.Acceleration:
                udot[s : s + nu] = mobod._motion.calcPrescribedAcceleration(state, nu)
            elif level == MotionLevel.Velocity:
                udot[s : s + nu] = mobod._motion.calcPrescribedVelocityDot(state, nu)
            else:  # Position level: udot = N^-1 (qdotdot - NDot u)
                if qdd is None:
                    qdd = np.zeros(topo.nq)
                nq = self._num_q_in_use(state, b)
                qs = int(topo.qs[b])
                qdd[qs : qs + nq] = mobod._motion.calcPrescribedPositionDotDot(state, nq)
                pos_bodies.append(b)
        if qdd is not None:
            rhs = qdd - self._n_times(state, NDOT_OP, False, self.getU(state))
            x = self._n_times(state, NINV_OP, False, rhs)
            for b in pos_bodies:
                s, nu = int(topo.us[b]), int(topo.nus[b])
                udot[s : s + nu] = x[s : s + nu]
        return udot

    # ---------------------------------------------- hybrid articulated bodies
    def _hybrid_abi(self, state: State, lay: PrescribedLayout):
        """(P, D^-1, U) of the hybrid method, kept until q changes (computed without caching
        when position kinematics were realized early, before Position stage)."""
        sx = self.getMySubsystemIndex()
        ix = self._ix.extra["hybrid_abi"]
        early = state.getSubsystemStage(sx) < Stage.Position
        if early:
            nb = self._topo().nb
            P, Di, U = (np.zeros((nb, 6, 6)) for _ in range(3))
        else:
            P, Di, U = state.updCacheEntry(sx, ix)
        if early or not state.isCacheValueRealized(sx, ix):
            topo = self._topo()
            pc = self._pc_raw(state)
            articulated_inertias(
                topo.parent,
                topo.nus,
                lay.known_body,
                pc.H_G,
                pc.Phi_G,
                pc.p_GB,
                P,
                Di,
                U,
                np.zeros((6, 12)),
                np.zeros((6, 6)),
            )
            if not early:
                state.markCacheValueRealized(sx, ix)
        return P, Di, U

    def _abi_arrays(self, state: State, what: str):
        """The articulated body inertias of the lazy-realization API: with prescribed
        motion these are the hybrid free/prescribed ones (as Simbody)."""
        if state.getSubsystemStage(self.getMySubsystemIndex()) >= Stage.Instance:
            lay = self._prescribed_layout(state)
            if lay.any_known_udot:
                self._require_position_kinematics(state, what)
                return self._hybrid_abi(state, lay)
        return super()._abi_arrays(state, what)

    def _hybrid_solve(self, state, lay, coriolis, gyro, F, f, udot) -> np.ndarray:
        """Fill the free entries of ``udot`` (known entries are inputs); return A_GB."""
        topo = self._topo()
        pc = self._pc_raw(state)
        P, Di, U = self._hybrid_abi(state, lay)
        A = np.zeros((topo.nb, 6))
        articulated_solve(
            topo.parent,
            topo.us,
            topo.nus,
            lay.known_body,
            pc.H_G,
            pc.p_GB,
            P,
            Di,
            U,
            np.ascontiguousarray(coriolis),
            np.ascontiguousarray(gyro),
            np.ascontiguousarray(F, dtype=np.float64).reshape(topo.nb, 6),
            np.ascontiguousarray(f, dtype=np.float64),
            udot,
            A,
            np.zeros((topo.nb, 6)),
            np.zeros(topo.nu),
        )
        return A

    def realizeSubsystemAccelerationImpl(self, state: State) -> None:
        lay = self._instance_info(state).playout
        if not lay.any_known_udot:
            super().realizeSubsystemAccelerationImpl(state)
            return
        sx = self.getMySubsystemIndex()
        vc = self._vc_raw(state)
        body, mobility = self.getSystem().getAppliedForces(state)
        udot = self._known_udot(state, lay)
        A = self._hybrid_solve(state, lay, vc.coriolis, vc.gyroscopic, body, mobility, udot)
        state.updUDot(sx)[:] = udot
        ac = state.updCacheEntry(sx, self._ix.acceleration)
        ac.A_GB[:] = A
        state.updQDotDot(sx)[:] = self._n_times(state, N_OP, False, udot) + self._n_times(
            state, NDOT_OP, False, self.getU(state)
        )

    # ------------------------------------------------------------- operators
    def _prescribed_m_inverse_times(self, state: State, v, lay: PrescribedLayout) -> np.ndarray:
        """multiplyByMInv with prescribed motion (Motions or locks; ``lay`` the layout):
        M_ff^-1 on the free mobilities; prescribed entries of v are not read and those of
        the result are 0."""
        topo = self._topo()
        v = self._vector(v, topo.nu, "multiplyByMInv: v")
        zero = np.zeros((topo.nb, 6))
        out = np.zeros(topo.nu)
        self._hybrid_solve(state, lay, zero, zero, zero, v, out)
        return out

    def calcAccelerationIgnoringConstraints(
        self, state: State, appliedMobilityForces, appliedBodyForces
    ):
        """(udot, A_GB) from the given forces, ignoring constraints but obeying prescribed
        accelerations (Velocity stage; the prescribed udot need Acceleration-level
        Motion values of this State)."""
        self._require_velocity_kinematics(state, "calcAccelerationIgnoringConstraints")
        lay = self._prescribed_layout(state)
        if not lay.any_known_udot:
            return super().calcAccelerationIgnoringConstraints(
                state, appliedMobilityForces, appliedBodyForces
            )
        topo = self._topo()
        what = "calcAccelerationIgnoringConstraints"
        f = self._vector(appliedMobilityForces, topo.nu, f"{what}: appliedMobilityForces")
        F = self._body_forces(appliedBodyForces, f"{what}: appliedBodyForces")
        vc = self._vc_raw(state)
        udot = self._known_udot(state, lay)
        A = self._hybrid_solve(state, lay, vc.coriolis, vc.gyroscopic, F, f, udot)
        return udot, A.reshape(topo.nb, 2, 3)

    def calcMobilizerReactionForces(self, state: State) -> np.ndarray:
        """Reaction on each body at Mo in G (Acceleration stage). With prescribed motion
        the reactions (which include the motion forces along the mobilizer axes) come from
        each body's free-body diagram."""
        if self._prescribed_layout(state).any_known_udot:
            return self.calcMobilizerReactionForcesUsingFreebodyMethod(state)
        return super().calcMobilizerReactionForces(state)

    # -------------------------------------------------------- motion results
    def getMotionMultipliers(self, state: State) -> np.ndarray:
        """tau_p, one per known udot (ascending u index) (Acceleration stage):
        M udot + G^T lambda + tau = f - bias at the known slots."""
        self._require(state, Stage.Acceleration, "getMotionMultipliers")
        lay = self._prescribed_layout(state)
        if not lay.any_known_udot:
            return np.zeros(0)
        topo = self._topo()
        body, mobility = self.getSystem().getAppliedForces(state)
        res = self.calcResidualForceIgnoringConstraints(
            state, mobility, np.asarray(body).reshape(topo.nb, 2, 3), self.getUDot(state)
        )
        clay = self._constraint_layout(state)
        if clay.m:
            lam = np.array(state.getMultipliers(self.getMySubsystemIndex()))
            res = res + self._GT_times(state, clay, lam)
        return -res[lay.known_udot]

    def findMotionForces(self, state: State) -> np.ndarray:
        """The motion multipliers unpacked into a nu vector (0 at free mobilities)."""
        tau = self.getMotionMultipliers(state)
        out = np.zeros(self._topo().nu)
        out[self._prescribed_layout(state).known_udot] = tau
        return out

    def calcMotionPower(self, state: State) -> float:
        """-tau . u: positive when the Motions and locks add energy (Acceleration stage)."""
        return -float(self.findMotionForces(state) @ self.getU(state))

    def calcMotionErrors(self, state: State, stage) -> np.ndarray:
        """actual - prescribed for each known q (Stage.Position; State at Time or later),
        known u (Stage.Velocity; Position or later) or known udot (Stage.Acceleration;
        Acceleration stage)."""
        stage = stage_value(stage, "calcMotionErrors")
        lay = self._prescribed_layout(state)
        topo = self._topo()
        if stage == Stage.Position:
            self._require(state, Stage.Time, "calcMotionErrors(Position)")
            q = np.array(self.getQ(state))
            values = self._prescribed_q_values(state, lay)
            target = q.copy()
            for b, v in values.items():
                s = int(topo.qs[b])
                target[s : s + v.size] = v
            return (q - target)[lay.known_q]
        if stage == Stage.Velocity:
            self._require(state, Stage.Position, "calcMotionErrors(Velocity)")
            u = np.array(self.getU(state))
            target = u.copy()
            for b, v in self._prescribed_u_values(state, lay).items():
                s = int(topo.us[b])
                target[s : s + v.size] = v
            return (u - target)[lay.known_u]
        if stage == Stage.Acceleration:
            self._require(state, Stage.Acceleration, "calcMotionErrors(Acceleration)")
            udot = np.array(self.getUDot(state))
            return (udot - self._known_udot(state, lay))[lay.known_udot]
        raise InvalidArgumentError(
            f"calcMotionErrors: stage must be Position, Velocity or Acceleration, got "
            f"{stage.getName()}"
        )
