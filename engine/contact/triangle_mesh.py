"""ContactGeometry.TriangleMesh: a closed, outward-oriented triangle mesh (Simbody 3.7).

The mesh is given in its surface frame S: ``TriangleMesh(vertices, faceIndices)`` (faces as
an (F, 3) array or a flat list of 3F vertex indices, counter-clockwise seen from outside),
``TriangleMesh(polygonalMesh)`` (anything with Simbody's PolygonalMesh read API; polygons
with more than three vertices are split into a fan of triangles) or
``TriangleMesh(trimesh.Trimesh)``. As in Simbody the mesh must be closed: every edge is
shared by exactly two faces, traversed once in each direction. A mesh that is open, wound
inside out (negative enclosed volume), or has a face of zero area is refused with an
:class:`~engine.common.exceptions.InvalidArgumentError` saying which.

Geometric queries (all in S): ``findNearestPoint(p)`` returns (nearest point on the surface,
whether p is inside, the outward unit normal there), ``intersectsRay`` casts a ray, and
``containsPoints`` tests many points at once (generalized winding number, exact for a closed
mesh). The vectorized helpers in this module are what the contact trackers use.
"""

from __future__ import annotations

import math

import numpy as np

from engine.common.decorations.base import frozen
from engine.common.exceptions import IndexOutOfRangeError, InvalidArgumentError
from engine.contact.contact_geometry import ContactGeometry

#: faces whose area is below this fraction of (bounding-box diagonal)^2 count as degenerate
DEGENERATE_AREA_FRACTION = 1e-14


def _triangulate(faces) -> np.ndarray:
    """Fan-triangulate polygons (each a sequence of >= 3 vertex indices)."""
    out = []
    for f, face in enumerate(faces):
        idx = [int(i) for i in face]
        if len(idx) < 3:
            raise InvalidArgumentError(f"TriangleMesh face {f} has {len(idx)} vertices; needs 3")
        for k in range(1, len(idx) - 1):
            out.append((idx[0], idx[k], idx[k + 1]))
    return np.array(out, dtype=np.int64).reshape(-1, 3)


def _vertices_faces_from(mesh, faceIndices):
    """(vertices (V, 3), faces (F, 3)) from the accepted constructor arguments."""
    if faceIndices is not None:
        try:
            v = np.array(mesh, dtype=np.float64)
            f = np.array(faceIndices)
        except (TypeError, ValueError) as exc:
            raise InvalidArgumentError(
                "TriangleMesh(vertices, faceIndices) needs an (n, 3) array of numbers and "
                "integer vertex indices"
            ) from exc
        if f.size and not np.issubdtype(f.dtype, np.integer):
            if not np.all(np.equal(np.mod(f, 1), 0)):
                raise InvalidArgumentError("TriangleMesh face indices must be integers")
        f = f.astype(np.int64)
        if f.ndim == 1:
            if f.size % 3:
                raise InvalidArgumentError(
                    f"a flat list of face indices needs 3 per face; got {f.size} indices"
                )
            f = f.reshape(-1, 3)
        if f.ndim != 2 or f.shape[1] != 3:
            raise InvalidArgumentError(f"TriangleMesh faces must have shape (F, 3), got {f.shape}")
        return v, f
    if hasattr(mesh, "vertices") and hasattr(mesh, "faces") and not callable(mesh.faces):
        return np.array(mesh.vertices, dtype=np.float64), np.array(mesh.faces, dtype=np.int64)
    needed = ("getNumVertices", "getVertexPosition", "getNumFaces", "getNumVerticesForFace")
    if all(hasattr(mesh, n) for n in needed) and hasattr(mesh, "getFaceVertex"):
        v = np.array(
            [mesh.getVertexPosition(i) for i in range(mesh.getNumVertices())], dtype=np.float64
        ).reshape(-1, 3)
        polys = [
            [mesh.getFaceVertex(f, k) for k in range(mesh.getNumVerticesForFace(f))]
            for f in range(mesh.getNumFaces())
        ]
        return v, _triangulate(polys)
    raise InvalidArgumentError(
        "ContactGeometry.TriangleMesh needs (vertices, faceIndices), a PolygonalMesh-like "
        f"object or a trimesh.Trimesh; got {type(mesh).__name__}"
    )


def _dot(x, y):
    return np.einsum("...i,...i->...", x, y)


