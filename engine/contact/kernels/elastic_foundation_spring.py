"""One spring of ElasticFoundationForce in a kernel: the force law of
``ElasticFoundationForce._evaluate`` for a face whose centroid P is inside the other
surface O, with Q the nearest point of O. Shared by the element's half space, sphere
(``elastic_foundation_force_kernel``) and mesh (``elastic_foundation_mesh_pair_kernel``)
partners. No allocation."""

from __future__ import annotations

import math

from engine.common.kernel_jit import kernel_jit


@kernel_jit
def push(P0, P1, P2, Q0, Q1, Q2, area, bm, bo, k, c, us, ud, uv, vt, p_GB, V_GB, bf):
    """The spring from P to Q (both in G, m) of a face of area ``area`` (m^2) of the mesh
    on body ``bm`` against the surface on body ``bo``: ``d = |Q - P|``, ``u = (Q - P)/d``,
    ``v = v_O(Q) - v_M(Q)``, ``vn = v·u``, ``vT = v - vn u``, ``f = k A d (1 + c vn)``; when
    ``f > 0`` adds ``f u + mu f vT/|vT|`` (Hollars' friction with us, ud, uv and transition
    velocity ``vt``; none when ``|vT|`` is 0) at Q to ``bf[bm]`` (nb, 6) [moment about Bo,
    force] in G and its negative to ``bf[bo]``. Returns 1 if it pushed, else 0."""
    d0, d1, d2 = Q0 - P0, Q1 - P1, Q2 - P2
    d = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
    if not d > 0.0:
        return 0
    u0, u1, u2 = d0 / d, d1 / d, d2 / d
    # velocity of O's material relative to M's at Q
    m0, m1, m2 = Q0 - p_GB[bm, 0], Q1 - p_GB[bm, 1], Q2 - p_GB[bm, 2]
    r0, r1, r2 = Q0 - p_GB[bo, 0], Q1 - p_GB[bo, 1], Q2 - p_GB[bo, 2]
    Vo = V_GB[bo]
    Vm = V_GB[bm]
    v0 = (Vo[3] + (Vo[1] * r2 - Vo[2] * r1)) - (Vm[3] + (Vm[1] * m2 - Vm[2] * m1))
    v1 = (Vo[4] + (Vo[2] * r0 - Vo[0] * r2)) - (Vm[4] + (Vm[2] * m0 - Vm[0] * m2))
    v2 = (Vo[5] + (Vo[0] * r1 - Vo[1] * r0)) - (Vm[5] + (Vm[0] * m1 - Vm[1] * m0))
    vn = v0 * u0 + v1 * u1 + v2 * u2
    t0, t1, t2 = v0 - vn * u0, v1 - vn * u1, v2 - vn * u2
    fs = k * area * d * (1.0 + c * vn)
    if fs <= 0.0:
        return 0
    F0, F1, F2 = fs * u0, fs * u1, fs * u2
    vslip = math.sqrt(t0 * t0 + t1 * t1 + t2 * t2)
    if vslip != 0.0:
        vr = vslip / vt
        mu = min(vr, 1.0) * (ud + 2.0 * (us - ud) / (1.0 + vr * vr)) + uv * vslip
        g = mu * fs / vslip
        F0, F1, F2 = F0 + g * t0, F1 + g * t1, F2 + g * t2
    bf[bm, 0] += m1 * F2 - m2 * F1
    bf[bm, 1] += m2 * F0 - m0 * F2
    bf[bm, 2] += m0 * F1 - m1 * F0
    bf[bm, 3] += F0
    bf[bm, 4] += F1
    bf[bm, 5] += F2
    bf[bo, 0] -= r1 * F2 - r2 * F1
    bf[bo, 1] -= r2 * F0 - r0 * F2
    bf[bo, 2] -= r0 * F1 - r1 * F0
    bf[bo, 3] -= F0
    bf[bo, 4] -= F1
    bf[bo, 5] -= F2
    return 1
