"""Select a mobilizer type's kernel by TYPE_ID inside compiled code; reversed mobilizers.

``MOBILIZER_MODULES`` maps TYPE_ID to the type's module (for its Python-level
constants). The ``*_any`` functions are the numba-compiled switch used by the
O(n) algorithms; a new mobilizer type is added here in both places.
"""

from __future__ import annotations

import numpy as np

from engine.common.numba_internals import runtime_jit
from engine.multibody.mobilizers import (
    ball,
    bend_stretch,
    bushing,
    cylinder,
    ellipsoid,
    free,
    free_line,
    gimbal,
    line_orientation,
    pin,
    planar,
    screw,
    slider,
    spherical_coords,
    translation,
    universal,
    weld,
)

GROUND_TYPE_ID = 0

#: A reversed mobilizer (MobilizedBody.Reverse) of type t has the type id t + REVERSED_OFFSET in
#: the compiled kernels. Its q and u mean what they mean for the forward mobilizer with the
#: frames swapped: the type's kinematics give X_MF(q) and V_MF = H_MF u (of Fo in M, in M), and
#: the kernels below turn them into X_FM = ~X_MF, H_FM, (d/dt H_FM) u; N, NInv and NDot are the
#: forward type's (taking R_MF = ~R_FM).
REVERSED_OFFSET = 32

MOBILIZER_MODULES = {
    m.TYPE_ID: m
    for m in (
        weld,
        pin,
        slider,
        ball,
        free,
        screw,
        universal,
        cylinder,
        bend_stretch,
        planar,
        spherical_coords,
        gimbal,
        bushing,
        ellipsoid,
        translation,
        line_orientation,
        free_line,
    )
}
MOBILIZER_BY_NAME = {m.NAME: m for m in MOBILIZER_MODULES.values()}

# The dispatchers below keep numba's runtime (``runtime_jit``, so that a caller compiled
# without it, ``kernel_jit``, does not pass that on): the kinematics of several
# mobilizers build small temporary arrays.


@runtime_jit
def _x_fm_forward(t, q, params, euler, R, p):
    """R_FM, p_FM for mobilizer type ``t``."""
    if t == pin.TYPE_ID:
        pin.x_fm(q, params, euler, R, p)
    elif t == slider.TYPE_ID:
        slider.x_fm(q, params, euler, R, p)
    elif t == ball.TYPE_ID:
        ball.x_fm(q, params, euler, R, p)
    elif t == free.TYPE_ID:
        free.x_fm(q, params, euler, R, p)
    elif t == screw.TYPE_ID:
        screw.x_fm(q, params, euler, R, p)
    elif t == universal.TYPE_ID:
        universal.x_fm(q, params, euler, R, p)
    elif t == cylinder.TYPE_ID:
        cylinder.x_fm(q, params, euler, R, p)
    elif t == bend_stretch.TYPE_ID:
        bend_stretch.x_fm(q, params, euler, R, p)
    elif t == planar.TYPE_ID:
        planar.x_fm(q, params, euler, R, p)
    elif t == spherical_coords.TYPE_ID:
        spherical_coords.x_fm(q, params, euler, R, p)
    elif t == gimbal.TYPE_ID:
        gimbal.x_fm(q, params, euler, R, p)
    elif t == bushing.TYPE_ID:
        bushing.x_fm(q, params, euler, R, p)
    elif t == ellipsoid.TYPE_ID:
        ellipsoid.x_fm(q, params, euler, R, p)
    elif t == translation.TYPE_ID:
        translation.x_fm(q, params, euler, R, p)
    elif t == line_orientation.TYPE_ID:
        line_orientation.x_fm(q, params, euler, R, p)
    elif t == free_line.TYPE_ID:
        free_line.x_fm(q, params, euler, R, p)
    else:
        weld.x_fm(q, params, euler, R, p)


