"""Compiled queries on a closed triangle mesh over flat arrays: the nearest point on the
mesh, whether a point is inside, the faces whose boxes meet a box, and the segment-triangle
crossing test. For the fused contact kernels (``mesh_mesh_kernel``) and any other kernel
that needs them; nothing here allocates.

One mesh is described, in its own frame S (m), by the arrays ``mesh_query_arrays`` builds
once (Topology stage):

* ``vertices`` (V, 3), ``faces`` (F, 3) vertex indices (counter-clockwise seen from outside);
* ``face_normals`` (F, 4, 3): [0] the face's outward unit normal, [1 + j] the outward
  pseudo-normal of the edge opposite corner j (the sum of its two faces' unit normals);
* ``vertex_normals`` (V, 3): each vertex's pseudo-normal, the sum of its faces' unit normals
  weighted by the faces' angles at the vertex;
* ``face_boxes`` (F, 6): each face's bounding box (lo xyz, hi xyz);
* an AABB tree over the faces: ``nodes`` (N, 6) each node's box (lo xyz, hi xyz), ``links``
  (N, 3) each node's (first child or -1 for a leaf; the second child follows the first,
  first position in ``tree_faces``, number of faces), ``tree_faces`` (F,) the faces in tree
  order. Node 0 is the root; its box is the bounding box of all the vertices. A node's box
  is the union of its faces' boxes, so a face box that meets a query box lies in nodes
  whose boxes meet it. Built top-down: a node of more than ``LEAF_FACES`` faces is split
  at the median of its faces' box centres along the axis where they spread most.

The nearest point uses the region tests of ``triangle_mesh.closest_points_on_triangles``
(Ericson, Real-Time Collision Detection 5.1.5) with the same arithmetic, and "inside" is
decided as ``_TriangleMesh.nearestPoints`` decides it: by the outward pseudo-normal at the
nearest point (the face normal when its barycentric coordinates are all above 1e-9, the
edge's pseudo-normal when one is not, the vertex's when two are not), which is exact for a
closed mesh. Queries take a ``stack`` (int64, at least the tree's node count long) for the
tree walk, and the nearest-point queries a ``hint``, a face to try first (or -1).
"""

from __future__ import annotations

import math

import numpy as np

from engine.common.kernel_jit import kernel_jit

#: most faces in a leaf of the AABB tree
LEAF_FACES = 4
#: a barycentric coordinate at or below this puts the nearest point on an edge or a vertex
ON_EDGE = 1e-9


# ---------------------------------------------------------------------------- Topology stage
def pseudo_normals(vertices, faces, normals) -> tuple[np.ndarray, np.ndarray]:
    """(vertex pseudo-normals (V, 3), edge pseudo-normals (F, 3, 3): [f, j] of the edge
    opposite corner j of face f) of a closed mesh with unit face ``normals`` (F, 3)."""
    v = np.asarray(vertices, dtype=np.float64)
    f = np.asarray(faces, dtype=np.int64)
    corners = v[f]  # (F, 3, 3)
    vertex_normals = np.zeros_like(v)
    for j in range(3):
        e1 = corners[:, (j + 1) % 3] - corners[:, j]
        e2 = corners[:, (j + 2) % 3] - corners[:, j]
        cos = np.einsum("ki,ki->k", e1, e2) / (
            np.linalg.norm(e1, axis=1) * np.linalg.norm(e2, axis=1)
        )
        angle = np.arccos(np.clip(cos, -1.0, 1.0))
        np.add.at(vertex_normals, f[:, j], angle[:, None] * normals)
    # the face across each edge: key the directed edges, look up the reverse
    n = v.shape[0]
    edge_normals = np.zeros((f.shape[0], 3, 3))
    keys = np.concatenate([f[:, (j + 1) % 3] * n + f[:, (j + 2) % 3] for j in range(3)])
    sorter = np.argsort(keys)
    for j in range(3):
        reverse = f[:, (j + 2) % 3] * n + f[:, (j + 1) % 3]
        across = sorter[np.searchsorted(keys, reverse, sorter=sorter)] % f.shape[0]
        edge_normals[:, j] = normals + normals[across]
    return vertex_normals, edge_normals


