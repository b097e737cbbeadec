"""Constraints in SimbodyMatterSubsystem: equation layout, errors, multipliers, operators.

Layout (docs/conventions.md §7): the active (enabled) constraints contribute mp
holonomic, mv nonholonomic and ma acceleration-only equations; G = [P; V; A] rows and
the multipliers follow that block order, constraints in ConstraintIndex order inside
each block. ``qErr = [perr (mp) | |q|-1 per quaternion in use]``, ``uErr = [pverr (mp) |
verr (mv)]``, ``udotErr = [paerr | vaerr | aerr]``. The layout is decided at Instance
stage (enabling/disabling a constraint is an Instance-stage change).

Equations of motion with constraints (spec, "Detailed Description"):

    M udot + G^T lambda = f - bias,      G udot + b = 0

where ``b = calcBiasForAccelerationConstraints`` are the acceleration errors at
udot = 0. With udot0 the unconstrained accelerations, ``W lambda = G udot0 + b`` with
``W = G M^-1 G^T`` formed column by column from the O(n) operators (M is never formed)
and solved in the least-squares sense (redundant constraints share their load:
minimum-norm multipliers); then ``udot = udot0 - M^-1 G^T lambda``.
``_solve_constrained_udot`` is that one step; prescribed motion can extend it.

Operators follow the spec: G products are evaluated by the constraints' own error
functions with the body velocities/accelerations that a u-like vector produces
(``V = J x``; ``A = J x + JDot u``), minus the same at x = 0 (the bias).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np

from engine.common import interruptible_linalg
from engine.common.exceptions import (
    ComputationInterruptedError,
    IndexOutOfRangeError,
    InvalidArgumentError,
    NonPhysicalError,
)
from engine.common.index_arg import index_value
from engine.common.stage import Stage
from engine.common.state import State
from engine.common.state_copy import shared_when_copied
from engine.multibody.constraints.compiled import compiled_constraints
from engine.multibody.constraints.kinematics import ConstraintForces, ConstraintKinematics
from engine.multibody.kernels.constraint_accelerations_interruptible import (
    constrained_accelerations_interruptibly,
)
from engine.multibody.kernels.constraint_kernels import (
    INTERRUPTED,
    OK,
    constraint_jacobian,
    position_errors,
    velocity_errors,
)
from engine.multibody.kernels.interrupt_request import InterruptRequest, current_request
from engine.multibody.kernels.jacobian import (
    multiply_by_system_jacobian,
    multiply_by_system_jacobian_transpose,
)
from engine.multibody.matter.arguments import vector

#: in the main thread, constrained accelerations of more equations than this are computed
#: in a helper thread, so that a signal's handler (Ctrl-C) runs meanwhile and stops them
_THREADED_M = 64


def _constrained_accelerations(a, s, with_inertias, euler, cc) -> int:
    """The status of ``constrained_accelerations_interruptibly`` for compiled constraints
    ``cc``, stopped by this thread's watched InterruptRequest (``interrupt_request.
    watching``) or, in the main thread, by a signal's exception, which propagates once
    the kernel has returned. Raises ComputationInterruptedError when it was stopped
    (udot, A_GB, qdotdot and udotErr then unwritten)."""
    request = current_request()
    if cc.m > _THREADED_M and threading.current_thread() is threading.main_thread():
        if request is None:
            request = InterruptRequest()
        was_set = request.is_set()
        args = (a, s, with_inertias, euler, cc.ci, cc.cf, cc.m, cc.multipliers, cc.udot_err)
        call = interruptible_linalg.run_stoppably(
            constrained_accelerations_interruptibly, (*args, request.address), request.set
        )
        if call.interruption is not None:
            while not call.finished:  # it writes the State's cache: wait until it stops
                try:
                    call.done.wait(0.02)
                except BaseException:  # noqa: BLE001, S110  (a second signal meanwhile)
                    pass
            if not was_set:
                request.clear()
            raise call.interruption
        status = call.value
    else:
        status = constrained_accelerations_interruptibly(
            a,
            s,
            with_inertias,
            euler,
            cc.ci,
            cc.cf,
            cc.m,
            cc.multipliers,
            cc.udot_err,
            request.address if request is not None else 0,
        )
    if status == INTERRUPTED:
        raise ComputationInterruptedError(
            f"realizing Acceleration stage ({cc.m} constraint equations) was interrupted "
            "(interruptStep); the stage is not realized"
        )
    return status


_POSITION_INT, _VELOCITY_INT = int(Stage.Position), int(Stage.Velocity)
_ACCELERATION_INT = int(Stage.Acceleration)

#: Singular values of W below this fraction of the largest are treated as zero
#: (redundant constraints).
_RCOND = 1e-12


@shared_when_copied
@dataclass
class ConstraintLayout:
    """Equation counts and block offsets of every constraint (Instance stage). Never
    changed once stored (each Instance realization stores a new one), so State copies
    share it."""

    mp_i: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    mv_i: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    ma_i: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    pstart: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    vstart: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    astart: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    active: list = field(default_factory=list)
    mp: int = 0
    mv: int = 0
    ma: int = 0
    nquat: int = 0

    @property
    def m(self) -> int:
        return self.mp + self.mv + self.ma

    def rows(self, i: int) -> np.ndarray:
        """Multiplier (udotErr) rows of constraint i: its p, then v, then a equations."""
        p = np.arange(self.pstart[i], self.pstart[i] + self.mp_i[i])
        v = self.mp + np.arange(self.vstart[i], self.vstart[i] + self.mv_i[i])
        a = self.mp + self.mv + np.arange(self.astart[i], self.astart[i] + self.ma_i[i])
        return np.concatenate((p, v, a)).astype(np.int64)


class MatterConstraintsMixin:
    """Constraint bookkeeping, realization pieces and constraint operators."""

    # ------------------------------------------------------------- bookkeeping
    def _constraint_list(self) -> list:
        lst = self.__dict__.get("_constraints")
        if lst is None:
            lst = []
            self.__dict__["_constraints"] = lst
        return lst

    def adoptConstraint(self, constraint) -> int:
        """Add a constraint (called by the Constraint constructors); returns its index."""
        lst = self._constraint_list()
        lst.append(constraint)
        self.invalidateSubsystemTopologyCache()
        return len(lst) - 1

    def getNumConstraints(self) -> int:
        return len(self._constraint_list())

    def getConstraint(self, index: int):
        lst = self._constraint_list()
        i = index_value(index, "the constraint index")
        if not 0 <= i < len(lst):
            raise IndexOutOfRangeError(
                f"there is no constraint {i}; this matter subsystem has {len(lst)}"
            )
        return lst[i]

    updConstraint = getConstraint

    def _constraints_realize_topology(self, state: State) -> None:
        topo = self._topo()
        ix = self._ix.extra
        for c in self._constraint_list():
            c._resolve(topo)
            c._allocate(state)
        defaults = tuple(c.isDisabledByDefault() for c in self._constraint_list())
        ix["constraint_disabled"] = self.allocateDiscreteVariable(
            state, Stage.Instance, defaults, name="constraints disabled"
        )
        ix["constraint_layout"] = self.allocateCacheEntry(
            state, Stage.Instance, ConstraintLayout(), name="constraint layout"
        )

    def setConstraintIsDisabled(self, state: State, constraint, disabled: bool) -> None:
        """Enable or disable a constraint in this State (an Instance-stage change)."""
        i = self._constraint_index(constraint)
        flags = list(self.getDiscreteVariable(state, self._ix.extra["constraint_disabled"]))
        flags[i] = bool(disabled)
        self.setDiscreteVariable(state, self._ix.extra["constraint_disabled"], tuple(flags))

    def isConstraintDisabled(self, state: State, constraint) -> bool:
        i = self._constraint_index(constraint)
        return bool(self.getDiscreteVariable(state, self._ix.extra["constraint_disabled"])[i])

    def _constraint_index(self, constraint) -> int:
        if hasattr(constraint, "getConstraintIndex"):
            if constraint.getMatterSubsystem() is not self:
                raise InvalidArgumentError("the constraint belongs to another matter subsystem")
            return constraint.getConstraintIndex()
        self.getConstraint(constraint)
        return int(constraint)

    def _append_constraint_geometry(self, state: State, stage: Stage, geometry: list) -> None:
        """Default decorations of the enabled constraints (Rod, Ball, Weld draw themselves
        at Position stage) when default geometry is shown."""
        if not self.getShowDefaultGeometry() or stage < Stage.Position:
            return
        if state.getSubsystemStage(self.getMySubsystemIndex()) < Stage.Position:
            return
        lay = self._constraint_layout(state)
        lst = self._constraint_list()
        for i in lay.active:
            lst[i].calcDecorativeGeometryAndAppend(state, Stage(stage), geometry)

    # ---------------------------------------------------------- Instance stage
    def realizeSubsystemInstanceImpl(self, state: State) -> None:
        """Decide the constraint equation layout; allocate qErr, uErr, udotErr."""
        sup = getattr(super(), "realizeSubsystemInstanceImpl", None)
        if sup is not None:
            sup(state)
        self._constraints_realize_instance(state)

    def _constraints_realize_instance(self, state: State) -> None:
        lst = self._constraint_list()
        n = len(lst)
        disabled = self.getDiscreteVariable(state, self._ix.extra["constraint_disabled"])
        lay = ConstraintLayout(
            mp_i=np.zeros(n, dtype=np.int64),
            mv_i=np.zeros(n, dtype=np.int64),
            ma_i=np.zeros(n, dtype=np.int64),
            pstart=np.zeros(n, dtype=np.int64),
            vstart=np.zeros(n, dtype=np.int64),
            astart=np.zeros(n, dtype=np.int64),
        )
        for i, c in enumerate(lst):
            lay.pstart[i], lay.vstart[i], lay.astart[i] = lay.mp, lay.mv, lay.ma
            if disabled[i]:
                continue
            mp, mv, ma = c.getNumEquations()
            lay.mp_i[i], lay.mv_i[i], lay.ma_i[i] = mp, mv, ma
            lay.mp += mp
            lay.mv += mv
            lay.ma += ma
            lay.active.append(i)
        lay.nquat = 0 if self.getUseEulerAngles(state) else len(self._topo().quaternion_pool_order)
        self.allocateQErr(state, lay.mp + lay.nquat)
        self.allocateUErr(state, lay.mp + lay.mv)
        self.allocateUDotErr(state, lay.m)
        sx = self.getMySubsystemIndex()
        state.setCacheEntryValue(sx, self._ix.extra["constraint_layout"], lay)

    def _constraint_layout(self, state: State) -> ConstraintLayout:
        self._require(state, Stage.Instance, "the constraint equation layout")
        return self._instance_info(state).clayout

    def getNumPositionConstraintEquationsInUse(self, state: State) -> int:
        return self._constraint_layout(state).mp

    def getNumVelocityConstraintEquationsInUse(self, state: State) -> int:
        return self._constraint_layout(state).mv

    def getNumAccelerationConstraintEquationsInUse(self, state: State) -> int:
        return self._constraint_layout(state).ma

    # ------------------------------------------------------ equation evaluation
    def _pc_raw(self, state):
        """The position cache without a stage check (callers have checked, or realize)."""
        return state.updCacheEntry(self.getMySubsystemIndex(), self._ix.position)

    def _vc_raw(self, state):
        return state.updCacheEntry(self.getMySubsystemIndex(), self._ix.velocity)

    def _kin(self, state, c, V=None, A=None, u=None, udot=None) -> ConstraintKinematics:
        pc = self._pc_raw(state)
        return ConstraintKinematics(
            c._body_ix,
            c._ancestor,
            pc.R_GB,
            pc.p_GB,
            V,
            A,
            state.getTime(),
            self.getQ(state),
            u,
            udot,
        )

    def _eval_block(self, state, lay, method: str, counts, V=None, A=None, u=None, udot=None):
        total = int(counts.sum())
        out = np.zeros(total)
        pos = 0
        lst = self._constraint_list()
        for i in lay.active:
            n = int(counts[i])
            if n == 0:
                continue
            c = lst[i]
            c._prepare(state)
            out[pos : pos + n] = getattr(c, method)(self._kin(state, c, V, A, u, udot))
            pos += n
        return out

    def _perr_all(self, state, lay):
        return self._eval_block(state, lay, "_perr", lay.mp_i, u=self.getU(state))

    def _pverr_all(self, state, lay, V, u):
        return self._eval_block(state, lay, "_pverr", lay.mp_i, V=V, u=u)

    def _acc_errors_all(self, state, lay, A, udot, holonomic: bool = True):
        """[paerr | vaerr | aerr] for body accelerations A and udot (state velocities)."""
        V = self._vc_raw(state).V_GB
        u = self.getU(state)
        parts = []
        if holonomic:
            parts.append(self._eval_block(state, lay, "_paerr", lay.mp_i, V, A, u, udot))
        parts.append(self._eval_block(state, lay, "_vaerr", lay.mv_i, V, A, u, udot))
        parts.append(self._eval_block(state, lay, "_aerr", lay.ma_i, V, A, u, udot))
        return np.concatenate(parts)

    # -------------------------------------------------------- tree kinematics
    def _J_times(self, state, x) -> np.ndarray:
        topo = self._topo()
        pc = self._pc_raw(state)
        V = np.zeros((topo.nb, 6))
        multiply_by_system_jacobian(
            topo.parent, topo.us, topo.nus, pc.H_G, pc.p_GB, np.ascontiguousarray(x), V
        )
        return V

    def _JT_times(self, state, F) -> np.ndarray:
        topo = self._topo()
        pc = self._pc_raw(state)
        f = np.zeros(topo.nu)
        multiply_by_system_jacobian_transpose(
            topo.parent, topo.us, topo.nus, pc.H_G, pc.p_GB, np.ascontiguousarray(F), f
        )
        return f

    def _body_acc(self, state, udot) -> np.ndarray:
        """A_GB = J udot + JDot u, (nb, 6)."""
        return self._J_times(state, udot) + self._vc_raw(state).total_coriolis

    # ----------------------------------------------------------- realization
    def realizeSubsystemPositionImpl(self, state: State) -> None:
        super().realizeSubsystemPositionImpl(state)
        self._realize_constraints_position(state)

    def realizeSubsystemVelocityImpl(self, state: State) -> None:
        super().realizeSubsystemVelocityImpl(state)
        self._realize_constraints_velocity(state)

    def realizeSubsystemAccelerationImpl(self, state: State) -> None:
        super().realizeSubsystemAccelerationImpl(state)
        self._realize_constraints_acceleration(state)

    def _realize_constraints_position(self, state: State) -> None:
        """qErr = [holonomic position errors | quaternion norm errors] (the quaternion norm
        errors are written by the Position stage itself, after the first lay.mp)."""
        info = self._instance_info(state)
        lay = info.clayout
        if lay.mp:
            cc = compiled_constraints(self, state, info)
            if cc is not None:
                table = self._context(state).table
                position_errors(table.addresses, table.shapes, cc.ci, cc.cf, info.qerr)
                return
            info.qerr[: lay.mp] = self._perr_all(state, lay)

    def _realize_constraints_velocity(self, state: State) -> None:
        """uErr = [d/dt position errors | velocity errors]."""
        sx = self.getMySubsystemIndex()
        info = self._instance_info(state)
        lay = info.clayout
        if lay.mp + lay.mv == 0:
            return
        cc = compiled_constraints(self, state, info)
        if cc is not None:
            table = self._context(state).table
            if velocity_errors(table.addresses, table.shapes, cc.ci, cc.cf, cc.uerr) == OK:
                return
        V = self._vc_raw(state).V_GB
        u = self.getU(state)
        uerr = state.updUErr(sx)
        uerr[: lay.mp] = self._pverr_all(state, lay, V, u)
        uerr[lay.mp :] = self._eval_block(state, lay, "_verr", lay.mv_i, V=V, u=u)

    def _realize_constraints_acceleration(self, state: State) -> None:
        """Correct the unconstrained udot in the State by the constraint forces; store the
        multipliers and udotErr; update A_GB and qdotdot to match."""
        info = self._instance_info(state)
        lay = info.clayout
        if lay.m == 0:
            return
        cc = compiled_constraints(self, state, info)
        if cc is not None and self._compiled_constrained_accelerations(state, cc):
            return
        sx = self.getMySubsystemIndex()
        udot0 = np.array(state.updUDot(sx))
        udot, lam, udot_err = self._solve_constrained_udot(state, lay, udot0)
        state.updUDot(sx)[:] = udot
        state.updMultipliers(sx)[:] = lam
        ac = state.updCacheEntry(sx, self._ix.acceleration)
        ac.A_GB[:] = self._body_acc(state, udot)
        state.updUDotErr(sx)[:] = udot_err
        state.updQDotDot(sx)[:] = self.calcQDotDot(state, udot)

    def _compiled_constrained_accelerations(self, state: State, cc) -> bool:
        """The Acceleration-stage correction by ``constrained_accelerations`` (one kernel
        call) for compiled constraints ``cc``; False (nothing changed) if the kernel
        declined (coincident Rod points, non-finite values: the Python path words it)."""
        ctx = self._context(state)
        with_inertias = not self._abi_current(ctx)
        table = ctx.table
        status = _constrained_accelerations(
            table.addresses, table.shapes, with_inertias, ctx.euler, cc
        )
        if status != OK:
            return False
        if with_inertias:
            self._mark_abi(state, ctx)
        return True

    def _fused_constraint_stages(self, cc, ctx, first: int, last: int) -> bool:
        """The constraint work of stages ``first..last`` (ints, Position..Acceleration)
        after the fused realization's kernel call (which computed the articulated
        inertias if it reached Acceleration), for compiled constraints ``cc``; False if a
        kernel declined (the caller then realizes stage by stage)."""
        a, s = ctx.table.addresses, ctx.table.shapes
        if first <= _POSITION_INT <= last:
            position_errors(a, s, cc.ci, cc.cf, cc.info.qerr)
        if first <= _VELOCITY_INT <= last and velocity_errors(a, s, cc.ci, cc.cf, cc.uerr):
            return False
        if last >= _ACCELERATION_INT:
            status = _constrained_accelerations(a, s, False, ctx.euler, cc)
            return status == OK
        return True

    def _compiled_P(self, state: State) -> np.ndarray | None:
        """P (mp x nu) by the compiled constraints when all enabled constraints are
        compiled (then G = P); None otherwise. The caller has checked Position stage."""
        info = self._instance_info(state)
        cc = compiled_constraints(self, state, info)
        if cc is None:
            return None
        table = self._context(state).table
        P = np.zeros((cc.m, self._topo().nu))
        if constraint_jacobian(table.addresses, table.shapes, cc.ci, cc.cf, cc.m, P) != OK:
            return None
        return P

    def _solve_constrained_udot(self, state: State, lay: ConstraintLayout, udot0: np.ndarray):
        """(udot, lambda, udotErr) from the unconstrained accelerations udot0:
        W lambda = G udot0 + b (least squares, minimum norm), udot = udot0 - M^-1 G^T lambda;
        the acceleration errors G udot + b are then aerr0 - W lambda (zero unless the
        constraints are inconsistent)."""
        aerr0 = self._acc_errors_all(state, lay, self._body_acc(state, udot0), udot0)
        W = self._projected_minv(state, lay)
        lam = _least_squares(W, aerr0)
        udot = udot0 - self.multiplyByMInv(state, self._GT_times(state, lay, lam))
        return udot, lam, aerr0 - W @ lam

    def _calc_constrained_acceleration(self, state: State, f, F):
        """calcAcceleration with constraints: (udot, A_GB (nb, 2, 3))."""
        lay = self._constraint_layout(state)
        udot0, _ = self.calcAccelerationIgnoringConstraints(state, f, F)
        udot, _, _ = self._solve_constrained_udot(state, lay, np.array(udot0))
        nb = self._topo().nb
        return udot, self._body_acc(state, udot).reshape(nb, 2, 3)

    # --------------------------------------------------------------- forces
    def _forces_from_multipliers(self, state, lay, lam, per_constraint: bool = False):
        """Body forces (nb, 6) at Bo in G and mobility forces (nu,) of multipliers lam;
        with per_constraint, also the list of each constraint's (F_k, f_k)."""
        topo = self._topo()
        F = np.zeros((topo.nb, 6))
        f = np.zeros(topo.nu)
        parts = {}
        lst = self._constraint_list()
        for i in lay.active:
            c = lst[i]
            rows = lay.rows(i)
            if rows.size == 0:
                continue
            Fc, fc = self._constraint_forces(state, c, lay, i, lam[rows])
            for k, b in enumerate(c._body_ix):
                F[b] += Fc[k]
            if fc.size:
                np.add.at(f, c._u_ix, fc)
            if per_constraint:
                parts[i] = (Fc, fc)
        return F, f, parts

    def _constraint_forces(self, state, c, lay, i, lam_c, in_ground=True):
        """(F (ncb, 6) at Bo in G, or in the constraint's Ancestor A if not ``in_ground``,
        f (nmob,)) of constraint i for its multipliers lam_c."""
        mp, mv = int(lay.mp_i[i]), int(lay.mv_i[i])
        c._prepare(state)
        kin = self._kin(state, c, u=self.getU(state))
        out = ConstraintForces(kin, len(c._body_ix), len(c._mobilities))
        c._forces(kin, out, lam_c[:mp], lam_c[mp : mp + mv], lam_c[mp + mv :])
        if not in_ground:
            return out.F.copy(), out.f
        R = kin.R_GA
        F = np.empty_like(out.F)
        F[:, 0:3] = out.F[:, 0:3] @ R.T
        F[:, 3:6] = out.F[:, 3:6] @ R.T
        return F, out.f

    def _one_constraint_forces(self, state, c, multipliers, in_ground=False):
        lay = self._constraint_layout(state)
        i = c.getConstraintIndex()
        n = int(lay.mp_i[i] + lay.mv_i[i] + lay.ma_i[i])
        lam = self._vector(multipliers, n, "constraint multipliers")
        ncb = len(c._body_ix)
        if n == 0:
            return np.zeros((ncb, 2, 3)), np.zeros(len(c._mobilities))
        self._require(state, Stage.Position, "calcConstraintForcesFromMultipliers")
        F, f = self._constraint_forces(state, c, lay, i, lam, in_ground)
        return F.reshape(ncb, 2, 3), f

    def _add_constraint_and_motion_forces(self, state: State, body, mobility) -> None:
        """Add the forces the constraints apply (the negative of findConstraintForces) to
        body forces (nb, 6) and mobility forces (nu,), e.g. for the mobilizer reactions."""
        sx = self.getMySubsystemIndex()
        lay = self._constraint_layout(state)
        if lay.m == 0:
            return
        lam = np.array(state.getMultipliers(sx))
        F, f, _ = self._forces_from_multipliers(state, lay, lam)
        body -= F
        mobility -= f

    def _GT_times(self, state, lay, lam) -> np.ndarray:
        F, f, _ = self._forces_from_multipliers(state, lay, lam)
        return self._JT_times(state, F) + f

    # -------------------------------------------------------------- G and W
    def _G_times(self, state, lay, x, bias=None) -> np.ndarray:
        V = self._J_times(state, x)
        gp = self._pverr_all(state, lay, V, x)
        rest = self._acc_errors_all(
            state, lay, V + self._vc_raw(state).total_coriolis, x, holonomic=False
        )
        out = np.concatenate((gp, rest))
        if bias is None:
            bias = self._G_bias(state, lay)
        return out - bias

    def _G_bias(self, state, lay) -> np.ndarray:
        nu = self._topo().nu
        zero = np.zeros(nu)
        V0 = np.zeros((self._topo().nb, 6))
        bp = self._pverr_all(state, lay, V0, zero)
        rest = self._acc_errors_all(
            state, lay, self._vc_raw(state).total_coriolis.copy(), zero, holonomic=False
        )
        return np.concatenate((bp, rest))

    def _projected_minv(self, state, lay) -> np.ndarray:
        m = lay.m
        W = np.zeros((m, m))
        bias = self._G_bias(state, lay)
        for j in range(m):
            e = np.zeros(m)
            e[j] = 1.0
            W[:, j] = self._G_times(
                state, lay, self.multiplyByMInv(state, self._GT_times(state, lay, e)), bias
            )
        return W

    # ----------------------------------------------------------- public operators
    def _checked_layout(self, state, stage: Stage, what: str) -> ConstraintLayout:
        self._require(state, stage, what)
        return self._constraint_layout(state)

    def multiplyByG(self, state: State, ulike, bias=None) -> np.ndarray:
        """G ulike (m,) (Velocity stage); pass the result of calcBiasForMultiplyByG as
        ``bias`` to save its recomputation."""
        lay = self._checked_layout(state, Stage.Velocity, "multiplyByG")
        x = self._vector(ulike, self._topo().nu, "multiplyByG: ulike")
        if bias is not None:
            bias = self._vector(bias, lay.m, "multiplyByG: bias")
        return self._G_times(state, lay, x, bias)

    def calcBiasForMultiplyByG(self, state: State) -> np.ndarray:
        """[pverr at u = 0 | vaerr, aerr at udot = 0] (Velocity stage)."""
        lay = self._checked_layout(state, Stage.Velocity, "calcBiasForMultiplyByG")
        return self._G_bias(state, lay)

    def calcG(self, state: State) -> np.ndarray:
        """The m x nu constraint Jacobian G = [P; V; A] (Velocity stage)."""
        lay = self._checked_layout(state, Stage.Velocity, "calcG")
        nu = self._topo().nu
        bias = self._G_bias(state, lay)
        G = np.zeros((lay.m, nu))
        for j in range(nu):
            e = np.zeros(nu)
            e[j] = 1.0
            G[:, j] = self._G_times(state, lay, e, bias)
        return G

    def multiplyByGTranspose(self, state: State, lam) -> np.ndarray:
        """G^T lambda (nu,) by the constraints' force methods (Velocity stage)."""
        lay = self._checked_layout(state, Stage.Position, "multiplyByGTranspose")
        if lay.mv + lay.ma:
            self._require(state, Stage.Velocity, "multiplyByGTranspose")
        lam = self._vector(lam, lay.m, "multiplyByGTranspose: lam")
        return self._GT_times(state, lay, lam)

    def calcGTranspose(self, state: State) -> np.ndarray:
        """G^T (nu x m), column by column from the force methods."""
        lay = self._checked_layout(state, Stage.Position, "calcGTranspose")
        cols = [self.multiplyByGTranspose(state, e) for e in np.eye(lay.m)]
        return np.column_stack(cols) if cols else np.zeros((self._topo().nu, 0))

    def calcBiasForAccelerationConstraints(self, state: State) -> np.ndarray:
        """b = [paerr | vaerr | aerr] at udot = 0 (Velocity stage)."""
        lay = self._checked_layout(state, Stage.Velocity, "calcBiasForAccelerationConstraints")
        zero = np.zeros(self._topo().nu)
        return self._acc_errors_all(state, lay, self._body_acc(state, zero), zero)

    def calcConstraintAccelerationErrors(self, state: State, knownUDot) -> np.ndarray:
        """G udot + b (m,) for the given udot (empty = zeros) (Velocity stage)."""
        lay = self._checked_layout(state, Stage.Velocity, "calcConstraintAccelerationErrors")
        nu = self._topo().nu
        udot = vector(knownUDot, nu, "calcConstraintAccelerationErrors: knownUDot", True)
        return self._acc_errors_all(state, lay, self._body_acc(state, udot), udot)

    def _Pq_times(self, state, lay, qlike, biasp=None):
        u = self.multiplyByNInv(state, False, qlike)
        out = self._pverr_all(state, lay, self._J_times(state, u), u)
        if biasp is None:
            biasp = self._Pq_bias(state, lay)
        return out - biasp

    def _Pq_bias(self, state, lay):
        topo = self._topo()
        return self._pverr_all(state, lay, np.zeros((topo.nb, 6)), np.zeros(topo.nu))

    def multiplyByPq(self, state: State, qlike, biasp=None) -> np.ndarray:
        """Pq qlike (mp,) with Pq = P N^-1 (Position stage)."""
        lay = self._checked_layout(state, Stage.Position, "multiplyByPq")
        x = self._vector(qlike, self._topo().nq, "multiplyByPq: qlike")
        if biasp is not None:
            biasp = self._vector(biasp, lay.mp, "multiplyByPq: biasp")
        return self._Pq_times(state, lay, x, biasp)

    def calcBiasForMultiplyByPq(self, state: State) -> np.ndarray:
        """Pt = pverr at qdot = 0 (Position stage)."""
        lay = self._checked_layout(state, Stage.Position, "calcBiasForMultiplyByPq")
        return self._Pq_bias(state, lay)

    def calcPq(self, state: State) -> np.ndarray:
        """Pq = dperr/dq (mp x nq) (Position stage)."""
        lay = self._checked_layout(state, Stage.Position, "calcPq")
        P = self._compiled_P(state)
        if P is not None:  # Pq = P N^-1, row by row: (N^-T P[i]^T)^T
            return np.array([self.multiplyByNInv(state, True, row) for row in P]).reshape(
                lay.mp, self._topo().nq
            )
        nq = self._topo().nq
        bias = self._Pq_bias(state, lay)
        Pq = np.zeros((lay.mp, nq))
        for j in range(nq):
            e = np.zeros(nq)
            e[j] = 1.0
            Pq[:, j] = self._Pq_times(state, lay, e, bias)
        return Pq

    def calcPqTranspose(self, state: State) -> np.ndarray:
        return self.calcPq(state).T.copy()

    def multiplyByPqTranspose(self, state: State, lambdap) -> np.ndarray:
        """Pq^T lambdap = N^-T P^T lambdap (nq,) (Position stage)."""
        lay = self._checked_layout(state, Stage.Position, "multiplyByPqTranspose")
        lp = self._vector(lambdap, lay.mp, "multiplyByPqTranspose: lambdap")
        return self.multiplyByNInv(state, True, self._PT_times(state, lay, lp))

    def _PT_times(self, state, lay, lp) -> np.ndarray:
        lam = np.zeros(lay.m)
        lam[: lay.mp] = lp
        return self._GT_times(state, lay, lam)

    def calcP(self, state: State) -> np.ndarray:
        """P = d(pverr)/du (mp x nu) (Position stage)."""
        lay = self._checked_layout(state, Stage.Position, "calcP")
        P = self._compiled_P(state)
        if P is not None:
            return P
        topo = self._topo()
        bias = self._Pq_bias(state, lay)
        P = np.zeros((lay.mp, topo.nu))
        for j in range(topo.nu):
            e = np.zeros(topo.nu)
            e[j] = 1.0
            P[:, j] = self._pverr_all(state, lay, self._J_times(state, e), e) - bias
        return P

    def calcPt(self, state: State) -> np.ndarray:
        return self.calcP(state).T.copy()

    def calcProjectedMInv(self, state: State) -> np.ndarray:
        """W = G M^-1 G^T (m x m) from m applications of the O(n) operators (Velocity)."""
        lay = self._checked_layout(state, Stage.Velocity, "calcProjectedMInv")
        return self._projected_minv(state, lay)

    def solveForConstraintImpulses(self, state: State, deltaV) -> np.ndarray:
        """The impulses with W impulse = deltaV (least squares, minimum norm)."""
        lay = self._checked_layout(state, Stage.Velocity, "solveForConstraintImpulses")
        dv = self._vector(deltaV, lay.m, "solveForConstraintImpulses: deltaV")
        return _least_squares(self._projected_minv(state, lay), dv)

    def getConstraintMultipliers(self, state: State) -> np.ndarray:
        """The multipliers lambda of the last Acceleration realization."""
        self._require(state, Stage.Acceleration, "getConstraintMultipliers")
        return state.getMultipliers(self.getMySubsystemIndex())

    def calcConstraintForcesFromMultipliers(self, state: State, multipliers):
        """(body forces (nb, 2, 3) at Bo in G, mobility forces (nu,)) with
        J^T F + f = G^T lambda (the force the constraints apply is the negative)."""
        lay = self._checked_layout(state, Stage.Position, "calcConstraintForcesFromMultipliers")
        if lay.mv + lay.ma:
            self._require(state, Stage.Velocity, "calcConstraintForcesFromMultipliers")
        lam = self._vector(multipliers, lay.m, "calcConstraintForcesFromMultipliers: multipliers")
        F, f, _ = self._forces_from_multipliers(state, lay, lam)
        return F.reshape(-1, 2, 3), f

    def findConstraintForces(self, state: State):
        """Forces of the current multipliers (Acceleration stage), as
        calcConstraintForcesFromMultipliers."""
        lam = np.array(self.getConstraintMultipliers(state))
        return self.calcConstraintForcesFromMultipliers(state, lam)

    def calcConstraintPower(self, state: State) -> float:
        """-(F . V + f . u): power of all constraint forces (Acceleration stage)."""
        F, f = self.findConstraintForces(state)
        V = self._vc_raw(state).V_GB
        return -float(np.sum(F.reshape(-1, 6) * V) + f @ self.getU(state))


def _least_squares(W: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Minimum-norm least-squares solution of W x = rhs (W symmetric semidefinite)."""
    if W.size == 0:
        return np.zeros(0)
    if not (np.all(np.isfinite(W)) and np.all(np.isfinite(rhs))):
        # LAPACK's SVD may never return on NaN or infinity
        raise NonPhysicalError(
            "constraint forces: the constraint matrix or its right-hand side is not finite "
            "(NaN or infinity); the State has diverged or holds non-finite values"
        )
    U, s, Vt = interruptible_linalg.svd(W)
    keep = s > _RCOND * s[0] if s[0] > 0 else np.zeros_like(s, dtype=bool)
    y = (U.T @ rhs)[keep] / s[keep]
    return Vt[keep].T @ y