@runtime_jit
def _h_fm_forward(t, q, params, euler, R, p, H):
    """H_FM (6 x nu) for mobilizer type ``t``."""
    if t == pin.TYPE_ID:
        pin.h_fm(q, params, euler, R, p, H)
    elif t == slider.TYPE_ID:
        slider.h_fm(q, params, euler, R, p, H)
    elif t == ball.TYPE_ID:
        ball.h_fm(q, params, euler, R, p, H)
    elif t == free.TYPE_ID:
        free.h_fm(q, params, euler, R, p, H)
    elif t == screw.TYPE_ID:
        screw.h_fm(q, params, euler, R, p, H)
    elif t == universal.TYPE_ID:
        universal.h_fm(q, params, euler, R, p, H)
    elif t == cylinder.TYPE_ID:
        cylinder.h_fm(q, params, euler, R, p, H)
    elif t == bend_stretch.TYPE_ID:
        bend_stretch.h_fm(q, params, euler, R, p, H)
    elif t == planar.TYPE_ID:
        planar.h_fm(q, params, euler, R, p, H)
    elif t == spherical_coords.TYPE_ID:
        spherical_coords.h_fm(q, params, euler, R, p, H)
    elif t == gimbal.TYPE_ID:
        gimbal.h_fm(q, params, euler, R, p, H)
    elif t == bushing.TYPE_ID:
        bushing.h_fm(q, params, euler, R, p, H)
    elif t == ellipsoid.TYPE_ID:
        ellipsoid.h_fm(q, params, euler, R, p, H)
    elif t == translation.TYPE_ID:
        translation.h_fm(q, params, euler, R, p, H)
    elif t == line_orientation.TYPE_ID:
        line_orientation.h_fm(q, params, euler, R, p, H)
    elif t == free_line.TYPE_ID:
        free_line.h_fm(q, params, euler, R, p, H)


@runtime_jit
def _hdot_u_forward(t, q, u, params, euler, R, p, out):
    """(d/dt H_FM) u for mobilizer type ``t``."""
    if t == pin.TYPE_ID:
        pin.hdot_u(q, u, params, euler, R, p, out)
    elif t == slider.TYPE_ID:
        slider.hdot_u(q, u, params, euler, R, p, out)
    elif t == ball.TYPE_ID:
        ball.hdot_u(q, u, params, euler, R, p, out)
    elif t == free.TYPE_ID:
        free.hdot_u(q, u, params, euler, R, p, out)
    elif t == screw.TYPE_ID:
        screw.hdot_u(q, u, params, euler, R, p, out)
    elif t == universal.TYPE_ID:
        universal.hdot_u(q, u, params, euler, R, p, out)
    elif t == cylinder.TYPE_ID:
        cylinder.hdot_u(q, u, params, euler, R, p, out)
    elif t == bend_stretch.TYPE_ID:
        bend_stretch.hdot_u(q, u, params, euler, R, p, out)
    elif t == planar.TYPE_ID:
        planar.hdot_u(q, u, params, euler, R, p, out)
    elif t == spherical_coords.TYPE_ID:
        spherical_coords.hdot_u(q, u, params, euler, R, p, out)
    elif t == gimbal.TYPE_ID:
        gimbal.hdot_u(q, u, params, euler, R, p, out)
    elif t == bushing.TYPE_ID:
        bushing.hdot_u(q, u, params, euler, R, p, out)
    elif t == ellipsoid.TYPE_ID:
        ellipsoid.hdot_u(q, u, params, euler, R, p, out)
    elif t == translation.TYPE_ID:
        translation.hdot_u(q, u, params, euler, R, p, out)
    elif t == line_orientation.TYPE_ID:
        line_orientation.hdot_u(q, u, params, euler, R, p, out)
    elif t == free_line.TYPE_ID:
        free_line.hdot_u(q, u, params, euler, R, p, out)
    else:
        out[:] = 0.0


