"""Kernel for a half space against an ellipsoid: the EllipticalPointContact of
``pair_trackers.half_space_ellipsoid`` and the HertzElliptical force of
``generators.hertz_elliptical`` (CONVENTIONS 14.2, 14.3), in scalars (no allocation), the
same formulas in the same order as those Python functions, which are its oracle. The force
(``hertz_elliptical_force``) is shared with the Sphere-Ellipsoid and Ellipsoid-Ellipsoid
pairs (``implicit_pair_kernel``).

Only what the force needs is computed: the depth, the halfway point, the normal and the
principal curvatures (kmax, kmin); the contact frame is made by the Python tracker when a
snapshot is asked for.
"""

from __future__ import annotations

import math

from engine.common.kernel_jit import kernel_jit
from engine.contact.kernels.hertz_circular_kernel import friction_force

_KA0, _KA1, _KA2, _KA3, _KA4 = (
    1.38629436112,
    0.09666344259,
    0.03590092383,
    0.03742563713,
    0.01451196212,
)
_KB0, _KB1, _KB2, _KB3, _KB4 = (
    0.5,
    0.12498593597,
    0.06880248576,
    0.03328355346,
    0.00441787012,
)
_EA0, _EA1, _EA2, _EA3, _EA4 = (
    1.0,
    0.44325141463,
    0.06260601220,
    0.04757383546,
    0.01736506451,
)
_EB1, _EB2, _EB3, _EB4 = (0.24998368310, 0.09200180037, 0.04069697526, 0.00526449639)
_U0, _U1, _U2, _U3 = (0.40227436, 3.7491752e-2, 7.4855761e-4, 2.1667028e-6)
_V0, _V1, _V2, _V3 = (0.42678878, 4.2605401e-2, 9.0786922e-4, 2.7868927e-6)


@kernel_jit
def elliptical_factor(kmax, kmin):
    """e of CONVENTIONS 14.3 (exactly 1 when kmax == kmin); ``hertz_elliptical``'s."""
    if kmax == kmin:
        return 1.0
    ratio = kmax / kmin
    q = math.log10(ratio) ** 2
    num = 1.0 + q * (_U0 + q * (_U1 + q * (_U2 + q * _U3)))
    den = 1.0 + q * (_V0 + q * (_V1 + q * (_V2 + q * _V3)))
    k_e = ratio ** ((2.0 / 3.0) * num / den)
    m1 = 1.0 - (1.0 - 1.0 / (k_e * k_e))
    m2 = m1 * m1
    m3 = m2 * m1
    m4 = m3 * m1
    ln = math.log(m1)
    K = (_KA0 + _KA1 * m1 + _KA2 * m2 + _KA3 * m3 + _KA4 * m4) - ln * (
        _KB0 + _KB1 * m1 + _KB2 * m2 + _KB3 * m3 + _KB4 * m4
    )
    E = (_EA0 + _EA1 * m1 + _EA2 * m2 + _EA3 * m3 + _EA4 * m4) - ln * (
        _EB1 * m1 + _EB2 * m2 + _EB3 * m3 + _EB4 * m4
    )
    return math.pi * k_e * math.sqrt(E * K) / (2.0 * K * K)


