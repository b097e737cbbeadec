"""Kernel for a Sphere-Ellipsoid or Ellipsoid-Ellipsoid pair (Simbody 3.7's
ConvexImplicitPair tracker) with its HertzElliptical force, in scalars (no allocation).

The arithmetic is that of ``implicit_pair_tracker.convex_implicit_pair`` (its oracle, which
describes the method), step by step in the same order: the bounding-sphere test, the best
of ``DIRECTIONS`` and the centre-to-centre direction as the start, Newton's method on the
unit sphere for the least overlap d(m) (same tangent basis, 2 x 2 Newton system solved by
Gaussian elimination with partial pivoting as LAPACK's ``gesv`` does, the same fallback to
the scaled gradient, backtracking, tolerances and at most ``MAX_ITERATIONS`` steps), then
the contact points P, Q, the combined curvature matrix and its principal curvatures (in
closed form: the Python tracker uses ``numpy.linalg.eigh``, so rounding differs), and
``hertz_elliptical_kernel.hertz_elliptical_force``. A matrix A = R diag(a^2) R^T is a
9-tuple, row by row. The contact frame is not made: the force does not need it.
"""

from __future__ import annotations

import math

import numpy as np

from engine.common.kernel_jit import kernel_jit
from engine.contact.kernels.hertz_elliptical_kernel import hertz_elliptical_force

SPHERE = 1  # ContactGeometry.Sphere's type id (the other kind here is Ellipsoid)

#: Newton steps at most
MAX_ITERATIONS = 60
#: a trial direction is accepted if d(m) grows by at most this times the size scale
VALUE_TOLERANCE = 1e-14
#: the search ends after a full Newton step that moved m by at most this
NEWTON_DONE = 1e-12


def fibonacci_directions(count: int) -> np.ndarray:
    """``count`` unit vectors spread evenly over the sphere (count, 3)."""
    k = np.arange(count) + 0.5
    z = 1.0 - 2.0 * k / count
    phi = np.pi * (3.0 - math.sqrt(5.0)) * k
    r = np.sqrt(1.0 - z * z)
    return np.column_stack((r * np.cos(phi), r * np.sin(phi), z))


#: the start directions the Newton search picks from (with the centre-to-centre one)
DIRECTIONS = fibonacci_directions(256)


@kernel_jit
def _shape(R_GS, kind, size, k):
    """(A = R diag(a^2) R^T of surface ``k`` (a Sphere: a = (r, r, r)), its semi-axes
    squared, its largest semi-axis)."""
    if kind[k] == SPHERE:
        a0 = a1 = a2 = size[k, 0]
    else:
        a0, a1, a2 = size[k, 0], size[k, 1], size[k, 2]
    s0, s1, s2 = a0 * a0, a1 * a1, a2 * a2
    R = R_GS[k]
    A = (
        (R[0, 0] * s0) * R[0, 0] + (R[0, 1] * s1) * R[0, 1] + (R[0, 2] * s2) * R[0, 2],
        (R[0, 0] * s0) * R[1, 0] + (R[0, 1] * s1) * R[1, 1] + (R[0, 2] * s2) * R[1, 2],
        (R[0, 0] * s0) * R[2, 0] + (R[0, 1] * s1) * R[2, 1] + (R[0, 2] * s2) * R[2, 2],
        (R[1, 0] * s0) * R[0, 0] + (R[1, 1] * s1) * R[0, 1] + (R[1, 2] * s2) * R[0, 2],
        (R[1, 0] * s0) * R[1, 0] + (R[1, 1] * s1) * R[1, 1] + (R[1, 2] * s2) * R[1, 2],
        (R[1, 0] * s0) * R[2, 0] + (R[1, 1] * s1) * R[2, 1] + (R[1, 2] * s2) * R[2, 2],
        (R[2, 0] * s0) * R[0, 0] + (R[2, 1] * s1) * R[0, 1] + (R[2, 2] * s2) * R[0, 2],
        (R[2, 0] * s0) * R[1, 0] + (R[2, 1] * s1) * R[1, 1] + (R[2, 2] * s2) * R[1, 2],
        (R[2, 0] * s0) * R[2, 0] + (R[2, 1] * s1) * R[2, 1] + (R[2, 2] * s2) * R[2, 2],
    )
    return A, (s0, s1, s2), max(a0, max(a1, a2))


@kernel_jit
def _support_height(A, m0, m1, m2):
    """(sqrt(m^T A m), A m)."""
    Am0 = A[0] * m0 + A[1] * m1 + A[2] * m2
    Am1 = A[3] * m0 + A[4] * m1 + A[5] * m2
    Am2 = A[6] * m0 + A[7] * m1 + A[8] * m2
    return math.sqrt(m0 * Am0 + m1 * Am1 + m2 * Am2), Am0, Am1, Am2


