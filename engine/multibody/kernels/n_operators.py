"""Block-diagonal kinematic operators N, NInv (= pinv N) and NDot, applied body by body."""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.multibody.kernels.spatial_inline import inline
from engine.multibody.mobilizers import (
    ball,
    bend_stretch,
    bushing,
    cylinder,
    ellipsoid,
    free,
    gimbal,
    pin,
    planar,
    screw,
    slider,
    spherical_coords,
    translation,
    universal,
    weld,
)
from engine.multibody.mobilizers.dispatch import (
    GROUND_TYPE_ID,
    n_matrix_any,
    ndot_matrix_any,
    ninv_matrix_any,
)

_BALL, _FREE = ball.TYPE_ID, free.TYPE_ID

#: Mobilizer types whose N and NInv depend on their q alone (not on R_FM): every type but
#: LineOrientation and FreeLine (their N is expressed through R_FM), Custom and reversed
#: mobilizers (reversed N and NInv take R_MF = ~R_FM).
Q_ONLY_N_TYPES = (
    GROUND_TYPE_ID,
    weld.TYPE_ID,
    pin.TYPE_ID,
    slider.TYPE_ID,
    ball.TYPE_ID,
    free.TYPE_ID,
    screw.TYPE_ID,
    universal.TYPE_ID,
    cylinder.TYPE_ID,
    bend_stretch.TYPE_ID,
    planar.TYPE_ID,
    spherical_coords.TYPE_ID,
    gimbal.TYPE_ID,
    bushing.TYPE_ID,
    ellipsoid.TYPE_ID,
    translation.TYPE_ID,
)

N_OP = 0
NINV_OP = 1
NDOT_OP = 2


@njit(cache=True, nogil=True)
def _block(op, t, qb, qdotb, params, euler, R_FM, nq, nu):
    """The body's block of N (nq x nu), NInv (nu x nq) or NDot (nq x nu)."""
    if op == NINV_OP:
        B = np.zeros((nu, nq))
        ninv_matrix_any(t, qb, params, euler, R_FM, B)
    elif op == NDOT_OP:
        B = np.zeros((nq, nu))
        ndot_matrix_any(t, qb, qdotb, params, euler, R_FM, B)
    else:
        B = np.zeros((nq, nu))
        n_matrix_any(t, qb, params, euler, R_FM, B)
    return B


@njit(cache=True, nogil=True)
def apply_n_operator(op, transpose, mtype, qs, nqs, us, nus, params, euler, R_FM, q, qdot, x, out):
    """out = Op x or Op^T x for Op in (N, NInv, NDot), over all bodies. For N and NDot,
    x is u-like and out q-like (transposed: the reverse); for NInv the opposite."""
    out[:] = 0.0
    nb = mtype.shape[0]
    for b in range(1, nb):
        nq, nu = nqs[b], nus[b]
        if nq == 0 and nu == 0:
            continue
        qb = q[qs[b] : qs[b] + nq]
        qdb = qdot[qs[b] : qs[b] + nq]
        B = _block(op, mtype[b], qb, qdb, params[b], euler, R_FM[b], nq, nu)
        rows_are_q = op != NINV_OP
        if transpose:
            rows_are_q = not rows_are_q
            B = B.T.copy()
        if rows_are_q:
            out[qs[b] : qs[b] + nq] = B @ x[us[b] : us[b] + nu]
        else:
            out[us[b] : us[b] + nu] = B @ x[qs[b] : qs[b] + nq]


@njit(cache=True, nogil=True)
def n_reads_only_q(mtype):
    """True if every body's N and NInv (mobilizer types ``mtype``) depend on its q alone,
    so that ``scale_dq`` needs the State's q but not its Position-stage R_FM."""
    for b in range(mtype.shape[0]):
        found = False
        for t in Q_ONLY_N_TYPES:
            if mtype[b] == t:
                found = True
        if not found:
            return False
    return True


