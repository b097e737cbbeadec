"""FreeLine mobilizer: a LineOrientation plus a translation.

q: 4 rotational slots (quaternion [w, x, y, z]) then p_FM in F (slots 4..6); in Euler mode
the x-y-z angles use slots 0..2, p_FM slots 3..5 and slot 6 is unused (docs/conventions.md §4).
u = (wx, wy) of w_FM expressed in M, then v_FM in F (3): w_FM (in F) = R_FM (u0, u1, 0),
v_FM = u2..4. The N, NInv, NDot rotational blocks are LineOrientation's (including Simbody
3.7's inexact quaternion-mode NDot) and read R_FM from the ``R`` argument; the translational
block is the identity.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.multibody.mobilizers import fit as _fit
from engine.multibody.mobilizers.free import (  # noqa: F401  (same X_FM as Free)
    translation_q_start,
    x_fm,
)
from engine.multibody.mobilizers.line_orientation import line_h, line_n, line_ndot, line_ninv
from engine.multibody.mobilizers.orientation import orientation_rot

TYPE_ID = 17
NAME = "FreeLine"
NQ_SLOTS = 7
NU = 5
USES_QUATERNION = True
DEFAULT_Q = np.array([1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])


@njit(cache=True)
def h_fm(q, params, euler, R, p, H):
    line_h(R, H)
    for j in range(3):
        H[:, 2 + j] = 0.0
        H[3 + j, 2 + j] = 1.0


@njit(cache=True)
def hdot_u(q, u, params, euler, R, p, out):
    out[:] = 0.0


@njit(cache=True)
def n_matrix(q, params, euler, R, N):
    line_n(q, euler, R, N)
    s = translation_q_start(euler)
    for i in range(3):
        N[s + i, 2 + i] = 1.0


@njit(cache=True)
def ninv_matrix(q, params, euler, R, NInv):
    line_ninv(q, euler, R, NInv)
    s = translation_q_start(euler)
    for i in range(3):
        NInv[2 + i, s + i] = 1.0


@njit(cache=True)
def ndot_matrix(q, qdot, params, euler, R, NDot):
    line_ndot(q, qdot, euler, R, NDot)


# ---- best-fit setters (plain Python; see fit.py)


def fit_q_rotation(q, params, euler, R_FM):
    """Quaternion (w >= 0) or x-y-z angles of R_FM (only Mz matters physically)."""
    _fit.fit_orientation_slots(q, euler, _fit.rotation_matrix(R_FM))


def fit_q_translation(q, params, euler, p_FM):
    """p_FM into slots 4..6 (Euler mode: 3..5)."""
    s = 3 if euler else 4
    q[s : s + 3] = p_FM


def fit_u_angular(q, u, params, euler, w_FM):
    """(u0, u1) = the x and y components of w_FM expressed in M (spin about Mz is lost)."""
    R = np.empty((3, 3))
    orientation_rot(q, euler, R)
    u[0:2] = (R.T @ np.asarray(w_FM, dtype=np.float64))[0:2]


def fit_u_linear(q, u, params, euler, v_FM):
    """(u2, u3, u4) = v_FM."""
    u[2:5] = v_FM
