"""Slider (Prismatic) mobilizer: q = displacement along Fx = Mx, u = its rate."""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.multibody.mobilizers.identity_kinematics import (  # noqa: F401  (qdot = u)
    n_matrix,
    ndot_matrix,
    ninv_matrix,
)

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


# ---- best-fit setters (plain Python; see fit.py)


def fit_q_rotation(q, params, euler, R_FM):
    """A Slider cannot rotate."""


def fit_q_translation(q, params, euler, p_FM):
    """q0 = the x component of p_FM."""
    q[0] = p_FM[0]


def fit_u_angular(q, u, params, euler, w_FM):
    """A Slider cannot rotate."""


def fit_u_linear(q, u, params, euler, v_FM):
    """u0 = the x component of v_FM."""
    u[0] = v_FM[0]
