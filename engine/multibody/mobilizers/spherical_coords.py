"""SphericalCoords mobilizer: azimuth about Fz, zenith about the new y, radius along an M axis.

With params (``params.spherical_coords_params``):

* params[0] = az0 (azimuth offset), params[1] = 1 if the azimuth is negated else 0,
* params[2] = ze0 (zenith offset),  params[3] = 1 if the zenith is negated else 0,
* params[4] = 1 if the radial axis is Mx else 0 (Mz, Simbody's default),
* params[5] = 1 if the radius is negated else 0,

so an all-zero params vector is Simbody's default mobilizer. With s_i = -1 for a negated
coordinate else +1: az = s0 q0 + az0, ze = s1 q1 + ze0, t = s2 q2,
R_FM = Rz(az) Ry(ze), p_FM = t a with a = the radial axis of M expressed in F; u = qdot;
w_FM = s0 u0 Fz + s1 u1 My, v_FM = s2 u2 a + t (w_FM x a).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.multibody.mobilizers import fit as _fit

TYPE_ID = 11
NAME = "SphericalCoords"
NQ_SLOTS = 3
NU = 3
USES_QUATERNION = False
DEFAULT_Q = np.zeros(3)


@njit(cache=True)
def _signs(params):
    s0 = -1.0 if params[1] != 0.0 else 1.0
    s1 = -1.0 if params[3] != 0.0 else 1.0
    s2 = -1.0 if params[5] != 0.0 else 1.0
    return s0, s1, s2


@njit(cache=True)
def _axis(params):
    return 0 if params[4] != 0.0 else 2


@njit(cache=True)
def _cross(a0, a1, a2, b0, b1, b2):
    return a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0


@njit(cache=True)
def x_fm(q, params, euler, R, p):
    s0, s1, s2 = _signs(params)
    az = s0 * q[0] + params[0]
    ze = s1 * q[1] + params[2]
    ca, sa = np.cos(az), np.sin(az)
    ce, se = np.cos(ze), np.sin(ze)
    # Rz(az) Ry(ze)
    R[0, 0], R[0, 1], R[0, 2] = ca * ce, -sa, ca * se
    R[1, 0], R[1, 1], R[1, 2] = sa * ce, ca, sa * se
    R[2, 0], R[2, 1], R[2, 2] = -se, 0.0, ce
    k = _axis(params)
    t = s2 * q[2]
    for i in range(3):
        p[i] = t * R[i, k]


@njit(cache=True)
def h_fm(q, params, euler, R, p, H):
    s0, s1, s2 = _signs(params)
    k = _axis(params)
    t = s2 * q[2]
    a0, a1, a2 = R[0, k], R[1, k], R[2, k]
    y0, y1, y2 = R[0, 1], R[1, 1], R[2, 1]
    for j in range(3):
        H[:, j] = 0.0
    # column 0: s0 Fz, s0 t (Fz x a)
    H[2, 0] = s0
    c0, c1, c2 = _cross(0.0, 0.0, 1.0, a0, a1, a2)
    H[3, 0], H[4, 0], H[5, 0] = s0 * t * c0, s0 * t * c1, s0 * t * c2
    # column 1: s1 My, s1 t (My x a)
    H[0, 1], H[1, 1], H[2, 1] = s1 * y0, s1 * y1, s1 * y2
    c0, c1, c2 = _cross(y0, y1, y2, a0, a1, a2)
    H[3, 1], H[4, 1], H[5, 1] = s1 * t * c0, s1 * t * c1, s1 * t * c2
    # column 2: s2 a
    H[3, 2], H[4, 2], H[5, 2] = s2 * a0, s2 * a1, s2 * a2


@njit(cache=True)
def hdot_u(q, u, params, euler, R, p, out):
    s0, s1, s2 = _signs(params)
    k = _axis(params)
    t = s2 * q[2]
    a0, a1, a2 = R[0, k], R[1, k], R[2, k]
    y0, y1, y2 = R[0, 1], R[1, 1], R[2, 1]
    wz = s0 * u[0]
    wy = s1 * u[1]
    w0, w1, w2 = wy * y0, wy * y1, wy * y2 + wz
    # angular: s1 u1 d/dt(My) = s1 u1 (s0 u0 Fz x My)
    b0, b1, b2 = _cross(0.0, 0.0, wz * wy, y0, y1, y2)
    out[0], out[1], out[2] = b0, b1, b2
    # linear: d/dt (s2 u2 a + t w x a) = 2 s2 u2 (w x a) + t (b x a + w x (w x a))
    wa0, wa1, wa2 = _cross(w0, w1, w2, a0, a1, a2)
    ba0, ba1, ba2 = _cross(b0, b1, b2, a0, a1, a2)
    wwa0, wwa1, wwa2 = _cross(w0, w1, w2, wa0, wa1, wa2)
    tr = 2.0 * s2 * u[2]
    out[3] = tr * wa0 + t * (ba0 + wwa0)
    out[4] = tr * wa1 + t * (ba1 + wwa1)
    out[5] = tr * wa2 + t * (ba2 + wwa2)


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


def _angles(q, params):
    s0, s1, _ = _signs(params)
    return s0 * q[0] + params[0], s1 * q[1] + params[2]


def _set_angles(q, params, az, ze):
    s0, s1, _ = _signs(params)
    q[0] = s0 * (az - params[0])
    q[1] = s1 * (ze - params[2])


def _radial_axis(q, params):
    R = np.empty((3, 3))
    p = np.empty(3)
    x_fm(q, params, False, R, p)
    return R[:, _axis(params)]


def fit_q_rotation(q, params, euler, R_FM):
    """Azimuth and zenith of the body-fixed z-y angles best reproducing R_FM."""
    az, ze = _fit.zy_angles(_fit.rotation_matrix(R_FM))
    _set_angles(q, params, az, ze)


def fit_q_translation(q, params, euler, p_FM):
    """p_FM = t a (a = the radial axis of M): keep the angles if p lies along +-a, else aim a
    at p (az, ze) with t = |p|; nothing to aim at for p ~ 0 (then t = 0)."""
    p = np.asarray(p_FM, dtype=np.float64)
    _, _, s2 = _signs(params)
    d = float(np.linalg.norm(p))
    a = _radial_axis(q, params)
    along = float(p @ a)
    if d <= 1e-14 or abs(abs(along) - d) <= 1e-12 * max(1.0, d):
        q[2] = s2 * along
        return
    n = p / d
    az = np.arctan2(n[1], n[0])
    if _axis(params) == 2:  # Mz = (cos az sin ze, sin az sin ze, cos ze)
        ze = np.arctan2(np.hypot(n[0], n[1]), n[2])
    else:  # Mx = (cos az cos ze, sin az cos ze, -sin ze)
        ze = np.arctan2(-n[2], np.hypot(n[0], n[1]))
    _set_angles(q, params, az, ze)
    q[2] = s2 * d


def fit_u_angular(q, u, params, euler, w_FM):
    """w_FM = s0 u0 Fz + s1 u1 My: least squares on those two axes."""
    s0, s1, _ = _signs(params)
    az, _ = _angles(q, params)
    my = np.array([-np.sin(az), np.cos(az), 0.0])
    A = np.column_stack((s0 * np.array([0.0, 0.0, 1.0]), s1 * my))
    u[0:2] = _fit.least_squares(A, np.asarray(w_FM, dtype=np.float64))


def fit_u_linear(q, u, params, euler, v_FM):
    """v_FM = s2 u2 a + t (w_FM x a): u2 from the radial part; if t != 0 the angle rates
    from the rest (least squares)."""
    s0, s1, s2 = _signs(params)
    v = np.asarray(v_FM, dtype=np.float64)
    a = _radial_axis(q, params)
    u[2] = s2 * float(v @ a)
    t = s2 * q[2]
    if t != 0.0:
        az, _ = _angles(q, params)
        my = np.array([-np.sin(az), np.cos(az), 0.0])
        A = t * np.column_stack((s0 * np.cross([0.0, 0.0, 1.0], a), s1 * np.cross(my, a)))
        u[0:2] = _fit.least_squares(A, v - float(v @ a) * a)
