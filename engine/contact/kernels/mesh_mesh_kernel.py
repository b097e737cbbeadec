"""Kernel for TriangleMesh-TriangleMesh contact (Simbody 3.7's TriangleMeshTriangleMesh
tracker) with the ElasticFoundation force generator, for the fused realization's contact
stage (no allocation).

The arithmetic is that of ``mesh_trackers.mesh_mesh`` and ``generators.elastic_foundation``
(its oracle, which describes the model), over the flat mesh arrays of
``mesh_queries.mesh_query_arrays`` and with its compiled queries:

* broad phase: the two meshes' bounding spheres;
* the faces in contact, for each mesh A against the other mesh B
  (``mesh_mesh_faces.faces_in_contact``): within the overlap of A's box and the box of B's
  vertices (in A's frame), the faces of A with a vertex inside B or crossed by one of B's
  edges;
* the force: with both meshes in contact, each mesh's face areas are scaled so that each
  contributes half of the mean patch area; each listed face whose centroid P0 is inside the
  other mesh is a spring (``mesh_contact_kernel.face_spring``) with Q the nearest point of
  the other mesh, ``x = |P0 - Q|``, ``n = (P0 - Q)/x``, at ``P = P0 - f_M x n`` (f_M the
  mesh's deformation share: s1 for surface 1, 1 - s1 for surface 2).

Each acting face's force is applied at its point P, which sums to the generator's resultant
at the centre of pressure with its residual moment (they differ by rounding only).
"""

from __future__ import annotations

import math

from numba import types

from engine.common.numba_internals import address_call, f1, f2, f3, i1, i2, kernel_jit
from engine.contact.kernels.hertz_circular_kernel import _combine
from engine.contact.kernels.mesh_contact_kernel import face_spring
from engine.contact.kernels.mesh_mesh_faces import IN_CONTACT, faces_in_contact
from engine.contact.kernels.mesh_queries import nearest_point_and_inside
from engine.multibody.kernels.layout import SLOT
from engine.multibody.kernels.spatial_inline import column3, dot3, inline, row_sub


@kernel_jit
def mesh_mesh_stage(g, a, s, p_GB, V_GB, body_forces):
    """``mesh_mesh_forces`` of the table's ``contact_mesh_mesh_pairs`` (``a`` addresses,
    ``s`` shapes; ``layout.SLOT``) for CompliantContactSubsystem ``g`` (its transition
    velocity ``contact_settings[g]``), with the surface frames ``contact_R_GS``,
    ``contact_p_GS`` the contact stage computed; returns (the number of pairs in contact,
    their dissipated power in W)."""
    mesh = (
        i1(a, s, SLOT.contact_mesh_face_starts),
        i2(a, s, SLOT.contact_mesh_starts),
        f2(a, s, SLOT.contact_mesh_centroids),
        f1(a, s, SLOT.contact_mesh_areas),
        f2(a, s, SLOT.contact_mesh_vertices),
        i2(a, s, SLOT.contact_mesh_faces),
        f3(a, s, SLOT.contact_mesh_face_normals),
        f2(a, s, SLOT.contact_mesh_vertex_normals),
        f2(a, s, SLOT.contact_mesh_face_boxes),
        i2(a, s, SLOT.contact_mesh_edges),
        f2(a, s, SLOT.contact_mesh_nodes),
        i2(a, s, SLOT.contact_mesh_links),
        i1(a, s, SLOT.contact_mesh_tree_faces),
    )
    scratch = (
        i1(a, s, SLOT.contact_mesh_vertex_flags),
        i1(a, s, SLOT.contact_mesh_face_flags),
        i1(a, s, SLOT.contact_mesh_candidates),
        f2(a, s, SLOT.contact_mesh_work),
        i1(a, s, SLOT.contact_mesh_stack),
    )
    return mesh_mesh_forces(
        i2(a, s, SLOT.contact_mesh_mesh_pairs),
        mesh,
        scratch,
        f2(a, s, SLOT.contact_mesh_bounds),
        f1(a, s, SLOT.contact_stiffness),
        f2(a, s, SLOT.contact_material),
        i1(a, s, SLOT.contact_body),
        f3(a, s, SLOT.contact_R_GS),
        f2(a, s, SLOT.contact_p_GS),
        p_GB,
        V_GB,
        f1(a, s, SLOT.contact_settings)[g],
        body_forces,
    )


