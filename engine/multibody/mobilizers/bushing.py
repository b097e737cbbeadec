"""Bushing mobilizer: q = x-y-z body-fixed angles (q0..q2) then p_FM in F (q3..q5); u = qdot.

R_FM = Rx(q0) Ry(q1) Rz(q2), p_FM = (q3, q4, q5), w_FM = W(q0..2) u0..2, v_FM = u3..5
(the Gimbal's rotation plus a Translation).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.multibody.mobilizers import fit as _fit
from engine.multibody.mobilizers import gimbal

TYPE_ID = 13
NAME = "Bushing"
NQ_SLOTS = 6
NU = 6
USES_QUATERNION = False
DEFAULT_Q = np.zeros(6)


@njit(cache=True)
def x_fm(q, params, euler, R, p):
    gimbal.x_fm(q, params, euler, R, p)
    p[0], p[1], p[2] = q[3], q[4], q[5]


@njit(cache=True)
def h_fm(q, params, euler, R, p, H):
    gimbal.h_fm(q, params, euler, R, p, H)
    for j in range(3, 6):
        H[:, j] = 0.0
        H[j, j] = 1.0


@njit(cache=True)
def hdot_u(q, u, params, euler, R, p, out):
    gimbal.hdot_u(q, u, params, euler, R, p, out)


@njit(cache=True)
def n_matrix(q, params, euler, R, N):
    for i in range(6):
        N[i, i] = 1.0


@njit(cache=True)
def ninv_matrix(q, params, euler, R, NInv):
    for i in range(6):
        NInv[i, i] = 1.0


@njit(cache=True)
def ndot_matrix(q, qdot, params, euler, R, NDot):
    for i in range(6):
        NDot[i, i] = 0.0


# ---- best-fit setters (plain Python; see fit.py)


def fit_q_rotation(q, params, euler, R_FM):
    """Body-fixed x-y-z angles of R_FM."""
    q[0:3] = _fit.xyz_angles(_fit.rotation_matrix(R_FM))


def fit_q_translation(q, params, euler, p_FM):
    """(q3, q4, q5) = p_FM."""
    q[3:6] = p_FM


def fit_u_angular(q, u, params, euler, w_FM):
    """Angle rates reproducing w_FM (least squares at gimbal lock)."""
    u[0:3] = _fit.xyz_angle_rates(q[0:3], np.asarray(w_FM, dtype=np.float64))


def fit_u_linear(q, u, params, euler, v_FM):
    """(u3, u4, u5) = v_FM."""
    u[3:6] = v_FM
