"""ElasticFoundationForce's springs of a mesh against another TriangleMesh of its contact
set, in a kernel: the mesh partners of the ELASTIC_FOUNDATION compiled force term
(``elastic_foundation_force_kernel``), over the flat mesh arrays of
``mesh_queries.mesh_query_arrays`` and with the compiled queries of ``mesh_queries`` and
``mesh_mesh_faces``.

The arithmetic is ``ElasticFoundationForce._evaluate``'s (its oracle): for a mesh M with
parameters and a mesh O of the set on another body, the springs are the faces of M that
``GeneralContactSubsystem``'s ``mesh_mesh`` tracker lists (``mesh_mesh_faces
.faces_in_contact``: a vertex inside O or crossed by an edge of O) whose centroid P is
inside O, Q the nearest point of O's surface (``mesh_queries.nearest_point_and_inside``,
found in O's frame), and the law of ``elastic_foundation_spring.push`` with the face area
times the partner's scale (1/2 when O has parameters too, else 1).

The meshes of the element's mesh pairs are a MESH_DATA block of the term's rows: a header
row, ints (opcode, the number of meshes nm, the number of packed rows after it), floats
(faces F, vertices V, edges E, tree nodes N of all the meshes, the most vertices W and the
most nodes D of one mesh); then the packed rows, whose 5 int columns (the opcode column
too) and 19 float columns hold, row after row, the ints and the floats of the mesh table
``mesh_mesh_faces`` reads, in the order and shapes of ``INT_PARTS`` and ``FLOAT_PARTS``
(the meshes one after the other, as ``ContactTrackerSubsystem`` lays out its
``contact_mesh_*`` arrays), its scratch included. The block is read in place: nothing is
allocated. Runs with NUMBA_DISABLE_JIT=1.
"""

from __future__ import annotations

import numpy as np
from numba import types

from engine.common.kernel_jit import kernel_jit
from engine.common.numba_internals import address_call
from engine.contact.kernels.elastic_foundation_spring import push
from engine.contact.kernels.mesh_mesh_faces import IN_CONTACT, faces_in_contact
from engine.contact.kernels.mesh_queries import nearest_point_and_inside
from engine.forces.term_widths import FLOATS, INTS

#: the int parts of a MESH_DATA block, in order, with their shapes in (nm, F, V, E, N, W, D)
INT_PARTS = (
    ("face_starts", "nm + 1"),
    ("starts", "(nm + 1, 3)"),
    ("faces", "(F, 3)"),
    ("edges", "(E, 2)"),
    ("links", "(N, 3)"),
    ("tree_faces", "F"),
    ("vertex_flags", "V"),
    ("face_flags", "F"),
    ("candidates", "F"),
    ("stack", "D"),
)
#: the float parts of a MESH_DATA block, in order
FLOAT_PARTS = (
    ("centroids", "(F, 3)"),
    ("areas", "F"),
    ("vertices", "(V, 3)"),
    ("face_normals", "(F, 4, 3)"),
    ("vertex_normals", "(V, 3)"),
    ("face_boxes", "(F, 6)"),
    ("nodes", "(N, 6)"),
    ("work", "(W, 3)"),
)


