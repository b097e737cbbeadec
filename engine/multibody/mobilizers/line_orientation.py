"""LineOrientation mobilizer: rotation slots as a Ball (quaternion, or x-y-z angles in Euler
mode, 4th slot unused); u = (wx, wy) = the x and y components of w_FM expressed in M, so
w_FM (in F) = R_FM (u0, u1, 0). The body may not have inertia about Mz: rotation about Mz
is not a mobility. p_FM = 0.

N maps u to the rotational slots through w_F = R_FM[:, 0:2] u:

* quaternion mode: N = 0.5 E(q) R_FM[:, 0:2], NInv = (R_FM^T 2 E(q)^T)[0:2, :] (stored,
  possibly unnormalized q; R_FM from the normalized one, so NInv N = |q|^2 I);
* Euler mode: N = W(a)^-1 R_FM[:, 0:2], NInv = (R_FM^T W(a))[0:2, :].

NDot: in Euler mode the exact time derivative of N. In quaternion mode, as Simbody 3.7 does
(docs/conventions.md §4 Note), NDot = 0.5 E(qdot) R_FM[:, 0:2], which omits the term
0.5 E(q) [w_F]x R_FM[:, 0:2] from the rotation of M and so is not the exact derivative; its
qdotdot = N udot + NDot u matches Simbody's.

``n_matrix``, ``ninv_matrix`` and ``ndot_matrix`` read R_FM from their ``R`` argument, so R
must be the value ``x_fm`` computed for the same q. FreeLine reuses the ``line_*`` helpers.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.multibody.mobilizers import fit as _fit
from engine.multibody.mobilizers.orientation import orientation_rot
from engine.multibody.mobilizers.rotation_kernels import (
    quat_e_matrix,
    xyz_w_matrix,
    xyz_wdot_matrix,
    xyz_winv_matrix,
)

TYPE_ID = 16
NAME = "LineOrientation"
NQ_SLOTS = 4
NU = 2
USES_QUATERNION = True
DEFAULT_Q = np.array([1.0, 0.0, 0.0, 0.0])


@njit(cache=True)
def line_h(R, H):
    """Columns 0, 1 of H: angular parts R_FM x, R_FM y; linear parts 0."""
    for j in range(2):
        for i in range(3):
            H[i, j] = R[i, j]
            H[3 + i, j] = 0.0


@njit(cache=True)
def line_n(q, euler, R, N):
    """Rows 0..3, columns 0..1 of N."""
    if euler:
        Wi = np.empty((3, 3))
        xyz_winv_matrix(q[0], q[1], Wi)
        for i in range(3):
            for j in range(2):
                N[i, j] = Wi[i, 0] * R[0, j] + Wi[i, 1] * R[1, j] + Wi[i, 2] * R[2, j]
        N[3, 0] = 0.0
        N[3, 1] = 0.0
    else:
        E = np.empty((4, 3))
        quat_e_matrix(q, E)
        for i in range(4):
            for j in range(2):
                N[i, j] = 0.5 * (E[i, 0] * R[0, j] + E[i, 1] * R[1, j] + E[i, 2] * R[2, j])


@njit(cache=True)
def line_ninv(q, euler, R, NInv):
    """Rows 0..1, columns 0..3 of NInv."""
    if euler:
        W = np.empty((3, 3))
        xyz_w_matrix(q[0], q[1], W)
        for i in range(2):
            for j in range(3):
                NInv[i, j] = R[0, i] * W[0, j] + R[1, i] * W[1, j] + R[2, i] * W[2, j]
            NInv[i, 3] = 0.0
    else:
        E = np.empty((4, 3))
        quat_e_matrix(q, E)
        for i in range(2):
            for j in range(4):
                NInv[i, j] = 2.0 * (E[j, 0] * R[0, i] + E[j, 1] * R[1, i] + E[j, 2] * R[2, i])


@njit(cache=True)
def line_ndot(q, qdot, euler, R, NDot):
    """Rows 0..3, columns 0..1 of NDot (Simbody 3.7's inexact form in quaternion mode)."""
    if euler:
        Wi = np.empty((3, 3))
        W = np.empty((3, 3))
        Wd = np.empty((3, 3))
        xyz_winv_matrix(q[0], q[1], Wi)
        xyz_w_matrix(q[0], q[1], W)
        xyz_wdot_matrix(q[0], q[1], qdot[0], qdot[1], Wd)
        # w_F from the angle rates; d/dt R[:, j] = w x R[:, j]
        w = np.empty(3)
        for i in range(3):
            w[i] = W[i, 0] * qdot[0] + W[i, 1] * qdot[1] + W[i, 2] * qdot[2]
        Rd = np.empty((3, 2))
        for j in range(2):
            Rd[0, j] = w[1] * R[2, j] - w[2] * R[1, j]
            Rd[1, j] = w[2] * R[0, j] - w[0] * R[2, j]
            Rd[2, j] = w[0] * R[1, j] - w[1] * R[0, j]
        # d/dt (Wi R2) = Wi (Rd - Wd Wi R2), R2 = R[:, 0:2]
        A = np.empty((3, 2))
        for i in range(3):
            for j in range(2):
                A[i, j] = Wi[i, 0] * R[0, j] + Wi[i, 1] * R[1, j] + Wi[i, 2] * R[2, j]
        B = np.empty((3, 2))
        for i in range(3):
            for j in range(2):
                B[i, j] = Rd[i, j] - (Wd[i, 0] * A[0, j] + Wd[i, 1] * A[1, j] + Wd[i, 2] * A[2, j])
        for i in range(3):
            for j in range(2):
                NDot[i, j] = Wi[i, 0] * B[0, j] + Wi[i, 1] * B[1, j] + Wi[i, 2] * B[2, j]
        NDot[3, 0] = 0.0
        NDot[3, 1] = 0.0
    else:
        E = np.empty((4, 3))
        quat_e_matrix(qdot, E)
        for i in range(4):
            for j in range(2):
                NDot[i, j] = 0.5 * (E[i, 0] * R[0, j] + E[i, 1] * R[1, j] + E[i, 2] * R[2, j])


@njit(cache=True)
def x_fm(q, params, euler, R, p):
    orientation_rot(q, euler, R)
    p[:] = 0.0


@njit(cache=True)
def h_fm(q, params, euler, R, p, H):
    line_h(R, H)


@njit(cache=True)
def hdot_u(q, u, params, euler, R, p, out):
    # d/dt (R (u0, u1, 0)) at fixed u = w x w = 0.
    out[:] = 0.0


@njit(cache=True)
def n_matrix(q, params, euler, R, N):
    line_n(q, euler, R, N)


@njit(cache=True)
def ninv_matrix(q, params, euler, R, NInv):
    line_ninv(q, euler, R, NInv)


@njit(cache=True)
def ndot_matrix(q, qdot, params, euler, R, NDot):
    line_ndot(q, qdot, euler, R, NDot)


# ---- best-fit setters (plain Python; see fit.py)


def fit_q_rotation(q, params, euler, R_FM):
    """Quaternion (w >= 0) or x-y-z angles of R_FM (only Mz matters physically)."""
    _fit.fit_orientation_slots(q, euler, _fit.rotation_matrix(R_FM))


def fit_q_translation(q, params, euler, p_FM):
    """A LineOrientation cannot translate."""


def fit_u_angular(q, u, params, euler, w_FM):
    """(u0, u1) = the x and y components of w_FM expressed in M (spin about Mz is lost)."""
    R = np.empty((3, 3))
    orientation_rot(q, euler, R)
    u[0:2] = (R.T @ np.asarray(w_FM, dtype=np.float64))[0:2]


def fit_u_linear(q, u, params, euler, v_FM):
    """A LineOrientation cannot translate."""