def build_face_tree(vertices, faces) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(nodes (N, 6), links (N, 3), tree_faces (F,)) of the AABB tree over the faces (see
    the module docstring)."""
    v = np.asarray(vertices, dtype=np.float64)
    f = np.asarray(faces, dtype=np.int64)
    A, B, C = v[f[:, 0]], v[f[:, 1]], v[f[:, 2]]
    lo = np.minimum(np.minimum(A, B), C)
    hi = np.maximum(np.maximum(A, B), C)
    centre = 0.5 * (lo + hi)
    order = np.arange(f.shape[0], dtype=np.int64)
    nodes, links = [], []
    ranges = [(0, f.shape[0])]
    k = 0
    while k < len(ranges):
        start, end = ranges[k]
        mine = order[start:end]
        box = np.concatenate((lo[mine].min(axis=0), hi[mine].max(axis=0)))
        if k == 0:
            box = np.concatenate(
                (np.minimum(box[:3], v.min(axis=0)), np.maximum(box[3:], v.max(axis=0)))
            )
        nodes.append(box)
        if end - start <= LEAF_FACES:
            links.append((-1, start, end - start))
        else:
            spread = centre[mine].max(axis=0) - centre[mine].min(axis=0)
            axis = int(np.argmax(spread))
            order[start:end] = mine[np.argsort(centre[mine, axis], kind="stable")]
            middle = (start + end) // 2
            links.append((len(ranges), start, end - start))
            ranges.append((start, middle))
            ranges.append((middle, end))
        k += 1
    return (
        np.ascontiguousarray(nodes, dtype=np.float64).reshape(-1, 6),
        np.ascontiguousarray(links, dtype=np.int64).reshape(-1, 3),
        order,
    )


def mesh_query_arrays(mesh) -> dict[str, np.ndarray]:
    """The flat arrays of a ContactGeometry.TriangleMesh for these queries, by name:
    vertices, faces, face_normals (F, 4, 3), vertex_normals, face_boxes (F, 6) (each face's
    box: lo xyz, hi xyz), edges (E, 2) (each undirected edge once), nodes, links,
    tree_faces (see the module docstring). Built once per mesh
    and kept on it (the mesh is immutable)."""
    cached = getattr(mesh, "_query_arrays", None)
    if cached is not None:
        return cached
    v = np.ascontiguousarray(mesh.vertices(), dtype=np.float64)
    f = np.ascontiguousarray(mesh.faces(), dtype=np.int64)
    normals = np.asarray(mesh.faceNormals(), dtype=np.float64)
    vertex_normals, edge_normals = pseudo_normals(v, f, normals)
    face_normals = np.empty((f.shape[0], 4, 3))
    face_normals[:, 0] = normals
    face_normals[:, 1:] = edge_normals
    nodes, links, tree_faces = build_face_tree(v, f)
    corners = v[f]
    arrays = {
        "vertices": v,
        "faces": f,
        "face_normals": face_normals,
        "vertex_normals": vertex_normals,
        "face_boxes": np.ascontiguousarray(
            np.concatenate((corners.min(axis=1), corners.max(axis=1)), axis=1)
        ),
        "edges": np.ascontiguousarray(mesh._edges, dtype=np.int64),
        "nodes": nodes,
        "links": links,
        "tree_faces": tree_faces,
    }
    for a in arrays.values():
        a.flags.writeable = False
    mesh._query_arrays = arrays
    return arrays


# ---------------------------------------------------------------------------- compiled queries
@kernel_jit
def closest_point_on_triangle(p0, p1, p2, a0, a1, a2, b0, b1, b2, c0, c1, c2):
    """The point of triangle (a, b, c) nearest p: (q0, q1, q2), the arithmetic of
    ``triangle_mesh.closest_points_on_triangles`` (its last matching region wins)."""
    ab0, ab1, ab2 = b0 - a0, b1 - a1, b2 - a2
    ac0, ac1, ac2 = c0 - a0, c1 - a1, c2 - a2
    ap0, ap1, ap2 = p0 - a0, p1 - a1, p2 - a2
    d1 = ab0 * ap0 + ab1 * ap1 + ab2 * ap2
    d2 = ac0 * ap0 + ac1 * ap1 + ac2 * ap2
    bp0, bp1, bp2 = p0 - b0, p1 - b1, p2 - b2
    d3 = ab0 * bp0 + ab1 * bp1 + ab2 * bp2
    d4 = ac0 * bp0 + ac1 * bp1 + ac2 * bp2
    cp0, cp1, cp2 = p0 - c0, p1 - c1, p2 - c2
    d5 = ab0 * cp0 + ab1 * cp1 + ab2 * cp2
    d6 = ac0 * cp0 + ac1 * cp1 + ac2 * cp2
    va = d3 * d6 - d5 * d4
    vb = d5 * d2 - d1 * d6
    vc = d1 * d4 - d3 * d2
    if d1 <= 0.0 and d2 <= 0.0:
        v, w = 0.0, 0.0
    elif d3 >= 0.0 and d4 <= d3:
        v, w = 1.0, 0.0
    elif d6 >= 0.0 and d5 <= d6:
        v, w = 0.0, 1.0
    elif vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:
        v, w = d1 / (d1 - d3), 0.0
    elif vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0:
        v, w = 0.0, d2 / (d2 - d6)
    elif va <= 0.0 and d4 - d3 >= 0.0 and d5 - d6 >= 0.0:
        t = (d4 - d3) / ((d4 - d3) + (d5 - d6))
        v, w = 1.0 - t, t
    else:
        denom = 1.0 / (va + vb + vc)
        v, w = vb * denom, vc * denom
    return a0 + v * ab0 + w * ac0, a1 + v * ab1 + w * ac1, a2 + v * ab2 + w * ac2


@kernel_jit
def _box_distance2(p0, p1, p2, nodes, k):
    """Squared distance from p to node k's box (0 inside it)."""
    d = 0.0
    for axis in range(3):
        p = (p0, p1, p2)[axis]
        if p < nodes[k, axis]:
            d += (nodes[k, axis] - p) ** 2
        elif p > nodes[k, 3 + axis]:
            d += (p - nodes[k, 3 + axis]) ** 2
    return d


