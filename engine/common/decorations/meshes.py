"""Mesh decorations: an in-memory polygon mesh (DecorativeMesh) or a mesh file (DecorativeMeshFile).

Vertex positions are in the decoration's local frame D, in the model's length unit.
"""

from __future__ import annotations

import os

import numpy as np

from engine.common.decorations.base import DecorativeGeometry, frozen
from engine.common.exceptions import InvalidArgumentError

MESH_FILE_EXTENSIONS = (".obj", ".stl", ".vtp")
"""Mesh-file formats the VTK renderer reads (compare lower-cased)."""


class MeshData:
    """A minimal read-only polygon mesh with the read API of Simbody's PolygonalMesh.

    ``vertices`` is an (n, 3) array of positions; ``faces`` a sequence of faces, each a sequence
    of at least 3 vertex indices in counter-clockwise order seen from outside.
    """

    __slots__ = ("_faces", "_vertices")

    def __init__(self, vertices, faces) -> None:
        try:
            v = np.array(vertices, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise InvalidArgumentError("mesh vertices must be an (n, 3) array of numbers") from exc
        if v.ndim != 2 or v.shape[1] != 3:
            raise InvalidArgumentError(f"mesh vertices must have shape (n, 3), got {v.shape}")
        if not np.all(np.isfinite(v)):
            raise InvalidArgumentError("mesh vertices must be finite")
        n = v.shape[0]
        out = []
        for f, face in enumerate(faces):
            try:
                idx = tuple(int(i.__index__()) for i in np.asarray(face).reshape(-1).tolist())
            except (AttributeError, TypeError, ValueError) as exc:
                raise InvalidArgumentError(f"mesh face {f} must be integer indices") from exc
            if len(idx) < 3:
                raise InvalidArgumentError(f"mesh face {f} has {len(idx)} vertices; needs >= 3")
            if min(idx) < 0 or max(idx) >= n:
                raise InvalidArgumentError(
                    f"mesh face {f} refers to vertex indices {list(idx)}; valid are 0..{n - 1}"
                )
            out.append(idx)
        self._vertices = frozen(v)
        self._faces = tuple(out)

    def getNumVertices(self) -> int:
        return self._vertices.shape[0]

    def getNumFaces(self) -> int:
        return len(self._faces)

    def getVertexPosition(self, vertex: int) -> np.ndarray:
        return self._vertices[vertex]

    def getNumVerticesForFace(self, face: int) -> int:
        return len(self._faces[face])

    def getFaceVertex(self, face: int, vertex: int) -> int:
        return self._faces[face][vertex]

    def vertices(self) -> np.ndarray:
        """All vertex positions as a read-only (n, 3) array."""
        return self._vertices

    def faces(self) -> tuple[tuple[int, ...], ...]:
        """All faces as tuples of vertex indices."""
        return self._faces


def _as_mesh_data(mesh) -> MeshData:
    """Copy a PolygonalMesh-like object (Simbody's read API) into a MeshData."""
    if isinstance(mesh, MeshData):
        return mesh
    needed = ("getNumVertices", "getVertexPosition", "getNumFaces", "getNumVerticesForFace")
    if not all(hasattr(mesh, name) for name in needed) or not hasattr(mesh, "getFaceVertex"):
        raise InvalidArgumentError(
            "DecorativeMesh needs a PolygonalMesh-like object (getNumVertices, getVertexPosition, "
            f"getNumFaces, getNumVerticesForFace, getFaceVertex) or (vertices, faces); "
            f"got {type(mesh).__name__}"
        )
    vertices = [mesh.getVertexPosition(i) for i in range(mesh.getNumVertices())]
    faces = [
        [mesh.getFaceVertex(f, k) for k in range(mesh.getNumVerticesForFace(f))]
        for f in range(mesh.getNumFaces())
    ]
    return MeshData(np.reshape(vertices, (-1, 3)), faces)


class DecorativeMesh(DecorativeGeometry):
    """A polygon mesh given in D: ``DecorativeMesh(polygonalMesh)`` or ``(vertices, faces)``.

    ``polygonalMesh`` is any object with Simbody's PolygonalMesh read API; it is copied, so later
    changes to it are not seen. ``getMesh()`` returns the copy (a MeshData).
    """

    def __init__(self, mesh, faces=None) -> None:
        super().__init__()
        self._mesh = _as_mesh_data(mesh) if faces is None else MeshData(mesh, faces)

    def getMesh(self) -> MeshData:
        return self._mesh

    def implementGeometry(self, geometryImpl) -> None:
        geometryImpl.implementMeshGeometry(self)

    def _describe(self) -> str:
        return f"{self._mesh.getNumVertices()} vertices, {self._mesh.getNumFaces()} faces"


class DecorativeMeshFile(DecorativeGeometry):
    """A mesh read from a file (.obj, .stl or .vtp) by the renderer; vertices in D.

    Only the path is stored here; the file is not opened (a missing or unreadable file is reported
    by the renderer, which then skips the decoration).
    """

    def __init__(self, meshFileName) -> None:
        super().__init__()
        self._path = _check_path(meshFileName)

    def getMeshFile(self) -> str:
        """The mesh file path as given (a str)."""
        return self._path

    def implementGeometry(self, geometryImpl) -> None:
        geometryImpl.implementMeshFileGeometry(self)

    def _describe(self) -> str:
        return repr(self._path)


def _check_path(path) -> str:
    if not isinstance(path, (str, os.PathLike)):
        raise InvalidArgumentError(f"mesh file name must be a str or path, got {type(path)}")
    p = os.fspath(path)
    if not isinstance(p, str) or not p:
        raise InvalidArgumentError("mesh file name must be a non-empty text path")
    return p
