"""Ball (Orientation, Spherical) mobilizer: 4 rotational slots (quaternion, or x-y-z
angles in Euler mode), u = w_FM expressed in F."""

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

TYPE_ID = 4
NAME = "Ball"
NQ_SLOTS = 4
NU = 3
USES_QUATERNION = True
DEFAULT_Q = np.array([1.0, 0.0, 0.0, 0.0])


@njit(cache=True)
def x_fm(q, params, euler, R, p):
    orientation_rot(q, euler, R)
    p[:] = 0.0


@njit(cache=True)
def h_fm(q, params, euler, R, p, H):
    for j in range(3):
        H[:, j] = 0.0
        H[j, j] = 1.0


@njit(cache=True)
def hdot_u(q, u, params, euler, R, p, out):
    out[:] = 0.0


@njit(cache=True)
def n_matrix(q, params, euler, R, N):
    orientation_n(q, euler, N, 0, 0)


@njit(cache=True)
def ninv_matrix(q, params, euler, R, NInv):
    orientation_ninv(q, euler, NInv, 0, 0)


@njit(cache=True)
def ndot_matrix(q, qdot, params, euler, R, NDot):
    orientation_ndot(q, qdot, euler, NDot, 0, 0)


# ---- best-fit setters (plain Python; see fit.py)


def fit_q_rotation(q, params, euler, R_FM):
    """Quaternion (w >= 0) or x-y-z angles of R_FM."""
    _fit.fit_orientation_slots(q, euler, _fit.rotation_matrix(R_FM))


def fit_q_translation(q, params, euler, p_FM):
    """A Ball cannot translate."""


def fit_u_angular(q, u, params, euler, w_FM):
    """u = w_FM."""
    u[0:3] = w_FM


def fit_u_linear(q, u, params, euler, v_FM):
    """A Ball cannot translate."""
