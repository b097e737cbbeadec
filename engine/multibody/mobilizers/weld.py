"""Weld mobilizer: no q, no u; M coincides with F."""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.multibody.mobilizers.identity_kinematics import (  # noqa: F401  (qdot = u)
    n_matrix,
    ndot_matrix,
    ninv_matrix,
)

TYPE_ID = 1
NAME = "Weld"
NQ_SLOTS = 0
NU = 0
USES_QUATERNION = False
DEFAULT_Q = np.zeros(0)


@njit(cache=True)
def x_fm(q, params, euler, R, p):
    for i in range(3):
        for j in range(3):
            R[i, j] = 1.0 if i == j else 0.0
        p[i] = 0.0


@njit(cache=True)
def h_fm(q, params, euler, R, p, H):
    pass


@njit(cache=True)
def hdot_u(q, u, params, euler, R, p, out):
    out[:] = 0.0


# ---- best-fit setters (plain Python; see fit.py)


def fit_q_rotation(q, params, euler, R_FM):
    """A Weld has no q."""


def fit_q_translation(q, params, euler, p_FM):
    """A Weld has no q."""


def fit_u_angular(q, u, params, euler, w_FM):
    """A Weld has no u."""


def fit_u_linear(q, u, params, euler, v_FM):
    """A Weld has no u."""
