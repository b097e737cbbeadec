"""Free mobilizer: 4 rotational slots then p_FM (3) (Euler mode: 3 angles, p_FM, one
unused slot); u = [w_FM in F, v_FM in F]."""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.multibody.mobilizers import fit as _fit
from engine.multibody.mobilizers.orientation import (
    orientation_n,
    orientation_ndot,
    orientation_ninv,
    orientation_rot,
)

TYPE_ID = 5
NAME = "Free"
NQ_SLOTS = 7
NU = 6
USES_QUATERNION = True
DEFAULT_Q = np.array([1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])


@njit(cache=True)
def translation_q_start(euler):
    """Index of the translation's first q (after 3 Euler angles or 4 quaternion entries)."""
    return 3 if euler else 4


@njit(cache=True)
def x_fm(q, params, euler, R, p):
    orientation_rot(q, euler, R)
    s = translation_q_start(euler)
    p[0], p[1], p[2] = q[s], q[s + 1], q[s + 2]


@njit(cache=True)
def h_fm(q, params, euler, R, p, H):
    for j in range(6):
        H[:, j] = 0.0
        H[j, j] = 1.0


@njit(cache=True)
def hdot_u(q, u, params, euler, R, p, out):
    out[:] = 0.0


@njit(cache=True)
def n_matrix(q, params, euler, R, N):
    orientation_n(q, euler, N, 0, 0)
    s = translation_q_start(euler)
    for i in range(3):
        N[s + i, 3 + i] = 1.0


@njit(cache=True)
def ninv_matrix(q, params, euler, R, NInv):
    orientation_ninv(q, euler, NInv, 0, 0)
    s = translation_q_start(euler)
    for i in range(3):
        NInv[3 + i, s + i] = 1.0


@njit(cache=True)
def ndot_matrix(q, qdot, params, euler, R, NDot):
    orientation_ndot(q, qdot, euler, NDot, 0, 0)


# ---- best-fit setters (plain Python; see fit.py)


def fit_q_rotation(q, params, euler, R_FM):
    """Quaternion (w >= 0) or x-y-z angles of R_FM."""
    _fit.fit_orientation_slots(q, euler, _fit.rotation_matrix(R_FM))


def fit_q_translation(q, params, euler, p_FM):
    """p_FM into slots 4..6 (Euler mode: 3..5)."""
    s = 3 if euler else 4
    q[s : s + 3] = p_FM


def fit_u_angular(q, u, params, euler, w_FM):
    """(u0, u1, u2) = w_FM."""
    u[0:3] = w_FM


def fit_u_linear(q, u, params, euler, v_FM):
    """(u3, u4, u5) = v_FM."""
    u[3:6] = v_FM
