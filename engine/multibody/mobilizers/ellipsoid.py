"""Ellipsoid mobilizer: rotation as a Ball (quaternion, or x-y-z angles in Euler mode),
u = w_FM in F; Mo moves on the ellipsoid with semi-axes (a, b, c) along Fx, Fy, Fz.

params[0:3] = (a, b, c) (``params.ellipsoid_params``). As in Simbody 3.7 (docs/conventions.md §3
Note), p_FM = (a nx, b ny, c nz) with n = Mz expressed in F, so v_FM = D (w_FM x n) with
D = diag(a, b, c). The surface normal at Mo is parallel to Mz only for a sphere.
"""

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

TYPE_ID = 14
NAME = "Ellipsoid"
NQ_SLOTS = 4
NU = 3
USES_QUATERNION = True
DEFAULT_Q = np.array([1.0, 0.0, 0.0, 0.0])


@njit(cache=True)
def x_fm(q, params, euler, R, p):
    orientation_rot(q, euler, R)
    for i in range(3):
        p[i] = params[i] * R[i, 2]


@njit(cache=True)
def h_fm(q, params, euler, R, p, H):
    n0, n1, n2 = R[0, 2], R[1, 2], R[2, 2]
    for j in range(3):
        H[:, j] = 0.0
        H[j, j] = 1.0
    # linear column j = D (e_j x n)
    H[4, 0], H[5, 0] = -params[1] * n2, params[2] * n1
    H[3, 1], H[5, 1] = params[0] * n2, -params[2] * n0
    H[3, 2], H[4, 2] = -params[0] * n1, params[1] * n0


@njit(cache=True)
def hdot_u(q, u, params, euler, R, p, out):
    """(d/dt H) u = [0; D (w x (w x n))] with w = u."""
    n0, n1, n2 = R[0, 2], R[1, 2], R[2, 2]
    w0, w1, w2 = u[0], u[1], u[2]
    c0, c1, c2 = w1 * n2 - w2 * n1, w2 * n0 - w0 * n2, w0 * n1 - w1 * n0
    out[0], out[1], out[2] = 0.0, 0.0, 0.0
    out[3] = params[0] * (w1 * c2 - w2 * c1)
    out[4] = params[1] * (w2 * c0 - w0 * c2)
    out[5] = params[2] * (w0 * c1 - w1 * c0)


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
    """Mo lies at D n (D = diag(a, b, c), n = Mz): turn M as little as possible so that its
    Mz is the n pointing at p_FM (nothing for p ~ 0 or a degenerate ellipsoid)."""
    d = np.asarray(params[0:3], dtype=np.float64)
    p = np.asarray(p_FM, dtype=np.float64)
    if np.any(d == 0.0) or float(np.linalg.norm(p)) <= 1e-14:
        return
    n = p / d
    n /= np.linalg.norm(n)
    R = np.empty((3, 3))
    orientation_rot(q, euler, R)
    _fit.fit_orientation_slots(q, euler, _fit.rotate_axis_z_to(R, n))


def fit_u_angular(q, u, params, euler, w_FM):
    """u = w_FM."""
    u[0:3] = w_FM


def fit_u_linear(q, u, params, euler, v_FM):
    """v_FM = D (w x n): keep the spin about n = Mz, fit the rest by least squares."""
    R = np.empty((3, 3))
    orientation_rot(q, euler, R)
    n = R[:, 2]
    N = np.array([[0.0, n[2], -n[1]], [-n[2], 0.0, n[0]], [n[1], -n[0], 0.0]])  # w -> w x n
    A = np.diag(np.asarray(params[0:3], dtype=np.float64)) @ N
    w = np.asarray(u[0:3], dtype=np.float64)
    spin = float(w @ n) * n
    u[0:3] = spin + _fit.least_squares(A, np.asarray(v_FM, dtype=np.float64))
