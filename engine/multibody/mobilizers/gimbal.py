"""Gimbal mobilizer: q = body-fixed x-y-z angles (a0, a1, a2), u = qdot.

R_FM = Rx(a0) Ry(a1) Rz(a2), p_FM = 0, w_FM = W(a) u (in F), with
W(a) = [Fx | Rx(a0) y | Rx(a0) Ry(a1) z] (docs/conventions.md §4; singular at a1 = ±pi/2).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.multibody.mobilizers import fit as _fit
from engine.multibody.mobilizers.rotation_kernels import (
    xyz_to_rot,
    xyz_w_matrix,
    xyz_wdot_matrix,
)

TYPE_ID = 12
NAME = "Gimbal"
NQ_SLOTS = 3
NU = 3
USES_QUATERNION = False
DEFAULT_Q = np.zeros(3)


@njit(cache=True)
def x_fm(q, params, euler, R, p):
    xyz_to_rot(q[0], q[1], q[2], R)
    p[:] = 0.0


@njit(cache=True)
def h_fm(q, params, euler, R, p, H):
    """Writes columns 0..2 of H (Bushing reuses this for its rotational block)."""
    W = np.empty((3, 3))
    xyz_w_matrix(q[0], q[1], W)
    for j in range(3):
        for i in range(3):
            H[i, j] = W[i, j]
            H[3 + i, j] = 0.0


@njit(cache=True)
def hdot_u(q, u, params, euler, R, p, out):
    """out[0:3] = Wdot(q, qdot = u) u; out[3:6] = 0."""
    Wd = np.empty((3, 3))
    xyz_wdot_matrix(q[0], q[1], u[0], u[1], Wd)
    for i in range(3):
        out[i] = Wd[i, 0] * u[0] + Wd[i, 1] * u[1] + Wd[i, 2] * u[2]
        out[3 + i] = 0.0


@njit(cache=True)
def n_matrix(q, params, euler, R, N):
    for i in range(3):
        N[i, i] = 1.0


@njit(cache=True)
def ninv_matrix(q, params, euler, R, NInv):
    for i in range(3):
        NInv[i, i] = 1.0


@njit(cache=True)
def ndot_matrix(q, qdot, params, euler, R, NDot):
    for i in range(3):
        NDot[i, i] = 0.0


# ---- best-fit setters (plain Python; see fit.py)


def fit_q_rotation(q, params, euler, R_FM):
    """Body-fixed x-y-z angles of R_FM."""
    q[0:3] = _fit.xyz_angles(_fit.rotation_matrix(R_FM))


def fit_q_translation(q, params, euler, p_FM):
    """A Gimbal cannot translate."""


def fit_u_angular(q, u, params, euler, w_FM):
    """Angle rates reproducing w_FM (least squares at gimbal lock)."""
    u[0:3] = _fit.xyz_angle_rates(q[0:3], np.asarray(w_FM, dtype=np.float64))


def fit_u_linear(q, u, params, euler, v_FM):
    """A Gimbal cannot translate."""
