"""Kernel for a half space against a brick: the BrickHalfSpaceContact of
``pair_trackers.half_space_brick`` (the lowest vertex and its depth) and the
BrickHalfSpacePenalty force of ``generators.brick_half_space_penalty`` (CONVENTIONS 14.4), in
scalars (no allocation), the same formulas in the same order as those Python functions,
which are its oracle.
"""

from __future__ import annotations

import math

from engine.common.kernel_jit import kernel_jit
from engine.contact.kernels.hertz_circular_kernel import friction_force
from engine.contact.kernels.hertz_elliptical_kernel import add_force_at


@kernel_jit
def _face_vertex(face, k):
    """Vertex k (0..3) of face 0..5 (-x, -y, -z, +x, +y, +z) as ``FACE_VERTICES`` lists
    them (vertex bits: 4 +x, 2 +y, 1 +z)."""
    if face == 0:
        return (0, 1, 3, 2)[k]
    if face == 1:
        return (0, 4, 5, 1)[k]
    if face == 2:
        return (0, 2, 6, 4)[k]
    if face == 3:
        return (7, 5, 4, 6)[k]
    if face == 4:
        return (7, 6, 2, 3)[k]
    return (7, 3, 1, 5)[k]


@kernel_jit
def _vertex_in_G(R_GS, p_GS, size, b, v):
    """Vertex v of brick surface b (half-lengths ``size[b]``) in G."""
    x = size[b, 0] if v & 4 else -size[b, 0]
    y = size[b, 1] if v & 2 else -size[b, 1]
    z = size[b, 2] if v & 1 else -size[b, 2]
    return (
        p_GS[b, 0] + (R_GS[b, 0, 0] * x + R_GS[b, 0, 1] * y + R_GS[b, 0, 2] * z),
        p_GS[b, 1] + (R_GS[b, 1, 0] * x + R_GS[b, 1, 1] * y + R_GS[b, 1, 2] * z),
        p_GS[b, 2] + (R_GS[b, 2, 0] * x + R_GS[b, 2, 1] * y + R_GS[b, 2, 2] * z),
    )


