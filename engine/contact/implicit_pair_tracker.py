"""Sphere-Ellipsoid and Ellipsoid-Ellipsoid contact (Simbody 3.7's ConvexImplicitPair
tracker), in Ground.

Both shapes are smooth and convex with support points in closed form: for an ellipsoid
centred at c with ``A = R diag(a^2) R^T`` (a sphere: ``A = r^2 I``), the point whose
outward normal is the unit vector m is ``c + A m / sqrt(m^T A m)``. For a direction m (out
of surface 1 towards surface 2), P(m) is the point of surface 1 with normal m and Q(m) the
point of surface 2 with normal -m; their overlap along m is

    d(m) = (P(m) - Q(m))·m = (c1 - c2)·m + sqrt(m^T A1 m) + sqrt(m^T A2 m).

The contact is where d is least over unit m (its gradient there is the tangential part of
P - Q, so P - Q is along the common normal: Simbody's condition for the contact points);
the least d is the depth, and the shapes touch only if it is > 0. The minimum is found by
Newton's method on the unit sphere to machine precision, started from the best of 256
evenly spread directions and the centre-to-centre one (d can have several local minima
for elongated shapes; Simbody's MPR start may settle in another one). The contact frame
has its origin halfway between P and Q, z = m, and x along the direction of largest
curvature of the combined paraboloid (the sum of the two surfaces' curvature tensors in
the tangent plane), whose principal curvatures
(kmax, kmin) the EllipticalPointContact carries; HertzElliptical makes its force.
"""

from __future__ import annotations

import math

import numpy as np

from engine.contact.contact import EllipticalPointContact
from engine.contact.kernels.implicit_pair_kernel import (
    DIRECTIONS,
    MAX_ITERATIONS,
    NEWTON_DONE,
    VALUE_TOLERANCE,
)
from engine.contact.pair_trackers import _transform
from engine.contact.vec3 import cross3

SPHERE, ELLIPSOID = 1, 2


def _shape_matrix(shape, R: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """(A = R diag(a^2) R^T, semi-axes a, largest semi-axis) of a Sphere or Ellipsoid."""
    if shape.getTypeId() == SPHERE:
        r = shape.getRadius()
        a = np.array((r, r, r))
    else:
        a = np.array(shape.getRadii(), dtype=float)
    return (R * (a * a)) @ R.T, a, float(a.max())


def _tangent_basis(m: np.ndarray) -> np.ndarray:
    j = int(np.argmin(np.abs(m)))
    helper = np.zeros(3)
    helper[j] = 1.0
    t1 = cross3(m, helper)
    t1 /= np.linalg.norm(t1)
    return np.column_stack((t1, cross3(m, t1)))


def _overlap(m, dc, A1, A2):
    """d(m), its gradient and Hessian in R^3 (d is homogeneous of degree 1 in m)."""
    value = float(dc @ m)
    grad = dc.copy()
    hess = np.zeros((3, 3))
    for A in (A1, A2):
        Am = A @ m
        h = math.sqrt(float(m @ Am))
        value += h
        grad += Am / h
        hess += A / h - np.outer(Am, Am) / h**3
    return value, grad, hess


def _least_overlap_direction(m, dc, A1, A2, scale):
    """Unit m minimizing d(m) (Newton on the sphere with a backtracking line search).

    A trial direction is accepted when d does not grow by more than ``VALUE_TOLERANCE *
    scale`` (above d's rounding error): near the minimum d changes less than its rounding,
    and a test of d alone would stop the Newton steps about sqrt(eps) from the minimizer.
    The search ends when the tangential gradient vanishes, when a step moves m by at most
    1e-16, or after a full Newton step of at most ``NEWTON_DONE`` (m is then exact to
    rounding: the convergence is quadratic)."""
    value, grad, hess = _overlap(m, dc, A1, A2)
    tolerance = VALUE_TOLERANCE * scale
    for _ in range(MAX_ITERATIONS):
        T = _tangent_basis(m)
        g = T.T @ grad
        if float(np.linalg.norm(g)) <= 1e-15 * scale:
            break
        H = T.T @ (hess - float(m @ grad) * np.eye(3)) @ T
        newton = True
        try:
            step = -np.linalg.solve(H, g)
            if float(step @ g) >= 0.0:
                raise np.linalg.LinAlgError
        except np.linalg.LinAlgError:
            step = -g / max(float(np.linalg.norm(H)), 1e-300)
            newton = False
        t = 1.0
        while True:
            trial = m + t * (T @ step)
            trial /= np.linalg.norm(trial)
            v, gr, he = _overlap(trial, dc, A1, A2)
            if v <= value + tolerance or t < 1e-12:
                break
            t *= 0.5
        moved = float(np.linalg.norm(trial - m))
        m, value, grad, hess = trial, v, gr, he
        if moved <= 1e-16 or (newton and t == 1.0 and moved <= NEWTON_DONE):
            break
    return m, value


def scale_matrix(TE: np.ndarray, a2: np.ndarray, nE: np.ndarray) -> np.ndarray:
    """``(Q_E·n_E) T^T diag(1/a^2) T`` (CONVENTIONS 14.2's curvature matrix)."""
    q_dot_n = math.sqrt(float(a2 @ (nE * nE)))
    return q_dot_n * (TE.T @ (TE / a2[:, None]))


def convex_implicit_pair(s1, s2, R1, p1, R2, p2, shape1, shape2):
    """EllipticalPointContact of two spheres/ellipsoids (surface 1 = s1) or None."""
    A1, a1, big1 = _shape_matrix(shape1, R1)
    A2, a2, big2 = _shape_matrix(shape2, R2)
    d_centres = p2 - p1
    dist = float(np.linalg.norm(d_centres))
    if dist >= big1 + big2:
        return None
    dc = p1 - p2
    # start from the best of the centre-to-centre direction and a fixed spread of
    # directions (d can have several local minima for elongated shapes)
    starts = DIRECTIONS if dist == 0.0 else np.vstack((DIRECTIONS, d_centres / dist))
    values = (
        starts @ dc
        + np.sqrt(np.einsum("ki,ij,kj->k", starts, A1, starts))
        + np.sqrt(np.einsum("ki,ij,kj->k", starts, A2, starts))
    )
    m0 = starts[int(np.argmin(values))]
    m, depth = _least_overlap_direction(m0, dc, A1, A2, big1 + big2)
    if depth <= 0.0:
        return None
    P = p1 + A1 @ m / math.sqrt(float(m @ A1 @ m))
    Q = p2 - A2 @ m / math.sqrt(float(m @ A2 @ m))
    T = _tangent_basis(m)
    K = scale_matrix(R1.T @ T, a1 * a1, R1.T @ m) + scale_matrix(R2.T @ T, a2 * a2, R2.T @ -m)
    K = 0.5 * (K + K.T)
    values, vectors = np.linalg.eigh(K)
    kmin, kmax = float(values[0]), float(values[1])
    d_max = T @ vectors[:, 1]
    d_max /= np.linalg.norm(d_max)
    R_GC = np.column_stack((d_max, cross3(m, d_max), m))
    origin = 0.5 * (P + Q)
    contact = EllipticalPointContact.__new__(EllipticalPointContact)
    contact._init_from_tracker(s1, s2, (R1, p1, R2, p2))
    contact._X_S1C = _transform(R1.T @ R_GC, R1.T @ (origin - p1))
    contact._k = np.array((kmax, kmin))
    contact._k.flags.writeable = False
    contact._depth = float(depth)
    return contact
