"""Screw mobilizer: q = angle about Fz = Mz, with translation pitch * q along Fz.

u = qdot. params[0] = pitch (translation per radian; see ``params.screw_params``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.multibody.mobilizers.rotation_kernels import rot_z

TYPE_ID = 6
NAME = "Screw"
NQ_SLOTS = 1
NU = 1
USES_QUATERNION = False
DEFAULT_Q = np.zeros(1)


@njit(cache=True)
def x_fm(q, params, euler, R, p):
    rot_z(q[0], R)
    p[0], p[1], p[2] = 0.0, 0.0, params[0] * q[0]


@njit(cache=True)
def h_fm(q, params, euler, R, p, H):
    H[:, 0] = 0.0
    H[2, 0] = 1.0
    H[5, 0] = params[0]


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