@kernel_jit
def mesh_springs(ti, tf, block, lm, lo, scale, RM, pM, RO, pO, bm, bo, k, c, us, ud, uv, vt,
                 p_GB, V_GB, bf):  # fmt: skip
    """The springs of mesh ``lm`` (M, on body ``bm``, its frame (RM row-major 9-tuple, pM)
    in G) against mesh ``lo`` (O, on body ``bo``, frame (RO, pO)), both numbered in the
    MESH_DATA block at row ``block``: the faces of M in contact with O whose centroid is
    inside O, area times ``scale``, material (k, c, us, ud, uv), transition velocity
    ``vt``; forces added into ``bf`` (nb, 6) [moment about Bo, force] in G. Returns the
    number of springs that pushed."""
    # the MESH_DATA block's parts, views of its rows (reshape and slices only: a kernel
    # without numba's runtime may not get an array back from a function)
    nm, rows = ti[block, 1], ti[block, 2]
    F, V, E = int(tf[block, 0]), int(tf[block, 1]), int(tf[block, 2])
    N, W, D = int(tf[block, 3]), int(tf[block, 4]), int(tf[block, 5])
    iv = ti[block + 1 : block + 1 + rows].reshape(rows * ti.shape[1])
    fv = tf[block + 1 : block + 1 + rows].reshape(rows * tf.shape[1])
    a = 0
    face_starts = iv[a : a + nm + 1]
    a += nm + 1
    starts = iv[a : a + 3 * (nm + 1)].reshape((nm + 1, 3))
    a += 3 * (nm + 1)
    faces = iv[a : a + 3 * F].reshape((F, 3))
    a += 3 * F
    edges = iv[a : a + 2 * E].reshape((E, 2))
    a += 2 * E
    links = iv[a : a + 3 * N].reshape((N, 3))
    a += 3 * N
    tree_faces = iv[a : a + F]
    a += F
    vertex_flags = iv[a : a + V]
    a += V
    face_flags = iv[a : a + F]
    a += F
    candidates = iv[a : a + F]
    a += F
    stack = iv[a : a + D]
    b = 0
    centroids = fv[b : b + 3 * F].reshape((F, 3))
    b += 3 * F
    areas = fv[b : b + F]
    b += F
    vertices = fv[b : b + 3 * V].reshape((V, 3))
    b += 3 * V
    face_normals = fv[b : b + 12 * F].reshape((F, 4, 3))
    b += 12 * F
    vertex_normals = fv[b : b + 3 * V].reshape((V, 3))
    b += 3 * V
    face_boxes = fv[b : b + 6 * F].reshape((F, 6))
    b += 6 * F
    nodes = fv[b : b + 6 * N].reshape((N, 6))
    b += 6 * N
    work = fv[b : b + 3 * W].reshape((W, 3))
    mesh = (
        face_starts,
        starts,
        centroids,
        areas,
        vertices,
        faces,
        face_normals,
        vertex_normals,
        face_boxes,
        edges,
        nodes,
        links,
        tree_faces,
    )
    scratch = (vertex_flags, face_flags, candidates, work, stack)
    # M in O's frame: XR = RO^T RM, Xp = RO^T (pM - pO)
    XR = (
        RO[0] * RM[0] + RO[3] * RM[3] + RO[6] * RM[6],
        RO[0] * RM[1] + RO[3] * RM[4] + RO[6] * RM[7],
        RO[0] * RM[2] + RO[3] * RM[5] + RO[6] * RM[8],
        RO[1] * RM[0] + RO[4] * RM[3] + RO[7] * RM[6],
        RO[1] * RM[1] + RO[4] * RM[4] + RO[7] * RM[7],
        RO[1] * RM[2] + RO[4] * RM[5] + RO[7] * RM[8],
        RO[2] * RM[0] + RO[5] * RM[3] + RO[8] * RM[6],
        RO[2] * RM[1] + RO[5] * RM[4] + RO[8] * RM[7],
        RO[2] * RM[2] + RO[5] * RM[5] + RO[8] * RM[8],
    )
    g0, g1, g2 = pM[0] - pO[0], pM[1] - pO[1], pM[2] - pO[2]
    Xp = (
        RO[0] * g0 + RO[3] * g1 + RO[6] * g2,
        RO[1] * g0 + RO[4] * g1 + RO[7] * g2,
        RO[2] * g0 + RO[5] * g1 + RO[8] * g2,
    )
    count, _ = faces_in_contact(lm, lo, XR, Xp, mesh, scratch)
    fm0 = face_starts[lm]
    fo0, fo1 = face_starts[lo], face_starts[lo + 1]
    vo0, vo1 = starts[lo, 0], starts[lo + 1, 0]
    Vo, Fo = vertices[vo0:vo1], faces[fo0:fo1]
    FNo, VNo = face_normals[fo0:fo1], vertex_normals[vo0:vo1]
    No, Lo = nodes[starts[lo, 2] : starts[lo + 1, 2]], links[starts[lo, 2] : starts[lo + 1, 2]]
    To = tree_faces[fo0:fo1]
    pushed = 0
    hint = -1
    for t in range(count):
        f = fm0 + candidates[fm0 + t]
        if face_flags[f] != IN_CONTACT:
            continue
        a0, a1, a2 = centroids[f, 0], centroids[f, 1], centroids[f, 2]
        P0 = a0 * RM[0] + a1 * RM[1] + a2 * RM[2] + pM[0]
        P1 = a0 * RM[3] + a1 * RM[4] + a2 * RM[5] + pM[1]
        P2 = a0 * RM[6] + a1 * RM[7] + a2 * RM[8] + pM[2]
        e0, e1, e2 = P0 - pO[0], P1 - pO[1], P2 - pO[2]
        l0 = e0 * RO[0] + e1 * RO[3] + e2 * RO[6]
        l1 = e0 * RO[1] + e1 * RO[4] + e2 * RO[7]
        l2 = e0 * RO[2] + e1 * RO[5] + e2 * RO[8]
        q0, q1, q2, inside, hint = nearest_point_and_inside(
            l0, l1, l2, Vo, Fo, FNo, VNo, No, Lo, To, stack, hint
        )
        if not inside:
            continue
        Q0 = q0 * RO[0] + q1 * RO[1] + q2 * RO[2] + pO[0]
        Q1 = q0 * RO[3] + q1 * RO[4] + q2 * RO[5] + pO[1]
        Q2 = q0 * RO[6] + q1 * RO[7] + q2 * RO[8] + pO[2]
        area = scale * areas[f]
        pushed += push(P0, P1, P2, Q0, Q1, Q2, area, bm, bo, k, c, us, ud, uv, vt, p_GB, V_GB, bf)
    for t in range(count):
        face_flags[fm0 + candidates[fm0 + t]] = 0
    return pushed