@runtime_jit
def _n_matrix_forward(t, q, params, euler, R, N):
    """N (nq_slots x nu) for mobilizer type ``t`` (N must be zeroed by the caller)."""
    if t == pin.TYPE_ID:
        pin.n_matrix(q, params, euler, R, N)
    elif t == slider.TYPE_ID:
        slider.n_matrix(q, params, euler, R, N)
    elif t == ball.TYPE_ID:
        ball.n_matrix(q, params, euler, R, N)
    elif t == free.TYPE_ID:
        free.n_matrix(q, params, euler, R, N)
    elif t == screw.TYPE_ID:
        screw.n_matrix(q, params, euler, R, N)
    elif t == universal.TYPE_ID:
        universal.n_matrix(q, params, euler, R, N)
    elif t == cylinder.TYPE_ID:
        cylinder.n_matrix(q, params, euler, R, N)
    elif t == bend_stretch.TYPE_ID:
        bend_stretch.n_matrix(q, params, euler, R, N)
    elif t == planar.TYPE_ID:
        planar.n_matrix(q, params, euler, R, N)
    elif t == spherical_coords.TYPE_ID:
        spherical_coords.n_matrix(q, params, euler, R, N)
    elif t == gimbal.TYPE_ID:
        gimbal.n_matrix(q, params, euler, R, N)
    elif t == bushing.TYPE_ID:
        bushing.n_matrix(q, params, euler, R, N)
    elif t == ellipsoid.TYPE_ID:
        ellipsoid.n_matrix(q, params, euler, R, N)
    elif t == translation.TYPE_ID:
        translation.n_matrix(q, params, euler, R, N)
    elif t == line_orientation.TYPE_ID:
        line_orientation.n_matrix(q, params, euler, R, N)
    elif t == free_line.TYPE_ID:
        free_line.n_matrix(q, params, euler, R, N)


@runtime_jit
def _ninv_matrix_forward(t, q, params, euler, R, NInv):
    """NInv (nu x nq_slots) for mobilizer type ``t`` (zeroed by the caller)."""
    if t == pin.TYPE_ID:
        pin.ninv_matrix(q, params, euler, R, NInv)
    elif t == slider.TYPE_ID:
        slider.ninv_matrix(q, params, euler, R, NInv)
    elif t == ball.TYPE_ID:
        ball.ninv_matrix(q, params, euler, R, NInv)
    elif t == free.TYPE_ID:
        free.ninv_matrix(q, params, euler, R, NInv)
    elif t == screw.TYPE_ID:
        screw.ninv_matrix(q, params, euler, R, NInv)
    elif t == universal.TYPE_ID:
        universal.ninv_matrix(q, params, euler, R, NInv)
    elif t == cylinder.TYPE_ID:
        cylinder.ninv_matrix(q, params, euler, R, NInv)
    elif t == bend_stretch.TYPE_ID:
        bend_stretch.ninv_matrix(q, params, euler, R, NInv)
    elif t == planar.TYPE_ID:
        planar.ninv_matrix(q, params, euler, R, NInv)
    elif t == spherical_coords.TYPE_ID:
        spherical_coords.ninv_matrix(q, params, euler, R, NInv)
    elif t == gimbal.TYPE_ID:
        gimbal.ninv_matrix(q, params, euler, R, NInv)
    elif t == bushing.TYPE_ID:
        bushing.ninv_matrix(q, params, euler, R, NInv)
    elif t == ellipsoid.TYPE_ID:
        ellipsoid.ninv_matrix(q, params, euler, R, NInv)
    elif t == translation.TYPE_ID:
        translation.ninv_matrix(q, params, euler, R, NInv)
    elif t == line_orientation.TYPE_ID:
        line_orientation.ninv_matrix(q, params, euler, R, NInv)
    elif t == free_line.TYPE_ID:
        free_line.ninv_matrix(q, params, euler, R, NInv)


