"""BendStretch (PolarCoords) mobilizer: q0 = angle about Fz = Mz, q1 = slide along Mx.

R_FM = Rz(q0), p_FM = q1 Mx (Mx = Rz(q0) x, in F); u = qdot;
w_FM = u0 Fz, v_FM = u1 Mx + q1 u0 (Fz x Mx).
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

TYPE_ID = 9
NAME = "BendStretch"
NQ_SLOTS = 2
NU = 2
USES_QUATERNION = False
DEFAULT_Q = np.zeros(2)


@njit(cache=True)
def x_fm(q, params, euler, R, p):
    rot_z(q[0], R)
    p[0], p[1], p[2] = q[1] * R[0, 0], q[1] * R[1, 0], 0.0


@njit(cache=True)
def h_fm(q, params, euler, R, p, H):
    # Mx = (c, s, 0) = R[:, 0]; Fz x Mx = (-s, c, 0) = R[:, 1] = My.
    for j in range(2):
        H[:, j] = 0.0
    H[2, 0] = 1.0
    H[3, 0] = q[1] * R[0, 1]
    H[4, 0] = q[1] * R[1, 1]
    H[3, 1] = R[0, 0]
    H[4, 1] = R[1, 0]


@njit(cache=True)
def hdot_u(q, u, params, euler, R, p, out):
    # d/dt (u1 Mx + q1 u0 My) at fixed u, with Mx' = u0 My, My' = -u0 Mx, q1' = u1:
    # 2 u0 u1 My - q1 u0^2 Mx.
    a = 2.0 * u[0] * u[1]
    b = q[1] * u[0] * u[0]
    out[:] = 0.0
    out[3] = a * R[0, 1] - b * R[0, 0]
    out[4] = a * R[1, 1] - b * R[1, 0]


# ---- best-fit setters (plain Python; see fit.py)


def fit_q_rotation(q, params, euler, R_FM):
    """q0 = the angle of R_FM about z."""
    q[0] = _fit.angle_about_z(_fit.rotation_matrix(R_FM))


def fit_q_translation(q, params, euler, p_FM):
    """The (x, y) part of p_FM as q1 Mx: keep the angle if p lies along +-Mx, else turn Mx
    towards p; nothing to turn to for p ~ 0 (then q1 = 0)."""
    r = np.array([p_FM[0], p_FM[1]])
    d = float(np.hypot(r[0], r[1]))
    mx = np.array([np.cos(q[0]), np.sin(q[0])])
    along = float(r @ mx)
    if d <= 1e-14 or abs(abs(along) - d) <= 1e-12 * max(1.0, d):
        q[1] = along
        return
    q[0] = np.arctan2(r[1], r[0])
    q[1] = d


def fit_u_angular(q, u, params, euler, w_FM):
    """u0 = the z component of w_FM."""
    u[0] = w_FM[2]


def fit_u_linear(q, u, params, euler, v_FM):
    """v_FM = u1 Mx + q1 u0 My: u1 from the Mx part, and u0 from the My part if q1 != 0."""
    c, s = np.cos(q[0]), np.sin(q[0])
    u[1] = c * v_FM[0] + s * v_FM[1]
    if q[1] != 0.0:
        u[0] = (-s * v_FM[0] + c * v_FM[1]) / q[1]