def _closest_on_triangles(P, A, B, C):
    """Closest point of triangles (A, B, C) to points P, all broadcast together (..., 3):
    (points (..., 3), squared distances (...), interior (...) bool: the closest point lies
    strictly inside the face rather than on an edge or a vertex). Region tests after
    Ericson, Real-Time Collision Detection 5.1.5 (``kernels.mesh_queries`` has the same
    arithmetic in scalars)."""
    ab, ac = B - A, C - A
    ap = P - A
    d1 = _dot(ab, ap)
    d2 = _dot(ac, ap)
    bp = P - B
    d3 = _dot(ab, bp)
    d4 = _dot(ac, bp)
    cp = P - C
    d5 = _dot(ab, cp)
    d6 = _dot(ac, cp)
    va = d3 * d6 - d5 * d4
    vb = d5 * d2 - d1 * d6
    vc = d1 * d4 - d3 * d2
    with np.errstate(divide="ignore", invalid="ignore"):
        denom = 1.0 / (va + vb + vc)
        v_in = vb * denom
        w_in = vc * denom
        t_ab = d1 / (d1 - d3)
        t_ac = d2 / (d2 - d6)
        t_bc = (d4 - d3) / ((d4 - d3) + (d5 - d6))
    # barycentric weights (u for A, v for B, w for C) per region, last assignment wins
    v = v_in.copy()
    w = w_in.copy()
    interior = (va > 0) & (vb > 0) & (vc > 0)
    region_bc = (va <= 0) & (d4 - d3 >= 0) & (d5 - d6 >= 0)
    v = np.where(region_bc, 1.0 - t_bc, v)
    w = np.where(region_bc, t_bc, w)
    region_ac = (vb <= 0) & (d2 >= 0) & (d6 <= 0)
    v = np.where(region_ac, 0.0, v)
    w = np.where(region_ac, t_ac, w)
    region_ab = (vc <= 0) & (d1 >= 0) & (d3 <= 0)
    v = np.where(region_ab, t_ab, v)
    w = np.where(region_ab, 0.0, w)
    region_c = (d6 >= 0) & (d5 <= d6)
    v = np.where(region_c, 0.0, v)
    w = np.where(region_c, 1.0, w)
    region_b = (d3 >= 0) & (d4 <= d3)
    v = np.where(region_b, 1.0, v)
    w = np.where(region_b, 0.0, w)
    region_a = (d1 <= 0) & (d2 <= 0)
    v = np.where(region_a, 0.0, v)
    w = np.where(region_a, 0.0, w)
    interior &= ~(region_bc | region_ac | region_ab | region_a | region_b | region_c)
    Q = A + v[..., None] * ab + w[..., None] * ac
    diff = Q - P
    return Q, _dot(diff, diff), interior


def closest_points_on_triangles(P, A, B, C):
    """Closest point of each triangle (A[j], B[j], C[j]) to each point P[i].

    Returns (points (q, f, 3), squared distances (q, f), interior (q, f) bool: the closest
    point lies strictly inside the face rather than on an edge or a vertex)."""
    return _closest_on_triangles(P[:, None, :], A[None], B[None], C[None])


