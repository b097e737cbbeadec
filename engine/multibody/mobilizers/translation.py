"""Translation (Cartesian) mobilizer: q = p_FM in F, u = v_FM in F = qdot; R_FM = I."""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.multibody.mobilizers.identity_kinematics import (  # noqa: F401  (qdot = u)
    n_matrix,
    ndot_matrix,
    ninv_matrix,
)

TYPE_ID = 15
NAME = "Translation"
NQ_SLOTS = 3
NU = 3
USES_QUATERNION = False
DEFAULT_Q = np.zeros(3)


@njit(cache=True)
def x_fm(q, params, euler, R, p):
    for i in range(3):
        for j in range(3):
            R[i, j] = 1.0 if i == j else 0.0
        p[i] = q[i]


@njit(cache=True)
def h_fm(q, params, euler, R, p, H):
    for j in range(3):
        H[:, j] = 0.0
        H[3 + j, j] = 1.0


@njit(cache=True)
def hdot_u(q, u, params, euler, R, p, out):
    out[:] = 0.0


# ---- best-fit setters (plain Python; see fit.py)


def fit_q_rotation(q, params, euler, R_FM):
    """A Translation mobilizer cannot rotate."""


def fit_q_translation(q, params, euler, p_FM):
    """q = p_FM."""
    q[0:3] = p_FM


def fit_u_angular(q, u, params, euler, w_FM):
    """A Translation mobilizer cannot rotate."""


def fit_u_linear(q, u, params, euler, v_FM):
    """u = v_FM."""
    u[0:3] = v_FM