@kernel_jit
def _overlap(m0, m1, m2, d0, d1, d2, A1, A2):
    """d(m) = d·m + sqrt(m^T A1 m) + sqrt(m^T A2 m) (d = c1 - c2), its gradient (3-tuple)
    and Hessian (9-tuple) in R^3."""
    value = d0 * m0 + d1 * m1 + d2 * m2
    h, a0, a1, a2 = _support_height(A1, m0, m1, m2)
    value += h
    g0, g1, g2 = d0 + a0 / h, d1 + a1 / h, d2 + a2 / h
    h3 = h * h * h
    H = (
        A1[0] / h - a0 * a0 / h3,
        A1[1] / h - a0 * a1 / h3,
        A1[2] / h - a0 * a2 / h3,
        A1[3] / h - a1 * a0 / h3,
        A1[4] / h - a1 * a1 / h3,
        A1[5] / h - a1 * a2 / h3,
        A1[6] / h - a2 * a0 / h3,
        A1[7] / h - a2 * a1 / h3,
        A1[8] / h - a2 * a2 / h3,
    )
    h, a0, a1, a2 = _support_height(A2, m0, m1, m2)
    value += h
    g0, g1, g2 = g0 + a0 / h, g1 + a1 / h, g2 + a2 / h
    h3 = h * h * h
    H = (
        H[0] + (A2[0] / h - a0 * a0 / h3),
        H[1] + (A2[1] / h - a0 * a1 / h3),
        H[2] + (A2[2] / h - a0 * a2 / h3),
        H[3] + (A2[3] / h - a1 * a0 / h3),
        H[4] + (A2[4] / h - a1 * a1 / h3),
        H[5] + (A2[5] / h - a1 * a2 / h3),
        H[6] + (A2[6] / h - a2 * a0 / h3),
        H[7] + (A2[7] / h - a2 * a1 / h3),
        H[8] + (A2[8] / h - a2 * a2 / h3),
    )
    return value, (g0, g1, g2), H


@kernel_jit
def tangent_basis(m0, m1, m2):
    """(t1, t2) perpendicular to unit m: t1 = m x e_j / |m x e_j| (e_j the axis of m's
    smallest |component|, the first of equals), t2 = m x t1."""
    b0, b1, b2 = abs(m0), abs(m1), abs(m2)
    if b0 <= b1 and b0 <= b2:
        t0, t1, t2 = 0.0, m2, -m1
    elif b1 <= b2:
        t0, t1, t2 = -m2, 0.0, m0
    else:
        t0, t1, t2 = m1, -m0, 0.0
    length = math.sqrt(t0 * t0 + t1 * t1 + t2 * t2)
    t0, t1, t2 = t0 / length, t1 / length, t2 / length
    return (t0, t1, t2), (m1 * t2 - m2 * t1, m2 * t0 - m0 * t2, m0 * t1 - m1 * t0)


@kernel_jit
def _newton_step(m0, m1, m2, t1, t2, grad, hess):
    """(the Newton step in the tangent basis (s1, s2), |g|, whether it is Newton's): the
    solution of H s = -g with g = T^T grad, H = T^T (hess - (m·grad) I) T, or -g/|H|_F
    where H is singular or that step does not descend."""
    g0 = t1[0] * grad[0] + t1[1] * grad[1] + t1[2] * grad[2]
    g1 = t2[0] * grad[0] + t2[1] * grad[1] + t2[2] * grad[2]
    norm_g = math.sqrt(g0 * g0 + g1 * g1)
    c = m0 * grad[0] + m1 * grad[1] + m2 * grad[2]
    W = (
        hess[0] - c,
        hess[1],
        hess[2],
        hess[3],
        hess[4] - c,
        hess[5],
        hess[6],
        hess[7],
        hess[8] - c,
    )
    # X = T^T W (2 x 3), then H = X T
    x00 = t1[0] * W[0] + t1[1] * W[3] + t1[2] * W[6]
    x01 = t1[0] * W[1] + t1[1] * W[4] + t1[2] * W[7]
    x02 = t1[0] * W[2] + t1[1] * W[5] + t1[2] * W[8]
    x10 = t2[0] * W[0] + t2[1] * W[3] + t2[2] * W[6]
    x11 = t2[0] * W[1] + t2[1] * W[4] + t2[2] * W[7]
    x12 = t2[0] * W[2] + t2[1] * W[5] + t2[2] * W[8]
    H00 = x00 * t1[0] + x01 * t1[1] + x02 * t1[2]
    H01 = x00 * t2[0] + x01 * t2[1] + x02 * t2[2]
    H10 = x10 * t1[0] + x11 * t1[1] + x12 * t1[2]
    H11 = x10 * t2[0] + x11 * t2[1] + x12 * t2[2]
    # Gaussian elimination with partial pivoting
    if abs(H10) > abs(H00):
        a, b, cc, d, r0, r1 = H10, H11, H00, H01, g1, g0
    else:
        a, b, cc, d, r0, r1 = H00, H01, H10, H11, g0, g1
    solved = False
    s0 = s1 = 0.0
    if a != 0.0:
        lower = cc * (1.0 / a)
        u = d - lower * b
        if u != 0.0:
            y1 = r1 - lower * r0
            x1 = y1 / u
            x0 = (r0 - b * x1) / a
            s0, s1 = -x0, -x1
            solved = s0 * g0 + s1 * g1 < 0.0
    if not solved:
        scale = max(math.sqrt(H00 * H00 + H01 * H01 + H10 * H10 + H11 * H11), 1e-300)
        s0, s1 = -g0 / scale, -g1 / scale
    return s0, s1, norm_g, solved


