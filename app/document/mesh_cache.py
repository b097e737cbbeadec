"""Mesh files of a document's ``mesh`` geometry, turned into engine decorations.

The VTK renderer reads .obj, .stl and .vtp itself (``DecorativeMeshFile``). Other formats that
URDFs use (COLLADA .dae, .ply...) are read here with trimesh into an in-memory
``DecorativeMesh``; the loaded triangles are cached by absolute path, modification time and
size, so rebuilding a model after an edit does not read its meshes again.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np

from engine.common.decorations.meshes import (
    MESH_FILE_EXTENSIONS,
    DecorativeMesh,
    DecorativeMeshFile,
    MeshData,
)

_cache: dict[tuple, MeshData | None] = {}
_lock = threading.Lock()


def resolve(file: str, base_dir=None) -> Path:
    """The absolute path of a document's mesh file name (relative names start at base_dir,
    or the current directory when it is None)."""
    p = Path(os.path.expanduser(file))
    if not p.is_absolute():
        p = Path(base_dir if base_dir is not None else os.getcwd()) / p
    return Path(os.path.normpath(p))


def load_triangles(path: Path) -> MeshData | None:
    """The triangles of a mesh file read with trimesh (all parts of a scene joined, in the
    file's own units), or None when it cannot be read. Cached per file version."""
    try:
        st = path.stat()
    except OSError:
        return None
    key = (str(path), st.st_mtime_ns, st.st_size)
    with _lock:
        if key in _cache:
            return _cache[key]
    mesh = _read(path)
    with _lock:
        _cache[key] = mesh
    return mesh


def _read(path: Path) -> MeshData | None:
    import trimesh

    try:
        loaded = trimesh.load(str(path), force="mesh", process=False)
    except Exception:  # noqa: BLE001  (any reader failure means: cannot be read)
        return None
    vertices = np.asarray(getattr(loaded, "vertices", ()), dtype=np.float64)
    faces = np.asarray(getattr(loaded, "faces", ()), dtype=np.int64)
    if vertices.ndim != 2 or len(vertices) == 0 or faces.ndim != 2 or len(faces) == 0:
        return None
    return MeshData(vertices, faces)


def clear_cache() -> None:
    with _lock:
        _cache.clear()


def mesh_decoration(file: str, base_dir=None):
    """A DecorativeMeshFile (formats the renderer reads) or a DecorativeMesh (other formats,
    read here); a file that cannot be read gives a DecorativeMeshFile, which the renderer
    reports by name and skips."""
    path = resolve(file, base_dir)
    if path.suffix.lower() in MESH_FILE_EXTENSIONS:
        return DecorativeMeshFile(str(path))
    mesh = load_triangles(path)
    if mesh is None:
        return DecorativeMeshFile(str(path))
    return DecorativeMesh(mesh)