class _TriangleMesh(ContactGeometry):
    """A closed triangle mesh in S (outward counter-clockwise faces)."""

    TYPE_NAME = "TriangleMesh"
    TYPE_ID = 5

    def __init__(self, mesh, faceIndices=None, smooth: bool = False) -> None:
        v, f = _vertices_faces_from(mesh, faceIndices)
        self._set(v, f)
        self._smooth = bool(smooth)

    @classmethod
    def loadFile(cls, path, smooth: bool = False) -> _TriangleMesh:
        """A TriangleMesh read by trimesh from a mesh file (.obj, .stl, .ply, ...); coincident
        vertices are merged (an STL file stores each triangle's corners separately)."""
        import trimesh

        try:
            loaded = trimesh.load(str(path), force="mesh", process=True)
        except Exception as exc:  # trimesh raises many kinds for unreadable files
            raise InvalidArgumentError(f"cannot read a mesh from {path!r}: {exc}") from exc
        return cls(loaded, smooth=smooth)

    # ------------------------------------------------------------------ validation
    def _set(self, v: np.ndarray, f: np.ndarray) -> None:
        if v.ndim != 2 or v.shape[1] != 3 or v.shape[0] < 4:
            raise InvalidArgumentError(
                f"a TriangleMesh needs at least 4 vertices as an (n, 3) array, got {v.shape}"
            )
        if not np.all(np.isfinite(v)):
            raise InvalidArgumentError("TriangleMesh vertices must be finite numbers")
        if f.shape[0] < 4:
            raise InvalidArgumentError(
                f"a closed TriangleMesh needs at least 4 faces, got {f.shape[0]}"
            )
        n = v.shape[0]
        if f.min() < 0 or f.max() >= n:
            bad = int(np.flatnonzero((f < 0).any(axis=1) | (f >= n).any(axis=1))[0])
            raise InvalidArgumentError(
                f"TriangleMesh face {bad} refers to vertices {f[bad].tolist()}; valid are "
                f"0..{n - 1}"
            )
        A, B, C = v[f[:, 0]], v[f[:, 1]], v[f[:, 2]]
        cross = np.cross(B - A, C - A)
        double_area = np.linalg.norm(cross, axis=1)
        diag = float(np.linalg.norm(v.max(axis=0) - v.min(axis=0)))
        tiny = 2.0 * DEGENERATE_AREA_FRACTION * diag * diag
        repeated = (f[:, 0] == f[:, 1]) | (f[:, 1] == f[:, 2]) | (f[:, 0] == f[:, 2])
        degenerate = repeated | (double_area <= tiny)
        if degenerate.any():
            bad = np.flatnonzero(degenerate)
            raise InvalidArgumentError(
                f"TriangleMesh has {bad.size} degenerate face(s) of zero area (first: face "
                f"{int(bad[0])}, vertices {f[bad[0]].tolist()}); remove them"
            )
        # closedness: each directed edge once, and its reverse exactly once
        directed = np.concatenate((f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]))
        keys = directed[:, 0] * n + directed[:, 1]
        uniq, counts = np.unique(keys, return_counts=True)
        if (counts > 1).any():
            k = int(uniq[counts > 1][0])
            raise InvalidArgumentError(
                f"TriangleMesh edge {divmod(k, n)} is used twice in the same direction: the "
                "faces are not consistently oriented or the mesh is not manifold"
            )
        reverse = directed[:, 1] * n + directed[:, 0]
        pos = np.minimum(np.searchsorted(uniq, reverse), uniq.shape[0] - 1)
        open_edges = uniq[pos] != reverse
        if open_edges.any():
            e = directed[np.flatnonzero(open_edges)[0]]
            raise InvalidArgumentError(
                f"TriangleMesh is not closed: edge ({int(e[0])}, {int(e[1])}) belongs to only "
                f"one face ({int(open_edges.sum())} such edges); contact needs a closed mesh"
            )
        volume = float(np.einsum("ij,ij->i", A, np.cross(B, C)).sum()) / 6.0
        if volume <= 0.0:
            raise InvalidArgumentError(
                "TriangleMesh faces are wound inside out (enclosed volume "
                f"{volume:g} <= 0): list each face's vertices counter-clockwise seen from outside"
            )
        self._vertices = frozen(v)
        self._faces = np.ascontiguousarray(f, dtype=np.int64)
        self._faces.flags.writeable = False
        self._normals = frozen(cross / double_area[:, None])
        self._areas = frozen(0.5 * double_area)
        self._centroids = frozen((A + B + C) / 3.0)
        self._volume = volume
        # edges: each undirected edge once (its lower-to-higher directed copy)
        lo = np.minimum(directed[:, 0], directed[:, 1])
        hi = np.maximum(directed[:, 0], directed[:, 1])
        edge_keys, edge_index = np.unique(lo * n + hi, return_inverse=True)
        self._edges = np.stack(divmod(edge_keys, n), axis=1)
        F = f.shape[0]
        self._face_edges = edge_index.reshape(3, F).T.copy()
        edge_faces = np.full((edge_keys.shape[0], 2), -1, dtype=np.int64)
        face_of = np.tile(np.arange(F), 3)
        first = directed[:, 0] < directed[:, 1]
        edge_faces[edge_index[first], 0] = face_of[first]
        edge_faces[edge_index[~first], 1] = face_of[~first]
        self._edge_faces = edge_faces
        center = 0.5 * (v.max(axis=0) + v.min(axis=0))
        self._bound_center = frozen(center)
        self._bound_radius = float(np.sqrt(((v - center) ** 2).sum(axis=1).max()))
        self._trimesh = None
        self._query_arrays = None  # kernels.mesh_queries.mesh_query_arrays, made when asked

    # ------------------------------------------------------------------ Simbody accessors
    def isConvex(self) -> bool:
        return False

    def isSmooth(self) -> bool:
        return self._smooth

    def getNumVertices(self) -> int:
        return self._vertices.shape[0]

    def getNumFaces(self) -> int:
        return self._faces.shape[0]

    def getNumEdges(self) -> int:
        return self._edges.shape[0]

    def _check(self, value, count: int, what: str) -> int:
        if isinstance(value, bool) or not hasattr(value, "__index__"):
            raise InvalidArgumentError(f"a {what} index must be an int, got {value!r}")
        k = value.__index__()
        if not 0 <= k < count:
            raise IndexOutOfRangeError(f"no {what} {k}: the mesh has {count}")
        return k

    def getVertexPosition(self, vertex) -> np.ndarray:
        """Position of a vertex in S (m)."""
        return self._vertices[self._check(vertex, self.getNumVertices(), "vertex")]

    def getFaceVertex(self, face, vertex) -> int:
        """Vertex index of corner ``vertex`` (0..2) of ``face``."""
        f = self._check(face, self.getNumFaces(), "face")
        return int(self._faces[f, self._check(vertex, 3, "face corner")])

    def getFaceEdge(self, face, edge) -> int:
        f = self._check(face, self.getNumFaces(), "face")
        return int(self._face_edges[f, self._check(edge, 3, "face edge")])

    def getEdgeFace(self, edge, face) -> int:
        e = self._check(edge, self.getNumEdges(), "edge")
        return int(self._edge_faces[e, self._check(face, 2, "edge face")])

    def getEdgeVertex(self, edge, vertex) -> int:
        e = self._check(edge, self.getNumEdges(), "edge")
        return int(self._edges[e, self._check(vertex, 2, "edge vertex")])

    def getFaceNormal(self, face) -> np.ndarray:
        """Outward unit normal of a face, in S."""
        return self._normals[self._check(face, self.getNumFaces(), "face")]

    def getFaceArea(self, face) -> float:
        return float(self._areas[self._check(face, self.getNumFaces(), "face")])

    def findCentroid(self, face) -> np.ndarray:
        """Centroid of a face, in S."""
        return self._centroids[self._check(face, self.getNumFaces(), "face")]

    def getVolume(self) -> float:
        """Enclosed volume (m^3)."""
        return self._volume

    def getBoundingSphere(self) -> tuple[np.ndarray, float]:
        """(centre in S, radius) of a sphere enclosing the mesh."""
        return self._bound_center, self._bound_radius

    def vertices(self) -> np.ndarray:
        """All vertex positions (V, 3), read-only."""
        return self._vertices

    def faces(self) -> np.ndarray:
        """All faces (F, 3) of vertex indices, read-only."""
        return self._faces

    def faceNormals(self) -> np.ndarray:
        return self._normals

    def faceAreas(self) -> np.ndarray:
        return self._areas

    def faceCentroids(self) -> np.ndarray:
        return self._centroids

    def sizes(self) -> np.ndarray:
        return np.array([self._bound_radius, 0.0, 0.0])

    def createDecorativeGeometry(self):
        from engine.common.decorations.meshes import DecorativeMesh

        return DecorativeMesh(self._vertices, self._faces.tolist())

    def createPolygonalMesh(self):
        """The mesh as a MeshData (Simbody's PolygonalMesh read API)."""
        from engine.common.decorations.meshes import MeshData

        return MeshData(self._vertices, self._faces.tolist())

    def __repr__(self) -> str:
        return (
            f"ContactGeometry.TriangleMesh({self.getNumVertices()} vertices, "
            f"{self.getNumFaces()} faces)"
        )

    # ------------------------------------------------------------------ queries
    def containsPoints(self, points) -> np.ndarray:
        """Whether each point (k, 3) in S is inside the mesh (ray tests by trimesh)."""
        P = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        inside = np.zeros(P.shape[0], dtype=bool)
        lo = self._vertices.min(axis=0)
        hi = self._vertices.max(axis=0)
        cand = np.flatnonzero(((P > lo) & (P < hi)).all(axis=1))
        if cand.size:
            inside[cand] = self._as_trimesh().contains(P[cand])
        return inside

    def nearestPoints(self, points):
        """Vectorized findNearestPoint: (nearest (k, 3), inside (k,), normal (k, 3)) in S.

        The nearest point is the closest point of the nearest face among trimesh's
        ``nearby_faces`` (the faces whose boxes meet the box around the point reaching its
        nearest vertex, which hold the nearest point); of equally near faces the first
        listed. ``inside`` is decided by the outward pseudo-normal at the nearest point: the
        face normal inside a face, the sum of the two faces' normals on an edge, the
        angle-weighted sum of the faces' normals at a vertex (``kernels.mesh_queries``);
        this is exact for a closed mesh."""
        import trimesh

        from engine.contact.kernels.mesh_queries import ON_EDGE, mesh_query_arrays

        P = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        k = P.shape[0]
        if k == 0:
            return np.zeros((0, 3)), np.zeros(0, dtype=bool), np.zeros((0, 3))
        candidates = trimesh.proximity.nearby_faces(self._as_trimesh(), P)
        counts = np.array([len(c) for c in candidates], dtype=np.int64)
        faces = np.concatenate(candidates).astype(np.int64)
        rows = np.repeat(np.arange(k), counts)
        v, f = self._vertices, self._faces[faces]
        Q, d2, _ = _closest_on_triangles(P[rows], v[f[:, 0]], v[f[:, 1]], v[f[:, 2]])
        order = np.lexsort((d2, rows))  # by point, then distance; stable
        best = order[np.searchsorted(rows[order], np.arange(k))]
        near, tri = Q[best], faces[best]
        corners = self._vertices[self._faces[tri]]
        bary = trimesh.triangles.points_to_barycentric(corners, near)
        arrays = mesh_query_arrays(self)
        normal = self._normals[tri].copy()
        small = bary <= ON_EDGE
        count = small.sum(axis=1)
        edge_rows = np.flatnonzero(count == 1)
        if edge_rows.size:
            j = np.argmax(small[edge_rows], axis=1)  # on the edge opposite corner j
            normal[edge_rows] = arrays["face_normals"][tri[edge_rows], 1 + j]
        vertex_rows = np.flatnonzero(count >= 2)
        if vertex_rows.size:
            j = np.argmax(bary[vertex_rows], axis=1)
            vids = self._faces[tri[vertex_rows], j]
            normal[vertex_rows] = arrays["vertex_normals"][vids]
        lengths = np.linalg.norm(normal, axis=1)
        normal /= np.where(lengths > 0, lengths, 1.0)[:, None]
        inside = np.einsum("ki,ki->k", P - near, normal) < 0.0
        return near, inside, normal

    def findNearestPoint(self, position):
        """(nearest surface point in S, inside?, outward unit normal there) for a point in S."""
        p = np.asarray(position, dtype=np.float64)
        if p.shape != (3,) or not np.all(np.isfinite(p)):
            raise InvalidArgumentError(f"position must be 3 finite numbers, got {position!r}")
        near, inside, normal = self.nearestPoints(p[None])
        return frozen(near[0]), bool(inside[0]), frozen(normal[0])

    def _as_trimesh(self):
        if self._trimesh is None:
            import trimesh

            self._trimesh = trimesh.Trimesh(
                vertices=np.array(self._vertices), faces=np.array(self._faces), process=False
            )
        return self._trimesh

    def intersectsRay(self, origin, direction):
        """First hit of the ray ``origin + t direction`` (t >= 0, S) with the mesh:
        (hit, distance t, face, barycentric (u, v) of the hit in the face)."""
        o = np.asarray(origin, dtype=np.float64).reshape(3)
        d = np.asarray(direction, dtype=np.float64).reshape(3)
        nd = float(np.linalg.norm(d))
        if not (np.all(np.isfinite(o)) and np.isfinite(nd) and nd > 0):
            raise InvalidArgumentError("intersectsRay needs a finite origin and nonzero direction")
        d = d / nd
        locations, _, tri = self._as_trimesh().ray.intersects_location(
            o[None], d[None], multiple_hits=True
        )
        if not len(tri):
            return False, math.nan, -1, np.array([math.nan, math.nan])
        t = (locations - o) @ d
        keep = t >= 0.0
        if not keep.any():
            return False, math.nan, -1, np.array([math.nan, math.nan])
        j = int(np.flatnonzero(keep)[np.argmin(t[keep])])
        face = int(tri[j])
        a, b, c = self._vertices[self._faces[face]]
        m = np.column_stack((b - a, c - a))
        uv = np.linalg.lstsq(m, locations[j] - a, rcond=None)[0]
        return True, float(t[j]), face, uv


ContactGeometry.TriangleMesh = _TriangleMesh  # type: ignore[attr-defined]
_TriangleMesh.__qualname__ = "ContactGeometry.TriangleMesh"