@kernel_jit
def least_overlap_direction(m0, m1, m2, d0, d1, d2, A1, A2, scale):
    """(unit m minimizing d(m) from the start m, d(m)): ``_least_overlap_direction``."""
    value, grad, hess = _overlap(m0, m1, m2, d0, d1, d2, A1, A2)
    tolerance = VALUE_TOLERANCE * scale
    for _ in range(MAX_ITERATIONS):
        t1, t2 = tangent_basis(m0, m1, m2)
        s0, s1, norm_g, newton = _newton_step(m0, m1, m2, t1, t2, grad, hess)
        if norm_g <= 1e-15 * scale:
            break
        e0 = t1[0] * s0 + t2[0] * s1
        e1 = t1[1] * s0 + t2[1] * s1
        e2 = t1[2] * s0 + t2[2] * s1
        t = 1.0
        while True:
            n0, n1, n2 = m0 + t * e0, m1 + t * e1, m2 + t * e2
            length = math.sqrt(n0 * n0 + n1 * n1 + n2 * n2)
            n0, n1, n2 = n0 / length, n1 / length, n2 / length
            v, gr, he = _overlap(n0, n1, n2, d0, d1, d2, A1, A2)
            if v <= value + tolerance or t < 1e-12:
                break
            t *= 0.5
        w0, w1, w2 = n0 - m0, n1 - m1, n2 - m2
        moved = math.sqrt(w0 * w0 + w1 * w1 + w2 * w2)
        m0, m1, m2, value, grad, hess = n0, n1, n2, v, gr, he
        if moved <= 1e-16 or (newton and t == 1.0 and moved <= NEWTON_DONE):
            break
    return m0, m1, m2, value


@kernel_jit
def _curvature(R, a2, t1, t2, n0, n1, n2):
    """(K00, K01, K10, K11): ``scale_matrix(R^T T, a2, R^T n)``, the curvature matrix of an
    ellipsoid (frame R, semi-axes squared a2) at its point of outward normal n, in the
    tangent basis (t1, t2) of G."""
    u0 = R[0, 0] * t1[0] + R[1, 0] * t1[1] + R[2, 0] * t1[2]
    u1 = R[0, 1] * t1[0] + R[1, 1] * t1[1] + R[2, 1] * t1[2]
    u2 = R[0, 2] * t1[0] + R[1, 2] * t1[1] + R[2, 2] * t1[2]
    v0 = R[0, 0] * t2[0] + R[1, 0] * t2[1] + R[2, 0] * t2[2]
    v1 = R[0, 1] * t2[0] + R[1, 1] * t2[1] + R[2, 1] * t2[2]
    v2 = R[0, 2] * t2[0] + R[1, 2] * t2[1] + R[2, 2] * t2[2]
    e0 = R[0, 0] * n0 + R[1, 0] * n1 + R[2, 0] * n2
    e1 = R[0, 1] * n0 + R[1, 1] * n1 + R[2, 1] * n2
    e2 = R[0, 2] * n0 + R[1, 2] * n1 + R[2, 2] * n2
    q = math.sqrt(a2[0] * (e0 * e0) + a2[1] * (e1 * e1) + a2[2] * (e2 * e2))
    return (
        q * (u0 * (u0 / a2[0]) + u1 * (u1 / a2[1]) + u2 * (u2 / a2[2])),
        q * (u0 * (v0 / a2[0]) + u1 * (v1 / a2[1]) + u2 * (v2 / a2[2])),
        q * (v0 * (u0 / a2[0]) + v1 * (u1 / a2[1]) + v2 * (u2 / a2[2])),
        q * (v0 * (v0 / a2[0]) + v1 * (v1 / a2[1]) + v2 * (v2 / a2[2])),
    )


