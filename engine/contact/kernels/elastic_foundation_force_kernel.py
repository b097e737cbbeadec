"""ElasticFoundationForce's springs on the TriangleMesh pairs of its contact set (with a
half space, a sphere or another mesh), in a kernel: the ELASTIC_FOUNDATION compiled force
term of ``engine.forces.compiled_terms``, run inside the fused realization.

The arithmetic is ``engine.forces.elastic_foundation_force.ElasticFoundationForce``'s (its
oracle, which describes the model): for a mesh M with parameters (k, c, us, ud, uv) and a
half space or sphere O of the set on another body, each face of M with its centroid P
inside O (a half space: ``x > 0`` in O's frame; a sphere: nearer its centre than the
radius) is a spring from P to Q, the nearest point of O's surface (found in O's frame, as
``ContactGeometry.nearestPoints`` does), with the law of ``elastic_foundation_spring.push``:
``d = |Q - P|``, ``u = (Q - P)/d``, ``v = v_O(Q) - v_M(Q)``, ``vn = v·u``,
``vT = v - vn u``, ``f = k A d (1 + c vn)``; when ``f > 0`` M's body gets
``f u + mu f vT/|vT|`` at Q (Hollars' friction curve with the element's transition
velocity; no friction when ``|vT|`` is 0) and O's body the negative. A half space or a
sphere has no parameters, so A is the face area there. Against another mesh O the springs
are those of ``elastic_foundation_mesh_pair_kernel`` (the faces of M the mesh-mesh tracker
lists, A halved when O has parameters too).

The term is a block of rows of the force-term table (ints ``INTS`` = 5 columns, floats 19):

* the ELASTIC_FOUNDATION header (read by ``apply_force_terms``): ints (opcode, the number
  of rows after it, the number of those that are MESH, PARTNER and FACE rows), floats
  (transition velocity m/s,);
* for each mesh with parameters, a MESH row: ints (opcode, body, number of partners,
  number of faces, the mesh's number in the MESH_DATA block or -1), floats R_BS
  row-major (0-8), S's origin in B (9-11, m), the mesh's bounding radius about S's origin
  (12, m), k (13, N/m^3), c (14, s/m), us, ud, uv (15-17); then one PARTNER row per half
  space, sphere or mesh of the set on another body, in set order: ints (opcode, body,
  kind: ``HALF_SPACE``, ``SPHERE`` or ``MESH``, a mesh's number in the MESH_DATA block),
  floats R_BS (0-8), origin (9-11), the sphere's radius or the mesh's bounding radius
  about its origin (12), a mesh's area scale (13); then one FACE row per face: floats the
  centroid in S (0-2, m) and the area (3, m^2);
* when a mesh has a mesh partner, the MESH_DATA block of every mesh of those pairs
  (``elastic_foundation_mesh_pair_kernel``).

The bounding radii let a pair be skipped when the mesh cannot reach O. Forces are
summed mesh by mesh, partner by partner (a mesh's half space and sphere partners, then its
mesh partners, ``_mesh_partners``), face by face: the Python element sums them contact by
contact, so the two differ by rounding only. Nothing is allocated; runs with NUMBA_DISABLE_JIT=1.
"""

from __future__ import annotations

import math

from engine.common.kernel_jit import kernel_jit
from engine.contact.kernels.elastic_foundation_mesh_pair_kernel import mesh_springs_by_address
from engine.contact.kernels.elastic_foundation_spring import push

#: a partner's kind (column 2 of its ints)
HALF_SPACE, SPHERE, MESH = 0, 1, 2

# int columns of a MESH / PARTNER row
_BODY, _PARTNERS, _FACES, _LOCAL = 1, 2, 3, 4
_KIND, _OTHER = 2, 3
# float columns
_R_BS, _P_BS, _RADIUS, _K, _C, _US, _UD, _UV = 0, 9, 12, 13, 14, 15, 16, 17
_SCALE = 13


