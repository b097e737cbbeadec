"""Minimum-norm solutions of large symmetric semidefinite systems by a pivoted Cholesky
factorization: the rank-revealing factorization of the constraint kernels when the
number of equations m is large (``LARGE_M``), O(m^3 / 3) once instead of the cyclic
Jacobi sweeps (O(m^3) each) that the small systems use.

``P^T W P = L L^T`` (P a permutation, L m x r lower trapezoidal) is built one column at a
time, each time on the largest remaining diagonal of the Schur complement; it stops at
rank r when that diagonal is at or below ``tol`` times W's largest diagonal, so
equations that repeat others (a duplicated Ball, a Weld over a Weld) or have a zero row
leave the factor, as the eigenvalues or singular values below the cut-off leave the
small systems' solutions. The solution is the minimum-norm least-squares one of the
kept part, ``W^+ b = P L (L^T L)^-2 L^T P^T b`` (``P L^-T L^-1 P^T b`` at full rank), so
redundant equations share their load equally, as with the eigen-decomposition.

Every pivot of a positive definite matrix is at least its smallest eigenvalue, so a
matrix whose eigenvalues are all above the cut-off keeps all its equations, as with the
eigen-decomposition.

Both take ``interrupt``, the address of an ``interrupt_request.InterruptRequest`` (0 for
none), and look at it once per column (O(m^2) work between looks): a set request stops
them (``INTERRUPTED``, False: the solution is then unspecified).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from engine.multibody.kernels.interrupt_request import interrupted

#: systems with more equations than this use the pivoted Cholesky factorization; smaller
#: ones the Jacobi eigen-decomposition or SVD (constraint_kernels, constraint_projection)
LARGE_M = 16

#: what ``pivoted_cholesky`` returns when its interrupt request was set
INTERRUPTED = -1


@njit(cache=True, nogil=True)
def pivoted_cholesky(L, perm, tol, interrupt):
    """In place: L (m, m) holds a symmetric positive semidefinite W on entry and its
    pivoted Cholesky factor in its lower trapezoid (columns 0..r-1) on return, perm (m,)
    int64 the permutation (row i of the factor is W's equation perm[i]); the rank r, or
    INTERRUPTED (L then half factored) if the request at ``interrupt`` was set. Pivots
    at or below ``tol`` times W's largest diagonal end the factorization."""
    m = L.shape[0]
    for i in range(m):
        perm[i] = i
    top = 0.0
    for i in range(m):
        top = max(top, L[i, i])
    if not top > 0.0:
        return 0
    cut = tol * top
    for k in range(m):
        if interrupted(interrupt):
            return INTERRUPTED
        p = k
        for i in range(k + 1, m):
            if L[i, i] > L[p, p]:
                p = i
        if not L[p, p] > cut:
            return k
        if p != k:  # swap equations k and p: rows and columns of the whole matrix
            for j in range(m):
                L[k, j], L[p, j] = L[p, j], L[k, j]
            for i in range(m):
                L[i, k], L[i, p] = L[i, p], L[i, k]
            perm[k], perm[p] = perm[p], perm[k]
        d = math.sqrt(L[k, k])
        L[k, k] = d
        for i in range(k + 1, m):
            L[i, k] /= d
        for j in range(k + 1, m):  # the Schur complement, kept symmetric
            ljk = L[j, k]
            for i in range(k + 1, m):
                L[i, j] -= L[i, k] * ljk
    return m


@njit(cache=True, nogil=True)
def _lower_solve(L, r, x):
    """x (r,) = L[:r, :r]^-1 x, in place."""
    for i in range(r):
        acc = x[i]
        for k in range(i):
            acc -= L[i, k] * x[k]
        x[i] = acc / L[i, i]


@njit(cache=True, nogil=True)
def _lower_transpose_solve(L, r, x):
    """x (r,) = L[:r, :r]^-T x, in place."""
    for i in range(r - 1, -1, -1):
        acc = x[i]
        for k in range(i + 1, r):
            acc -= L[k, i] * x[k]
        x[i] = acc / L[i, i]


@njit(cache=True, nogil=True)
def psd_min_norm_solve(W, b, out, L, tol, interrupt):
    """out (m,) = the minimum-norm least-squares solution of W out = b for W (m, m)
    symmetric positive semidefinite (read whole), by the pivoted Cholesky factorization
    with the cut-off ``tol`` (module docstring). L (m, m) is scratch. False (out then
    unspecified) if the request at ``interrupt`` was set."""
    m = W.shape[0]
    if m == 0:
        return True
    for i in range(m):
        for j in range(m):
            L[i, j] = W[i, j]
    perm = np.empty(m, dtype=np.int64)
    r = pivoted_cholesky(L, perm, tol, interrupt)
    if r == INTERRUPTED:
        return False
    for i in range(m):
        out[i] = 0.0
    if r == 0:
        return True
    c = np.empty(m)
    for i in range(m):
        c[i] = b[perm[i]]
    if r == m:  # full rank: W^-1 b
        _lower_solve(L, m, c)
        _lower_transpose_solve(L, m, c)
        for i in range(m):
            out[perm[i]] = c[i]
        return True
    # rank r < m: L (m x r), W^+ b = P L (L^T L)^-2 L^T P^T b
    g = np.empty(r)
    for j in range(r):
        acc = 0.0
        for i in range(j, m):
            acc += L[i, j] * c[i]
        g[j] = acc
    K = np.empty((r, r))  # L^T L: symmetric positive definite
    for i in range(r):
        if interrupted(interrupt):
            return False
        for j in range(i + 1):
            acc = 0.0
            for k in range(i, m):
                acc += L[k, i] * L[k, j]
            K[i, j] = acc
            K[j, i] = acc
    kperm = np.empty(r, dtype=np.int64)
    rk = pivoted_cholesky(K, kperm, 0.0, interrupt)  # r unless K is singular to rounding
    if rk == INTERRUPTED:
        return False
    z = np.zeros(r)
    for i in range(r):
        z[i] = g[kperm[i]]
    for i in range(rk, r):
        z[i] = 0.0
    for _ in range(2):  # z = K^-2 g, in K's pivoted order
        _lower_solve(K, rk, z)
        _lower_transpose_solve(K, rk, z)
    y = np.empty(r)
    for i in range(r):
        y[kperm[i]] = z[i]
    for i in range(m):
        acc = 0.0
        for j in range(min(i + 1, r)):
            acc += L[i, j] * y[j]
        out[perm[i]] = acc
    return True
