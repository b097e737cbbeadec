"""Force elements as compiled terms: what the fused Position-to-Acceleration realization
(``engine.multibody.fused_realization``) applies inside its one kernel call.

A force element that can be written as a term returns it from ``Force._compiled_term``:
``(opcode, ints, floats)`` with at most ``INTS`` ints and ``FLOATS`` floats, read from the
State's current parameters. ``GeneralForceSubsystem._compiled_program`` stacks the terms of
its enabled elements into ``(term_ints (n, INTS) int64, term_floats (n, FLOATS) float64,
excluded (k,) int64)``; ``apply_force_terms`` adds their forces into the accumulators in
the same order, with the same arithmetic, as the elements' own ``calcForce`` (an element
may also return a list of such terms: HuntCrossleyForce's header and surface rows,
ElasticFoundationForce's header and mesh, partner and face rows). An element
that returns ``None`` (a Force.Custom, a spring between two stations, ...) makes its
subsystem's realization take the ordinary per-element path.

Indices in the terms: b a body (MobilizedBodyIndex), iq/iu an index into the matter
subsystem's q/u. Units as the elements': N, N m, m/s^2.
"""

from __future__ import annotations

import math

import numpy as np

from engine.common.kernel_jit import kernel_jit
from engine.contact.kernels.elastic_foundation_force_kernel import elastic_foundation_forces
from engine.contact.kernels.general_contact_kernel import APPLY, set_contacts
from engine.forces.gravity_kernel import add_gravity_forces
from engine.forces.term_widths import FLOATS, INTS

#: gravity: floats (g0, g1, g2) the gravity vector in G (m/s^2); ints (first, count) the
#: slice of ``excluded`` listing the bodies it does not act on
GRAVITY = 1
#: mobility spring: ints (iq, iu); floats (k, q0): f_u += -k (q - q0)
MOBILITY_SPRING = 2
#: mobility damper: ints (iu,); floats (c,): f_u += -c u
MOBILITY_DAMPER = 3
#: constant mobility force: ints (iu,); floats (f,): f_u += f
MOBILITY_FORCE = 4
#: constant torque: ints (b,); floats (t0, t1, t2) in G: torque_b += t
BODY_TORQUE = 5
#: constant force at a station: ints (b,); floats (s0, s1, s2) station in B, (f0, f1, f2)
#: force in G: torque_b += (R_GB s) x f, force_b += f
STATION_FORCE = 6
#: global damper: floats (c,): f_u += -c u for every u
GLOBAL_DAMPER = 7
#: spring-damper between a station and a point fixed in G: ints (b,); floats (s0, s1, s2)
#: station in B (m), (t0, t1, t2) target in G (m), k (N/m), c (N s/m):
#: f = k (t - p_GS) - c v_GS at S
STATION_SPRING = 8
#: rotational spring-damper toward an orientation: ints (b,); floats the target rotation
#: R_GT row-major (9), k (N m/rad), c (N m s/rad): torque_b += k theta - c w_GB with theta the
#: rotation vector of R_GT R_GB^T (``rotation_vector``)
ORIENTATION_SPRING = 9
#: SmoothSphereHalfSpaceForce: ints (bs, bh) the sphere's and the half space's bodies;
#: floats (s0, s1, s2) the sphere centre in bs, (n0, n1, n2) the half-space frame's x axis
#: and (o0, o1, o2) its origin in bh, r, k = E^(2/3)/2, c, us, ud, uv, vt, cf, bd, bv
SMOOTH_SPHERE_HALF_SPACE = 10
#: HuntCrossleyForce on a GeneralContactSubsystem contact set: ints (n, nf) the set's
#: surfaces and how many are finite; floats (vt,) the transition velocity (m/s). The n rows
#: after it are the surfaces (HUNT_CROSSLEY_SURFACE rows, which do nothing by themselves):
#: ints (b, kind, and two columns of detection scratch), floats the geometry, material
#: and detection scratch, as ``engine.contact.kernels.general_contact_kernel`` lays them
#: out. The contacts are found and their forces applied in one pass (``set_contacts``)
HUNT_CROSSLEY = 11
HUNT_CROSSLEY_SURFACE = 12
#: ElasticFoundationForce's springs on the mesh pairs of its contact set: ints (n, m) the
#: number of rows after it and how many of them are ELASTIC_FOUNDATION_MESH, _PARTNER and
#: _FACE rows; floats (vt,) the transition velocity (m/s). The rows after those m are the
#: meshes' arrays for the mesh-mesh springs (an ELASTIC_FOUNDATION_MESH_DATA row and its
#: packed rows, whose int column 0 is data). None of the n rows does anything by itself
#: (all are skipped), as ``engine.contact.kernels.elastic_foundation_force_kernel`` lays
#: them out
ELASTIC_FOUNDATION = 13
ELASTIC_FOUNDATION_MESH = 14
ELASTIC_FOUNDATION_PARTNER = 15
ELASTIC_FOUNDATION_FACE = 16
ELASTIC_FOUNDATION_MESH_DATA = 17
#: mobility stop on a coordinate whose rate is its u (qdot = u): ints (iq, iu); floats (k, d,
#: q_low, q_high): x = q - q_high above, q - q_low below (no force within), f_u += min(0,
#: -k x (1 + d u)) above, max(0, -k x (1 - d u)) below
MOBILITY_STOP = 18


