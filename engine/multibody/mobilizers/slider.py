"""Slider (Prismatic) mobilizer: q = displacement along Fx = Mx, u = its rate."""

from __future__ import annotations

import numpy as np
from numba import njit

TYPE_ID = 3
NAME = "Slider"
NQ_SLOTS = 1
NU = 1
USES_QUATERNION = False
DEFAULT_Q = np.zeros(1)


@njit(cache=True)
def x_fm(q, params, euler, R, p):
    for i in range(3):
        for j in range(3):
            R[i, j] = 1.0 if i == j else 0.0
    p[0], p[1], p[2] = q[0], 0.0, 0.0


@njit(cache=True)
def h_fm(q, params, euler, R, p, H):
    H[:, 0] = 0.0
    H[3, 0] = 1.0


@njit(cache=True)
def hdot_u(q, u, params, euler, R, p, out):
    out[:] = 0.0


@njit(cache=True)
def n_matrix(q, params, euler, R, N):
    N[0, 0] = 1.0


@njit(cache=True)
def ninv_matrix(q, params, euler, R, NInv):
    NInv[0, 0] = 1.0


@njit(cache=True)
def ndot_matrix(q, qdot, params, euler, R, NDot):
    NDot[0, 0] = 0.0