@kernel_jit
def _frame(tf, row, R, p):
    """(R_GS as a 9-tuple row-major, p_GS) of the surface frame in row ``row`` of a body
    at (R, p) in G: ``R_GS = R R_BS``, ``p_GS = p + R p_BS``."""
    a00, a01, a02 = tf[row, 0], tf[row, 1], tf[row, 2]
    a10, a11, a12 = tf[row, 3], tf[row, 4], tf[row, 5]
    a20, a21, a22 = tf[row, 6], tf[row, 7], tf[row, 8]
    s00 = R[0, 0] * a00 + R[0, 1] * a10 + R[0, 2] * a20
    s01 = R[0, 0] * a01 + R[0, 1] * a11 + R[0, 2] * a21
    s02 = R[0, 0] * a02 + R[0, 1] * a12 + R[0, 2] * a22
    s10 = R[1, 0] * a00 + R[1, 1] * a10 + R[1, 2] * a20
    s11 = R[1, 0] * a01 + R[1, 1] * a11 + R[1, 2] * a21
    s12 = R[1, 0] * a02 + R[1, 1] * a12 + R[1, 2] * a22
    s20 = R[2, 0] * a00 + R[2, 1] * a10 + R[2, 2] * a20
    s21 = R[2, 0] * a01 + R[2, 1] * a11 + R[2, 2] * a21
    s22 = R[2, 0] * a02 + R[2, 1] * a12 + R[2, 2] * a22
    b0, b1, b2 = tf[row, _P_BS], tf[row, _P_BS + 1], tf[row, _P_BS + 2]
    o0 = p[0] + (R[0, 0] * b0 + R[0, 1] * b1 + R[0, 2] * b2)
    o1 = p[1] + (R[1, 0] * b0 + R[1, 1] * b1 + R[1, 2] * b2)
    o2 = p[2] + (R[2, 0] * b0 + R[2, 1] * b1 + R[2, 2] * b2)
    return (s00, s01, s02, s10, s11, s12, s20, s21, s22), (o0, o1, o2)


@kernel_jit
def elastic_foundation_forces(ti, tf, first, nrows, nsprings, vt, p_GB, R_GB, V_GB, bf):
    """Add the springs' forces of the ``nrows`` rows from ``first`` of ``ti``, ``tf`` (the
    rows after one ELASTIC_FOUNDATION header: ``nsprings`` MESH, PARTNER and FACE rows,
    then the MESH_DATA block if there are rows left, see the module docstring) into ``bf``
    (nb, 6) [moment about Bo, force] in G, with the bodies at ``R_GB`` (nb, 3, 3),
    ``p_GB`` (nb, 3), moving at ``V_GB`` (nb, 6) [w, v] in G, and transition velocity
    ``vt`` (m/s). Returns the number of springs that pushed."""
    pushed = 0
    row = first
    end = first + nsprings
    while row < end:
        bm = ti[row, _BODY]
        partners = ti[row, _PARTNERS]
        face0 = row + 1 + partners
        face1 = face0 + ti[row, _FACES]
        RM, pM = _frame(tf, row, R_GB[bm], p_GB[bm])
        bound = tf[row, _RADIUS]
        k, c = tf[row, _K], tf[row, _C]
        us, ud, uv = tf[row, _US], tf[row, _UD], tf[row, _UV]
        for o in range(row + 1, face0):
            bo = ti[o, _BODY]
            half_space = ti[o, _KIND] == HALF_SPACE
            radius = tf[o, _RADIUS]
            RO, pO = _frame(tf, o, R_GB[bo], p_GB[bo])
            if ti[o, _KIND] == MESH:
                continue  # _mesh_partners
            # broad phase: M's origin in O's frame against the bounding radius
            g0, g1, g2 = pM[0] - pO[0], pM[1] - pO[1], pM[2] - pO[2]
            x0 = g0 * RO[0] + g1 * RO[3] + g2 * RO[6]
            if half_space:
                if x0 + bound <= 0.0:
                    continue
            else:
                x1 = g0 * RO[1] + g1 * RO[4] + g2 * RO[7]
                x2 = g0 * RO[2] + g1 * RO[5] + g2 * RO[8]
                if math.sqrt(x0 * x0 + x1 * x1 + x2 * x2) >= radius + bound:
                    continue
            for f in range(face0, face1):
                pushed += _spring(
                    tf[f, 0], tf[f, 1], tf[f, 2], tf[f, 3], RM, pM, RO, pO, half_space,
                    radius, bm, bo, k, c, us, ud, uv, vt, p_GB, V_GB, bf,
                )  # fmt: skip
        if ti[row, _LOCAL] >= 0:
            pushed += _mesh_partners(ti, tf, row, end, RM, pM, vt, p_GB, R_GB, V_GB, bf)
        row = face1
    return pushed