@kernel_jit
def implicit_pair_geometry(i, j, R_GS, p_GS, kind, size, directions):
    """The EllipticalPointContact of surfaces ``i`` (surface 1) and ``j`` (Spheres or
    Ellipsoids; ``kind``, ``size`` their type ids and sizes, ``R_GS``, ``p_GS`` the surface
    frames in G; ``directions`` the start directions): (found, depth, halfway point o (3),
    normal m (3), kmax, kmin); found is False (the rest zeros) when they do not overlap."""
    A1, a1, big1 = _shape(R_GS, kind, size, i)
    A2, a2, big2 = _shape(R_GS, kind, size, j)
    c0, c1, c2 = p_GS[j, 0] - p_GS[i, 0], p_GS[j, 1] - p_GS[i, 1], p_GS[j, 2] - p_GS[i, 2]
    dist = math.sqrt(c0 * c0 + c1 * c1 + c2 * c2)
    if dist >= big1 + big2:
        return False, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    d0, d1, d2 = p_GS[i, 0] - p_GS[j, 0], p_GS[i, 1] - p_GS[j, 1], p_GS[i, 2] - p_GS[j, 2]
    best = math.inf
    m0 = m1 = m2 = 0.0
    for k in range(directions.shape[0] + 1):
        if k < directions.shape[0]:
            x0, x1, x2 = directions[k, 0], directions[k, 1], directions[k, 2]
        elif dist != 0.0:
            x0, x1, x2 = c0 / dist, c1 / dist, c2 / dist
        else:
            break
        v = (
            (x0 * d0 + x1 * d1 + x2 * d2)
            + _support_height(A1, x0, x1, x2)[0]
            + _support_height(A2, x0, x1, x2)[0]
        )
        if v < best:
            best = v
            m0, m1, m2 = x0, x1, x2
    m0, m1, m2, depth = least_overlap_direction(m0, m1, m2, d0, d1, d2, A1, A2, big1 + big2)
    if depth <= 0.0:
        return False, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    h, b0, b1, b2 = _support_height(A1, m0, m1, m2)
    P0, P1, P2 = p_GS[i, 0] + b0 / h, p_GS[i, 1] + b1 / h, p_GS[i, 2] + b2 / h
    h, b0, b1, b2 = _support_height(A2, m0, m1, m2)
    Q0, Q1, Q2 = p_GS[j, 0] - b0 / h, p_GS[j, 1] - b1 / h, p_GS[j, 2] - b2 / h
    t1, t2 = tangent_basis(m0, m1, m2)
    K = _curvature(R_GS[i], a1, t1, t2, m0, m1, m2)
    L = _curvature(R_GS[j], a2, t1, t2, -m0, -m1, -m2)
    k00, k01, k10, k11 = K[0] + L[0], K[1] + L[1], K[2] + L[2], K[3] + L[3]
    off = 0.5 * (k01 + k10)
    mean = 0.5 * (k00 + k11)
    half = 0.5 * (k00 - k11)
    radius = math.sqrt(half * half + off * off)
    return (
        True,
        depth,
        0.5 * (P0 + Q0),
        0.5 * (P1 + Q1),
        0.5 * (P2 + Q2),
        m0,
        m1,
        m2,
        mean + radius,
        mean - radius,
    )


@kernel_jit
def implicit_pair_force(
    i, j, R_GS, p_GS, kind, size, directions, material, body, p_GB, V_GB, vt, bf
):
    """Find the contact of surfaces ``i`` (surface 1) and ``j`` (``implicit_pair_geometry``)
    and add its HertzElliptical force into ``bf`` (nb, 6) [moment about Bo, force] in G
    (``material``, ``body``, ``p_GB``, ``V_GB``, ``vt`` as ``hertz_elliptical_force``).
    Returns (1 if the shapes overlap else 0, the dissipated power in W)."""
    found, x, o0, o1, o2, n0, n1, n2, kmax, kmin = implicit_pair_geometry(
        i, j, R_GS, p_GS, kind, size, directions
    )
    if not found:
        return 0, 0.0
    power = hertz_elliptical_force(
        i, j, o0, o1, o2, n0, n1, n2, x, kmax, kmin, material, body, p_GB, V_GB, vt, bf
    )
    return 1, power