@kernel_jit
def _closest_on_face(p0, p1, p2, vertices, faces, f):
    """(q0, q1, q2, squared distance) of the point of face f nearest p."""
    a, b, c = faces[f, 0], faces[f, 1], faces[f, 2]
    r0, r1, r2 = closest_point_on_triangle(
        p0,
        p1,
        p2,
        vertices[a, 0],
        vertices[a, 1],
        vertices[a, 2],
        vertices[b, 0],
        vertices[b, 1],
        vertices[b, 2],
        vertices[c, 0],
        vertices[c, 1],
        vertices[c, 2],
    )
    e0, e1, e2 = r0 - p0, r1 - p1, r2 - p2
    return r0, r1, r2, e0 * e0 + e1 * e1 + e2 * e2


@kernel_jit
def nearest_point_on_mesh(p0, p1, p2, vertices, faces, nodes, links, tree_faces, stack, hint):
    """The point of the mesh's surface nearest p (all in S): (face, q0, q1, q2, squared
    distance). Branch and bound over the AABB tree: the nearer child first, a node skipped
    when its box is no nearer than the best so far. ``hint`` (a face, or -1) is tried
    first: a face near p (the answer for a nearby point) makes the bound tight from the
    start. Of equally near faces the first tried is kept."""
    best = math.inf
    face = -1
    q0 = q1 = q2 = 0.0
    if hint >= 0:
        q0, q1, q2, best = _closest_on_face(p0, p1, p2, vertices, faces, hint)
        face = hint
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        k = stack[top]
        if _box_distance2(p0, p1, p2, nodes, k) >= best:
            continue
        child = links[k, 0]
        if child >= 0:
            near = _box_distance2(p0, p1, p2, nodes, child)
            far = _box_distance2(p0, p1, p2, nodes, child + 1)
            if near <= far:
                stack[top], stack[top + 1] = child + 1, child
            else:
                stack[top], stack[top + 1] = child, child + 1
            top += 2
            continue
        for t in range(links[k, 1], links[k, 1] + links[k, 2]):
            f = tree_faces[t]
            r0, r1, r2, d = _closest_on_face(p0, p1, p2, vertices, faces, f)
            if d < best:
                best, face, q0, q1, q2 = d, f, r0, r1, r2
    return face, q0, q1, q2, best


