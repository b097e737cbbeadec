"""Select a mobilizer type's kernel by TYPE_ID inside compiled code.

``MOBILIZER_MODULES`` maps TYPE_ID to the type's module (for its Python-level
constants). The ``*_any`` functions are the numba-compiled switch used by the
O(n) algorithms; a new mobilizer type is added here in both places.
"""

from __future__ import annotations

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
def x_fm_any(t, q, params, euler, R, p):
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
def h_fm_any(t, q, params, euler, R, p, H):
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
def hdot_u_any(t, q, u, params, euler, R, p, out):
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
def n_matrix_any(t, q, params, euler, R, N):
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
def ninv_matrix_any(t, q, params, euler, R, NInv):
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
def ndot_matrix_any(t, q, qdot, params, euler, R, NDot):
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