#: the one signature of mesh_mesh_stage: (compliant subsystem, table addresses, shapes,
#: p_GB, V_GB, body forces)
MESH_MESH_SIGNATURE = types.Tuple((types.int64, types.float64))(
    types.int64,
    types.int64[::1],
    types.int64[:, ::1],
    types.float64[:, ::1],
    types.float64[:, ::1],
    types.float64[:, ::1],
)

#: mesh_mesh_stage for the contact stage: called at its compiled address, so that it is
#: compiled once, on the first call (a model with a mesh-mesh pair), and not linked into
#: (and optimised again inside) the fused realization
mesh_mesh_stage_by_address = address_call(mesh_mesh_stage, MESH_MESH_SIGNATURE)


@kernel_jit
def mesh_mesh_forces(
    pairs, mesh, scratch, bounds, stiffness, material, body, R_GS, p_GS, p_GB, V_GB, vt, bf
):
    """Add the ElasticFoundation forces of every mesh-mesh pair of ``pairs`` (n, 2) into
    ``bf`` (nb, 6) [moment about Bo, force] in G. ``mesh`` is the tuple of the table's mesh
    arrays (face_starts, starts, centroids, areas, vertices, faces, face_normals,
    vertex_normals, face_boxes, edges, nodes, links, tree_faces: ``contact_mesh_*``),
    ``scratch`` the
    tuple (vertex_flags, face_flags, candidates, work, stack); ``bounds`` (ns, 4) each
    mesh's bounding sphere (centre in S, radius), ``stiffness`` (ns,), ``material`` (ns, 5)
    (dissipation, us, ud, uv in columns 1..4), ``body`` each surface's body, ``R_GS``,
    ``p_GS`` the surface frames in G, ``p_GB``, ``V_GB`` [w, v] the bodies' origins and
    velocities in G, ``vt`` the transition velocity. Returns (the number of pairs in
    contact, their dissipated power in W)."""
    count = 0
    power = 0.0
    for q in range(pairs.shape[0]):
        found, watts = _mesh_pair(
            pairs[q, 0],
            pairs[q, 1],
            mesh,
            scratch,
            bounds,
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
        count += found
        power += watts
    return count, power


@inline
def _transpose_times(A, B):
    """A^T B of two 3 x 3 matrices as a row-major 9-tuple (entry (i, j): column i of A
    dotted with column j of B)."""
    a0, a1, a2 = column3(A, 0, 0), column3(A, 0, 1), column3(A, 0, 2)
    b0, b1, b2 = column3(B, 0, 0), column3(B, 0, 1), column3(B, 0, 2)
    return (
        dot3(a0, b0), dot3(a0, b1), dot3(a0, b2),
        dot3(a1, b0), dot3(a1, b1), dot3(a1, b2),
        dot3(a2, b0), dot3(a2, b1), dot3(a2, b2),
    )  # fmt: skip


@inline
def _transpose_times_vector(A, x):
    """A^T x of a 3 x 3 matrix and a 3-tuple."""
    return dot3(column3(A, 0, 0), x), dot3(column3(A, 0, 1), x), dot3(column3(A, 0, 2), x)


@kernel_jit
def _mesh_pair(
    m1, m2, mesh, scratch, bounds, stiffness, material, body, R_GS, p_GS, p_GB, V_GB, vt, bf
):
    """One pair of ``mesh_mesh_forces`` (surface 1 = ``m1``). Returns (1 if any face is in
    contact else 0, the dissipated power)."""
    # broad phase: the bounding spheres' centres in G
    g0 = _centre(m1, 0, R_GS, p_GS, bounds) - _centre(m2, 0, R_GS, p_GS, bounds)
    g1 = _centre(m1, 1, R_GS, p_GS, bounds) - _centre(m2, 1, R_GS, p_GS, bounds)
    g2 = _centre(m1, 2, R_GS, p_GS, bounds) - _centre(m2, 2, R_GS, p_GS, bounds)
    if math.sqrt(g0 * g0 + g1 * g1 + g2 * g2) >= bounds[m1, 3] + bounds[m2, 3]:
        return 0, 0.0
    # mesh 2 in mesh 1: R12 = R1^T R2, p12 = R1^T (p2 - p1)
    R1, R2 = R_GS[m1], R_GS[m2]
    R12 = _transpose_times(R1, R2)
    p12 = _transpose_times_vector(R1, row_sub(p_GS, m2, p_GS, m1))
    # mesh 1 in mesh 2: R21 = R12^T, p21 = -R12^T p12
    R21 = (R12[0], R12[3], R12[6], R12[1], R12[4], R12[7], R12[2], R12[5], R12[8])
    p21 = (
        -(R21[0] * p12[0] + R21[1] * p12[1] + R21[2] * p12[2]),
        -(R21[3] * p12[0] + R21[4] * p12[1] + R21[5] * p12[2]),
        -(R21[6] * p12[0] + R21[7] * p12[1] + R21[8] * p12[2]),
    )
    n1, a1 = faces_in_contact(m1, m2, R21, p21, mesh, scratch)
    n2, a2 = faces_in_contact(m2, m1, R12, p12, mesh, scratch)
    face_starts = mesh[0]
    flags, candidates = scratch[1], scratch[2]
    found = 0
    power = 0.0
    if a1 > 0.0 or a2 > 0.0:
        found = 1
        scale1 = scale2 = 0.0
        if a1 > 0.0 and a2 > 0.0:
            area = 0.5 * (a1 + a2)
            scale1, scale2 = 0.5 * area / a1, 0.5 * area / a2
        elif a1 > 0.0:
            scale1 = 1.0
        else:
            scale2 = 1.0
        # the materials combined linearly (ElasticFoundation's material_parameters)
        k1, k2 = stiffness[m1], stiffness[m2]
        s1 = k2 / (k1 + k2)
        k = k1 * s1
        c = material[m1, 1] * s1 + material[m2, 1] * (1.0 - s1)
        us = _combine(material[m1, 2], material[m2, 2])
        ud = _combine(material[m1, 3], material[m2, 3])
        uv = _combine(material[m1, 4], material[m2, 4])
        friction = (us, ud, uv)
        power += _springs(
            m1,
            m2,
            n1,
            s1,
            scale1,
            k,
            c,
            friction,
            mesh,
            scratch,
            body,
            R_GS,
            p_GS,
            p_GB,
            V_GB,
            vt,
            bf,
        )
        power += _springs(
            m2,
            m1,
            n2,
            1.0 - s1,
            scale2,
            k,
            c,
            friction,
            mesh,
            scratch,
            body,
            R_GS,
            p_GS,
            p_GB,
            V_GB,
            vt,
            bf,
        )
    for t in range(n1):
        flags[face_starts[m1] + candidates[face_starts[m1] + t]] = 0
    for t in range(n2):
        flags[face_starts[m2] + candidates[face_starts[m2] + t]] = 0
    return found, power


@kernel_jit
def _centre(m, r, R_GS, p_GS, bounds):
    """Coordinate r of mesh surface m's bounding-sphere centre in G."""
    return p_GS[m, r] + (
        R_GS[m, r, 0] * bounds[m, 0] + R_GS[m, r, 1] * bounds[m, 1] + R_GS[m, r, 2] * bounds[m, 2]
    )


@kernel_jit
def _springs(
    mm, mo, count, share, scale, k, c, friction, mesh, scratch, body, R_GS, p_GS, p_GB, V_GB, vt, bf
):
    """The face springs of mesh surface ``mm`` (M) against mesh surface ``mo`` (O): each
    face in contact (flags ``IN_CONTACT`` among the ``count`` candidates) whose centroid is
    inside O, with its area times ``scale``. Returns the dissipated power."""
    (
        face_starts,
        starts,
        centroids,
        areas,
        vertices,
        faces,
        face_normals,
        vertex_normals,
        _,
        _,
        nodes,
        links,
        tree_faces,
    ) = mesh
    _, face_flags, candidates, _, stack = scratch
    if scale == 0.0:
        return 0.0
    us, ud, uv = friction
    fm0 = face_starts[mm]
    fo0, fo1 = face_starts[mo], face_starts[mo + 1]
    Vo, Fo = vertices[starts[mo, 0] : starts[mo + 1, 0]], faces[fo0:fo1]
    FNo, VNo = face_normals[fo0:fo1], vertex_normals[starts[mo, 0] : starts[mo + 1, 0]]
    No, Lo, To = (
        nodes[starts[mo, 2] : starts[mo + 1, 2]],
        links[starts[mo, 2] : starts[mo + 1, 2]],
        tree_faces[fo0:fo1],
    )
    bm, bo = body[mm], body[mo]
    power = 0.0
    hint = -1
    for t in range(count):
        f = fm0 + candidates[fm0 + t]
        if face_flags[f] != IN_CONTACT:
            continue
        a0, a1, a2 = centroids[f, 0], centroids[f, 1], centroids[f, 2]
        P0 = p_GS[mm, 0] + (R_GS[mm, 0, 0] * a0 + R_GS[mm, 0, 1] * a1 + R_GS[mm, 0, 2] * a2)
        P1 = p_GS[mm, 1] + (R_GS[mm, 1, 0] * a0 + R_GS[mm, 1, 1] * a1 + R_GS[mm, 1, 2] * a2)
        P2 = p_GS[mm, 2] + (R_GS[mm, 2, 0] * a0 + R_GS[mm, 2, 1] * a1 + R_GS[mm, 2, 2] * a2)
        # the centroid in O's frame, R_GO^T (P0 - p_GO)
        e0, e1, e2 = P0 - p_GS[mo, 0], P1 - p_GS[mo, 1], P2 - p_GS[mo, 2]
        o0 = R_GS[mo, 0, 0] * e0 + R_GS[mo, 1, 0] * e1 + R_GS[mo, 2, 0] * e2
        o1 = R_GS[mo, 0, 1] * e0 + R_GS[mo, 1, 1] * e1 + R_GS[mo, 2, 1] * e2
        o2 = R_GS[mo, 0, 2] * e0 + R_GS[mo, 1, 2] * e1 + R_GS[mo, 2, 2] * e2
        q0, q1, q2, inside, hint = nearest_point_and_inside(
            o0, o1, o2, Vo, Fo, FNo, VNo, No, Lo, To, stack, hint
        )
        if not inside:
            continue
        Q0 = R_GS[mo, 0, 0] * q0 + R_GS[mo, 0, 1] * q1 + R_GS[mo, 0, 2] * q2 + p_GS[mo, 0]
        Q1 = R_GS[mo, 1, 0] * q0 + R_GS[mo, 1, 1] * q1 + R_GS[mo, 1, 2] * q2 + p_GS[mo, 1]
        Q2 = R_GS[mo, 2, 0] * q0 + R_GS[mo, 2, 1] * q1 + R_GS[mo, 2, 2] * q2 + p_GS[mo, 2]
        g0, g1, g2 = P0 - Q0, P1 - Q1, P2 - Q2
        x = math.sqrt(g0 * g0 + g1 * g1 + g2 * g2)
        if not x > 0.0:
            continue
        fN, watts = face_spring(
            P0,
            P1,
            P2,
            x,
            g0 / x,
            g1 / x,
            g2 / x,
            scale * areas[f],
            share,
            k,
            c,
            us,
            ud,
            uv,
            bo,
            bm,
            p_GB,
            V_GB,
            vt,
            bf,
        )
        power += watts
    return power
