"""Narrow phase for the pairs involving a TriangleMesh (Simbody 3.7's HalfSpaceTriangleMesh,
SphereTriangleMesh and TriangleMeshTriangleMesh trackers), in Ground.

Each tracker returns a TriangleMeshContact listing, for each mesh surface, the faces that are
at least partly inside the other surface, or None when there are none:

* HalfSpace-TriangleMesh (half space = surface 1): faces with a vertex strictly below the
  half space's boundary plane.
* Sphere-TriangleMesh (sphere = surface 1): faces whose closest point to the sphere's centre
  is nearer than the radius.
* TriangleMesh-TriangleMesh (lower surface index = surface 1): faces of each mesh that cross
  the other's surface (a vertex inside it, or an edge of the other mesh passing through the
  face) together with the faces buried in it (all vertices inside).

``TRACKERS`` maps (lower type id, higher type id) to the tracker function; the
ContactTrackerSubsystem consults it for the pairs it has no built-in path for.
"""

from __future__ import annotations

import numpy as np

from engine.contact.triangle_mesh import closest_points_on_triangles
from engine.contact.triangle_mesh_contact import mesh_contact_from_tracker

HALF_SPACE, SPHERE, TRIANGLE_MESH = 0, 1, 5


def half_space_mesh(h, m, R_H, p_H, R_M, p_M, half_space, mesh):
    """Faces of the mesh (surface 2) with a vertex inside the half space (surface 1)."""
    n_M = R_M.T @ (-R_H[:, 0])  # outward half-space normal, in M
    plane_height = float((p_H - p_M) @ (-R_H[:, 0]))  # plane along n, from M's origin
    below = mesh.vertices() @ n_M < plane_height
    if not below.any():
        return None
    faces = np.flatnonzero(below[mesh.faces()].any(axis=1))
    return mesh_contact_from_tracker(h, m, (R_H, p_H, R_M, p_M), (), faces.tolist())


def sphere_mesh(s, m, R_S, p_S, R_M, p_M, sphere, mesh):
    """Faces of the mesh (surface 2) that come nearer the sphere's centre than its radius."""
    c_M = R_M.T @ (p_S - p_M)
    r = sphere.getRadius()
    centre, radius = mesh.getBoundingSphere()
    if float(np.linalg.norm(c_M - centre)) >= r + radius:
        return None
    v, f = mesh.vertices(), mesh.faces()
    lo = np.minimum(np.minimum(v[f[:, 0]], v[f[:, 1]]), v[f[:, 2]])
    hi = np.maximum(np.maximum(v[f[:, 0]], v[f[:, 1]]), v[f[:, 2]])
    near_box = np.maximum(lo - c_M, 0.0) + np.maximum(c_M - hi, 0.0)
    cand = np.flatnonzero(np.einsum("fi,fi->f", near_box, near_box) < r * r)
    if not cand.size:
        return None
    fc = f[cand]
    _, d2, _ = closest_points_on_triangles(c_M[None], v[fc[:, 0]], v[fc[:, 1]], v[fc[:, 2]])
    faces = cand[d2[0] < r * r]
    if not faces.size:
        return None
    return mesh_contact_from_tracker(s, m, (R_S, p_S, R_M, p_M), (), faces.tolist())


