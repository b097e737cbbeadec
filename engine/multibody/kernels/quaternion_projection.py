"""Kernels of the quaternion part of position projection: the norm check, the
normalization and the removal of the norm-changing part of an error estimate, over the
quaternions of a matter subsystem's q (each 4 entries from its start index)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _norm4(q, s):
    return np.sqrt(q[s] * q[s] + q[s + 1] * q[s + 1] + q[s + 2] * q[s + 2] + q[s + 3] * q[s + 3])


@njit(cache=True, nogil=True)
def quaternions_to_normalize(q, starts, tol, force):
    """1 if some quaternion's norm differs from 1 by more than ``tol`` (any, if
    ``force``), 0 if none; -(k + 1) if quaternion k is zero (it cannot be normalized)."""
    status = 0
    for k in range(starts.shape[0]):
        n = _norm4(q, starts[k])
        if n == 0.0:
            return -(k + 1)
        if force or abs(n - 1.0) > tol:
            status = 1
    return status


@njit(cache=True, nogil=True)
def normalize_quaternions(q, starts, tol, force):
    """Divide each quaternion whose norm differs from 1 by more than ``tol`` (every one,
    if ``force``) by its norm, in place (none is zero: see quaternions_to_normalize)."""
    for k in range(starts.shape[0]):
        s = starts[k]
        n = _norm4(q, s)
        if force or abs(n - 1.0) > tol:
            for i in range(4):
                q[s + i] /= n


@njit(cache=True, nogil=True)
def remove_quaternion_norm_errors(q, starts, est):
    """est_k -= (est_k . n_k) n_k for each quaternion k, n_k = q_k / |q_k|: the part of an
    error estimate that would change a quaternion's norm (projection removes it)."""
    n = np.empty(4)
    for k in range(starts.shape[0]):
        s = starts[k]
        norm = _norm4(q, s)
        for i in range(4):
            n[i] = q[s + i] / norm
        d = est[s] * n[0] + est[s + 1] * n[1] + est[s + 2] * n[2] + est[s + 3] * n[3]
        for i in range(4):
            est[s + i] -= d * n[i]
