"""Projection of q and u onto the constraint manifolds (SimbodyMatterSubsystem hooks).

``projectQImpl`` (called by ``System.projectQ``/``project``) first normalizes the
quaternions, then moves q onto the holonomic constraints ``perr(q) = 0`` by
Gauss-Newton steps that are least-squares changes in the weighted norms of the spec:
with ``Tp`` = the State's QErrWeights (1/unit error) and ``Wq`` the q weights (the
UWeights of each q's mobility), each step solves ``min |Wq dq|`` subject to
``Tp Pq dq = -Tp perr`` (minimum-norm pseudo-inverse, so redundant constraints are
fine). ``projectUImpl`` does the same, in one linear step, for
``uErr = [P; V] u + c = 0`` in the UWeights and UErrWeights norms. Prescribed q and u
(Motions, locks) are not moved: their columns are left out of the solves.

Error-estimate forms: the constraint-normal part of the matter's slice of
``qErrEst``/``uErrEst`` (in the same weighted norms) is removed in place.

Convergence is judged on the weighted RMS norm (or the infinity norm with
``ProjectOptions.UseInfinityNorm``) of the errors against the required accuracy; a
projection aims at accuracy * overshootFactor. A failure sets the ProjectResults
status and a message naming the worst constraint and its error (System turns it into
a ProjectionFailedError unless DontThrow is set).
"""

from __future__ import annotations

import threading

import numpy as np

from engine.common import interruptible_linalg
from engine.common.exceptions import ComputationInterruptedError, ProjectionFailedError
from engine.common.project_options import ProjectOptions, ProjectResults
from engine.common.stage import Stage
from engine.common.state import State
from engine.multibody.kernels.constraint_projection import INTERRUPTED, min_norm_solve
from engine.multibody.kernels.interrupt_request import (
    InterruptRequest,
    current_request,
    stop_if_interrupted,
)
from engine.multibody.kernels.pivoted_cholesky import LARGE_M
from engine.multibody.kernels.quaternion_projection import (
    normalize_quaternions,
    quaternions_to_normalize,
    remove_quaternion_norm_errors,
)

_MAX_Q_ITERATIONS = 50
_MAX_HALVINGS = 12
_RCOND = 1e-12


def _norm(x: np.ndarray, infinity: bool) -> float:
    if x.size == 0:
        return 0.0
    return float(np.max(np.abs(x))) if infinity else float(np.sqrt(np.mean(x * x)))