@kernel_jit
def rotation_vector(r00, r01, r02, r10, r11, r12, r20, r21, r22):
    """The rotation vector (axis times angle, rad) of the rotation matrix with these
    entries, as a tuple; a half turn takes its axis from the column of R + I with the
    largest norm (the first of equals)."""
    c = 0.5 * (r00 + r11 + r22 - 1.0)
    c = min(1.0, max(-1.0, c))
    angle = math.acos(c)
    w0, w1, w2 = 0.5 * (r21 - r12), 0.5 * (r02 - r20), 0.5 * (r10 - r01)
    s = math.sin(angle)
    if s > 1e-9:
        f = angle / s
        return w0 * f, w1 * f, w2 * f
    if c > 0.0:  # near the identity: R ~ I + [theta]x
        return w0, w1, w2
    a0, a1, a2 = r00 + 1.0, r10, r20  # columns of R + I
    b0, b1, b2 = r01, r11 + 1.0, r21
    d0, d1, d2 = r02, r12, r22 + 1.0
    na = math.sqrt(a0 * a0 + a1 * a1 + a2 * a2)
    nb = math.sqrt(b0 * b0 + b1 * b1 + b2 * b2)
    nd = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
    if na >= nb and na >= nd:
        return math.pi * a0 / na, math.pi * a1 / na, math.pi * a2 / na
    if nb >= nd:
        return math.pi * b0 / nb, math.pi * b1 / nb, math.pi * b2 / nb
    return math.pi * d0 / nd, math.pi * d1 / nd, math.pi * d2 / nd


@kernel_jit
def _smooth_sphere_half_space(bs, bh, fl, p_GB, R_GB, V_GB, body_forces):
    """SmoothSphereHalfSpaceForce.calcForce in a kernel (same formulas and order)."""
    Rs = R_GB[bs]
    Rh = R_GB[bh]
    c0 = p_GB[bs, 0] + Rs[0, 0] * fl[0] + Rs[0, 1] * fl[1] + Rs[0, 2] * fl[2]
    c1 = p_GB[bs, 1] + Rs[1, 0] * fl[0] + Rs[1, 1] * fl[1] + Rs[1, 2] * fl[2]
    c2 = p_GB[bs, 2] + Rs[2, 0] * fl[0] + Rs[2, 1] * fl[1] + Rs[2, 2] * fl[2]
    n0 = Rh[0, 0] * fl[3] + Rh[0, 1] * fl[4] + Rh[0, 2] * fl[5]
    n1 = Rh[1, 0] * fl[3] + Rh[1, 1] * fl[4] + Rh[1, 2] * fl[5]
    n2 = Rh[2, 0] * fl[3] + Rh[2, 1] * fl[4] + Rh[2, 2] * fl[5]
    o0 = p_GB[bh, 0] + Rh[0, 0] * fl[6] + Rh[0, 1] * fl[7] + Rh[0, 2] * fl[8]
    o1 = p_GB[bh, 1] + Rh[1, 0] * fl[6] + Rh[1, 1] * fl[7] + Rh[1, 2] * fl[8]
    o2 = p_GB[bh, 2] + Rh[2, 0] * fl[6] + Rh[2, 1] * fl[7] + Rh[2, 2] * fl[8]
    r, k, diss = fl[9], fl[10], fl[11]
    us, ud, uv, vt, cf, bd, bv = fl[12], fl[13], fl[14], fl[15], fl[16], fl[17], fl[18]
    x = (c0 - o0) * n0 + (c1 - o1) * n1 + (c2 - o2) * n2 + r
    shift = r - 0.5 * x
    P0, P1, P2 = c0 + shift * n0, c1 + shift * n1, c2 + shift * n2
    # contact point from each body's origin, and the velocity of sphere minus half space there
    s0, s1, s2 = P0 - p_GB[bs, 0], P1 - p_GB[bs, 1], P2 - p_GB[bs, 2]
    h0, h1, h2 = P0 - p_GB[bh, 0], P1 - p_GB[bh, 1], P2 - p_GB[bh, 2]
    Vs = V_GB[bs]
    Vh = V_GB[bh]
    v0 = (Vs[3] + Vs[1] * s2 - Vs[2] * s1) - (Vh[3] + Vh[1] * h2 - Vh[2] * h1)
    v1 = (Vs[4] + Vs[2] * s0 - Vs[0] * s2) - (Vh[4] + Vh[2] * h0 - Vh[0] * h2)
    v2 = (Vs[5] + Vs[0] * s1 - Vs[1] * s0) - (Vh[5] + Vh[0] * h1 - Vh[1] * h0)
    vn = v0 * n0 + v1 * n1 + v2 * n2
    t0, t1, t2 = v0 - vn * n0, v1 - vn * n1, v2 - vn * n2
    fh = (4.0 / 3.0) * k * math.sqrt(r * k) * math.sqrt(x * x + cf) ** 1.5
    fh = fh * (0.5 + 0.5 * math.tanh(bd * x))
    fhc = fh * (1.0 + 1.5 * diss * vn)
    if diss > 0.0:
        fhc *= 0.5 + 0.5 * math.tanh(bv * (vn + 2.0 / (3.0 * diss)))
    elif bv == 0.0:
        fhc *= 0.5
    F0, F1, F2 = fhc * n0, fhc * n1, fhc * n2
    slip = math.sqrt(t0 * t0 + t1 * t1 + t2 * t2 + cf)
    if slip > 0.0:
        vr = slip / vt
        mu = min(vr, 1.0) * (ud + 2.0 * (us - ud) / (1.0 + vr * vr)) + uv * slip
        g = fhc * mu / slip
        F0, F1, F2 = F0 + g * t0, F1 + g * t1, F2 + g * t2
    body_forces[bs, 0] -= s1 * F2 - s2 * F1
    body_forces[bs, 1] -= s2 * F0 - s0 * F2
    body_forces[bs, 2] -= s0 * F1 - s1 * F0
    body_forces[bs, 3] -= F0
    body_forces[bs, 4] -= F1
    body_forces[bs, 5] -= F2
    body_forces[bh, 0] += h1 * F2 - h2 * F1
    body_forces[bh, 1] += h2 * F0 - h0 * F2
    body_forces[bh, 2] += h0 * F1 - h1 * F0
    body_forces[bh, 3] += F0
    body_forces[bh, 4] += F1
    body_forces[bh, 5] += F2