@inline
def _scale_dq_quaternion(q, q0, w_u, u0, dq, out):
    """out[q0:q0+4] = N W_u NInv dq[q0:q0+4] for the quaternion q[q0:q0+4] = [w, x, y, z]
    of a Ball or Free mobilizer and its angular speeds u[u0:u0+3] (weights w_u[u0:u0+3]),
    with N = E(q)/2 and NInv = 2 E(q)^T (``rotation_kernels.quat_e_matrix``; for a unit
    quaternion NInv is N's pseudo-inverse, E^T E = 1). The products and sums are those of
    ``_scale_dq_block`` with these matrices, entry by entry and in the same order, so the
    result is the same to the last bit (up to the sign of a zero)."""
    w, x, y, z = q[q0], q[q0 + 1], q[q0 + 2], q[q0 + 3]
    d0, d1, d2, d3 = dq[q0], dq[q0 + 1], dq[q0 + 2], dq[q0 + 3]
    # E's columns: (-x, w, -z, y), (-y, z, w, -x), (-z, -y, x, w)
    u_0 = (((0.0 + (2.0 * -x) * d0) + (2.0 * w) * d1) + (2.0 * -z) * d2) + (2.0 * y) * d3
    u_1 = (((0.0 + (2.0 * -y) * d0) + (2.0 * z) * d1) + (2.0 * w) * d2) + (2.0 * -x) * d3
    u_2 = (((0.0 + (2.0 * -z) * d0) + (2.0 * -y) * d1) + (2.0 * x) * d2) + (2.0 * w) * d3
    u_0 *= w_u[u0]
    u_1 *= w_u[u0 + 1]
    u_2 *= w_u[u0 + 2]
    out[q0] = ((0.0 + (0.5 * -x) * u_0) + (0.5 * -y) * u_1) + (0.5 * -z) * u_2
    out[q0 + 1] = ((0.0 + (0.5 * w) * u_0) + (0.5 * z) * u_1) + (0.5 * -y) * u_2
    out[q0 + 2] = ((0.0 + (0.5 * -z) * u_0) + (0.5 * w) * u_1) + (0.5 * x) * u_2
    out[q0 + 3] = ((0.0 + (0.5 * y) * u_0) + (0.5 * -x) * u_1) + (0.5 * w) * u_2


@njit(cache=True, nogil=True)
def _scale_dq_block(t, nq, nu, q0, u0, qb, params_b, euler, R_FM_b, w_u, dq, out, Nbuf, Ibuf, ub):
    """out[q0:q0+nq] = N W_u NInv dq[q0:q0+nq] for one body of mobilizer type t, through
    its N and NInv blocks (Nbuf and Ibuf: >= 7 x 7, ub: >= 6 scratch)."""
    Ni = Ibuf[:nu, :nq]
    Ni[:, :] = 0.0
    ninv_matrix_any(t, qb, params_b, euler, R_FM_b, Ni)
    for k in range(nu):
        acc = 0.0
        for i in range(nq):
            acc += Ni[k, i] * dq[q0 + i]
        ub[k] = acc * w_u[u0 + k]
    N = Nbuf[:nq, :nu]
    N[:, :] = 0.0
    n_matrix_any(t, qb, params_b, euler, R_FM_b, N)
    for i in range(nq):
        acc = 0.0
        for k in range(nu):
            acc += N[i, k] * ub[k]
        out[q0 + i] = acc


@njit(cache=True, nogil=True)
def scale_dq(mtype, qs, nqs, us, nus, params, euler, R_FM, q, w_u, dq, out, Nbuf, Ibuf, ub):
    """out = N W_u pinv(N) dq body by body: a q-like change weighted as the u-like change
    it corresponds to (the integrators' q error weights). w_u (nu,) the u weights; Nbuf
    and Ibuf (>= 7 x 7) and ub (>= 6) scratch."""
    nb = mtype.shape[0]
    for b in range(1, nb):
        nq, nu = nqs[b], nus[b]
        if nq == 0:
            continue
        q0, u0, t = qs[b], us[b], mtype[b]
        if not euler and (t == _BALL or t == _FREE):
            _scale_dq_quaternion(q, q0, w_u, u0, dq, out)
            if t == _FREE:  # N and NInv are 1 for p: p's error weighted by v's weight
                for i in range(3):
                    out[q0 + 4 + i] = dq[q0 + 4 + i] * w_u[u0 + 3 + i]
            continue
        _scale_dq_block(
            t, nq, nu, q0, u0, q[q0 : q0 + nq], params[b], euler, R_FM[b], w_u, dq, out,
            Nbuf, Ibuf, ub,
        )  # fmt: skip