@kernel_jit
def outward_normal_at(face, q0, q1, q2, vertices, faces, face_normals, vertex_normals):
    """The outward pseudo-normal (not unit) at the point q of ``face``: the face normal, or
    the edge's or the vertex's pseudo-normal when q's barycentric coordinates (Cramer's
    rule, as trimesh's ``points_to_barycentric``) put it on an edge or a vertex."""
    a, b, c = faces[face, 0], faces[face, 1], faces[face, 2]
    u0 = vertices[b, 0] - vertices[a, 0]
    u1 = vertices[b, 1] - vertices[a, 1]
    u2 = vertices[b, 2] - vertices[a, 2]
    v0 = vertices[c, 0] - vertices[a, 0]
    v1 = vertices[c, 1] - vertices[a, 1]
    v2 = vertices[c, 2] - vertices[a, 2]
    w0, w1, w2 = q0 - vertices[a, 0], q1 - vertices[a, 1], q2 - vertices[a, 2]
    dot00 = u0 * u0 + u1 * u1 + u2 * u2
    dot01 = u0 * v0 + u1 * v1 + u2 * v2
    dot02 = u0 * w0 + u1 * w1 + u2 * w2
    dot11 = v0 * v0 + v1 * v1 + v2 * v2
    dot12 = v0 * w0 + v1 * w1 + v2 * w2
    inverse = 1.0 / (dot00 * dot11 - dot01 * dot01)
    bary2 = (dot00 * dot12 - dot01 * dot02) * inverse
    bary1 = (dot11 * dot02 - dot01 * dot12) * inverse
    bary0 = 1.0 - bary1 - bary2
    small = (bary0 <= ON_EDGE) + (bary1 <= ON_EDGE) + (bary2 <= ON_EDGE)
    if small == 0:
        return face_normals[face, 0, 0], face_normals[face, 0, 1], face_normals[face, 0, 2]
    if small == 1:
        j = 0 if bary0 <= ON_EDGE else (1 if bary1 <= ON_EDGE else 2)
        return (
            face_normals[face, 1 + j, 0],
            face_normals[face, 1 + j, 1],
            face_normals[face, 1 + j, 2],
        )
    j = 0
    if bary1 > bary0:
        j = 1
    if bary2 > (bary0, bary1)[j]:
        j = 2
    vid = faces[face, j]
    return vertex_normals[vid, 0], vertex_normals[vid, 1], vertex_normals[vid, 2]


@kernel_jit
def nearest_point_and_inside(
    p0, p1, p2, vertices, faces, face_normals, vertex_normals, nodes, links, tree_faces, stack, hint
):
    """(q0, q1, q2, inside, face) of the point p (S): q the nearest point of the mesh's
    surface, on ``face``; ``inside`` whether p is strictly inside the mesh ((p - q) against
    the outward pseudo-normal at q). ``hint`` as for ``nearest_point_on_mesh``."""
    face, q0, q1, q2, _ = nearest_point_on_mesh(
        p0, p1, p2, vertices, faces, nodes, links, tree_faces, stack, hint
    )
    n0, n1, n2 = outward_normal_at(face, q0, q1, q2, vertices, faces, face_normals, vertex_normals)
    inside = (p0 - q0) * n0 + (p1 - q1) * n1 + (p2 - q2) * n2 < 0.0
    return q0, q1, q2, inside, face


