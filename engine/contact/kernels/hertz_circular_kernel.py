"""Kernels for HertzCircular contacts (CONVENTIONS 14.3 with e = 1) over flat arrays, and
the application of point forces to bodies.

Row layout of ``out`` (one row per contact, float64, ``OUT_COLUMNS`` columns): contact point
C (0:3), force on surface 2 (3:6), potential energy (6), dissipated power (7), xdot (8),
slip velocity vT (9:12), 1.0 if the contact is "yanked" (fN <= 0) else 0.0 (12).
"""

from __future__ import annotations

import math

from numba import njit

from engine.common.kernel_jit import kernel_jit

OUT_COLUMNS = 13
SIGNIFICANT_REAL = 2.220446049250313e-16**0.875


@kernel_jit
def _combine(u1, u2):
    if u1 == 0.0 or u2 == 0.0:
        return 0.0
    return 2.0 * u1 * u2 / (u1 + u2)


@kernel_jit
def _step5(y):
    return y * y * y * (10.0 + y * (-15.0 + 6.0 * y))


@kernel_jit
def _stribeck(us, ud, uv, v, vt):
    r = v / vt
    if r < 1.0:
        mu = us * _step5(r)
    elif r < 3.0:
        mu = us - (us - ud) * _step5((r - 1.0) / 2.0)
    else:
        mu = ud
    return mu + uv * v


@njit(cache=True, nogil=True, inline="always")
def friction_force(fN, fHC, xdot, n0, n1, n2, t0, t1, t2, material, i, j, vt):
    """(f0, f1, f2, power) of one contact point (CONVENTIONS 14.3): the force on surface 2,
    the normal force ``fN`` along the unit normal n (surface 1 into 2) less the friction
    ``mu fN t/|t|`` where the slip velocity t (surface 2's material relative to surface
    1's, tangential) is larger than SIGNIFICANT_REAL, with the Stribeck mu of the
    surfaces' combined coefficients (``material`` rows i and j: us, ud, uv in columns
    2..4; ``vt`` the transition velocity); and the dissipated power
    ``fHC xdot + mu fN |t|`` (fHC the damping part of fN). Inlined into each force law,
    which all end with it."""
    f0, f1, f2 = fN * n0, fN * n1, fN * n2
    power = fHC * xdot
    slip = math.sqrt(t0 * t0 + t1 * t1 + t2 * t2)
    if slip > SIGNIFICANT_REAL:
        us = _combine(material[i, 2], material[j, 2])
        ud = _combine(material[i, 3], material[j, 3])
        uv = _combine(material[i, 4], material[j, 4])
        mu = _stribeck(us, ud, uv, slip, vt)
        scale = mu * fN / slip
        f0 -= scale * t0
        f1 -= scale * t1
        f2 -= scale * t2
        power += mu * fN * slip
    return f0, f1, f2, power


@kernel_jit
def hertz_circular_forces(origin, normal, depth, radius, s1, s2, material, b, p_GB, V_GB, vt, out):
    """Fill ``out`` (m, OUT_COLUMNS) for m contacts.

    origin, normal (m, 3) halfway point and unit normal (surface 1 into 2) in G; depth,
    radius (m,) x > 0 and effective radius; s1, s2 (m,) surface indices; material (ns, 5)
    per surface: stiffness^(2/3), dissipation, us, ud, uv; b (ns,) each surface's body;
    p_GB (nb, 3) body origins; V_GB (nb, 6) [w, v] of each body (zeros: at rest); vt the
    transition velocity."""
    for k in range(depth.shape[0]):
        i, j = s1[k], s2[k]
        k1, k2 = material[i, 0], material[j, 0]
        share1 = k2 / (k1 + k2)
        x = depth[k]
        n0, n1, n2 = normal[k, 0], normal[k, 1], normal[k, 2]
        h = x * (0.5 - share1)
        c0 = origin[k, 0] + h * n0
        c1 = origin[k, 1] + h * n1
        c2 = origin[k, 2] + h * n2
        kk = k1 * share1
        c = material[i, 1] * share1 + material[j, 1] * (1.0 - share1)
        fH = (4.0 / 3.0) * kk * x * math.sqrt(radius[k] * kk * x)
        # v_2(C) - v_1(C)
        bb, ba = b[j], b[i]
        r0, r1, r2 = c0 - p_GB[bb, 0], c1 - p_GB[bb, 1], c2 - p_GB[bb, 2]
        w0, w1, w2 = V_GB[bb, 0], V_GB[bb, 1], V_GB[bb, 2]
        v0 = V_GB[bb, 3] + w1 * r2 - w2 * r1
        v1 = V_GB[bb, 4] + w2 * r0 - w0 * r2
        v2 = V_GB[bb, 5] + w0 * r1 - w1 * r0
        r0, r1, r2 = c0 - p_GB[ba, 0], c1 - p_GB[ba, 1], c2 - p_GB[ba, 2]
        w0, w1, w2 = V_GB[ba, 0], V_GB[ba, 1], V_GB[ba, 2]
        v0 -= V_GB[ba, 3] + w1 * r2 - w2 * r1
        v1 -= V_GB[ba, 4] + w2 * r0 - w0 * r2
        v2 -= V_GB[ba, 5] + w0 * r1 - w1 * r0
        xdot = -(v0 * n0 + v1 * n1 + v2 * n2)
        t0, t1, t2 = v0 + xdot * n0, v1 + xdot * n1, v2 + xdot * n2
        fHC = 1.5 * c * fH * xdot
        fN = fH + fHC
        out[k, 0], out[k, 1], out[k, 2] = c0, c1, c2
        out[k, 8] = xdot
        out[k, 9], out[k, 10], out[k, 11] = t0, t1, t2
        if fN <= 0.0:
            out[k, 3], out[k, 4], out[k, 5] = 0.0, 0.0, 0.0
            out[k, 6] = 0.0
            out[k, 7] = 0.0
            out[k, 12] = 1.0
            continue
        f0, f1, f2, power = friction_force(
            fN, fHC, xdot, n0, n1, n2, t0, t1, t2, material, i, j, vt
        )
        out[k, 3], out[k, 4], out[k, 5] = f0, f1, f2
        out[k, 6] = 0.4 * fH * x
        out[k, 7] = power
        out[k, 12] = 0.0


@kernel_jit
def apply_point_forces(out, s1, s2, b, p_GB, body_forces):
    """body_forces (nb, 6) [moment about Bo, force] in G: for each row of ``out`` (layout
    above), ``+F`` at C on surface 2's body and ``-F`` at C on surface 1's body."""
    for k in range(out.shape[0]):
        f0, f1, f2 = out[k, 3], out[k, 4], out[k, 5]
        if f0 == 0.0 and f1 == 0.0 and f2 == 0.0:
            continue
        for which in range(2):
            body = b[s2[k]] if which == 0 else b[s1[k]]
            sign = 1.0 if which == 0 else -1.0
            r0 = out[k, 0] - p_GB[body, 0]
            r1 = out[k, 1] - p_GB[body, 1]
            r2 = out[k, 2] - p_GB[body, 2]
            body_forces[body, 0] += sign * (r1 * f2 - r2 * f1)
            body_forces[body, 1] += sign * (r2 * f0 - r0 * f2)
            body_forces[body, 2] += sign * (r0 * f1 - r1 * f0)
            body_forces[body, 3] += sign * f0
            body_forces[body, 4] += sign * f1
            body_forces[body, 5] += sign * f2