def _pierced_faces(A, B, C, edges_start, edges_end) -> np.ndarray:
    """Which triangles (A, B, C) are crossed by any of the segments (same frame)."""
    lo = np.minimum(np.minimum(A, B), C)
    hi = np.maximum(np.maximum(A, B), C)
    slo = np.minimum(edges_start, edges_end)
    shi = np.maximum(edges_start, edges_end)
    hit = np.zeros(A.shape[0], dtype=bool)
    if not A.shape[0] or not edges_start.shape[0]:
        return hit
    step = max(1, 200_000 // A.shape[0])
    for s in range(0, edges_start.shape[0], step):
        a0, a1 = slo[s : s + step], shi[s : s + step]
        overlap = ((a0[:, None, :] <= hi[None]) & (a1[:, None, :] >= lo[None])).all(axis=2)
        ei, fi = np.nonzero(overlap)
        if not ei.size:
            continue
        o = edges_start[s : s + step][ei]
        d = edges_end[s : s + step][ei] - o
        e1, e2 = B[fi] - A[fi], C[fi] - A[fi]
        pvec = np.cross(d, e2)
        det = np.einsum("ki,ki->k", e1, pvec)
        ok = np.abs(det) > 1e-300
        with np.errstate(divide="ignore", invalid="ignore"):
            inv = 1.0 / det
            tvec = o - A[fi]
            u = np.einsum("ki,ki->k", tvec, pvec) * inv
            qvec = np.cross(tvec, e1)
            w = np.einsum("ki,ki->k", d, qvec) * inv
            t = np.einsum("ki,ki->k", e2, qvec) * inv
            # a segment parallel to a face (det 0) gives inf and nan here; ``ok`` drops it
            crossing = ok & (u >= 0) & (w >= 0) & (u + w <= 1) & (t >= 0) & (t <= 1)
        hit[fi[crossing]] = True
    return hit


def _faces_inside(mesh, other, X_R, X_p) -> np.ndarray:
    """Faces of ``mesh`` at least partly inside ``other``; X = pose of mesh in other's frame.

    Only faces and edges within the overlap of the two meshes' bounding boxes (in the
    mesh's frame) are examined."""
    v, f = mesh.vertices(), mesh.faces()
    ov = (other.vertices() - X_p) @ X_R  # other's vertices in mesh's frame
    lo = np.maximum(v.min(axis=0), ov.min(axis=0))
    hi = np.minimum(v.max(axis=0), ov.max(axis=0))
    if (lo > hi).any():
        return np.zeros(0, dtype=np.int64)
    A, B, C = v[f[:, 0]], v[f[:, 1]], v[f[:, 2]]
    flo = np.minimum(np.minimum(A, B), C)
    fhi = np.maximum(np.maximum(A, B), C)
    cand = np.flatnonzero(((flo <= hi) & (fhi >= lo)).all(axis=1))
    if not cand.size:
        return cand
    used = np.unique(f[cand])
    vertex_inside = np.zeros(v.shape[0], dtype=bool)
    vertex_inside[used] = other.containsPoints(v[used] @ X_R.T + X_p)
    faces = vertex_inside[f[cand]].any(axis=1)
    # edges of the other mesh passing through this mesh's faces (vertices all outside)
    edges = other._edges
    e0, e1 = ov[edges[:, 0]], ov[edges[:, 1]]
    near = ((np.minimum(e0, e1) <= hi) & (np.maximum(e0, e1) >= lo)).all(axis=1)
    rest = np.flatnonzero(~faces)
    if rest.size and near.any():
        fr = cand[rest]
        faces[rest] = _pierced_faces(A[fr], B[fr], C[fr], e0[near], e1[near])
    return cand[faces]


def mesh_mesh(m1, m2, R1, p1, R2, p2, mesh1, mesh2):
    """Faces of each mesh that are partly or wholly inside the other."""
    c1, r1 = mesh1.getBoundingSphere()
    c2, r2 = mesh2.getBoundingSphere()
    if float(np.linalg.norm((p1 + R1 @ c1) - (p2 + R2 @ c2))) >= r1 + r2:
        return None
    R12 = R1.T @ R2  # mesh 2 in mesh 1
    p12 = R1.T @ (p2 - p1)
    faces1 = _faces_inside(mesh1, mesh2, R12.T, -(R12.T @ p12))
    faces2 = _faces_inside(mesh2, mesh1, R12, p12)
    if not faces1.size and not faces2.size:
        return None
    return mesh_contact_from_tracker(m1, m2, (R1, p1, R2, p2), faces1.tolist(), faces2.tolist())


#: (type id of surface 1, type id of surface 2) -> tracker(s1, s2, R1, p1, R2, p2, g1, g2)
TRACKERS = {
    (HALF_SPACE, TRIANGLE_MESH): half_space_mesh,
    (SPHERE, TRIANGLE_MESH): sphere_mesh,
    (TRIANGLE_MESH, TRIANGLE_MESH): mesh_mesh,
}


def tracked_pairs(kinds, may_interact) -> list:
    """(surface 1, surface 2, tracker) for every pair of surfaces a tracker of
    ``PAIR_TRACKERS`` handles and ``may_interact(i, j)`` allows; surface 1 has the lower
    type id (the lower index for two surfaces of one kind)."""
    from engine.contact.implicit_pair_tracker import ELLIPSOID

    kinds = [int(k) for k in kinds]
    special = [i for i, k in enumerate(kinds) if k in (TRIANGLE_MESH, ELLIPSOID)]
    pairs = set()
    for s in special:
        for j, kind in enumerate(kinds):
            if j == s:
                continue
            a, b = (j, s) if (kind, j) < (kinds[s], s) else (s, j)
            track = PAIR_TRACKERS.get((kinds[a], kinds[b]))
            if track is not None and may_interact(a, b):
                pairs.add((a, b, track))
    return sorted(pairs, key=lambda t: (t[0], t[1]))


def track_pair(i: int, j: int, shape_i, shape_j, R_GS, p_GS):
    """The TriangleMeshContact of surfaces i and j (either order) if a tracker handles the
    pair, else None; surface 1 is the one with the lower type id (lower index if equal)."""
    ki, kj = shape_i.getTypeId(), shape_j.getTypeId()
    if (ki, kj) > (kj, ki) or (ki == kj and i > j):
        i, j, shape_i, shape_j, ki, kj = j, i, shape_j, shape_i, kj, ki
    track = TRACKERS.get((ki, kj))
    if track is None:
        return None
    return track(i, j, R_GS[i], p_GS[i], R_GS[j], p_GS[j], shape_i, shape_j)


def _pair_trackers() -> dict:
    from engine.contact.implicit_pair_tracker import ELLIPSOID, SPHERE, convex_implicit_pair

    table = dict(TRACKERS)
    table[(SPHERE, ELLIPSOID)] = convex_implicit_pair
    table[(ELLIPSOID, ELLIPSOID)] = convex_implicit_pair
    return table


#: every tracker the ContactTrackerSubsystem consults besides its built-in pairs
PAIR_TRACKERS = _pair_trackers()
