"""Universal (U-joint) mobilizer: q0 = angle about Fx, q1 = angle about the rotated y axis.

R_FM = Rx(q0) Ry(q1), p_FM = 0, u = qdot, w_FM = u0 Fx + u1 Rx(q0) y (in F).
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

TYPE_ID = 7
NAME = "Universal"
NQ_SLOTS = 2
NU = 2
USES_QUATERNION = False
DEFAULT_Q = np.zeros(2)


@njit(cache=True)
def x_fm(q, params, euler, R, p):
    c0, s0 = np.cos(q[0]), np.sin(q[0])
    c1, s1 = np.cos(q[1]), np.sin(q[1])
    # Rx(q0) Ry(q1)
    R[0, 0], R[0, 1], R[0, 2] = c1, 0.0, s1
    R[1, 0], R[1, 1], R[1, 2] = s0 * s1, c0, -s0 * c1
    R[2, 0], R[2, 1], R[2, 2] = -c0 * s1, s0, c0 * c1
    p[:] = 0.0


@njit(cache=True)
def h_fm(q, params, euler, R, p, H):
    c0, s0 = np.cos(q[0]), np.sin(q[0])
    for j in range(2):
        H[:, j] = 0.0
    H[0, 0] = 1.0
    # Rx(q0) y
    H[1, 1] = c0
    H[2, 1] = s0


@njit(cache=True)
def hdot_u(q, u, params, euler, R, p, out):
    # d/dt (Rx(q0) y) u1 = u0 u1 (Fx x Rx(q0) y) = u0 u1 (0, -s0, c0)
    c0, s0 = np.cos(q[0]), np.sin(q[0])
    w = u[0] * u[1]
    out[:] = 0.0
    out[1] = -s0 * w
    out[2] = c0 * w


# ---- best-fit setters (plain Python; see fit.py)


def fit_q_rotation(q, params, euler, R_FM):
    """Body-fixed x-y angles best reproducing R_FM."""
    q[0:2] = _fit.xy_angles(_fit.rotation_matrix(R_FM))


def fit_q_translation(q, params, euler, p_FM):
    """A Universal cannot translate."""


def fit_u_angular(q, u, params, euler, w_FM):
    """Projections of w_FM on Fx and on My = Rx(q0) y (orthogonal axes)."""
    c, s = np.cos(q[0]), np.sin(q[0])
    u[0] = w_FM[0]
    u[1] = c * w_FM[1] + s * w_FM[2]


def fit_u_linear(q, u, params, euler, v_FM):
    """A Universal cannot translate."""