@kernel_jit
def half_space_brick_force(h, b, R_GS, p_GS, size, stiffness, material, body, p_GB, V_GB, vt, bf):
    """Add the BrickHalfSpacePenalty force between half space ``h`` (surface 1) and brick
    ``b`` (surface 2) into ``bf`` (nb, 6) [moment about Bo, force] in G; ``size`` (ns, 3)
    the brick's half-lengths, ``stiffness`` (ns,) each surface's stiffness (N/m per
    vertex), ``material`` (ns, 5) k^(2/3), c, us, ud, uv; the rest as in
    ``half_space_ellipsoid_force``. Returns (1 if the lowest vertex is below the plane
    else 0, the dissipated power in W)."""
    n0, n1, n2 = -R_GS[h, 0, 0], -R_GS[h, 1, 0], -R_GS[h, 2, 0]
    o0, o1, o2 = p_GS[h, 0], p_GS[h, 1], p_GS[h, 2]
    # the lowest vertex: the sign pattern of R_GB^T (-n) (a zero component counts as +)
    g0, g1, g2 = -n0, -n1, -n2
    lowest = 0
    if R_GS[b, 0, 0] * g0 + R_GS[b, 1, 0] * g1 + R_GS[b, 2, 0] * g2 >= 0.0:
        lowest |= 4
    if R_GS[b, 0, 1] * g0 + R_GS[b, 1, 1] * g1 + R_GS[b, 2, 1] * g2 >= 0.0:
        lowest |= 2
    if R_GS[b, 0, 2] * g0 + R_GS[b, 1, 2] * g1 + R_GS[b, 2, 2] * g2 >= 0.0:
        lowest |= 1
    v0, v1, v2 = _vertex_in_G(R_GS, p_GS, size, b, lowest)
    if -((v0 - o0) * n0 + (v1 - o1) * n1 + (v2 - o2) * n2) <= 0.0:
        return 0, 0.0
    kH, kB = stiffness[h], stiffness[b]
    sH = kB / (kH + kB)
    sB = 1.0 - sH
    k = kH * sH
    c = material[h, 1] * sH + material[b, 1] * sB
    # of the three faces at the lowest vertex, the one facing -n most
    face = -1
    best = math.inf
    for axis in range(3):
        bit = 4 >> axis
        sign = 1.0 if lowest & bit else -1.0
        d = sign * (R_GS[b, 0, axis] * n0 + R_GS[b, 1, axis] * n1 + R_GS[b, 2, axis] * n2)
        if d < best:
            face, best = axis + (3 if sign > 0 else 0), d
    F0 = F1 = F2 = 0.0
    M0 = M1 = M2 = 0.0  # moment about o
    W0 = W1 = W2 = 0.0  # sum of w r
    weight = 0.0
    power_total = 0.0
    b2, b1 = body[b], body[h]
    for corner in range(4):
        v0, v1, v2 = _vertex_in_G(R_GS, p_GS, size, b, _face_vertex(face, corner))
        x = -((v0 - o0) * n0 + (v1 - o1) * n1 + (v2 - o2) * n2)
        if x <= 0.0:
            continue
        xs = x * sB
        P0, P1, P2 = v0 + xs * n0, v1 + xs * n1, v2 + xs * n2
        fK = k * x
        # v_2(P) - v_1(P)
        r0, r1, r2 = P0 - p_GB[b2, 0], P1 - p_GB[b2, 1], P2 - p_GB[b2, 2]
        w0, w1, w2 = V_GB[b2, 0], V_GB[b2, 1], V_GB[b2, 2]
        u0 = V_GB[b2, 3] + (w1 * r2 - w2 * r1)
        u1 = V_GB[b2, 4] + (w2 * r0 - w0 * r2)
        u2 = V_GB[b2, 5] + (w0 * r1 - w1 * r0)
        r0, r1, r2 = P0 - p_GB[b1, 0], P1 - p_GB[b1, 1], P2 - p_GB[b1, 2]
        w0, w1, w2 = V_GB[b1, 0], V_GB[b1, 1], V_GB[b1, 2]
        u0 -= V_GB[b1, 3] + (w1 * r2 - w2 * r1)
        u1 -= V_GB[b1, 4] + (w2 * r0 - w0 * r2)
        u2 -= V_GB[b1, 5] + (w0 * r1 - w1 * r0)
        xdot = -(u0 * n0 + u1 * n1 + u2 * n2)
        t0, t1, t2 = u0 + xdot * n0, u1 + xdot * n1, u2 + xdot * n2
        fHC = c * fK * xdot
        fN = fK + fHC
        if fN <= 0.0:
            power_total += -fK * xdot
            continue
        f0, f1, f2, power = friction_force(
            fN, fHC, xdot, n0, n1, n2, t0, t1, t2, material, h, b, vt
        )
        r0, r1, r2 = P0 - o0, P1 - o1, P2 - o2
        F0 += f0
        F1 += f1
        F2 += f2
        M0 += r1 * f2 - r2 * f1
        M1 += r2 * f0 - r0 * f2
        M2 += r0 * f1 - r1 * f0
        e0, e1, e2 = fN * n0, fN * n1, fN * n2
        c0, c1, c2 = r1 * e2 - r2 * e1, r2 * e0 - r0 * e2, r0 * e1 - r1 * e0
        w = math.sqrt(c0 * c0 + c1 * c1 + c2 * c2)
        W0 += w * r0
        W1 += w * r1
        W2 += w * r2
        weight += w
        power_total += power
    if weight > 0.0:
        C0, C1, C2 = o0 + W0 / weight, o1 + W1 / weight, o2 + W2 / weight
    else:
        C0, C1, C2 = o0, o1, o2
    # the moment about C: M_o - (C - o) x F
    d0, d1, d2 = C0 - o0, C1 - o1, C2 - o2
    Mc0 = M0 - (d1 * F2 - d2 * F1)
    Mc1 = M1 - (d2 * F0 - d0 * F2)
    Mc2 = M2 - (d0 * F1 - d1 * F0)
    add_force_at(bf, b2, b1, p_GB, C0, C1, C2, Mc0, Mc1, Mc2, F0, F1, F2)
    return 1, power_total