@kernel_jit
def _mesh_partners(ti, tf, row, block, RM, pM, vt, p_GB, R_GB, V_GB, bf):
    """The springs of the mesh of MESH row ``row`` (its frame (RM, pM) in G) against its
    MESH partners (``elastic_foundation_mesh_pair_kernel``, the MESH_DATA block at row
    ``block``), each skipped when the two meshes' bounding spheres about their origins do
    not overlap. Returns the number of springs that pushed."""
    pushed = 0
    bm = ti[row, _BODY]
    bound = tf[row, _RADIUS]
    k, c = tf[row, _K], tf[row, _C]
    us, ud, uv = tf[row, _US], tf[row, _UD], tf[row, _UV]
    for o in range(row + 1, row + 1 + ti[row, _PARTNERS]):
        if ti[o, _KIND] != MESH:
            continue
        bo = ti[o, _BODY]
        RO, pO = _frame(tf, o, R_GB[bo], p_GB[bo])
        g0, g1, g2 = pM[0] - pO[0], pM[1] - pO[1], pM[2] - pO[2]
        if math.sqrt(g0 * g0 + g1 * g1 + g2 * g2) >= bound + tf[o, _RADIUS]:
            continue
        pushed += mesh_springs_by_address(
            ti, tf, block, ti[row, _LOCAL], ti[o, _OTHER], tf[o, _SCALE], RM, pM, RO, pO, bm,
            bo, k, c, us, ud, uv, vt, p_GB, V_GB, bf,
        )  # fmt: skip
    return pushed


@kernel_jit
def _spring(a0, a1, a2, area, RM, pM, RO, pO, half_space, radius, bm, bo, k, c, us, ud, uv,
            vt, p_GB, V_GB, bf):  # fmt: skip
    """One face's spring (centroid ``a`` in M's frame, ``area``) against O; 1 if it
    pushed (its force applied), else 0."""
    # the centroid P in G, then in O's frame
    P0 = a0 * RM[0] + a1 * RM[1] + a2 * RM[2] + pM[0]
    P1 = a0 * RM[3] + a1 * RM[4] + a2 * RM[5] + pM[1]
    P2 = a0 * RM[6] + a1 * RM[7] + a2 * RM[8] + pM[2]
    e0, e1, e2 = P0 - pO[0], P1 - pO[1], P2 - pO[2]
    l0 = e0 * RO[0] + e1 * RO[3] + e2 * RO[6]
    l1 = e0 * RO[1] + e1 * RO[4] + e2 * RO[7]
    l2 = e0 * RO[2] + e1 * RO[5] + e2 * RO[8]
    # nearest point of O's surface (O's frame), and whether P is inside O
    if half_space:
        if not l0 > 0.0:
            return 0
        q0, q1, q2 = 0.0, l1, l2
    else:
        dist = math.sqrt(l0 * l0 + l1 * l1 + l2 * l2)
        if not dist < radius:
            return 0
        if dist > 0.0:
            q0, q1, q2 = radius * (l0 / dist), radius * (l1 / dist), radius * (l2 / dist)
        else:
            q0, q1, q2 = radius, 0.0, 0.0
    Q0 = q0 * RO[0] + q1 * RO[1] + q2 * RO[2] + pO[0]
    Q1 = q0 * RO[3] + q1 * RO[4] + q2 * RO[5] + pO[1]
    Q2 = q0 * RO[6] + q1 * RO[7] + q2 * RO[8] + pO[2]
    return push(P0, P1, P2, Q0, Q1, Q2, area, bm, bo, k, c, us, ud, uv, vt, p_GB, V_GB, bf)
