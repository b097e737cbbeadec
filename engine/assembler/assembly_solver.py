"""The numerical method behind :class:`~engine.assembler.Assembler`.

Variables x = the free q. Requirements r(x) = 0 (stacked errors of every weight-Infinity
condition), goal f(x) = sum_i w_i goal_i(x).

1. Restoration: Gauss-Newton with minimum-norm steps (least squares, so redundant
   requirements are fine) and a backtracking line search on |r|^2, Levenberg-Marquardt
   if that stalls. Minimum-norm steps keep the result near the starting pose.
2. If there are goals: a reduced-space Newton method on the requirement manifold
   (generalized reduced gradient). At a feasible x: Z = null space of dr/dx, least-squares
   multipliers lambda, reduced gradient Z^T grad f, reduced Hessian Z^T H Z. H is the
   Gauss-Newton matrix 2 J^T C J while every goal is a weighted sum of squares of its
   errors (QValue, Markers, ...) and that converges fast; otherwise (or once it is slow:
   large residuals) the Lagrangian's Hessian by finite differences of its gradient.
   The step Z dz (Hessian eigenvalues made positive, directions without curvature left
   alone, step capped) is followed by restoration and an Armijo
   backtracking line search on f. Stops when the step is below accuracy/100 (relative to
   |x|, at least 1) or when f can no longer be decreased (stationary to roundoff).

Derivatives come from each condition's calcErrorJacobian / calcGoalGradient, or, where a
condition answers "not implemented", from central differences of calcErrors / calcGoal.
Quaternions are renormalized after every change of q; their radial directions are taken
out of the search space.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from engine.assembler.assembly_condition import normalize_result
from engine.common import interruptible_linalg
from engine.common.exceptions import AssembleFailedError, InvalidArgumentError
from engine.common.stage import Stage
from engine.multibody.kernels.interrupt_request import stop_if_interrupted

if TYPE_CHECKING:
    from engine.assembler.assembler import Assembler

FD_STEP = 1e-6  # relative step of the central differences of errors / goals
HESSIAN_STEP = 1e-5  # relative step of the forward differences of the gradient
MAX_STEP = 1.0  # largest change of any free q in one optimization step (q units)


class AssemblySolver:
    """One solve (or evaluation) on the Assembler's internal State."""

    def __init__(self, asm: Assembler) -> None:
        self.asm = asm
        self.system = asm.getMultibodySystem()
        self.matter = asm.getMatterSubsystem()
        self.state = asm.getInternalState()
        self.free = asm._free_q
        self.lower = asm._lower
        self.upper = asm._upper
        self.requirements = asm._requirement_indices()
        self.goals = asm._goal_indices()
        self.tol = asm.getErrorToleranceInUse()
        self.accuracy = asm.getAccuracyInUse()
        self.n = int(self.free.size)
        self._quat = self._quaternion_blocks()

    # ------------------------------------------------------------ variables
    def _quaternion_blocks(self) -> list[tuple[int, np.ndarray]]:
        """(q start, free indices of its 4 slots or -1) for every quaternion in use
        with at least one free slot."""
        s = self.state
        if self.matter.getNumQuaternionsInUse(s) == 0:
            return []
        topo = self.matter._topo(s)
        free_of_q = self.asm._free_of_q
        blocks = []
        for b in topo.quaternion_pool_order:
            start = int(topo.qs[b])
            fx = free_of_q[start : start + 4]
            if np.any(fx >= 0):
                blocks.append((start, fx.copy()))
        return blocks

    def get_x(self) -> np.ndarray:
        return np.array(self.matter.getQ(self.state))[self.free]

    def set_x(self, x: np.ndarray, clip: bool = True) -> np.ndarray:
        """Write x into the State (clipped to restrictQ bounds, quaternions normalized)
        and return the values actually stored."""
        if clip:
            x = np.clip(x, self.lower, self.upper)
        q = self.matter.updQ(self.state)
        q[self.free] = x
        for start, _ in self._quat:
            norm = math.sqrt(float(q[start : start + 4] @ q[start : start + 4]))
            if norm > 1e-12:
                q[start : start + 4] /= norm
        return np.array(q[self.free])

    def _realize(self) -> None:
        self.system.realize(self.state, Stage.Position)

    def _radial_rows(self) -> np.ndarray:
        """One row per free quaternion: its radial direction in free-q space."""
        rows = []
        q = self.matter.getQ(self.state)
        for start, fx in self._quat:
            row = np.zeros(self.n)
            for k in range(4):
                if fx[k] >= 0:
                    row[fx[k]] = q[start + k]
            nrm = np.linalg.norm(row)
            if nrm > 0:
                rows.append(row / nrm)
        return np.array(rows).reshape(len(rows), self.n)

    # ---------------------------------------------------------- evaluations
    def _cond(self, cx: int):
        return self.asm._conditions[cx]

    def _call(self, cx: int, method: str):
        cond = self._cond(cx)
        result = getattr(cond, method)(self.state)
        status, value = normalize_result(result, f"{cond.getName()}.{method}")
        if status > 0:
            raise AssembleFailedError(
                f"Assembler: assembly condition {cx} '{cond.getName()}' could not evaluate "
                f"{method} at the current q (status {status})"
            )
        return status, value

    def _errors_of(self, cx: int) -> np.ndarray:
        status, err = self._call(cx, "calcErrors")
        if status != 0:
            raise InvalidArgumentError(
                f"assembly condition {cx} '{self._cond(cx).getName()}' has no calcErrors(); "
                "it can only be a goal"
            )
        err = np.asarray(err, dtype=np.float64).reshape(-1)
        if not np.all(np.isfinite(err)):
            raise AssembleFailedError(
                f"Assembler: assembly condition {cx} '{self._cond(cx).getName()}' returned "
                f"non-finite errors {err.tolist()}"
            )
        return err

    def _goal_of(self, cx: int) -> float:
        status, goal = self._call(cx, "calcGoal")
        if status != 0:
            raise InvalidArgumentError(
                f"assembly condition {cx} '{self._cond(cx).getName()}' implements neither "
                "calcGoal() nor calcErrors(), so it cannot be a goal"
            )
        goal = float(goal)
        if not math.isfinite(goal):
            raise AssembleFailedError(
                f"Assembler: assembly condition {cx} '{self._cond(cx).getName()}' returned a "
                f"non-finite goal {goal}"
            )
        return goal

    def errors(self, conditions=None) -> np.ndarray:
        """Stacked errors of the requirement conditions at the State's q."""
        self._realize()
        self.asm._num_error_evals += 1
        conds = self.requirements if conditions is None else conditions
        parts = [self._errors_of(cx) for cx in conds]
        return np.concatenate(parts) if parts else np.zeros(0)

    def goal(self) -> float:
        self._realize()
        self.asm._num_goal_evals += 1
        return sum(self.asm._weights[cx] * self._goal_of(cx) for cx in self.goals)

    def norm(self, err: np.ndarray) -> float:
        if err.size == 0:
            return 0.0
        if self.asm._use_rms:
            return float(np.sqrt(err @ err / err.size))
        return float(np.max(np.abs(err)))

    def current_goal(self) -> float:
        return self.goal()

    def current_errors(self) -> np.ndarray:
        return self.errors()

    # ----------------------------------------------------------- derivatives
    def _fd(self, x: np.ndarray, fun) -> np.ndarray:
        """Central-difference derivative columns of fun() (vector) w.r.t. the free q."""
        cols = []
        for j in range(self.n):
            stop_if_interrupted("assembly")
            h = FD_STEP * max(1.0, abs(x[j]))
            xp = x.copy()
            xp[j] += h
            self.set_x(xp, clip=False)
            fp = fun()
            xm = x.copy()
            xm[j] -= h
            self.set_x(xm, clip=False)
            fm = fun()
            cols.append((fp - fm) / (2 * h))
        self.set_x(x, clip=False)
        self._realize()
        return np.array(cols).T

    def jacobian(self, x: np.ndarray, conditions=None) -> np.ndarray:
        """d err / d x (m x n) at x of the requirements (or of ``conditions``); the State
        holds x on return."""
        conds = self.requirements if conditions is None else conditions
        self.asm._num_error_jacobian_evals += 1
        self.set_x(x, clip=False)
        self._realize()
        blocks: dict[int, np.ndarray] = {}
        numeric = []
        for cx in conds:
            if self.asm._force_numerical_jacobian:
                numeric.append(cx)
                continue
            status, J = self._call(cx, "calcErrorJacobian")
            if status != 0:
                numeric.append(cx)
                continue
            J = np.asarray(J, dtype=np.float64)
            m = self._errors_of(cx).size
            if J.shape != (m, self.n):
                raise InvalidArgumentError(
                    f"assembly condition {cx} '{self._cond(cx).getName()}': calcErrorJacobian "
                    f"returned shape {J.shape}, expected ({m}, {self.n}) (errors x free q)"
                )
            blocks[cx] = J
        if numeric:
            sizes = [self._errors_of(cx).size for cx in numeric]
            Jn = self._fd(x, lambda: self.errors(numeric)).reshape(sum(sizes), self.n)
            start = 0
            for cx, m in zip(numeric, sizes, strict=True):
                blocks[cx] = Jn[start : start + m]
                start += m
        rows = [blocks[cx] for cx in conds]
        return np.vstack(rows) if rows else np.zeros((0, self.n))

    def gauss_newton_weights(self) -> np.ndarray | None:
        """c with f = sum_j c_j e_j^2 over the stacked errors of the goals, if every goal
        has that least-squares form (else None)."""
        parts = []
        for cx in self.goals:
            c = self._cond(cx)._goal_error_weights(self.state)
            if c is None:
                return None
            parts.append(self.asm._weights[cx] * np.asarray(c, dtype=np.float64).reshape(-1))
        return np.concatenate(parts) if parts else np.zeros(0)

    def gradient(self, x: np.ndarray) -> np.ndarray:
        """d f / d x at x (the State holds x on return)."""
        self.asm._num_goal_gradient_evals += 1
        self.set_x(x, clip=False)
        self._realize()
        g = np.zeros(self.n)
        numeric = []
        for cx in self.goals:
            w = self.asm._weights[cx]
            if self.asm._force_numerical_gradient:
                numeric.append(cx)
                continue
            status, gi = self._call(cx, "calcGoalGradient")
            if status != 0:
                numeric.append(cx)
                continue
            gi = np.asarray(gi, dtype=np.float64).reshape(-1)
            if gi.size != self.n:
                raise InvalidArgumentError(
                    f"assembly condition {cx} '{self._cond(cx).getName()}': calcGoalGradient "
                    f"returned {gi.size} values, expected {self.n} (one per free q)"
                )
            g += w * gi
        if numeric:

            def partial_goal() -> np.ndarray:
                self._realize()
                self.asm._num_goal_evals += 1
                return np.array([sum(self.asm._weights[cx] * self._goal_of(cx) for cx in numeric)])

            g += self._fd(x, partial_goal).reshape(self.n)
        return g

    # ----------------------------------------------------------- restoration
    def restore(self, x: np.ndarray, max_iterations: int = 50):
        """Newton on r(x) = 0 from x; returns (x, r, success). The State holds x."""
        x = self.set_x(x)
        r = self.errors()
        if r.size == 0:
            return x, r, True
        target = 0.01 * self.tol
        for _ in range(max_iterations):
            stop_if_interrupted("assembly")
            if self.norm(r) <= target or self.norm(r) == 0.0:
                break
            A = self.jacobian(x)
            moved = False
            r2 = float(r @ r)
            for dx in self._restoration_steps(A, r):
                alpha = 1.0
                while alpha >= 1.0 / 64:
                    xt = self.set_x(x + alpha * dx)
                    rt = self.errors()
                    if float(rt @ rt) < r2 * (1.0 - 1e-4 * alpha):
                        moved = True
                        break
                    alpha *= 0.5
                if moved:
                    break
            if not moved:
                break
            x, r = xt, rt
        x = self.set_x(x)
        r = self.errors()
        return x, r, self.norm(r) <= self.tol

    def _restoration_steps(self, A: np.ndarray, r: np.ndarray):
        """Minimum-norm Gauss-Newton step, then Levenberg-Marquardt steps of increasing
        damping."""
        if not (np.all(np.isfinite(A)) and np.all(np.isfinite(r))):
            # LAPACK's least squares may never return on NaN or infinity
            raise AssembleFailedError("assembly: the constraint errors or Jacobian are not finite")
        yield interruptible_linalg.lstsq(A, -r, rcond=None)[0]
        AtA = interruptible_linalg.matmul(A.T, A)
        Atr = A.T @ r
        scale = max(float(np.max(np.diag(AtA))) if AtA.size else 1.0, 1e-12)
        for mu in (1e-3, 1e-1, 1e1, 1e3):
            yield interruptible_linalg.solve(AtA + mu * scale * np.eye(self.n), -Atr)

    # ---------------------------------------------------------- optimization
    def _null_space(self, A: np.ndarray) -> np.ndarray:
        radial = self._radial_rows()
        M = np.vstack([A, radial]) if radial.size else A
        if M.shape[0] == 0:
            return np.eye(self.n)
        if not np.all(np.isfinite(M)):  # LAPACK's SVD may never return on NaN or infinity
            raise AssembleFailedError("assembly: the constraint Jacobian is not finite")
        _, s, Vt = interruptible_linalg.svd(M)
        rank = int(np.sum(s > max(M.shape) * np.finfo(float).eps * (s[0] if s.size else 0)))
        return Vt[rank:].T

    def _reduced_hessian(self, x, Z, A, lam, gl0) -> np.ndarray:
        k = Z.shape[1]
        H = np.zeros((k, k))
        h = HESSIAN_STEP * max(1.0, float(np.max(np.abs(x))) if x.size else 1.0)
        for j in range(k):
            xj = self.set_x(x + h * Z[:, j], clip=False)
            dxj = xj - x
            step = float(Z[:, j] @ dxj) or h
            gj = self.gradient(xj)
            if A.shape[0]:
                gj = gj + self.jacobian(xj).T @ lam
            H[:, j] = Z.T @ (gj - gl0) / step
        self.set_x(x, clip=False)
        return 0.5 * (H + H.T)

    def optimize(self, x: np.ndarray, max_iterations: int) -> tuple[np.ndarray, float]:
        f = self.goal()
        use_gauss_newton = True
        for _ in range(max_iterations):
            stop_if_interrupted("assembly")
            if f == 0.0 or self.n == 0:
                break
            g = self.gradient(x)
            A = self.jacobian(x) if self.requirements else np.zeros((0, self.n))
            Z = self._null_space(A)
            if Z.shape[1] == 0:
                break
            lam = interruptible_linalg.lstsq(A.T, -g, rcond=None)[0] if A.shape[0] else np.zeros(0)
            gl0 = g + A.T @ lam if A.shape[0] else g
            gz = Z.T @ g
            if not np.any(gz):
                break
            c = self.gauss_newton_weights() if use_gauss_newton else None
            if c is not None:
                Je = self.jacobian(x, self.goals)
                JZ = interruptible_linalg.matmul(Je, Z)
                H = 2.0 * interruptible_linalg.matmul(JZ.T, c[:, None] * JZ)
            else:
                H = self._reduced_hessian(x, Z, A, lam, gl0)
            # Newton step on |H| (negative curvature flipped); directions of no curvature
            # (a goal that leaves some freedom) get no step, so x stays near its start.
            w, V = interruptible_linalg.eigh(H)
            wmax = float(np.max(np.abs(w))) if w.size else 0.0
            keep = np.abs(w) > 1e-8 * wmax
            dz = -V[:, keep] @ ((V[:, keep].T @ gz) / np.abs(w[keep]))
            dx = Z @ dz
            big = float(np.max(np.abs(dx)))
            if big > MAX_STEP:
                dx *= MAX_STEP / big
            slope = float(g @ dx)
            if slope >= 0:  # not a descent direction (inaccurate Hessian): steepest descent
                dx = -Z @ gz
                big = float(np.max(np.abs(dx)))
                if big > MAX_STEP:
                    dx *= MAX_STEP / big
                slope = float(g @ dx)
            accepted = False
            alpha = 1.0
            while alpha > 1e-8:
                xt, _, ok = self.restore(x + alpha * dx)
                if ok:
                    ft = self.goal()
                    if ft <= f + 1e-4 * alpha * slope:
                        accepted = True
                        break
                alpha *= 0.5
            if not accepted:
                break  # stationary to within roundoff
            moved = float(np.max(np.abs(xt - x)))
            if c is not None and ft > 0.25 * f:
                use_gauss_newton = False  # slow (large residuals): full Newton from now on
            x, f = xt, ft
            if moved <= 0.01 * self.accuracy * max(1.0, float(np.max(np.abs(x)))):
                break
        x, _, _ = self.restore(x)
        return x, self.goal()

    # ------------------------------------------------------------------ solve
    def solve(self, max_iterations: int) -> float:
        """Restore, optimize, check; leaves the result in the internal State."""
        x0 = self.get_x()
        x, r, ok = self.restore(x0, max_iterations=max_iterations)
        if not ok:
            self._fail(x)
        if self.goals:
            x, f = self.optimize(x, max_iterations)
            r = self.errors()
            if self.norm(r) > self.tol:
                self._fail(x)
        self.set_x(x)
        return self.goal()

    def _fail(self, x_best: np.ndarray) -> None:
        """Raise AssembleFailedError naming each unmet requirement (errors at x_best, which
        the internal State keeps for inspection)."""
        self.set_x(x_best, clip=False)
        self._realize()
        lines = []
        total = []
        for cx in self.requirements:
            err = self._errors_of(cx)
            total.append(err)
            e = self.norm(err)
            if e > self.tol:
                shown = np.array2string(err[:6], precision=3)
                more = "" if err.size <= 6 else f" ... ({err.size} errors)"
                cond = self._cond(cx)
                detail = cond._describe()
                detail = f" ({detail})" if detail else ""
                lines.append(
                    f"  condition {cx} '{cond.getName()}'{detail}: error norm {e:.3g}, "
                    f"errors {shown}{more}"
                )
                lines.extend(f"    {line}" for line in cond._failure_details(self.state, self.tol))
        norm = self.norm(np.concatenate(total)) if total else 0.0
        msg = (
            f"Assembler: assembly failed: the requirements could not be met to the error "
            f"tolerance {self.tol:.3g} (best error norm {norm:.3g}). Unmet:\n" + "\n".join(lines)
        )
        raise AssembleFailedError(msg)
