"""One contact set of a GeneralContactSubsystem in a kernel: its point contacts
(HalfSpace-Sphere and Sphere-Sphere), found in GeneralContactSubsystem's order, either
recorded (``getContacts``) or handed one by one to HuntCrossleyForce's force law (the
HUNT_CROSSLEY compiled force term of ``engine.forces.compiled_terms``).

The set is a block of ``n`` rows of two 2-D arrays, starting at row ``first`` (the rows of
a compiled force term, so the fused realization's table carries them):

* ints (at least 5 columns): 0 unused here (the term's opcode), 1 the surface's body
  (MobilizedBodyIndex), 2 its kind (HALF_SPACE, SPHERE, OTHER_FINITE, OTHER_INFINITE:
  shapes that never touch here), 3 the sweep order (scratch: row ``first + p`` holds the
  surface at place p; it must start as the finite surfaces, any order, and is kept
  between calls, so the next sort starts nearly sorted), 4 the active list (scratch);
* floats (19 columns): 0-2 the x axis of the surface frame S in B, 3-5 S's origin in B
  (m), 6 the sphere radius or a finite shape's bounding radius (m; inf if unknown), 7 k =
  stiffness^(2/3), 8 dissipation c (s/m), 9-11 static, dynamic, viscous (s/m) friction
  (7-11 only for HuntCrossleyForce), 12-14 S's origin in G (scratch), 15 the lower end of
  the surface's sweep interval (scratch).

Detection, in the order the contacts are reported (``GeneralContactSubsystem``'s):

1. each infinite surface (ascending) against every finite one (ascending) on another
   body; a HalfSpace-Sphere pair touches where ``x = r - (c - o)·n > 0`` (n = -Sx in G);
2. sweep and prune over the finite surfaces' bounding spheres along the axis where their
   centres spread most (largest variance, the first of equals): surfaces by lower
   interval end (ties by index; insertion sort from the last call's order: about O(N)
   when little moved), each one paired with the earlier ones whose interval reaches it,
   in the order they entered (pairs (i, j) with i < j; Sphere-Sphere pairs on different
   bodies touch where ``x = r1 + r2 - |c2 - c1| > 0``). Cost O(N + candidate pairs);
   the first call, or one after the sweep axis changed, sorts in O(N^2) worst case.

A contact is (surface 1, surface 2, halfway point, normal from 1 into 2, effective
radius, depth), as ``GeneralContactSubsystem`` documents. HuntCrossleyForce's law is
``engine.forces.hunt_crossley_force``'s, with Simbody 3.7's early stop: the first contact
whose normal force is not positive ends the walk (no force from it or any later one).
Nothing is allocated; runs with NUMBA_DISABLE_JIT=1.
"""

from __future__ import annotations

import math

from engine.common.kernel_jit import kernel_jit

HALF_SPACE, SPHERE, OTHER_FINITE, OTHER_INFINITE = 0, 1, 2, 3
#: the columns a set's rows need at least
ROW_INTS, ROW_FLOATS = 5, 19
#: what a call does with the contacts: write them into ``out_i``/``out_f``, or apply
#: HuntCrossleyForce's forces into ``body_forces``
RECORD, APPLY = 0, 1

# int columns
_BODY, _KIND, _ORDER, _ACTIVE = 1, 2, 3, 4
# float columns
_AXIS, _P_BS, _RADIUS, _K, _C, _US, _UD, _UV, _P_GS, _LO = 0, 3, 6, 7, 8, 9, 10, 11, 12, 15


@kernel_jit
def _combined(u1, u2):
    """Two surfaces' friction coefficients combined: 2 u1 u2 / (u1 + u2), 0 if either is."""
    if u1 == 0.0 or u2 == 0.0:
        return 0.0
    return 2.0 * u1 * u2 / (u1 + u2)