_rows = (types.int64[:, ::1], types.float64[:, ::1])
_frame = (types.UniTuple(types.float64, 9), types.UniTuple(types.float64, 3))
#: the one signature of mesh_springs, as ``elastic_foundation_force_kernel`` calls it
#: inside the fused realization (the force-term table's arrays and the bodies' p_GB, V_GB
#: and body forces are table entries)
MESH_SPRINGS_SIGNATURE = types.int64(
    *_rows,
    types.int64,
    types.int64,
    types.int64,
    types.float64,
    *_frame,
    *_frame,
    types.int64,
    types.int64,
    *(types.float64,) * 6,
    types.float64[:, ::1],
    types.float64[:, ::1],
    types.float64[:, ::1],
)

#: mesh_springs called at its compiled address: compiled once, the first time a model
#: with a mesh-mesh pair with springs realizes, and not linked into (and optimised again
#: inside) the fused realization every model compiles
mesh_springs_by_address = address_call(mesh_springs, MESH_SPRINGS_SIGNATURE)


def mesh_data_rows(meshes, opcode: int) -> list[tuple[int, tuple, tuple]]:
    """The MESH_DATA block (header ``opcode``, then the packed rows) of the
    ContactGeometry.TriangleMesh ``meshes`` (numbered in this order) as force-term rows
    ``(op, ints, floats)`` (``compiled_terms.stack_terms``): a packed row's first int is
    its op. Made at Topology stage."""
    from engine.contact.kernels.mesh_queries import mesh_query_arrays

    queries = [mesh_query_arrays(m) for m in meshes]
    counts = np.array(
        [
            (q["faces"].shape[0], q["vertices"].shape[0], q["edges"].shape[0], q["nodes"].shape[0])
            for q in queries
        ],
        dtype=np.int64,
    ).reshape(-1, 4)
    starts = np.zeros((len(meshes) + 1, 4), dtype=np.int64)
    starts[1:] = np.cumsum(counts, axis=0)
    F, V, E, N = (int(x) for x in starts[-1])
    W, D = int(counts[:, 1].max()), int(counts[:, 3].max())
    ints = [
        starts[:, 0],
        starts[:, 1:],
        *(q["faces"] for q in queries),
        *(q["edges"] for q in queries),
        *(q["links"] for q in queries),
        *(q["tree_faces"] for q in queries),
        np.zeros(V + 2 * F + D, dtype=np.int64),  # vertex and face flags, candidates, stack
    ]
    floats = [
        *(np.asarray(m.faceCentroids(), dtype=np.float64) for m in meshes),
        *(np.asarray(m.faceAreas(), dtype=np.float64) for m in meshes),
        *(q["vertices"] for q in queries),
        *(q["face_normals"] for q in queries),
        *(q["vertex_normals"] for q in queries),
        *(q["face_boxes"] for q in queries),
        *(q["nodes"] for q in queries),
        np.zeros(3 * W),  # work
    ]
    ibuf = np.concatenate([np.asarray(a, dtype=np.int64).ravel() for a in ints])
    fbuf = np.concatenate([np.asarray(a, dtype=np.float64).ravel() for a in floats])
    rows = max(-(-ibuf.size // INTS), -(-fbuf.size // FLOATS))
    ipad = np.zeros(rows * INTS, dtype=np.int64)
    ipad[: ibuf.size] = ibuf
    fpad = np.zeros(rows * FLOATS)
    fpad[: fbuf.size] = fbuf
    packed = [
        (int(i[0]), tuple(i[1:].tolist()), tuple(f.tolist()))
        for i, f in zip(ipad.reshape(rows, INTS), fpad.reshape(rows, FLOATS), strict=True)
    ]
    header = (opcode, (len(meshes), rows), (F, V, E, N, W, D))
    return [header, *packed]
