"""Pin (Torsion, Revolute) mobilizer: q = angle about Fz = Mz, u = its rate."""

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

TYPE_ID = 2
NAME = "Pin"
NQ_SLOTS = 1
NU = 1
USES_QUATERNION = False
DEFAULT_Q = np.zeros(1)


@njit(cache=True)
def x_fm(q, params, euler, R, p):
    rot_z(q[0], R)
    p[:] = 0.0


@njit(cache=True)
def h_fm(q, params, euler, R, p, H):
    H[:, 0] = 0.0
    H[2, 0] = 1.0


@njit(cache=True)
def hdot_u(q, u, params, euler, R, p, out):
    out[:] = 0.0


# ---- best-fit setters (plain Python; see fit.py)


def fit_q_rotation(q, params, euler, R_FM):
    """q0 = the angle of R_FM about z."""
    q[0] = _fit.angle_about_z(_fit.rotation_matrix(R_FM))


def fit_q_translation(q, params, euler, p_FM):
    """A Pin cannot translate."""


def fit_u_angular(q, u, params, euler, w_FM):
    """u0 = the z component of w_FM."""
    u[0] = w_FM[2]


def fit_u_linear(q, u, params, euler, v_FM):
    """A Pin cannot translate."""
