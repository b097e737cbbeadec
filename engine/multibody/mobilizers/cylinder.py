"""Cylinder mobilizer: q0 = angle about Fz = Mz, q1 = slide along Fz; u = qdot.

R_FM = Rz(q0), p_FM = q1 Fz, w_FM = u0 Fz, v_FM = u1 Fz.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.multibody.mobilizers import fit as _fit
from engine.multibody.mobilizers.identity_kinematics import (  # noqa: F401  (qdot = u)
    n_matrix,
    ndot_matrix,
    ninv_matrix,
)
from engine.multibody.mobilizers.rotation_kernels import rot_z

TYPE_ID = 8
NAME = "Cylinder"
NQ_SLOTS = 2
NU = 2
USES_QUATERNION = False
DEFAULT_Q = np.zeros(2)


@njit(cache=True)
def x_fm(q, params, euler, R, p):
    rot_z(q[0], R)
    p[0], p[1], p[2] = 0.0, 0.0, q[1]


@njit(cache=True)
def h_fm(q, params, euler, R, p, H):
    for j in range(2):
        H[:, j] = 0.0
    H[2, 0] = 1.0
    H[5, 1] = 1.0


@njit(cache=True)
def hdot_u(q, u, params, euler, R, p, out):
    out[:] = 0.0


# ---- best-fit setters (plain Python; see fit.py)


def fit_q_rotation(q, params, euler, R_FM):
    """q0 = the angle of R_FM about z."""
    q[0] = _fit.angle_about_z(_fit.rotation_matrix(R_FM))


def fit_q_translation(q, params, euler, p_FM):
    """q1 = the z component of p_FM."""
    q[1] = p_FM[2]


def fit_u_angular(q, u, params, euler, w_FM):
    """u0 = the z component of w_FM."""
    u[0] = w_FM[2]


def fit_u_linear(q, u, params, euler, v_FM):
    """u1 = the z component of v_FM."""
    u[1] = v_FM[2]
