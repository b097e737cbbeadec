"""Narrow phase: the contact geometry of each pair kind (CONVENTIONS 14.2), in Ground.

Each function takes the two surfaces' frames in G and their shapes and returns a Contact
(with its Ground frames recorded) or None when the undeformed shapes do not overlap.
"""

from __future__ import annotations

import math

import numpy as np

from engine.contact.contact import (
    BrickHalfSpaceContact,
    CircularPointContact,
    EllipticalPointContact,
)
from engine.contact.vec3 import cross3
from engine.math.rotation import Rotation
from engine.math.transform import Transform


def _transform(R: np.ndarray, p: np.ndarray) -> Transform:
    return Transform(Rotation._from_matrix(np.array(R, dtype=float)), np.array(p, dtype=float))


def circular(s1, s2, R1, p1, R2, p2, r1, r2, R, depth, origin, normal):
    """A CircularPointContact from Ground quantities."""
    contact = CircularPointContact.__new__(CircularPointContact)
    contact._init_from_tracker(s1, s2, (R1, p1, R2, p2))
    contact._radius1, contact._radius2, contact._radius = float(r1), float(r2), float(R)
    contact._depth = float(depth)
    contact._origin = None  # in S1: computed when asked for
    contact._normal = None
    contact._origin_normal_G = (origin, normal)
    return contact


def half_space_spheres(h, R_H, p_H, idx, p_S, radii):
    """Depths and origins of many spheres (centres p_S (k, 3), radii (k,)) against half
    space h: returns (mask of overlapping, depth, origin, n)."""
    n = -R_H[:, 0]
    d = (p_S - p_H) @ n
    x = radii - d
    mask = x > 0.0
    origin = p_S - (d + 0.5 * x)[:, None] * n[None, :]
    return mask, x, origin, n


def sphere_sphere(s1, s2, R1, p1, r1, R2, p2, r2):
    """Sphere-sphere contact (surface 1 = the lower index) or None."""
    d_vec = p2 - p1
    dist = math.sqrt(float(d_vec @ d_vec))
    x = r1 + r2 - dist
    if x <= 0.0 or dist == 0.0:
        return None
    n = d_vec / dist
    origin = p1 + (r1 - 0.5 * x) * n
    return circular(s1, s2, R1, p1, R2, p2, r1, r2, r1 * r2 / (r1 + r2), x, origin, n)


def half_space_ellipsoid(h, e, R_H, p_H, R_E, p_E, a):
    """Half space - ellipsoid contact or None (Q: the ellipsoid point whose normal is -n)."""
    n = -R_H[:, 0]
    m = R_E.T @ (-n)
    a2 = a * a
    s = math.sqrt(float(a2 @ (m * m)))
    Q_E = a2 * m / s
    Q = p_E + R_E @ Q_E
    x = float((Q - p_H) @ (-n))
    if x <= 0.0:
        return None
    origin = Q + 0.5 * x * n
    # tangent basis perpendicular to m, then the curvature matrix (Q_E . m) t^T diag(1/a^2) t
    j = int(np.argmin(np.abs(m)))
    helper = np.zeros(3)
    helper[j] = 1.0
    t1 = cross3(m, helper)
    t1 /= np.linalg.norm(t1)
    t2 = cross3(m, t1)
    inv = 1.0 / a2
    scale = float(Q_E @ m)
    K = scale * np.array([[t1 @ (inv * t1), t1 @ (inv * t2)], [t2 @ (inv * t1), t2 @ (inv * t2)]])
    values, vectors = np.linalg.eigh(K)
    kmin, kmax = float(values[0]), float(values[1])
    d_max = R_E @ (vectors[0, 1] * t1 + vectors[1, 1] * t2)
    d_max -= (d_max @ n) * n
    d_max /= np.linalg.norm(d_max)
    R_GC = np.column_stack((d_max, cross3(n, d_max), n))
    X_S1C = _transform(R_H.T @ R_GC, R_H.T @ (origin - p_H))
    contact = EllipticalPointContact.__new__(EllipticalPointContact)
    contact._init_from_tracker(h, e, (R_H, p_H, R_E, p_E))
    contact._X_S1C = X_S1C
    contact._k = np.array((kmax, kmin))
    contact._depth = x
    return contact


def brick_lowest_vertex(R_B: np.ndarray, n: np.ndarray) -> int:
    """The vertex with the sign pattern of ``R_GB^T (-n)`` (a zero component counts as +)."""
    m = R_B.T @ (-n)
    return (4 if m[0] >= 0 else 0) | (2 if m[1] >= 0 else 0) | (1 if m[2] >= 0 else 0)


def half_space_brick(h, b, R_H, p_H, R_B, p_B, half):
    """Half space - brick contact (lowest vertex and its depth) or None."""
    n = -R_H[:, 0]
    k = brick_lowest_vertex(R_B, n)
    v = np.array(
        (
            half[0] if k & 4 else -half[0],
            half[1] if k & 2 else -half[1],
            half[2] if k & 1 else -half[2],
        )
    )
    v_low = p_B + R_B @ v
    x = -float((v_low - p_H) @ n)
    if x <= 0.0:
        return None
    contact = BrickHalfSpaceContact.__new__(BrickHalfSpaceContact)
    contact._init_from_tracker(h, b, (R_H, p_H, R_B, p_B))
    contact._lowest = k
    contact._depth = x
    contact._half_lengths = np.array(half, dtype=float)
    return contact
