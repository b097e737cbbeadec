"""Shared kernels for the rotational part of quaternion-capable mobilizers.

In quaternion mode the 4 slots hold q = [w, x, y, z] (possibly unnormalized;
R uses the normalized value, N/NInv/NDot the stored one). In Euler mode the
first 3 slots hold body-fixed x-y-z angles and the 4th is unused. The angular
velocity w_F (of M in F, expressed in F) relates to the slots by
qdot = N_rot w_F (docs/conventions.md §4).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.multibody.mobilizers.rotation_kernels import (
    quat_e_matrix,
    quat_to_rot,
    xyz_to_rot,
    xyz_w_matrix,
    xyz_wdot_matrix,
    xyz_winv_matrix,
)


@njit(cache=True)
def orientation_rot(q, euler, R):
    """R_FM from the 4 rotational slots."""
    if euler:
        xyz_to_rot(q[0], q[1], q[2], R)
    else:
        quat_to_rot(q, R)


@njit(cache=True)
def orientation_n(q, euler, N, row0, col0):
    """Write N_rot (4 x 3) into N[row0:row0+4, col0:col0+3]: qdot_rot = N_rot w_F."""
    if euler:
        Wi = np.empty((3, 3))
        xyz_winv_matrix(q[0], q[1], Wi)
        for i in range(3):
            for j in range(3):
                N[row0 + i, col0 + j] = Wi[i, j]
        for j in range(3):
            N[row0 + 3, col0 + j] = 0.0
    else:
        E = np.empty((4, 3))
        quat_e_matrix(q, E)
        for i in range(4):
            for j in range(3):
                N[row0 + i, col0 + j] = 0.5 * E[i, j]


@njit(cache=True)
def orientation_ninv(q, euler, NInv, row0, col0):
    """Write NInv_rot (3 x 4) into NInv[row0:row0+3, col0:col0+4]: w_F = NInv_rot qdot_rot."""
    if euler:
        W = np.empty((3, 3))
        xyz_w_matrix(q[0], q[1], W)
        for i in range(3):
            for j in range(3):
                NInv[row0 + i, col0 + j] = W[i, j]
            NInv[row0 + i, col0 + 3] = 0.0
    else:
        E = np.empty((4, 3))
        quat_e_matrix(q, E)
        for i in range(3):
            for j in range(4):
                NInv[row0 + i, col0 + j] = 2.0 * E[j, i]


@njit(cache=True)
def orientation_ndot(q, qdot, euler, NDot, row0, col0):
    """Write d/dt N_rot (4 x 3) into NDot[row0:row0+4, col0:col0+3]."""
    if euler:
        Wi = np.empty((3, 3))
        Wd = np.empty((3, 3))
        xyz_winv_matrix(q[0], q[1], Wi)
        xyz_wdot_matrix(q[0], q[1], qdot[0], qdot[1], Wd)
        M = -(Wi @ Wd @ Wi)
        for i in range(3):
            for j in range(3):
                NDot[row0 + i, col0 + j] = M[i, j]
        for j in range(3):
            NDot[row0 + 3, col0 + j] = 0.0
    else:
        E = np.empty((4, 3))
        quat_e_matrix(qdot, E)
        for i in range(4):
            for j in range(3):
                NDot[row0 + i, col0 + j] = 0.5 * E[i, j]
