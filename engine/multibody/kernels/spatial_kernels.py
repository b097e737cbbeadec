"""Small numba helpers for spatial algebra about body origins, in Ground."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def cross(a, b, out):
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]


@njit(cache=True)
def cross3(a, b):
    return np.array(
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    )


@njit(cache=True)
def shift_motion_to_child(V_P, r, out):
    """out = Phi(r)^T V_P: [w; v + w x r] (r from parent origin to child origin)."""
    out[0], out[1], out[2] = V_P[0], V_P[1], V_P[2]
    out[3] = V_P[3] + V_P[1] * r[2] - V_P[2] * r[1]
    out[4] = V_P[4] + V_P[2] * r[0] - V_P[0] * r[2]
    out[5] = V_P[5] + V_P[0] * r[1] - V_P[1] * r[0]


@njit(cache=True)
def shift_force_to_parent_add(F_C, r, out):
    """out += Phi(r) F_C: torque about the parent origin [t + r x f; f]."""
    out[0] += F_C[0] + r[1] * F_C[5] - r[2] * F_C[4]
    out[1] += F_C[1] + r[2] * F_C[3] - r[0] * F_C[5]
    out[2] += F_C[2] + r[0] * F_C[4] - r[1] * F_C[3]
    out[3] += F_C[3]
    out[4] += F_C[4]
    out[5] += F_C[5]


@njit(cache=True)
def phi_matrix(r):
    """The 6x6 force-shift matrix Phi(r) = [[1, [r]x], [0, 1]]."""
    P = np.eye(6)
    P[0, 4], P[0, 5] = -r[2], r[1]
    P[1, 3], P[1, 5] = r[2], -r[0]
    P[2, 3], P[2, 4] = -r[1], r[0]
    return P


@njit(cache=True)
def spatial_inertia_G(m, c, I, out):
    """out = [[I, m[c]x], [-m[c]x, m 1]] with I about Bo and c = p_BoC, both in G."""
    for i in range(3):
        for j in range(3):
            out[i, j] = I[i, j]
            out[i, 3 + j] = 0.0
            out[3 + i, j] = 0.0
            out[3 + i, 3 + j] = m if i == j else 0.0
    mc0, mc1, mc2 = m * c[0], m * c[1], m * c[2]
    out[0, 4], out[0, 5] = -mc2, mc1
    out[1, 3], out[1, 5] = mc2, -mc0
    out[2, 3], out[2, 4] = -mc1, mc0
    out[4, 0], out[5, 0] = -mc2, mc1
    out[3, 1], out[5, 1] = mc2, -mc0
    out[3, 2], out[4, 2] = -mc1, mc0


@njit(cache=True)
def add_h_times(H, nu, x, s, out):
    """out += H[:, :nu] @ x[s:s+nu] for a 6 x 6 block H (explicit loops: no copies)."""
    for j in range(nu):
        xj = x[s + j]
        for i in range(6):
            out[i] += H[i, j] * xj


@njit(cache=True)
def h_transpose_times(H, nu, F, out, s):
    """out[s:s+nu] = H[:, :nu]^T @ F for a 6 x 6 block H and a 6-vector F."""
    for j in range(nu):
        acc = 0.0
        for i in range(6):
            acc += H[i, j] * F[i]
        out[s + j] = acc