@kernel_jit
def half_space_ellipsoid_force(h, e, R_GS, p_GS, size, material, body, p_GB, V_GB, vt, bf):
    """Add the HertzElliptical force between half space ``h`` (surface 1) and ellipsoid
    ``e`` (surface 2) into ``bf`` (nb, 6) [moment about Bo, force] in G; ``R_GS``, ``p_GS``
    the surface frames in G, ``size`` (ns, 3) the ellipsoid's radii, ``material`` (ns, 5)
    k^(2/3), c, us, ud, uv, ``body`` each surface's body, ``p_GB``, ``V_GB`` [w, v] the
    bodies' origins and velocities in G, ``vt`` the transition velocity. Returns
    (1 if the shapes overlap else 0, the dissipated power in W)."""
    # n = -x_H; m = R_GE^T (-n): the ellipsoid's direction towards the half space, in E
    n0, n1, n2 = -R_GS[h, 0, 0], -R_GS[h, 1, 0], -R_GS[h, 2, 0]
    g0, g1, g2 = -n0, -n1, -n2
    m0 = R_GS[e, 0, 0] * g0 + R_GS[e, 1, 0] * g1 + R_GS[e, 2, 0] * g2
    m1 = R_GS[e, 0, 1] * g0 + R_GS[e, 1, 1] * g1 + R_GS[e, 2, 1] * g2
    m2 = R_GS[e, 0, 2] * g0 + R_GS[e, 1, 2] * g1 + R_GS[e, 2, 2] * g2
    a0, a1, a2 = size[e, 0] * size[e, 0], size[e, 1] * size[e, 1], size[e, 2] * size[e, 2]
    s = math.sqrt(a0 * (m0 * m0) + a1 * (m1 * m1) + a2 * (m2 * m2))
    q0, q1, q2 = a0 * m0 / s, a1 * m1 / s, a2 * m2 / s  # Q in E
    Q0 = p_GS[e, 0] + (R_GS[e, 0, 0] * q0 + R_GS[e, 0, 1] * q1 + R_GS[e, 0, 2] * q2)
    Q1 = p_GS[e, 1] + (R_GS[e, 1, 0] * q0 + R_GS[e, 1, 1] * q1 + R_GS[e, 1, 2] * q2)
    Q2 = p_GS[e, 2] + (R_GS[e, 2, 0] * q0 + R_GS[e, 2, 1] * q1 + R_GS[e, 2, 2] * q2)
    x = (Q0 - p_GS[h, 0]) * g0 + (Q1 - p_GS[h, 1]) * g1 + (Q2 - p_GS[h, 2]) * g2
    if x <= 0.0:
        return 0, 0.0
    o0, o1, o2 = Q0 + 0.5 * x * n0, Q1 + 0.5 * x * n1, Q2 + 0.5 * x * n2
    # tangent basis t1, t2 perpendicular to m; curvature matrix (Q_E . m) t^T diag(1/a^2) t
    am0, am1, am2 = abs(m0), abs(m1), abs(m2)
    if am0 <= am1 and am0 <= am2:  # helper = the axis of the smallest |m| component
        t10, t11, t12 = 0.0, m2, -m1
    elif am1 <= am2:
        t10, t11, t12 = -m2, 0.0, m0
    else:
        t10, t11, t12 = m1, -m0, 0.0
    length = math.sqrt(t10 * t10 + t11 * t11 + t12 * t12)
    t10, t11, t12 = t10 / length, t11 / length, t12 / length
    t20 = m1 * t12 - m2 * t11
    t21 = m2 * t10 - m0 * t12
    t22 = m0 * t11 - m1 * t10
    i0, i1, i2 = 1.0 / a0, 1.0 / a1, 1.0 / a2
    scale = q0 * m0 + q1 * m1 + q2 * m2
    k00 = scale * (t10 * (i0 * t10) + t11 * (i1 * t11) + t12 * (i2 * t12))
    k10 = scale * (t20 * (i0 * t10) + t21 * (i1 * t11) + t22 * (i2 * t12))
    k11 = scale * (t20 * (i0 * t20) + t21 * (i1 * t21) + t22 * (i2 * t22))
    mean = 0.5 * (k00 + k11)
    half = 0.5 * (k00 - k11)
    radius = math.sqrt(half * half + k10 * k10)
    kmax, kmin = mean + radius, mean - radius
    power = hertz_elliptical_force(
        h, e, o0, o1, o2, n0, n1, n2, x, kmax, kmin, material, body, p_GB, V_GB, vt, bf
    )
    return 1, power