def _large_min_norm_solve(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``_min_norm_solve`` for more than LARGE_M rows: the compiled
    ``constraint_projection.min_norm_solve`` (Gram matrix, pivoted Cholesky), which looks
    at this thread's watched InterruptRequest in its loops; in the main thread it runs in
    a helper thread so that a signal handler (Ctrl-C) runs meanwhile and stops it."""
    A = np.ascontiguousarray(A, dtype=np.float64)
    b = np.ascontiguousarray(b, dtype=np.float64)
    x = np.empty(A.shape[1])
    request = current_request()
    if threading.current_thread() is threading.main_thread():
        if request is None:
            request = InterruptRequest()
        was_set = request.is_set()
        call = interruptible_linalg.run_stoppably(
            min_norm_solve, (A, b, x, request.address), request.set
        )
        if call.interruption is not None:
            if not was_set:
                request.clear()  # the signal's request, not a caller's
            raise call.interruption
        status = call.value
    else:
        status = min_norm_solve(A, b, x, request.address if request is not None else 0)
    if status == INTERRUPTED:
        raise ComputationInterruptedError(
            f"a projection's minimum-norm solve ({A.shape[0]} constraint equations) was "
            "interrupted (interruptStep)"
        )
    return x


def _min_norm_solve(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Minimum-norm least-squares x for A x = b: an SVD dropping singular values at or
    below _RCOND times the largest up to LARGE_M rows, the compiled pivoted-Cholesky
    solve of the Gram matrix (its documented cut-off) beyond. Raises
    ComputationInterruptedError if this thread's watched InterruptRequest is set."""
    if not (np.all(np.isfinite(A)) and np.all(np.isfinite(b))):
        # LAPACK's SVD may never return on NaN or infinity
        raise ProjectionFailedError(
            "projection: the constraint Jacobian or errors are not finite (NaN or infinity); "
            "the State has diverged"
        )
    stop_if_interrupted("a projection")
    if A.shape[0] > LARGE_M:
        return _large_min_norm_solve(A, b)
    U, s, Vt = interruptible_linalg.svd(A, full_matrices=False)
    if s.size == 0 or s[0] == 0.0:
        return np.zeros(A.shape[1])
    keep = s > _RCOND * s[0]
    return Vt[keep].T @ ((U.T @ b)[keep] / s[keep])


def _remove_row_space(A: np.ndarray, x: np.ndarray) -> np.ndarray:
    """x minus its projection on the row space of A."""
    return x - _min_norm_solve(A, A @ x) if A.size else x


class MatterProjectionMixin:
    """projectQImpl / projectUImpl for the matter subsystem."""

    # -------------------------------------------------------------- weights
    def _q_weights(self, state: State) -> np.ndarray:
        """Weight of each q: the UWeight of its mobility (largest rotational u weight for
        the 4 quaternion slots)."""
        topo = self._topo()
        wu = state.getUWeights(self.getMySubsystemIndex())
        wq = np.ones(topo.nq)
        euler = self.getUseEulerAngles(state)
        for b in range(1, topo.nb):
            qs, nq, us, nu = int(topo.qs[b]), int(topo.nqs[b]), int(topo.us[b]), int(topo.nus[b])
            if nu == 0:
                continue
            w = wu[us : us + nu]
            if topo.uses_quaternion[b] and not euler:
                nrot = 3 if nu >= 3 else nu
                wq[qs : qs + 4] = np.max(w[:nrot])
                wq[qs + 4 : qs + nq] = w[nrot:] if nq - 4 == nu - nrot else 1.0
            elif nq == nu:
                wq[qs : qs + nq] = w
            else:
                wq[qs : qs + nq] = np.max(w)
        wq[wq <= 0] = 1.0
        return wq

    def _worst(self, lay, errs: np.ndarray, level: str) -> str:
        """'constraint i (Type) has error e' for the largest weighted error entry."""
        k = int(np.argmax(np.abs(errs)))
        lst = self._constraint_list()
        for i in lay.active:
            blocks = [(int(lay.pstart[i]), int(lay.mp_i[i]))]
            if level == "v":
                blocks.append((lay.mp + int(lay.vstart[i]), int(lay.mv_i[i])))
            for start, n in blocks:
                if start <= k < start + n:
                    c = lst[i]
                    return (
                        f"Constraint.{c.TYPE_NAME} {i} (equation {k - start}) has weighted "
                        f"error {errs[k]:.6g}"
                    )
        return f"equation {k} has weighted error {errs[k]:.6g}"

    def _prescribed_q_columns(self, state: State) -> np.ndarray:
        """Matter q indices set by prescribeQ (Motions, locks): projection leaves them."""
        layout = getattr(self, "_prescribed_layout", None)
        return layout(state).known_q if layout is not None else np.zeros(0, dtype=np.int64)

    def _prescribed_u_columns(self, state: State) -> np.ndarray:
        """Matter u indices set by prescribeU: projection leaves them."""
        layout = getattr(self, "_prescribed_layout", None)
        return layout(state).known_u if layout is not None else np.zeros(0, dtype=np.int64)

    # ------------------------------------------------------------- position
    def _normalize_quaternions_in_place(self, state: State, tol: float, force: bool) -> bool:
        self._require(state, Stage.Model, "normalizing quaternions")
        ctx = self._context(state)
        starts = ctx.quat_starts  # (empty in Euler-angle mode)
        if not starts.shape[0]:
            return False
        status = quaternions_to_normalize(ctx.q, starts, float(tol), bool(force))
        if status < 0:
            from engine.common.exceptions import NonPhysicalError

            b = self._topo().quaternion_pool_order[-status - 1]
            raise NonPhysicalError(
                f"the quaternion of mobilized body {b} is zero; it cannot be normalized"
            )
        if status == 0:
            return False
        self.updQ(state)  # invalidates Position (ctx.q is a view of the same q)
        normalize_quaternions(ctx.q, starts, float(tol), bool(force))
        return True

    def projectQImpl(self, state: State, qErrEst, options, results) -> None:
        sx = self.getMySubsystemIndex()
        lay = self._constraint_layout(state)
        infinity = options.isOptionSet(ProjectOptions.UseInfinityNorm)
        force = options.isOptionSet(ProjectOptions.ForceProjection)
        accuracy = options.getRequiredAccuracy()
        target = accuracy * options.getOvershootFactor()
        changed = self._normalize_quaternions_in_place(state, target, force)
        if changed:
            self.getSystem().realize(state, Stage.Position)
        iterations = 0
        if lay.mp:
            tp = np.array(state.getQErrWeights(sx)[: lay.mp])
            wq = self._q_weights(state)
            errs = tp * np.array(state.getQErr(sx)[: lay.mp])
            norm0 = norm = _norm(errs, infinity)
            if norm > accuracy or (force and norm > 0.0):
                if options.isOptionSet(ProjectOptions.LocalOnly) and (
                    norm > options.getProjectionLimit()
                ):
                    results.setProjectionLimitExceeded(True)
                    self._fail(
                        results,
                        ProjectResults.FailedToConverge,
                        f"projectQ: the position error norm {norm:.6g} is beyond the projection "
                        f"limit {options.getProjectionLimit():g} of a local projection; "
                        + self._worst(lay, errs, "p"),
                    )
                    return
                while norm > target and iterations < _MAX_Q_ITERATIONS:
                    stop_if_interrupted("projectQ")
                    A = (tp[:, None] * self.calcPq(state)) / wq[None, :]
                    A[:, self._prescribed_q_columns(state)] = 0.0  # prescribed q stay put
                    dq = -_min_norm_solve(A, errs) / wq
                    q0 = np.array(self.getQ(state))
                    iterations += 1
                    # Gauss-Newton step, halved until the weighted error decreases.
                    for _ in range(_MAX_HALVINGS):
                        self.updQ(state)[:] = q0 + dq
                        self._normalize_quaternions_in_place(state, 0.0, True)
                        self.getSystem().realize(state, Stage.Position)
                        new_errs = tp * np.array(state.getQErr(sx)[: lay.mp])
                        new_norm = _norm(new_errs, infinity)
                        if new_norm < norm:
                            break
                        dq = 0.5 * dq
                    changed = True
                    if not new_norm < norm:  # no descent: give up, keep the better q
                        self.updQ(state)[:] = q0
                        self.getSystem().realize(state, Stage.Position)
                        break
                    errs, norm = new_errs, new_norm
                if norm > accuracy:
                    self._fail(
                        results,
                        ProjectResults.FailedToConverge,
                        f"projectQ could not satisfy the position constraints to accuracy "
                        f"{accuracy:g} (weighted error norm {norm0:.6g} -> {norm:.6g} after "
                        f"{iterations} iterations): " + self._worst(lay, errs, "p"),
                    )
                    results.setAnyChangeMade(changed)
                    return
        if np.size(qErrEst):
            self._project_q_error_estimate(state, lay, qErrEst)
        results.setAnyChangeMade(results.getAnyChangeMade() or changed)
        results.setNumIterations(results.getNumIterations() + iterations)
        results.setExitStatus(ProjectResults.Succeeded)

    def _project_q_error_estimate(self, state: State, lay, qErrEst) -> None:
        sx = self.getMySubsystemIndex()
        start, nq = state.getQStart(sx), self._topo().nq
        est = qErrEst[start : start + nq]
        ctx = self._context(state)
        starts = ctx.quat_starts  # (empty in Euler-angle mode)
        if starts.shape[0]:
            work = est
            if not est.flags.c_contiguous or est.dtype != np.float64:
                work = np.array(est, dtype=np.float64)
            remove_quaternion_norm_errors(ctx.q, starts, work)
            if work is not est:
                est[:] = work
        if lay.mp:
            tp = np.array(state.getQErrWeights(sx)[: lay.mp])
            wq = self._q_weights(state)
            A = (tp[:, None] * self.calcPq(state)) / wq[None, :]
            A[:, self._prescribed_q_columns(state)] = 0.0
            est[:] = _remove_row_space(A, wq * est) / wq

    # ------------------------------------------------------------- velocity
    def _pv_matrix(self, state: State, lay) -> np.ndarray:
        """[P; V] (mp + mv) x nu: d(uErr)/du."""
        P = self._compiled_P(state)
        if P is not None:  # (all compiled constraints are holonomic: mv = 0)
            return P
        nu = self._topo().nu
        u0 = np.zeros(nu)
        V0 = np.zeros((self._topo().nb, 6))
        bias_p = self._pverr_all(state, lay, V0, u0)
        bias_v = self._eval_block(state, lay, "_verr", lay.mv_i, V=V0, u=u0)
        M = np.zeros((lay.mp + lay.mv, nu))
        for j in range(nu):
            e = np.zeros(nu)
            e[j] = 1.0
            V = self._J_times(state, e)
            M[: lay.mp, j] = self._pverr_all(state, lay, V, e) - bias_p
            M[lay.mp :, j] = self._eval_block(state, lay, "_verr", lay.mv_i, V=V, u=e) - bias_v
        return M

    def projectUImpl(self, state: State, uErrEst, options, results) -> None:
        sx = self.getMySubsystemIndex()
        lay = self._constraint_layout(state)
        n = lay.mp + lay.mv
        changed = False
        if n:
            infinity = options.isOptionSet(ProjectOptions.UseInfinityNorm)
            force = options.isOptionSet(ProjectOptions.ForceProjection)
            accuracy = options.getRequiredAccuracy()
            target = accuracy * options.getOvershootFactor()
            tpv = np.array(state.getUErrWeights(sx))
            wu = np.array(state.getUWeights(sx))
            wu[wu <= 0] = 1.0
            errs = tpv * np.array(state.getUErr(sx))
            norm0 = norm = _norm(errs, infinity)
            if norm > accuracy or (force and norm > 0.0):
                A = (tpv[:, None] * self._pv_matrix(state, lay)) / wu[None, :]
                A[:, self._prescribed_u_columns(state)] = 0.0  # prescribed u stay put
                for _ in range(3):
                    du = -_min_norm_solve(A, errs) / wu
                    self.updU(state)[:] += du
                    self.getSystem().realize(state, Stage.Velocity)
                    changed = True
                    errs = tpv * np.array(state.getUErr(sx))
                    norm = _norm(errs, infinity)
                    if norm <= target:
                        break
                if norm > accuracy:
                    self._fail(
                        results,
                        ProjectResults.FailedToAchieveAccuracy,
                        f"projectU could not satisfy the velocity constraints to accuracy "
                        f"{accuracy:g} (weighted error norm {norm0:.6g} -> {norm:.6g}): "
                        + self._worst(lay, errs, "v"),
                    )
                    results.setAnyChangeMade(changed)
                    return
            if np.size(uErrEst):
                start, nu = state.getUStart(sx), self._topo().nu
                est = uErrEst[start : start + nu]
                A = (tpv[:, None] * self._pv_matrix(state, lay)) / wu[None, :]
                A[:, self._prescribed_u_columns(state)] = 0.0
                est[:] = _remove_row_space(A, wu * est) / wu
        results.setAnyChangeMade(results.getAnyChangeMade() or changed)
        results.setExitStatus(ProjectResults.Succeeded)

    @staticmethod
    def _fail(results, status, message: str) -> None:
        results.setExitStatus(status)
        results.setMessage(message)
