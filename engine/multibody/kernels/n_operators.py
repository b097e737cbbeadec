"""Block-diagonal kinematic operators N, NInv (= pinv N) and NDot, applied body by body."""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.multibody.mobilizers.dispatch import (
    n_matrix_any,
    ndot_matrix_any,
    ninv_matrix_any,
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
def scale_dq(mtype, qs, nqs, us, nus, params, euler, R_FM, q, w_u, dq, out, Nbuf, Ibuf, ub):
    """out = N W_u pinv(N) dq body by body: a q-like change weighted as the u-like change
    it corresponds to (the integrators' q error weights). w_u (nu,) the u weights; Nbuf
    and Ibuf (>= 7 x 7) and ub (>= 6) scratch."""
    nb = mtype.shape[0]
    for b in range(1, nb):
        nq, nu = nqs[b], nus[b]
        if nq == 0:
            continue
        q0, u0 = qs[b], us[b]
        qb = q[q0 : q0 + nq]
        Ni = Ibuf[:nu, :nq]
        Ni[:, :] = 0.0
        ninv_matrix_any(mtype[b], qb, params[b], euler, R_FM[b], Ni)
        for k in range(nu):
            acc = 0.0
            for i in range(nq):
                acc += Ni[k, i] * dq[q0 + i]
            ub[k] = acc * w_u[u0 + k]
        N = Nbuf[:nq, :nu]
        N[:, :] = 0.0
        n_matrix_any(mtype[b], qb, params[b], euler, R_FM[b], N)
        for i in range(nq):
            acc = 0.0
            for k in range(nu):
                acc += N[i, k] * ub[k]
            out[q0 + i] = acc
