"""Kernel for HalfSpace-TriangleMesh and Sphere-TriangleMesh contact (Simbody 3.7's
HalfSpaceTriangleMesh and SphereTriangleMesh trackers) with the ElasticFoundation force
generator, for the fused realization's contact stage (no allocation).

The arithmetic is that of ``mesh_trackers.half_space_mesh``/``sphere_mesh`` and
``generators.elastic_foundation`` (its oracle, which describes the model) for a contact
with one mesh (surface 2; the half space or sphere O is surface 1):

* broad phase: the mesh's bounding sphere against the half space's plane or the sphere
  (the pair is skipped when they cannot overlap), then each face centroid against O;
* a face acts when its centroid P0 is inside O: ``x = |P0 - Q|`` with Q the nearest point
  of O's surface, ``n = (P0 - Q)/x`` (out of the mesh), ``P = P0 - (1 - s1) x n``,
  ``xdot = -v·n`` (v the velocity of O's material relative to the mesh's at P),
  ``fN = k A x (1 + c xdot)``; when ``fN > 0`` the force on O is ``fN n`` less the Stribeck
  friction ``mu fN vT/|vT|``.

Each acting face's force is applied at its point P (+ on O's body, - on the mesh's), which
sums to the generator's resultant at the centre of pressure with its residual moment (the
two differ by rounding only). The faces the Python tracker lists but whose centroid is
outside O give no force there either; they only move the reported patch centroid, which
the body forces do not depend on.
"""

from __future__ import annotations

import math

from engine.common.kernel_jit import kernel_jit
from engine.contact.kernels.hertz_circular_kernel import SIGNIFICANT_REAL, _combine, _stribeck
from engine.contact.kernels.hertz_elliptical_kernel import add_force_at

HALF_SPACE = 0  # ContactGeometry.HalfSpace's type id (the other kind of surface 1: Sphere)


@kernel_jit
def mesh_contact_forces(
    pairs,
    face_starts,
    centroids,
    areas,
    bounds,
    kind,
    size,
    stiffness,
    material,
    body,
    R_GS,
    p_GS,
    p_GB,
    V_GB,
    vt,
    bf,
):
    """Add the ElasticFoundation forces of every (O, mesh) pair of ``pairs`` (n, 2) into
    ``bf`` (nb, 6) [moment about Bo, force] in G. ``face_starts`` (ns + 1,) each surface's
    first face in ``centroids`` (F, 3, in S) and ``areas`` (F,); ``bounds`` (ns, 4) each
    mesh's bounding sphere (centre in S, radius); ``kind``, ``size`` (ns, 3) (a sphere's
    radius in column 0), ``stiffness`` (ns,) linear stiffness (N/m^3 per m of overlap),
    ``material`` (ns, 5) (dissipation in column 1, us, ud, uv in 2..4), ``body`` each
    surface's body; ``R_GS``, ``p_GS`` the surface frames in G; ``p_GB``, ``V_GB`` [w, v]
    the bodies' origins and velocities in G; ``vt`` the transition velocity. Returns (the
    number of pairs with an acting face, their dissipated power in W)."""
    count = 0
    power = 0.0
    for q in range(pairs.shape[0]):
        o, m = pairs[q, 0], pairs[q, 1]
        acted, watts = _one_mesh_pair(
            o,
            m,
            face_starts,
            centroids,
            areas,
            bounds,
            kind[o] == HALF_SPACE,
            size[o, 0],
            stiffness,
            material,
            body,
            R_GS,
            p_GS,
            p_GB,
            V_GB,
            vt,
            bf,
        )
        count += acted
        power += watts
    return count, power