@kernel_jit
def apply_force_terms(
    term_ints,
    term_floats,
    excluded,
    mass,
    com_G,
    R_GB,
    p_GB,
    V_GB,
    q,
    u,
    body_forces,
    mobility_forces,
):
    """Add the forces of the terms (see module docstring) into ``body_forces`` (nb, 6):
    torque about Bo and force, in G, and ``mobility_forces`` (nu,). ``com_G`` (nb, 3) the
    mass-centre offsets from Bo in G, ``R_GB`` (nb, 3, 3), ``p_GB`` (nb, 3) the body origins
    in G, ``V_GB`` (nb, 6) the body velocities ``[w, v_Bo]`` in G (read only by the terms
    that depend on velocities), q and u the matter subsystem's."""
    nb = mass.shape[0]
    row = 0
    while row < term_ints.shape[0]:
        op = term_ints[row, 0]
        a = term_ints[row, 1]
        b = term_ints[row, 2]
        fl = term_floats[row]
        if op == GRAVITY:
            add_gravity_forces(
                mass, com_G, excluded[a : a + b], fl[0], fl[1], fl[2], body_forces.reshape(nb, 2, 3)
            )
        elif op == MOBILITY_SPRING:
            mobility_forces[b] += -fl[0] * (q[a] - fl[1])
        elif op == MOBILITY_STOP:
            qa = q[a]
            if qa > fl[3]:
                x = qa - fl[3]
                mobility_forces[b] += min(0.0, -fl[0] * x * (1.0 + fl[1] * u[b]))
            elif qa < fl[2]:
                x = qa - fl[2]
                mobility_forces[b] += max(0.0, -fl[0] * x * (1.0 - fl[1] * u[b]))
        elif op == MOBILITY_DAMPER:
            mobility_forces[a] += -fl[0] * u[a]
        elif op == MOBILITY_FORCE:
            mobility_forces[a] += fl[0]
        elif op == BODY_TORQUE:
            body_forces[a, 0] += fl[0]
            body_forces[a, 1] += fl[1]
            body_forces[a, 2] += fl[2]
        elif op == STATION_FORCE:
            R = R_GB[a]
            r0 = R[0, 0] * fl[0] + R[0, 1] * fl[1] + R[0, 2] * fl[2]
            r1 = R[1, 0] * fl[0] + R[1, 1] * fl[1] + R[1, 2] * fl[2]
            r2 = R[2, 0] * fl[0] + R[2, 1] * fl[1] + R[2, 2] * fl[2]
            f0, f1, f2 = fl[3], fl[4], fl[5]
            body_forces[a, 0] += r1 * f2 - r2 * f1
            body_forces[a, 1] += r2 * f0 - r0 * f2
            body_forces[a, 2] += r0 * f1 - r1 * f0
            body_forces[a, 3] += f0
            body_forces[a, 4] += f1
            body_forces[a, 5] += f2
        elif op == GLOBAL_DAMPER:
            c = fl[0]
            for i in range(mobility_forces.shape[0]):
                mobility_forces[i] -= c * u[i]
        elif op == STATION_SPRING:
            R = R_GB[a]
            r0 = R[0, 0] * fl[0] + R[0, 1] * fl[1] + R[0, 2] * fl[2]
            r1 = R[1, 0] * fl[0] + R[1, 1] * fl[1] + R[1, 2] * fl[2]
            r2 = R[2, 0] * fl[0] + R[2, 1] * fl[1] + R[2, 2] * fl[2]
            w0, w1, w2 = V_GB[a, 0], V_GB[a, 1], V_GB[a, 2]
            v0 = V_GB[a, 3] + (w1 * r2 - w2 * r1)
            v1 = V_GB[a, 4] + (w2 * r0 - w0 * r2)
            v2 = V_GB[a, 5] + (w0 * r1 - w1 * r0)
            k, c = fl[6], fl[7]
            f0 = k * (fl[3] - (p_GB[a, 0] + r0)) - c * v0
            f1 = k * (fl[4] - (p_GB[a, 1] + r1)) - c * v1
            f2 = k * (fl[5] - (p_GB[a, 2] + r2)) - c * v2
            body_forces[a, 0] += r1 * f2 - r2 * f1
            body_forces[a, 1] += r2 * f0 - r0 * f2
            body_forces[a, 2] += r0 * f1 - r1 * f0
            body_forces[a, 3] += f0
            body_forces[a, 4] += f1
            body_forces[a, 5] += f2
        elif op == ORIENTATION_SPRING:
            R = R_GB[a]
            # M = R_GT R_GB^T: M[i, j] = sum_k T[i, k] R[j, k]
            m00 = fl[0] * R[0, 0] + fl[1] * R[0, 1] + fl[2] * R[0, 2]
            m01 = fl[0] * R[1, 0] + fl[1] * R[1, 1] + fl[2] * R[1, 2]
            m02 = fl[0] * R[2, 0] + fl[1] * R[2, 1] + fl[2] * R[2, 2]
            m10 = fl[3] * R[0, 0] + fl[4] * R[0, 1] + fl[5] * R[0, 2]
            m11 = fl[3] * R[1, 0] + fl[4] * R[1, 1] + fl[5] * R[1, 2]
            m12 = fl[3] * R[2, 0] + fl[4] * R[2, 1] + fl[5] * R[2, 2]
            m20 = fl[6] * R[0, 0] + fl[7] * R[0, 1] + fl[8] * R[0, 2]
            m21 = fl[6] * R[1, 0] + fl[7] * R[1, 1] + fl[8] * R[1, 2]
            m22 = fl[6] * R[2, 0] + fl[7] * R[2, 1] + fl[8] * R[2, 2]
            t0, t1, t2 = rotation_vector(m00, m01, m02, m10, m11, m12, m20, m21, m22)
            k, c = fl[9], fl[10]
            body_forces[a, 0] += k * t0 - c * V_GB[a, 0]
            body_forces[a, 1] += k * t1 - c * V_GB[a, 1]
            body_forces[a, 2] += k * t2 - c * V_GB[a, 2]
        elif op == SMOOTH_SPHERE_HALF_SPACE:
            _smooth_sphere_half_space(a, b, fl, p_GB, R_GB, V_GB, body_forces)
        elif op == HUNT_CROSSLEY:
            set_contacts(
                APPLY,
                term_ints,
                term_floats,
                row + 1,
                a,
                b,
                fl[0],
                p_GB,
                R_GB,
                V_GB,
                body_forces,
                term_ints,
                term_floats,
            )
        elif op == ELASTIC_FOUNDATION:
            elastic_foundation_forces(
                term_ints, term_floats, row + 1, a, b, fl[0], p_GB, R_GB, V_GB, body_forces
            )
            row += a  # past the term's own rows
        row += 1


def stack_terms(terms: list[tuple[int, tuple, tuple]], excluded: list[int]):
    """(term_ints, term_floats, excluded) arrays of ``terms`` (see module docstring)."""
    n = len(terms)
    term_ints = np.zeros((n, INTS), dtype=np.int64)
    term_floats = np.zeros((n, FLOATS))
    for k, (op, ints, floats) in enumerate(terms):
        term_ints[k, 0] = op
        term_ints[k, 1 : 1 + len(ints)] = ints
        term_floats[k, : len(floats)] = floats
    return term_ints, term_floats, np.array(excluded, dtype=np.int64)
