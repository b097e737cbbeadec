"""N, N^-1 and NDot of every mobilizer whose generalized speeds are the coordinates' rates.

For Weld, Pin, Slider, Screw, Universal, Cylinder, BendStretch, Planar and Translation
qdot = u, so N = N^-1 = I (nq = nu) and NDot = 0. Those mobilizer modules re-export these
kernels under the common interface names. The block passed in is exactly nq x nu.
"""

from __future__ import annotations

from numba import njit


@njit(cache=True)
def n_matrix(q, params, euler, R, N):
    """N = I."""
    N[:, :] = 0.0
    for i in range(min(N.shape[0], N.shape[1])):
        N[i, i] = 1.0


@njit(cache=True)
def ninv_matrix(q, params, euler, R, NInv):
    """N^-1 = I."""
    NInv[:, :] = 0.0
    for i in range(min(NInv.shape[0], NInv.shape[1])):
        NInv[i, i] = 1.0


@njit(cache=True)
def ndot_matrix(q, qdot, params, euler, R, NDot):
    """NDot = 0."""
    NDot[:, :] = 0.0
