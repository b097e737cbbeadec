"""Small numba helpers for spatial algebra about body origins, in Ground."""

from __future__ import annotations

from numba import njit


@njit(cache=True, nogil=True)
def shift_motion_to_child(V_P, r, out):
    """out = Phi(r)^T V_P: [w; v + w x r] (r from parent origin to child origin)."""
    out[0], out[1], out[2] = V_P[0], V_P[1], V_P[2]
    out[3] = V_P[3] + V_P[1] * r[2] - V_P[2] * r[1]
    out[4] = V_P[4] + V_P[2] * r[0] - V_P[0] * r[2]
    out[5] = V_P[5] + V_P[0] * r[1] - V_P[1] * r[0]


@njit(cache=True, nogil=True)
def shift_force_to_parent_add(F_C, r, out):
    """out += Phi(r) F_C: torque about the parent origin [t + r x f; f]."""
    out[0] += F_C[0] + r[1] * F_C[5] - r[2] * F_C[4]
    out[1] += F_C[1] + r[2] * F_C[3] - r[0] * F_C[5]
    out[2] += F_C[2] + r[0] * F_C[4] - r[1] * F_C[3]
    out[3] += F_C[3]
    out[4] += F_C[4]
    out[5] += F_C[5]


@njit(cache=True, nogil=True)
def add_h_times(H, nu, x, s, out):
    """out += H[:, :nu] @ x[s:s+nu] for a 6 x 6 block H (explicit loops: no copies)."""
    for j in range(nu):
        xj = x[s + j]
        for i in range(6):
            out[i] += H[i, j] * xj


@njit(cache=True, nogil=True)
def h_transpose_times(H, nu, F, out, s):
    """out[s:s+nu] = H[:, :nu]^T @ F for a 6 x 6 block H and a 6-vector F."""
    for j in range(nu):
        acc = 0.0
        for i in range(6):
            acc += H[i, j] * F[i]
        out[s + j] = acc