@kernel_jit
def _hunt_crossley(ti, tf, r1, r2, x0, x1, x2, n0, n1, n2, R, depth, vt, p_GB, V_GB, bf):
    """Apply HuntCrossleyForce's force of one contact (surface rows r1, r2; halfway point
    x, normal n from 1 into 2, effective radius R, depth) into ``bf`` (nb, 6); False if
    its normal force is not positive (Simbody's walk stops there, nothing applied)."""
    k1, k2 = tf[r1, _K], tf[r2, _K]
    share1 = k2 / (k1 + k2)
    share2 = 1.0 - share1
    shift = depth * (0.5 - share1)
    C0, C1, C2 = x0 + shift * n0, x1 + shift * n1, x2 + shift * n2
    k = k1 * share1
    c = tf[r1, _C] * share1 + tf[r2, _C] * share2
    fH = (4.0 / 3.0) * k * depth * math.sqrt(R * k * depth)
    b1, b2 = ti[r1, _BODY], ti[r2, _BODY]
    a0, a1, a2 = C0 - p_GB[b1, 0], C1 - p_GB[b1, 1], C2 - p_GB[b1, 2]
    d0, d1, d2 = C0 - p_GB[b2, 0], C1 - p_GB[b2, 1], C2 - p_GB[b2, 2]
    V1 = V_GB[b1]
    V2 = V_GB[b2]
    v0 = (V1[3] + (V1[1] * a2 - V1[2] * a1)) - (V2[3] + (V2[1] * d2 - V2[2] * d1))
    v1 = (V1[4] + (V1[2] * a0 - V1[0] * a2)) - (V2[4] + (V2[2] * d0 - V2[0] * d2))
    v2 = (V1[5] + (V1[0] * a1 - V1[1] * a0)) - (V2[5] + (V2[0] * d1 - V2[1] * d0))
    vn = v0 * n0 + v1 * n1 + v2 * n2
    t0, t1, t2 = v0 - vn * n0, v1 - vn * n1, v2 - vn * n2
    f = fH * (1.0 + 1.5 * c * vn)
    if f <= 0.0:
        return False
    F0, F1, F2 = f * n0, f * n1, f * n2
    vslip = math.sqrt(t0 * t0 + t1 * t1 + t2 * t2)
    if vslip != 0.0:
        us = _combined(tf[r1, _US], tf[r2, _US])
        ud = _combined(tf[r1, _UD], tf[r2, _UD])
        uv = _combined(tf[r1, _UV], tf[r2, _UV])
        vr = vslip / vt
        mu = min(vr, 1.0) * (ud + 2.0 * (us - ud) / (1.0 + vr * vr)) + uv * vslip
        g = mu * f / vslip
        F0, F1, F2 = F0 + g * t0, F1 + g * t1, F2 + g * t2
    bf[b1, 0] -= a1 * F2 - a2 * F1
    bf[b1, 1] -= a2 * F0 - a0 * F2
    bf[b1, 2] -= a0 * F1 - a1 * F0
    bf[b1, 3] -= F0
    bf[b1, 4] -= F1
    bf[b1, 5] -= F2
    bf[b2, 0] += d1 * F2 - d2 * F1
    bf[b2, 1] += d2 * F0 - d0 * F2
    bf[b2, 2] += d0 * F1 - d1 * F0
    bf[b2, 3] += F0
    bf[b2, 4] += F1
    bf[b2, 5] += F2
    return True


@kernel_jit
def _visit(mode, count, ti, tf, first, s1, s2, x0, x1, x2, n0, n1, n2, R, depth, vt, p_GB,
           V_GB, bf, out_i, out_f):  # fmt: skip
    """Hand contact number ``count`` (surfaces s1, s2 of the set) on: recorded if there is
    room (RECORD), or its force applied (APPLY). False if the walk stops here."""
    if mode == RECORD:
        if count < out_i.shape[0]:
            out_i[count, 0], out_i[count, 1] = s1, s2
            out_f[count, 0], out_f[count, 1], out_f[count, 2] = x0, x1, x2
            out_f[count, 3], out_f[count, 4], out_f[count, 5] = n0, n1, n2
            out_f[count, 6], out_f[count, 7] = R, depth
        return True
    r1, r2 = first + s1, first + s2
    return _hunt_crossley(ti, tf, r1, r2, x0, x1, x2, n0, n1, n2, R, depth, vt, p_GB, V_GB, bf)


@kernel_jit
def _before(tf, first, s, t):
    """Whether surface s comes before surface t in the sweep (lower end, then index)."""
    ls, lt = tf[first + s, _LO], tf[first + t, _LO]
    return ls < lt or (ls == lt and s < t)


