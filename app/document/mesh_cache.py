"""The engine decoration of a document's ``mesh`` geometry.

A mesh is a ``DecorativeMeshFile`` naming the resolved file, scaled by the geometry's
``scale``; the renderer reads it (VTK's readers for .obj/.stl/.vtp, trimesh for the rest, see
``viz.mesh_files``) and caches it, so building a System never reads mesh files. A scale with a
negative component mirrors the mesh, which scale factors cannot express: such a mesh is read
here (trimesh, cached per file version) and becomes a mirrored in-memory ``DecorativeMesh``.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np

from engine.common.decorations.meshes import DecorativeMesh, DecorativeMeshFile, MeshData

_mirrored: dict[tuple, MeshData] = {}
_lock = threading.Lock()


def resolve(file: str, base_dir=None) -> Path:
    """The absolute path of a document's mesh file name (relative names start at base_dir,
    or the current directory when it is None)."""
    p = Path(os.path.expanduser(file))
    if not p.is_absolute():
        p = Path(base_dir if base_dir is not None else os.getcwd()) / p
    return Path(os.path.normpath(p))


#: a mesh file name written relative to its document climbs at most this many directories
MAX_UP = 3


def mesh_names_for(data, target_dir, base_dir=None):
    """A copy of the model ``data`` (a ModelData) whose mesh file names suit a document
    saved in ``target_dir``: each name (relative ones start at ``base_dir``, where the
    document was read from) becomes relative to ``target_dir``, so the document and its
    meshes can move together; a name that would climb more than MAX_UP directories, or lies
    on another drive, is written absolute."""
    from app.document.specs import replace

    target = os.path.abspath(target_dir)

    def renamed(params: dict) -> dict:
        path = str(resolve(params.get("file", ""), base_dir))
        try:
            name = os.path.relpath(path, target)
        except ValueError:  # another drive (Windows)
            name = path
        if name.split(os.sep).count("..") > MAX_UP:
            name = path
        name = name.replace(os.sep, "/")
        return params if name == params.get("file") else {**params, "file": name}

    def rename(g):
        return g if g.kind != "mesh" else replace(g, params=renamed(g.params))

    def rename_surface(c):  # a mesh contact surface's file is renamed like a mesh's
        if c.shape != "mesh" or not c.params.get("file"):
            return c
        return replace(c, params=renamed(c.params))

    out = data.copy()
    out.bodies = [
        replace(
            b,
            geometry=tuple(rename(g) for g in b.geometry),
            contact_surfaces=tuple(rename_surface(c) for c in b.contact_surfaces),
        )
        for b in out.bodies
    ]
    out.ground_geometry = [rename(g) for g in out.ground_geometry]
    out.ground_contact_surfaces = [rename_surface(c) for c in out.ground_contact_surfaces]
    return out


def mesh_decoration(file: str, scale=(1.0, 1.0, 1.0), base_dir=None):
    path = resolve(file, base_dir)
    s = np.asarray(scale, dtype=np.float64)
    if np.all(s > 0):
        return DecorativeMeshFile(str(path)).setScaleFactors(tuple(s))
    mesh = _mirrored_mesh(path, s)
    if mesh is None:  # the renderer reports the unreadable file by name
        return DecorativeMeshFile(str(path)).setScaleFactors(tuple(np.abs(s)))
    return DecorativeMesh(mesh)


def _mirrored_mesh(path: Path, scale: np.ndarray) -> MeshData | None:
    try:
        st = path.stat()
    except OSError:
        return None
    key = (str(path), st.st_mtime_ns, st.st_size, tuple(scale))
    with _lock:
        if key in _mirrored:
            return _mirrored[key]
    from viz.mesh_files import read_triangles

    try:
        vertices, faces = read_triangles(str(path))
    except ValueError:
        return None
    if np.prod(np.sign(scale)) < 0:  # a reflection turns faces inside out: flip their order
        faces = faces[:, ::-1]
    mesh = MeshData(vertices * scale, faces)
    with _lock:
        _mirrored[key] = mesh
    return mesh
