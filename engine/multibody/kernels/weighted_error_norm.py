"""The integrators' weighted error norm of a step's error estimate in one kernel, for a
MultibodySystem whose matter subsystem holds every q and u (see
``engine.integrators.error_norm.calcErrorNorm``, which this reproduces bit for bit).

The q part of the estimate is weighted through the kinematic coupling ``N Wu pinv(N)``
(``scale_dq``), the u and z parts by their frozen scales; each group's RMS norm sums its
squares in numpy's pairwise order (``pairwise_sum``), so the norm, and with it every step
size an integrator chooses, is the same number the numpy code gives.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from engine.multibody.kernels.n_operators import scale_dq

#: worst index returned when the estimate or a norm is not finite (the caller then
#: reports the bad entry the slow way).
NOT_FINITE = -2


@njit(cache=True, nogil=True)
def _block_sum(a, lo, n):
    """numpy's pairwise-sum leaf (n <= 128): a plain loop below 8 terms, else eight
    interleaved partial sums combined as a tree, then the remainder in order."""
    if n < 8:
        res = 0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    m = n - n % 8
    while i < m:
        j = lo + i
        r0 += a[j]
        r1 += a[j + 1]
        r2 += a[j + 2]
        r3 += a[j + 3]
        r4 += a[j + 4]
        r5 += a[j + 5]
        r6 += a[j + 6]
        r7 += a[j + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@njit(cache=True, nogil=True)
def pairwise_sum(a, lo, n):
    """a[lo] + ... + a[lo+n-1] added in the order of numpy's float64 ``sum``: leaves of at
    most 128 terms (``_block_sum``); above that the range splits in two halves (the
    first a multiple of 8 long) whose sums are added. The split tree is walked with an
    explicit stack (numba's cache cannot reload recursive functions safely)."""
    if n <= 128:
        return _block_sum(a, lo, n)
    starts = np.empty(64, dtype=np.int64)
    lengths = np.empty(64, dtype=np.int64)
    visits = np.zeros(64, dtype=np.int64)  # children of a node already pushed
    values = np.empty(64)
    starts[0], lengths[0], visits[0] = lo, n, 0
    top, nvalues = 1, 0
    while top:
        k = top - 1
        start, length = starts[k], lengths[k]
        if length <= 128:
            values[nvalues] = _block_sum(a, start, length)
            nvalues += 1
            top -= 1
            continue
        half = length // 2
        half -= half % 8
        if visits[k] < 2:
            child_start = start if visits[k] == 0 else start + half
            child_length = half if visits[k] == 0 else length - half
            visits[k] += 1
            starts[top], lengths[top], visits[top] = child_start, child_length, 0
            top += 1
        else:  # both halves summed: replace them by their sum
            values[nvalues - 2] = values[nvalues - 2] + values[nvalues - 1]
            nvalues -= 1
            top -= 1
    return values[0]


@njit(cache=True, nogil=True)
def _group_norm(scaled, squares, lo, n, infinity):
    """Infinity or RMS norm of scaled[lo:lo+n] (>= 0 entries), 0 if empty."""
    if n == 0:
        return 0.0
    if infinity:
        m = scaled[lo]
        for i in range(lo + 1, lo + n):
            if scaled[i] > m:
                m = scaled[i]
        return m
    return math.sqrt(pairwise_sum(squares, lo, n) / n)


@njit(cache=True, nogil=True)
def _argmax(a, lo, n):
    """Offset from lo of the first largest of a[lo:lo+n] (numpy's argmax)."""
    best = 0
    for i in range(1, n):
        if a[lo + i] > a[lo + best]:
            best = i
    return best


@njit(cache=True, nogil=True)
def weighted_error_norm(
    nq,
    nu,
    y_err,
    u_scale,
    z_scale,
    infinity,
    scaled,
    squares,
    mtype,
    qs,
    nqs,
    us,
    nus,
    params,
    euler,
    R_FM,
    q,
    w_u,
    Nbuf,
    Ibuf,
    ub,
):
    """(norm, worst): the largest of the q, u and z weighted norms of y_err (length ny)
    and the index in y of its largest weighted entry (ties go to q, then u), as
    ``calcErrorNorm``; worst is ``NOT_FINITE`` if y_err or a norm is not finite.
    ``scaled`` and ``squares`` (ny,) are scratch; the arguments from ``mtype`` to ``q``
    are scale_dq's (the State at Position stage), w_u the u weights."""
    ny = y_err.shape[0]
    for i in range(ny):
        if not math.isfinite(y_err[i]):
            return math.nan, NOT_FINITE
    nqu = nq + nu
    if nq:
        scale_dq(
            mtype, qs, nqs, us, nus, params, euler, R_FM, q, w_u, y_err[:nq], scaled[:nq],
            Nbuf, Ibuf, ub,
        )  # fmt: skip
    for i in range(nq, nqu):
        scaled[i] = y_err[i] * u_scale[i - nq]
    for i in range(nqu, ny):
        scaled[i] = y_err[i] * z_scale[i - nqu]
    for i in range(ny):
        scaled[i] = abs(scaled[i])
        squares[i] = scaled[i] * scaled[i]
    q_norm = _group_norm(scaled, squares, 0, nq, infinity)
    u_norm = _group_norm(scaled, squares, nq, nu, infinity)
    z_norm = _group_norm(scaled, squares, nqu, ny - nqu, infinity)
    if not (math.isfinite(q_norm) and math.isfinite(u_norm) and math.isfinite(z_norm)):
        return math.nan, NOT_FINITE
    if q_norm >= u_norm:
        if q_norm >= z_norm:
            return q_norm, (_argmax(scaled, 0, nq) if nq else -1)
    elif u_norm >= z_norm:
        return u_norm, nq + _argmax(scaled, nq, nu)
    return z_norm, nqu + _argmax(scaled, nqu, ny - nqu)