@kernel_jit
def set_contacts(mode, ti, tf, first, n, nf, vt, p_GB, R_GB, V_GB, bf, out_i, out_f):
    """Find the point contacts of the set in rows ``first .. first + n - 1`` of ``ti``,
    ``tf`` (see the module docstring; ``nf`` of the surfaces are finite) with the bodies at
    ``R_GB`` (nb, 3, 3), ``p_GB`` (nb, 3) in G, and record them (``mode`` RECORD: contact
    c's surfaces (indices in the set) in ``out_i[c]`` (cap, 2), its halfway point, normal,
    effective radius and depth in ``out_f[c]`` (cap, 8), while there is room) or apply
    their HuntCrossleyForce forces (APPLY: transition velocity ``vt`` m/s, body velocities
    ``V_GB`` (nb, 6) ``[w, v]`` in G, forces at Bo in G added into ``bf`` (nb, 6)).
    Returns the number of contacts recorded (which may exceed the room) or applied."""
    # surface origins in G; the half spaces' normals are computed where used
    for s in range(n):
        row = first + s
        b = ti[row, _BODY]
        R = R_GB[b]
        p0, p1, p2 = tf[row, _P_BS], tf[row, _P_BS + 1], tf[row, _P_BS + 2]
        tf[row, _P_GS] = p_GB[b, 0] + (R[0, 0] * p0 + R[0, 1] * p1 + R[0, 2] * p2)
        tf[row, _P_GS + 1] = p_GB[b, 1] + (R[1, 0] * p0 + R[1, 1] * p1 + R[1, 2] * p2)
        tf[row, _P_GS + 2] = p_GB[b, 2] + (R[2, 0] * p0 + R[2, 1] * p1 + R[2, 2] * p2)
    count = 0
    # 1. infinite surfaces against finite ones
    for h in range(n):
        rh = first + h
        kind = ti[rh, _KIND]
        if kind == SPHERE or kind == OTHER_FINITE:
            continue
        bh = ti[rh, _BODY]
        R = R_GB[bh]
        a0, a1, a2 = tf[rh, _AXIS], tf[rh, _AXIS + 1], tf[rh, _AXIS + 2]
        m0 = -(R[0, 0] * a0 + R[0, 1] * a1 + R[0, 2] * a2)
        m1 = -(R[1, 0] * a0 + R[1, 1] * a1 + R[1, 2] * a2)
        m2 = -(R[2, 0] * a0 + R[2, 1] * a1 + R[2, 2] * a2)
        o0, o1, o2 = tf[rh, _P_GS], tf[rh, _P_GS + 1], tf[rh, _P_GS + 2]
        for j in range(n):
            rj = first + j
            if ti[rj, _KIND] != SPHERE or kind != HALF_SPACE or ti[rj, _BODY] == bh:
                continue
            r = tf[rj, _RADIUS]
            c0, c1, c2 = tf[rj, _P_GS], tf[rj, _P_GS + 1], tf[rj, _P_GS + 2]
            d = (c0 - o0) * m0 + (c1 - o1) * m1 + (c2 - o2) * m2
            depth = r - d
            if depth > 0.0:
                back = d + 0.5 * depth
                x0, x1, x2 = c0 - back * m0, c1 - back * m1, c2 - back * m2
                if not _visit(mode, count, ti, tf, first, h, j, x0, x1, x2, m0, m1, m2, r,
                              depth, vt, p_GB, V_GB, bf, out_i, out_f):  # fmt: skip
                    return count
                count += 1
    if nf < 2:
        return count
    # 2. sweep and prune over the finite surfaces: the axis of largest spread
    axis = 0
    best = -1.0
    for ax in range(3):
        # numpy's var of the centres, summed in index order: mean, then squared deviations
        total = 0.0
        for s in range(n):
            kind = ti[first + s, _KIND]
            if kind == SPHERE or kind == OTHER_FINITE:
                total += tf[first + s, _P_GS + ax]
        mean = total / nf
        total = 0.0
        for s in range(n):
            kind = ti[first + s, _KIND]
            if kind == SPHERE or kind == OTHER_FINITE:
                dev = tf[first + s, _P_GS + ax] - mean
                total += dev * dev
        var = total / nf
        if var > best:
            best = var
            axis = ax
    for p in range(nf):
        s = ti[first + p, _ORDER]
        tf[first + s, _LO] = tf[first + s, _P_GS + axis] - tf[first + s, _RADIUS]
    # insertion sort of the order, from the last call's
    for p in range(1, nf):
        s = ti[first + p, _ORDER]
        q = p - 1
        while q >= 0 and _before(tf, first, s, ti[first + q, _ORDER]):
            ti[first + q + 1, _ORDER] = ti[first + q, _ORDER]
            q -= 1
        ti[first + q + 1, _ORDER] = s
    active = 0
    for p in range(nf):
        t = ti[first + p, _ORDER]
        start = tf[first + t, _LO]
        kept = 0
        for e in range(active):
            a = ti[first + e, _ACTIVE]
            ra = first + a
            if tf[ra, _P_GS + axis] + tf[ra, _RADIUS] < start:
                continue
            ti[first + kept, _ACTIVE] = a
            kept += 1
            i, j = (a, t) if a < t else (t, a)
            ri, rj = first + i, first + j
            if ti[ri, _KIND] != SPHERE or ti[rj, _KIND] != SPHERE or ti[ri, _BODY] == ti[rj, _BODY]:
                continue
            r1, r2 = tf[ri, _RADIUS], tf[rj, _RADIUS]
            e0 = tf[rj, _P_GS] - tf[ri, _P_GS]
            e1 = tf[rj, _P_GS + 1] - tf[ri, _P_GS + 1]
            e2 = tf[rj, _P_GS + 2] - tf[ri, _P_GS + 2]
            dist = math.sqrt(e0 * e0 + e1 * e1 + e2 * e2)
            depth = r1 + r2 - dist
            if depth > 0.0 and dist > 0.0:
                m0, m1, m2 = e0 / dist, e1 / dist, e2 / dist
                ahead = r1 - 0.5 * depth
                x0 = tf[ri, _P_GS] + ahead * m0
                x1 = tf[ri, _P_GS + 1] + ahead * m1
                x2 = tf[ri, _P_GS + 2] + ahead * m2
                R = r1 * r2 / (r1 + r2)
                if not _visit(mode, count, ti, tf, first, i, j, x0, x1, x2, m0, m1, m2, R,
                              depth, vt, p_GB, V_GB, bf, out_i, out_f):  # fmt: skip
                    return count
                count += 1
        ti[first + kept, _ACTIVE] = t
        active = kept + 1
    return count