@kernel_jit
def point_inside_mesh(
    p0, p1, p2, vertices, faces, face_normals, vertex_normals, nodes, links, tree_faces, stack, hint
):
    """(whether the point p (S) is inside the closed mesh, the face of its nearest point or
    -1): outside unless strictly inside the vertices' bounding box (as
    ``_TriangleMesh.containsPoints`` asks), else the pseudo-normal test at the nearest
    point. ``hint`` as for ``nearest_point_on_mesh``."""
    if not (nodes[0, 0] < p0 < nodes[0, 3] and nodes[0, 1] < p1 < nodes[0, 4]):
        return False, -1
    if not nodes[0, 2] < p2 < nodes[0, 5]:
        return False, -1
    _, _, _, inside, face = nearest_point_and_inside(
        p0,
        p1,
        p2,
        vertices,
        faces,
        face_normals,
        vertex_normals,
        nodes,
        links,
        tree_faces,
        stack,
        hint,
    )
    return inside, face


@kernel_jit
def face_box_meets(face_boxes, f, lo0, lo1, lo2, hi0, hi1, hi2):
    """Whether face f's box meets the box [lo, hi] (closed boxes)."""
    return (
        face_boxes[f, 0] <= hi0
        and face_boxes[f, 3] >= lo0
        and face_boxes[f, 1] <= hi1
        and face_boxes[f, 4] >= lo1
        and face_boxes[f, 2] <= hi2
        and face_boxes[f, 5] >= lo2
    )


@kernel_jit
def faces_in_box(lo0, lo1, lo2, hi0, hi1, hi2, face_boxes, nodes, links, tree_faces, stack, out):
    """Write the faces whose boxes meet the box [lo, hi] (S, closed boxes) into ``out`` (in
    tree order); returns how many."""
    count = 0
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        k = stack[top]
        if not (nodes[k, 0] <= hi0 and nodes[k, 3] >= lo0 and nodes[k, 1] <= hi1):
            continue
        if not (nodes[k, 4] >= lo1 and nodes[k, 2] <= hi2 and nodes[k, 5] >= lo2):
            continue
        child = links[k, 0]
        if child >= 0:
            stack[top], stack[top + 1] = child + 1, child
            top += 2
            continue
        for t in range(links[k, 1], links[k, 1] + links[k, 2]):
            f = tree_faces[t]
            if face_box_meets(face_boxes, f, lo0, lo1, lo2, hi0, hi1, hi2):
                out[count] = f
                count += 1
    return count


@kernel_jit
def segment_crosses_triangle(o0, o1, o2, e0, e1, e2, a0, a1, a2, b0, b1, b2, c0, c1, c2):
    """Whether the segment from o to e crosses the triangle (a, b, c) (Moller-Trumbore, the
    arithmetic of ``mesh_trackers._pierced_faces``: barycentric u, w >= 0, u + w <= 1 and
    0 <= t <= 1; a segment parallel to the face, |det| <= 1e-300, does not cross it)."""
    d0, d1, d2 = e0 - o0, e1 - o1, e2 - o2
    s0, s1, s2 = b0 - a0, b1 - a1, b2 - a2  # edge 1
    r0, r1, r2 = c0 - a0, c1 - a1, c2 - a2  # edge 2
    pv0 = d1 * r2 - d2 * r1
    pv1 = d2 * r0 - d0 * r2
    pv2 = d0 * r1 - d1 * r0
    det = s0 * pv0 + s1 * pv1 + s2 * pv2
    if not abs(det) > 1e-300:
        return False
    inverse = 1.0 / det
    t0, t1, t2 = o0 - a0, o1 - a1, o2 - a2
    u = (t0 * pv0 + t1 * pv1 + t2 * pv2) * inverse
    qv0 = t1 * s2 - t2 * s1
    qv1 = t2 * s0 - t0 * s2
    qv2 = t0 * s1 - t1 * s0
    w = (d0 * qv0 + d1 * qv1 + d2 * qv2) * inverse
    t = (r0 * qv0 + r1 * qv1 + r2 * qv2) * inverse
    return u >= 0.0 and w >= 0.0 and u + w <= 1.0 and t >= 0.0 and t <= 1.0