@runtime_jit
def _ndot_matrix_forward(t, q, qdot, params, euler, R, NDot):
    """NDot (nq_slots x nu) for mobilizer type ``t`` (zeroed by the caller)."""
    if t == pin.TYPE_ID:
        pin.ndot_matrix(q, qdot, params, euler, R, NDot)
    elif t == slider.TYPE_ID:
        slider.ndot_matrix(q, qdot, params, euler, R, NDot)
    elif t == ball.TYPE_ID:
        ball.ndot_matrix(q, qdot, params, euler, R, NDot)
    elif t == free.TYPE_ID:
        free.ndot_matrix(q, qdot, params, euler, R, NDot)
    elif t == screw.TYPE_ID:
        screw.ndot_matrix(q, qdot, params, euler, R, NDot)
    elif t == universal.TYPE_ID:
        universal.ndot_matrix(q, qdot, params, euler, R, NDot)
    elif t == cylinder.TYPE_ID:
        cylinder.ndot_matrix(q, qdot, params, euler, R, NDot)
    elif t == bend_stretch.TYPE_ID:
        bend_stretch.ndot_matrix(q, qdot, params, euler, R, NDot)
    elif t == planar.TYPE_ID:
        planar.ndot_matrix(q, qdot, params, euler, R, NDot)
    elif t == spherical_coords.TYPE_ID:
        spherical_coords.ndot_matrix(q, qdot, params, euler, R, NDot)
    elif t == gimbal.TYPE_ID:
        gimbal.ndot_matrix(q, qdot, params, euler, R, NDot)
    elif t == bushing.TYPE_ID:
        bushing.ndot_matrix(q, qdot, params, euler, R, NDot)
    elif t == ellipsoid.TYPE_ID:
        ellipsoid.ndot_matrix(q, qdot, params, euler, R, NDot)
    elif t == translation.TYPE_ID:
        translation.ndot_matrix(q, qdot, params, euler, R, NDot)
    elif t == line_orientation.TYPE_ID:
        line_orientation.ndot_matrix(q, qdot, params, euler, R, NDot)
    elif t == free_line.TYPE_ID:
        free_line.ndot_matrix(q, qdot, params, euler, R, NDot)


# ------------------------------------------------------------ reversed mobilizers
@runtime_jit
def _transpose3(R, out):
    for i in range(3):
        for j in range(3):
            out[i, j] = R[j, i]


@runtime_jit
def _reversed_frames(R_FM, p_FM, R_MF, p_MF):
    """R_MF = ~R_FM and p_MF = -R_MF p_FM (Fo seen from Mo, in M)."""
    _transpose3(R_FM, R_MF)
    for i in range(3):
        p_MF[i] = -(R_MF[i, 0] * p_FM[0] + R_MF[i, 1] * p_FM[1] + R_MF[i, 2] * p_FM[2])


@runtime_jit
def x_fm_any(t, q, params, euler, R, p):
    """R_FM, p_FM for mobilizer type ``t`` (a reversed type: the inverse of its X_MF(q))."""
    if t < REVERSED_OFFSET:
        _x_fm_forward(t, q, params, euler, R, p)
        return
    R_MF = np.empty((3, 3))
    p_MF = np.empty(3)
    _x_fm_forward(t - REVERSED_OFFSET, q, params, euler, R_MF, p_MF)
    _reversed_frames(R_MF, p_MF, R, p)