@kernel_jit
def hertz_elliptical_force(
    s1, s2, o0, o1, o2, n0, n1, n2, x, kmax, kmin, material, body, p_GB, V_GB, vt, bf
):
    """Add the HertzElliptical force of an EllipticalPointContact between surfaces ``s1``
    and ``s2`` (halfway point o and unit normal n, surface 1 into 2, in G; depth x > 0;
    principal curvatures kmax >= kmin of the combined surface) into ``bf`` (nb, 6) [moment
    about Bo, force] in G (``material``, ``body``, ``p_GB``, ``V_GB``, ``vt`` as in
    ``half_space_ellipsoid_force``): ``hertz_point.hertz_point_force`` with
    R = 2 / (kmax + kmin) and the elliptical factor. Returns the dissipated power (W)."""
    k1, k2 = material[s1, 0], material[s2, 0]
    share1 = k2 / (k1 + k2)
    hh = x * (0.5 - share1)
    c0, c1, c2 = o0 + hh * n0, o1 + hh * n1, o2 + hh * n2
    kk = k1 * share1
    c = material[s1, 1] * share1 + material[s2, 1] * (1.0 - share1)
    R = 2.0 / (kmax + kmin)
    fH = elliptical_factor(kmax, kmin) * (4.0 / 3.0) * kk * x * math.sqrt(R * kk * x)
    bb, ba = body[s2], body[s1]
    r0, r1, r2 = c0 - p_GB[bb, 0], c1 - p_GB[bb, 1], c2 - p_GB[bb, 2]
    w0, w1, w2 = V_GB[bb, 0], V_GB[bb, 1], V_GB[bb, 2]
    v0 = V_GB[bb, 3] + (w1 * r2 - w2 * r1)
    v1 = V_GB[bb, 4] + (w2 * r0 - w0 * r2)
    v2 = V_GB[bb, 5] + (w0 * r1 - w1 * r0)
    r0, r1, r2 = c0 - p_GB[ba, 0], c1 - p_GB[ba, 1], c2 - p_GB[ba, 2]
    w0, w1, w2 = V_GB[ba, 0], V_GB[ba, 1], V_GB[ba, 2]
    v0 -= V_GB[ba, 3] + (w1 * r2 - w2 * r1)
    v1 -= V_GB[ba, 4] + (w2 * r0 - w0 * r2)
    v2 -= V_GB[ba, 5] + (w0 * r1 - w1 * r0)
    xdot = -(v0 * n0 + v1 * n1 + v2 * n2)
    t0, t1, t2 = v0 + xdot * n0, v1 + xdot * n1, v2 + xdot * n2
    fHC = 1.5 * c * fH * xdot
    fN = fH + fHC
    if fN <= 0.0:
        return 0.0
    f0, f1, f2, power = friction_force(fN, fHC, xdot, n0, n1, n2, t0, t1, t2, material, s1, s2, vt)
    add_force_at(bf, bb, ba, p_GB, c0, c1, c2, 0.0, 0.0, 0.0, f0, f1, f2)
    return power


@kernel_jit
def add_force_at(bf, b2, b1, p_GB, c0, c1, c2, M0, M1, M2, f0, f1, f2):
    """``bf[b2] += [M + (C - p_B2) x F, F]``, ``bf[b1] -= [M + (C - p_B1) x F, F]``
    (nothing if F and M are zero), as ``CompliantContactSubsystem`` applies a spatial force
    [M, F] at point C on surface 2."""
    if f0 == 0.0 and f1 == 0.0 and f2 == 0.0 and M0 == 0.0 and M1 == 0.0 and M2 == 0.0:
        return
    r0, r1, r2 = c0 - p_GB[b2, 0], c1 - p_GB[b2, 1], c2 - p_GB[b2, 2]
    bf[b2, 0] += M0 + (r1 * f2 - r2 * f1)
    bf[b2, 1] += M1 + (r2 * f0 - r0 * f2)
    bf[b2, 2] += M2 + (r0 * f1 - r1 * f0)
    bf[b2, 3] += f0
    bf[b2, 4] += f1
    bf[b2, 5] += f2
    r0, r1, r2 = c0 - p_GB[b1, 0], c1 - p_GB[b1, 1], c2 - p_GB[b1, 2]
    bf[b1, 0] -= M0 + (r1 * f2 - r2 * f1)
    bf[b1, 1] -= M1 + (r2 * f0 - r0 * f2)
    bf[b1, 2] -= M2 + (r0 * f1 - r1 * f0)
    bf[b1, 3] -= f0
    bf[b1, 4] -= f1
    bf[b1, 5] -= f2