@kernel_jit
def _one_mesh_pair(
    o,
    m,
    face_starts,
    centroids,
    areas,
    bounds,
    half_space,
    radius,
    stiffness,
    material,
    body,
    R_GS,
    p_GS,
    p_GB,
    V_GB,
    vt,
    bf,
):
    """One pair of ``mesh_contact_forces``: O = surface ``o`` (a half space if
    ``half_space``, else a sphere of ``radius``), the mesh = surface ``m``. Returns
    (1 if a face acted else 0, the dissipated power)."""
    R = R_GS[m]
    # O's axis x (a half space's inward normal) and origin (a sphere's centre), in G
    h0, h1, h2 = R_GS[o, 0, 0], R_GS[o, 1, 0], R_GS[o, 2, 0]
    c0, c1, c2 = p_GS[o, 0], p_GS[o, 1], p_GS[o, 2]
    # broad phase: the mesh's bounding sphere
    bc0, bc1, bc2 = bounds[m, 0], bounds[m, 1], bounds[m, 2]
    g0 = p_GS[m, 0] + (R[0, 0] * bc0 + R[0, 1] * bc1 + R[0, 2] * bc2) - c0
    g1 = p_GS[m, 1] + (R[1, 0] * bc0 + R[1, 1] * bc1 + R[1, 2] * bc2) - c1
    g2 = p_GS[m, 2] + (R[2, 0] * bc0 + R[2, 1] * bc1 + R[2, 2] * bc2) - c2
    if half_space:
        if g0 * h0 + g1 * h1 + g2 * h2 + bounds[m, 3] <= 0.0:
            return 0, 0.0
    elif math.sqrt(g0 * g0 + g1 * g1 + g2 * g2) >= radius + bounds[m, 3]:
        return 0, 0.0
    # the materials combined linearly (ElasticFoundation's material_parameters)
    k1, k2 = stiffness[o], stiffness[m]
    s1 = k2 / (k1 + k2)
    k = k1 * s1
    c = material[o, 1] * s1 + material[m, 1] * (1.0 - s1)
    us = _combine(material[o, 2], material[m, 2])
    ud = _combine(material[o, 3], material[m, 3])
    uv = _combine(material[o, 4], material[m, 4])
    share = 1.0 - s1
    bo, bm = body[o], body[m]
    acted = 0
    power = 0.0
    for f in range(face_starts[m], face_starts[m + 1]):
        a0, a1, a2 = centroids[f, 0], centroids[f, 1], centroids[f, 2]
        P0 = p_GS[m, 0] + (R[0, 0] * a0 + R[0, 1] * a1 + R[0, 2] * a2)
        P1 = p_GS[m, 1] + (R[1, 0] * a0 + R[1, 1] * a1 + R[1, 2] * a2)
        P2 = p_GS[m, 2] + (R[2, 0] * a0 + R[2, 1] * a1 + R[2, 2] * a2)
        d0, d1, d2 = P0 - c0, P1 - c1, P2 - c2
        if half_space:
            x = d0 * h0 + d1 * h1 + d2 * h2  # depth below the boundary plane
            if not x > 0.0:
                continue
            n0, n1, n2 = h0, h1, h2  # (P0 - Q)/x: into the half space, out of the mesh
        else:
            dist = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
            if not dist < radius:
                continue
            x = radius - dist
            if not x > 0.0:
                continue
            if dist > 0.0:
                n0, n1, n2 = -d0 / dist, -d1 / dist, -d2 / dist
            else:  # the centre: the sphere's nearest point is along its x axis
                n0, n1, n2 = -h0, -h1, -h2
        fN, watts = face_spring(
            P0, P1, P2, x, n0, n1, n2, areas[f], share, k, c, us, ud, uv, bo, bm, p_GB, V_GB, vt, bf
        )
        if fN > 0.0:
            acted = 1
            power += watts
    return acted, power


@kernel_jit
def face_spring(
    P0, P1, P2, x, n0, n1, n2, area, share, k, c, us, ud, uv, bo, bm, p_GB, V_GB, vt, bf
):
    """One ElasticFoundation face spring of a mesh M (body ``bm``) against the other
    surface O (body ``bo``): the face centroid P0 (G), its overlap ``x`` and the unit normal
    ``n`` (out of M: the direction of the force on O), the contact point
    ``P = P0 - share x n``, ``xdot = -v·n`` with v O's material velocity relative to M's at
    P, ``fN = k A x (1 + c xdot)``; when ``fN > 0`` the force on O, ``fN n`` less the
    Stribeck friction ``mu fN vT/|vT|``, is added at P into ``bf`` (+ on O's body, - on M's).
    Returns (fN, the dissipated power, 0 when fN <= 0)."""
    Px, Py, Pz = P0 - share * x * n0, P1 - share * x * n1, P2 - share * x * n2
    r0, r1, r2 = Px - p_GB[bo, 0], Py - p_GB[bo, 1], Pz - p_GB[bo, 2]
    w0, w1, w2 = V_GB[bo, 0], V_GB[bo, 1], V_GB[bo, 2]
    v0 = V_GB[bo, 3] + (w1 * r2 - w2 * r1)
    v1 = V_GB[bo, 4] + (w2 * r0 - w0 * r2)
    v2 = V_GB[bo, 5] + (w0 * r1 - w1 * r0)
    r0, r1, r2 = Px - p_GB[bm, 0], Py - p_GB[bm, 1], Pz - p_GB[bm, 2]
    w0, w1, w2 = V_GB[bm, 0], V_GB[bm, 1], V_GB[bm, 2]
    v0 -= V_GB[bm, 3] + (w1 * r2 - w2 * r1)
    v1 -= V_GB[bm, 4] + (w2 * r0 - w0 * r2)
    v2 -= V_GB[bm, 5] + (w0 * r1 - w1 * r0)
    xdot = -(v0 * n0 + v1 * n1 + v2 * n2)
    t0, t1, t2 = v0 + xdot * n0, v1 + xdot * n1, v2 + xdot * n2
    fK = k * area * x
    fC = fK * c * xdot
    fN = fK + fC
    if not fN > 0.0:
        return fN, 0.0
    F0, F1, F2 = fN * n0, fN * n1, fN * n2  # on O
    power = fC * xdot
    slip = math.sqrt(t0 * t0 + t1 * t1 + t2 * t2)
    if slip > SIGNIFICANT_REAL:
        mu = _stribeck(us, ud, uv, slip, vt)
        scale = mu * fN / slip
        F0 -= scale * t0
        F1 -= scale * t1
        F2 -= scale * t2
        power += mu * fN * slip
    add_force_at(bf, bo, bm, p_GB, Px, Py, Pz, 0.0, 0.0, 0.0, F0, F1, F2)
    return fN, power
