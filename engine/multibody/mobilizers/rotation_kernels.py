"""Small numba rotation helpers for the mobilizer kernels (Rx, quaternions, x-y-z angles)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def rot_x(a, R):
    """R = Rx(a) (right-handed, active)."""
    c, s = np.cos(a), np.sin(a)
    R[0, 0], R[0, 1], R[0, 2] = 1.0, 0.0, 0.0
    R[1, 0], R[1, 1], R[1, 2] = 0.0, c, -s
    R[2, 0], R[2, 1], R[2, 2] = 0.0, s, c


@njit(cache=True)
def rot_y(a, R):
    """R = Ry(a)."""
    c, s = np.cos(a), np.sin(a)
    R[0, 0], R[0, 1], R[0, 2] = c, 0.0, s
    R[1, 0], R[1, 1], R[1, 2] = 0.0, 1.0, 0.0
    R[2, 0], R[2, 1], R[2, 2] = -s, 0.0, c


@njit(cache=True)
def rot_z(a, R):
    """R = Rz(a)."""
    c, s = np.cos(a), np.sin(a)
    R[0, 0], R[0, 1], R[0, 2] = c, -s, 0.0
    R[1, 0], R[1, 1], R[1, 2] = s, c, 0.0
    R[2, 0], R[2, 1], R[2, 2] = 0.0, 0.0, 1.0


@njit(cache=True)
def quat_to_rot(q, R):
    """R from the quaternion q = [w, x, y, z] (normalized here; q itself is untouched)."""
    n = np.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    w, x, y, z = q[0] / n, q[1] / n, q[2] / n, q[3] / n
    R[0, 0] = 1.0 - 2.0 * (y * y + z * z)
    R[0, 1] = 2.0 * (x * y - w * z)
    R[0, 2] = 2.0 * (x * z + w * y)
    R[1, 0] = 2.0 * (x * y + w * z)
    R[1, 1] = 1.0 - 2.0 * (x * x + z * z)
    R[1, 2] = 2.0 * (y * z - w * x)
    R[2, 0] = 2.0 * (x * z - w * y)
    R[2, 1] = 2.0 * (y * z + w * x)
    R[2, 2] = 1.0 - 2.0 * (x * x + y * y)


@njit(cache=True)
def quat_e_matrix(q, E):
    """E(q) (4 x 3) with qdot = 0.5 E(q) w_F (docs/conventions.md §4), unnormalized q."""
    w, x, y, z = q[0], q[1], q[2], q[3]
    E[0, 0], E[0, 1], E[0, 2] = -x, -y, -z
    E[1, 0], E[1, 1], E[1, 2] = w, z, -y
    E[2, 0], E[2, 1], E[2, 2] = -z, w, x
    E[3, 0], E[3, 1], E[3, 2] = y, -x, w


@njit(cache=True)
def xyz_to_rot(a0, a1, a2, R):
    """R = Rx(a0) Ry(a1) Rz(a2) (body-fixed x-y-z angles)."""
    c0, s0 = np.cos(a0), np.sin(a0)
    c1, s1 = np.cos(a1), np.sin(a1)
    c2, s2 = np.cos(a2), np.sin(a2)
    R[0, 0] = c1 * c2
    R[0, 1] = -c1 * s2
    R[0, 2] = s1
    R[1, 0] = s0 * s1 * c2 + c0 * s2
    R[1, 1] = -s0 * s1 * s2 + c0 * c2
    R[1, 2] = -s0 * c1
    R[2, 0] = -c0 * s1 * c2 + s0 * s2
    R[2, 1] = c0 * s1 * s2 + s0 * c2
    R[2, 2] = c0 * c1


@njit(cache=True)
def xyz_w_matrix(a0, a1, W):
    """W(a) (3 x 3) with w_F = W(a) adot for body-fixed x-y-z angles."""
    c0, s0 = np.cos(a0), np.sin(a0)
    c1, s1 = np.cos(a1), np.sin(a1)
    W[0, 0], W[0, 1], W[0, 2] = 1.0, 0.0, s1
    W[1, 0], W[1, 1], W[1, 2] = 0.0, c0, -s0 * c1
    W[2, 0], W[2, 1], W[2, 2] = 0.0, s0, c0 * c1


@njit(cache=True)
def xyz_wdot_matrix(a0, a1, ad0, ad1, Wd):
    """d/dt W(a) for angle rates (ad0, ad1)."""
    c0, s0 = np.cos(a0), np.sin(a0)
    c1, s1 = np.cos(a1), np.sin(a1)
    Wd[0, 0], Wd[0, 1], Wd[0, 2] = 0.0, 0.0, c1 * ad1
    Wd[1, 0], Wd[1, 1], Wd[1, 2] = 0.0, -s0 * ad0, -c0 * c1 * ad0 + s0 * s1 * ad1
    Wd[2, 0], Wd[2, 1], Wd[2, 2] = 0.0, c0 * ad0, -s0 * c1 * ad0 - c0 * s1 * ad1


@njit(cache=True)
def xyz_winv_matrix(a0, a1, Wi):
    """W(a)^-1 (singular at a1 = ±pi/2)."""
    c0, s0 = np.cos(a0), np.sin(a0)
    c1, s1 = np.cos(a1), np.sin(a1)
    oc1 = 1.0 / c1
    Wi[0, 0], Wi[0, 1], Wi[0, 2] = 1.0, s0 * s1 * oc1, -c0 * s1 * oc1
    Wi[1, 0], Wi[1, 1], Wi[1, 2] = 0.0, c0, s0
    Wi[2, 0], Wi[2, 1], Wi[2, 2] = 0.0, -s0 * oc1, c0 * oc1
