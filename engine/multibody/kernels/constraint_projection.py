"""Compiled projection of q and u onto the compiled holonomic constraints (Rod, Ball,
Weld, PointInPlane, ConstantAngle, and the linear mobility constraints on qdot = u
coordinates: ``constraint_kernels``), and of an integrator's error estimate onto their
tangent spaces.

These kernels do what ``MatterProjectionMixin.projectQImpl`` and ``projectUImpl``
(engine/multibody/matter/projection.py) do through the State, for a State whose
constraints are all compiled and that has no prescribed q or u, with the same
iterations, tolerances, weights and least squares:

* ``project_q``: quaternions normalized if their norm is off by more than the target
  (all of them with ``force``); then, if the weighted position error norm exceeds the
  accuracy (or is not zero, with ``force``), Gauss-Newton steps
  ``dq = -Wq^-1 pinv(Tp Pq Wq^-1) Tp perr`` (``Tp`` the QErrWeights, ``Wq`` the q weights,
  ``Pq = P N^-1``), each halved until the weighted error decreases, until it is at most
  the target (accuracy x overshoot factor), at most 50 of them; beyond the local
  projection limit nothing is tried. The q error estimate then loses its quaternion
  norm component and its part in the row space of ``Tp Pq Wq^-1`` (in the weighted norm).
* ``project_u``: if the weighted velocity error norm exceeds the accuracy (or is not
  zero, with ``force``), up to three steps ``du = -Wu^-1 pinv(Tpv P Wu^-1) Tpv uerr``
  until it is at most the target; the u error estimate loses its part in the row space
  of ``Tpv P Wu^-1``.

Each realization between steps is the fused one (``realize_stages_from_table``) followed
by the constraint errors, as ``System.realize`` does for such a State. The pseudo-inverse
is a one-sided Jacobi SVD (``min_norm_solve``) with the Python path's cut-off: singular
values at or below 1e-12 of the largest are dropped, so redundant rows (a duplicated
Ball, a Weld over a Weld, a Rod whose length cannot change) are handled as Simbody's
rank-revealing factorization handles them.

Statuses: ``OK``; ``FAILED`` (the projection did not reach the accuracy, or the error was
beyond the projection limit: the integrator treats the step as not converged);
``IRREGULAR`` (a zero quaternion, a constraint kernel that declined, a non-finite
Jacobian or error): the caller redoes the work through the State, which words it;
``INTERRUPTED``: the request at ``interrupt`` (the address of an
``interrupt_request.InterruptRequest``, 0 for none) was set. The projections look at it
before every iteration and in the least squares' O(m^2 n) and O(m^3) loops (once per row
or column); an interrupted projection leaves q or u where its last iteration put them,
for the caller to put back.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, types

from engine.common.numba_internals import address_call
from engine.multibody.kernels.array_table import f1, f2, f3, i1
from engine.multibody.kernels.constraint_kernels import (
    _POSITION,
    _VELOCITY,
    OK,
    constraint_jacobian,
    errors_into,
    position_errors,
    row_products,
    velocity_errors,
    work_buffers,
)
from engine.multibody.kernels.fused_stages import POSITION, VELOCITY, realize_stages_by_address
from engine.multibody.kernels.interrupt_request import interrupted
from engine.multibody.kernels.layout import SLOT
from engine.multibody.kernels.n_operators import NINV_OP, apply_n_operator
from engine.multibody.kernels.pivoted_cholesky import LARGE_M, psd_min_norm_solve
from engine.multibody.kernels.quaternion_projection import (
    normalize_quaternions,
    quaternions_to_normalize,
    remove_quaternion_norm_errors,
)
from engine.multibody.kernels.weighted_error_norm import pairwise_sum

#: the Python projection's limits (matter.projection)
MAX_Q_ITERATIONS = 50
MAX_HALVINGS = 12
MAX_U_ITERATIONS = 3
#: singular values at or below this fraction of the largest are dropped
RCOND = 1e-12

#: statuses (see module docstring)
FAILED, IRREGULAR, INTERRUPTED = 1, 2, 3

#: entries of the ``info`` vector the projections fill; JACOBIAN_CURRENT: 1.0 when the
#: P scratch holds the constraint Jacobian at the State's q (project_q sets it, project_u
#: uses it)
CHANGED, KINETIC_ENERGY, ITERATIONS, JACOBIAN_CURRENT = 0, 1, 2, 3
INFO_SIZE = 4


# ----------------------------------------------------------------- least squares
@njit(cache=True, nogil=True)
def min_norm_solve(A, b, x, interrupt):
    """x (n,) = the minimum-norm least-squares solution of A x = b (A m x n), by a
    one-sided Jacobi SVD of A^T: singular values at or below RCOND times the largest are
    dropped (as the Python projection's SVD). The status: OK, IRREGULAR (x zero) if A or
    b is not finite, INTERRUPTED (x unspecified) if the request at ``interrupt`` was set
    (beyond LARGE_M rows; fewer take a few milliseconds at most)."""
    m, n = A.shape
    for j in range(n):
        x[j] = 0.0
    for i in range(m):
        if not math.isfinite(b[i]):
            return IRREGULAR
        for j in range(n):
            if not math.isfinite(A[i, j]):
                return IRREGULAR
    if m == 0:
        return OK
    if m > LARGE_M:
        return _gram_min_norm_solve(A, b, x, interrupt)
    blk = np.zeros(m * n + m * m + m)
    C = blk[0 : m * n].reshape((m, n))  # rows: the columns of A^T, orthogonalized in place
    for i in range(m):
        for j in range(n):
            C[i, j] = A[i, j]
    V = blk[m * n : m * n + m * m].reshape((m, m))
    for i in range(m):
        V[i, i] = 1.0
    for _sweep in range(60):
        rotated = False
        for p in range(m - 1):
            for q in range(p + 1, m):
                alpha = beta = gamma = 0.0
                for k in range(n):
                    alpha += C[p, k] * C[p, k]
                    beta += C[q, k] * C[q, k]
                    gamma += C[p, k] * C[q, k]
                if gamma == 0.0 or abs(gamma) <= 1e-15 * math.sqrt(alpha) * math.sqrt(beta):
                    continue
                rotated = True
                diff = beta - alpha
                if abs(diff) > 1e150 * abs(gamma):  # tan of the angle, without overflow
                    t = gamma / diff
                else:
                    zeta = diff / (2.0 * gamma)
                    t = 1.0 / (abs(zeta) + math.sqrt(1.0 + zeta * zeta))
                    if zeta < 0.0:
                        t = -t
                c = 1.0 / math.sqrt(1.0 + t * t)
                s = c * t
                for k in range(n):
                    cp, cq = C[p, k], C[q, k]
                    C[p, k] = c * cp - s * cq
                    C[q, k] = s * cp + c * cq
                for k in range(m):
                    vp, vq = V[k, p], V[k, q]
                    V[k, p] = c * vp - s * vq
                    V[k, q] = s * vp + c * vq
        if not rotated:
            break
    # A = V C, C's rows orthogonal with norms the singular values
    sq = blk[m * n + m * m : m * n + m * m + m]
    top = 0.0
    for i in range(m):
        acc = 0.0
        for k in range(n):
            acc += C[i, k] * C[i, k]
        sq[i] = acc
        top = max(top, acc)
    if top == 0.0:
        return OK
    cut = RCOND * math.sqrt(top)
    for i in range(m):
        if not math.sqrt(sq[i]) > cut:
            continue
        y = 0.0
        for k in range(m):
            y += V[k, i] * b[k]
        y /= sq[i]
        for j in range(n):
            x[j] += C[i, j] * y
    return OK


@njit(cache=True, nogil=True)
def _gram_min_norm_solve(A, b, x, interrupt):
    """``min_norm_solve`` for many rows (more than LARGE_M): x = A^T (A A^T)^+ b, the
    pseudo-inverse of the Gram matrix by the pivoted Cholesky factorization. Its cut-off
    (RCOND times the Gram matrix's largest diagonal) drops rows whose distance from the
    others' span is below about 1e-6 of the largest row norm: the Gram matrix squares
    the singular values, and its rounding would keep an exactly repeated row of an SVD's
    below-1e-12 set. The status (OK or INTERRUPTED)."""
    m, n = A.shape
    W = np.empty((m, m))
    if not row_products(A, A, W, True, interrupt):
        return INTERRUPTED
    y = np.empty(m)
    if not psd_min_norm_solve(W, b, y, np.empty((m, m)), RCOND, interrupt):
        return INTERRUPTED
    for i in range(m):
        yi = y[i]
        if yi != 0.0:
            for j in range(n):
                x[j] += A[i, j] * yi
    return OK


@njit(cache=True, nogil=True)
def remove_row_space(A, x, tmp_m, tmp_n, interrupt):
    """x (n,) minus its projection on the row space of A (m x n), in place; the status of
    ``min_norm_solve`` (x unchanged unless OK). ``tmp_m`` (m,) and ``tmp_n`` (n,) are
    scratch."""
    m, n = A.shape
    if m == 0 or n == 0:
        return OK
    for i in range(m):
        acc = 0.0
        for j in range(n):
            acc += A[i, j] * x[j]
        tmp_m[i] = acc
    status = min_norm_solve(A, tmp_m, tmp_n, interrupt)
    if status != OK:
        return status
    for j in range(n):
        x[j] -= tmp_n[j]
    return OK


@njit(cache=True, nogil=True)
def error_norm(errs, squares, infinity):
    """RMS (or infinity) norm of errs (m,), as the Python projection's ``_norm``."""
    m = errs.shape[0]
    if m == 0:
        return 0.0
    if infinity:
        top = 0.0
        for i in range(m):
            top = max(top, abs(errs[i]))
        return top
    for i in range(m):
        squares[i] = errs[i] * errs[i]
    return math.sqrt(pairwise_sum(squares, 0, m) / m)


# ------------------------------------------------------------------ realizations
@njit(cache=True, nogil=True)
def realize_position(euler, a, s, ci, cf, qerr):
    """Position stage and the constraints' position errors (qerr[:m]); the status."""
    # run-time stage numbers and flag: the fused realization's own compiled specialisation
    # (constants would be typed as literals and compile another)
    stage, no = np.int64(POSITION), qerr.shape[0] < 0
    realize_stages_by_address(stage, stage, no, euler, a, s)
    return position_errors(a, s, ci, cf, qerr)


@njit(cache=True, nogil=True)
def realize_velocity(euler, a, s, ci, cf, uerr):
    """Velocity stage and the constraints' velocity errors (uerr[:m]); (status, kinetic
    energy)."""
    stage, no = np.int64(VELOCITY), uerr.shape[0] < 0  # run-time values (realize_position)
    ke = realize_stages_by_address(stage, stage, no, euler, a, s)
    return velocity_errors(a, s, ci, cf, uerr), ke


@njit(cache=True, nogil=True)
def realize_kinematics(euler, a, s, ci, cf, qerr, uerr, work):
    """Position and Velocity stages in one fused call and the constraints' position and
    velocity errors, with the kinematics buffers of ``work`` (the table of
    ``constraint_kernels.carve_work``); (status, kinetic energy)."""
    buf = work_buffers(work)
    first, last = np.int64(POSITION), np.int64(VELOCITY)  # run-time values (above)
    ke = realize_stages_by_address(first, last, qerr.shape[0] < 0, euler, a, s)
    R_GB, p_GB, V_GB = f3(a, s, SLOT.R_GB), f2(a, s, SLOT.p_GB), f2(a, s, SLOT.V_GB)
    level = np.int64(_POSITION)
    q, u = f1(a, s, SLOT.q), f1(a, s, SLOT.u)
    status = errors_into(ci, cf, level, R_GB, p_GB, p_GB, p_GB, q, qerr, buf)
    if status != OK:
        return status, ke
    level = np.int64(_VELOCITY)
    return errors_into(ci, cf, level, R_GB, p_GB, V_GB, V_GB, u, uerr, buf), ke


_B, _I, _F = types.boolean, types.int64, types.float64
_I1, _I2 = types.int64[::1], types.int64[:, ::1]
_F1, _F2 = types.float64[::1], types.float64[:, ::1]
#: (euler, a, s, ci, cf): the State's table and the compiled constraints
_TABLE = (_B, _I1, _I2, _I2, _F2)

#: realize_position, realize_velocity and realize_kinematics for kernels, called at their
#: compiled addresses (``numba_internals.address_call``: compiled once, not linked into
#: each caller)
realize_position_by_address = address_call(realize_position, _I(*_TABLE, _F1))
realize_velocity_by_address = address_call(realize_velocity, types.Tuple((_I, _F))(*_TABLE, _F1))
realize_kinematics_by_address = address_call(
    realize_kinematics, types.Tuple((_I, _F))(*_TABLE, _F1, _F1, types.Tuple((_F1, _I1, _I2)))
)


# ------------------------------------------------------------------ the matrices
@njit(cache=True, nogil=True)
def weighted_pq(euler, a, s, ci, cf, m, tp, wq, A, P):
    """A (m x nq) = Tp Pq Wq^-1 with Pq = P N^-1 (row by row: N^-T P[i]), at the State's
    q (Position realized), P (m x nu) the constraint Jacobian there, computed into the
    scratch P; the status."""
    nu = s[SLOT.u, 0]
    nq = A.shape[1]
    status = constraint_jacobian(a, s, ci, cf, m, P)
    if status != OK:
        return status
    blk = np.zeros(nu + 2 * nq)
    q = f1(a, s, SLOT.q)
    p_row = blk[0:nu]
    zero_qdot = blk[nu : nu + nq]
    row = blk[nu + nq : nu + 2 * nq]
    mtype, qs, nqs = i1(a, s, SLOT.mtype), i1(a, s, SLOT.qs), i1(a, s, SLOT.nqs)
    us, nus, params = i1(a, s, SLOT.us), i1(a, s, SLOT.nus), f2(a, s, SLOT.params)
    R_FM = f3(a, s, SLOT.R_FM)
    for i in range(m):
        for j in range(nu):
            p_row[j] = P[i, j]
        apply_n_operator(
            np.int64(NINV_OP),
            m > 0,
            mtype,
            qs,
            nqs,
            us,
            nus,
            params,
            euler,
            R_FM,
            q,
            zero_qdot,
            p_row,
            row,
        )  # fmt: skip  (run-time op and transpose = True: one specialisation)
        for j in range(nq):
            A[i, j] = tp[i] * row[j] / wq[j]
    return OK


@njit(cache=True, nogil=True)
def weighted_p(a, s, ci, cf, m, tpv, wu, A, P, have_P):
    """A (m x nu) = Tpv P Wu^-1 at the State's q (Position realized), P (m x nu) the
    constraint Jacobian there: given if ``have_P``, else computed into P; the status."""
    if not have_P:
        status = constraint_jacobian(a, s, ci, cf, m, P)
        if status != OK:
            return status
    for i in range(m):
        for j in range(A.shape[1]):
            A[i, j] = tpv[i] * P[i, j] / wu[j]
    return OK


# --------------------------------------------------------------------- projectQ
@njit(cache=True, nogil=True)
def project_q(
    euler,
    a,
    s,
    ci,
    cf,
    m,
    qerr,
    tp,
    wq,
    accuracy,
    target,
    limit,
    infinity,
    force,
    est,
    info,
    P,
    interrupt,
):
    """projectQImpl with LocalOnly (see module docstring) on the State of table a, s,
    realized through Position with its position errors in qerr; ``est`` (nq,) the q error
    estimate, projected in place. ``info[CHANGED]`` is 1.0 if q changed (then Position is
    realized again, Velocity not), ``info[ITERATIONS]`` the Gauss-Newton steps,
    ``info[JACOBIAN_CURRENT]`` 1.0 if the scratch P (m, nu) holds the constraint Jacobian
    at the final q (computed for the estimate's projection), for ``project_u``. The
    status (INTERRUPTED: q where the last iteration left it)."""
    info[CHANGED] = 0.0
    info[ITERATIONS] = 0.0
    info[JACOBIAN_CURRENT] = 0.0
    q = f1(a, s, SLOT.q)
    nq = q.shape[0]
    starts = i1(a, s, SLOT.quat_starts)
    status = quaternions_to_normalize(q, starts, target, force)
    if status < 0:
        return IRREGULAR
    if status > 0:
        normalize_quaternions(q, starts, target, force)
        if realize_position_by_address(euler, a, s, ci, cf, qerr) != OK:
            return IRREGULAR
        info[CHANGED] = 1.0
    blk = np.empty(m * nq + 4 * m + 3 * nq)
    A = blk[0 : m * nq].reshape((m, nq))
    o = m * nq
    tmp_m, tmp_n = blk[o : o + m], blk[o + m : o + m + nq]
    o += m + nq
    if m:
        errs, new_errs, squares = blk[o : o + m], blk[o + m : o + 2 * m], blk[o + 2 * m : o + 3 * m]
        for i in range(m):
            errs[i] = tp[i] * qerr[i]
        norm = error_norm(errs, squares, infinity)
        if norm > accuracy or (force and norm > 0.0):
            if norm > limit:
                return FAILED
            o += 3 * m
            dq, q0 = blk[o : o + nq], blk[o + nq : o + 2 * nq]
            iterations = 0
            while norm > target and iterations < MAX_Q_ITERATIONS:
                if interrupted(interrupt):
                    return INTERRUPTED
                if weighted_pq(euler, a, s, ci, cf, m, tp, wq, A, P) != OK:
                    return IRREGULAR
                status = min_norm_solve(A, errs, dq, interrupt)
                if status != OK:
                    return status
                for j in range(nq):
                    dq[j] = -dq[j] / wq[j]
                    q0[j] = q[j]
                iterations += 1
                new_norm = norm
                for _ in range(MAX_HALVINGS):
                    for j in range(nq):
                        q[j] = q0[j] + dq[j]
                    if quaternions_to_normalize(q, starts, 0.0, True) < 0:
                        return IRREGULAR
                    normalize_quaternions(q, starts, 0.0, True)
                    if realize_position_by_address(euler, a, s, ci, cf, qerr) != OK:
                        return IRREGULAR
                    for i in range(m):
                        new_errs[i] = tp[i] * qerr[i]
                    new_norm = error_norm(new_errs, squares, infinity)
                    if new_norm < norm:
                        break
                    for j in range(nq):
                        dq[j] = 0.5 * dq[j]
                info[CHANGED] = 1.0
                if not new_norm < norm:  # no descent: keep the better q
                    for j in range(nq):
                        q[j] = q0[j]
                    if realize_position_by_address(euler, a, s, ci, cf, qerr) != OK:
                        return IRREGULAR
                    break
                for i in range(m):
                    errs[i] = new_errs[i]
                norm = new_norm
            info[ITERATIONS] = iterations
            if norm > accuracy:
                return FAILED
    if est.shape[0]:
        remove_quaternion_norm_errors(q, starts, est)
        if m:
            if weighted_pq(euler, a, s, ci, cf, m, tp, wq, A, P) != OK:
                return IRREGULAR
            info[JACOBIAN_CURRENT] = 1.0
            for j in range(nq):
                est[j] *= wq[j]
            status = remove_row_space(A, est, tmp_m, tmp_n, interrupt)
            if status != OK:
                return status
            for j in range(nq):
                est[j] /= wq[j]
    return OK


# --------------------------------------------------------------------- projectU
@njit(cache=True, nogil=True)
def project_u(
    euler,
    a,
    s,
    ci,
    cf,
    m,
    uerr,
    tpv,
    wu,
    accuracy,
    target,
    infinity,
    force,
    est,
    info,
    P,
    interrupt,
):
    """projectUImpl (see module docstring) on the State of table a, s, realized through
    Velocity with its velocity errors in uerr; ``est`` (nu,) the u error estimate,
    projected in place. ``info[CHANGED]`` is 1.0 if u changed (Velocity is realized
    again, ``info[KINETIC_ENERGY]`` its kinetic energy). The scratch P (m, nu) is taken as
    the constraint Jacobian at the State's q if ``info[JACOBIAN_CURRENT]`` is 1.0 (as
    ``project_q`` leaves it), else computed into it (and the flag set). The status
    (INTERRUPTED: u where the last iteration left it)."""
    info[CHANGED] = 0.0
    info[ITERATIONS] = 0.0
    if m == 0:
        return OK
    u = f1(a, s, SLOT.u)
    nu = u.shape[0]
    blk = np.empty(m * nu + 3 * m + 2 * nu)
    A = blk[0 : m * nu].reshape((m, nu))
    o = m * nu
    have_A = False
    errs, squares, tmp_m = blk[o : o + m], blk[o + m : o + 2 * m], blk[o + 2 * m : o + 3 * m]
    o += 3 * m
    du, tmp_n = blk[o : o + nu], blk[o + nu : o + 2 * nu]
    for i in range(m):
        errs[i] = tpv[i] * uerr[i]
    norm = error_norm(errs, squares, infinity)
    if norm > accuracy or (force and norm > 0.0):
        if weighted_p(a, s, ci, cf, m, tpv, wu, A, P, info[JACOBIAN_CURRENT] != 0.0) != OK:
            return IRREGULAR
        info[JACOBIAN_CURRENT] = 1.0
        have_A = True
        for _ in range(MAX_U_ITERATIONS):
            if interrupted(interrupt):
                return INTERRUPTED
            status = min_norm_solve(A, errs, du, interrupt)
            if status != OK:
                return status
            for j in range(nu):
                u[j] += -du[j] / wu[j]
            status, ke = realize_velocity_by_address(euler, a, s, ci, cf, uerr)
            if status != OK:
                return IRREGULAR
            info[KINETIC_ENERGY] = ke
            info[CHANGED] = 1.0
            info[ITERATIONS] += 1.0
            for i in range(m):
                errs[i] = tpv[i] * uerr[i]
            norm = error_norm(errs, squares, infinity)
            if norm <= target:
                break
        if norm > accuracy:
            return FAILED
    if est.shape[0]:
        if not have_A and (
            weighted_p(a, s, ci, cf, m, tpv, wu, A, P, info[JACOBIAN_CURRENT] != 0.0) != OK
        ):
            return IRREGULAR
        for j in range(nu):
            est[j] *= wu[j]
        status = remove_row_space(A, est, tmp_m, tmp_n, interrupt)
        if status != OK:
            return status
        for j in range(nu):
            est[j] /= wu[j]
    return OK


#: project_q and project_u for kernels, called at their compiled addresses
project_q_by_address = address_call(
    project_q, _I(*_TABLE, _I, _F1, _F1, _F1, _F, _F, _F, _B, _B, _F1, _F1, _F2, _I)
)
project_u_by_address = address_call(
    project_u, _I(*_TABLE, _I, _F1, _F1, _F1, _F, _F, _B, _B, _F1, _F1, _F2, _I)
)
