"""Select a mobilizer type's kernel by TYPE_ID inside compiled code.

``MOBILIZER_MODULES`` maps TYPE_ID to the type's module (for its Python-level
constants). The ``*_any`` functions are the numba-compiled switch used by the
O(n) algorithms; a new mobilizer type is added here in both places.
"""

from __future__ import annotations

from numba import njit

from engine.multibody.mobilizers import ball, free, pin, slider, weld

GROUND_TYPE_ID = 0

MOBILIZER_MODULES = {m.TYPE_ID: m for m in (weld, pin, slider, ball, free)}
MOBILIZER_BY_NAME = {m.NAME: m for m in MOBILIZER_MODULES.values()}


@njit(cache=True)
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
    else:
        weld.x_fm(q, params, euler, R, p)


@njit(cache=True)
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


@njit(cache=True)
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
    else:
        out[:] = 0.0


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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