@runtime_jit
def h_fm_any(t, q, params, euler, R, p, H):
    """H_FM (6 x nu) for mobilizer type ``t``. Reversed: V_FM = -R_FM [w_MF; v_MF - w_MF x p_MF]
    with V_MF = H_MF u, column by column."""
    if t < REVERSED_OFFSET:
        _h_fm_forward(t, q, params, euler, R, p, H)
        return
    R_MF = np.empty((3, 3))
    p_MF = np.empty(3)
    _reversed_frames(R, p, R_MF, p_MF)
    _h_fm_forward(t - REVERSED_OFFSET, q, params, euler, R_MF, p_MF, H)
    y = np.empty(6)
    for k in range(H.shape[1]):
        w0, w1, w2 = H[0, k], H[1, k], H[2, k]
        y[0], y[1], y[2] = w0, w1, w2
        y[3] = H[3, k] - (w1 * p_MF[2] - w2 * p_MF[1])
        y[4] = H[4, k] - (w2 * p_MF[0] - w0 * p_MF[2])
        y[5] = H[5, k] - (w0 * p_MF[1] - w1 * p_MF[0])
        for i in range(3):
            H[i, k] = -(R[i, 0] * y[0] + R[i, 1] * y[1] + R[i, 2] * y[2])
            H[3 + i, k] = -(R[i, 0] * y[3] + R[i, 1] * y[4] + R[i, 2] * y[5])


@runtime_jit
def _cross(a, b, out):
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]


@runtime_jit
def hdot_u_any(t, q, u, params, euler, R, p, out):
    """(d/dt H_FM) u for mobilizer type ``t``. Reversed, with (w, v) = V_MF, (a_w, a_v) the
    forward (d/dt H_MF) u and p = p_MF (all in M):
    R_FM [-a_w; 2 w x v - w x (w x p) - a_v + a_w x p]."""
    if t < REVERSED_OFFSET:
        _hdot_u_forward(t, q, u, params, euler, R, p, out)
        return
    tf = t - REVERSED_OFFSET
    nu = u.shape[0]
    R_MF = np.empty((3, 3))
    p_MF = np.empty(3)
    _reversed_frames(R, p, R_MF, p_MF)
    H = np.zeros((6, nu))
    _h_fm_forward(tf, q, params, euler, R_MF, p_MF, H)
    V = H @ u
    a = np.zeros(6)
    _hdot_u_forward(tf, q, u, params, euler, R_MF, p_MF, a)
    w, v, aw, av = V[0:3], V[3:6], a[0:3], a[3:6]
    wxv = np.empty(3)
    wxp = np.empty(3)
    wxwxp = np.empty(3)
    awxp = np.empty(3)
    _cross(w, v, wxv)
    _cross(w, p_MF, wxp)
    _cross(w, wxp, wxwxp)
    _cross(aw, p_MF, awxp)
    lin = 2.0 * wxv - wxwxp - av + awxp
    for i in range(3):
        out[i] = -(R[i, 0] * aw[0] + R[i, 1] * aw[1] + R[i, 2] * aw[2])
        out[3 + i] = R[i, 0] * lin[0] + R[i, 1] * lin[1] + R[i, 2] * lin[2]


@runtime_jit
def n_matrix_any(t, q, params, euler, R, N):
    """N (nq_slots x nu) for mobilizer type ``t`` (N must be zeroed by the caller)."""
    if t < REVERSED_OFFSET:
        _n_matrix_forward(t, q, params, euler, R, N)
    else:
        _n_matrix_forward(t - REVERSED_OFFSET, q, params, euler, R.T.copy(), N)


@runtime_jit
def ninv_matrix_any(t, q, params, euler, R, NInv):
    """NInv (nu x nq_slots) for mobilizer type ``t`` (zeroed by the caller)."""
    if t < REVERSED_OFFSET:
        _ninv_matrix_forward(t, q, params, euler, R, NInv)
    else:
        _ninv_matrix_forward(t - REVERSED_OFFSET, q, params, euler, R.T.copy(), NInv)


@runtime_jit
def ndot_matrix_any(t, q, qdot, params, euler, R, NDot):
    """NDot (nq_slots x nu) for mobilizer type ``t`` (zeroed by the caller)."""
    if t < REVERSED_OFFSET:
        _ndot_matrix_forward(t, q, qdot, params, euler, R, NDot)
    else:
        _ndot_matrix_forward(t - REVERSED_OFFSET, q, qdot, params, euler, R.T.copy(), NDot)
