"""Mesh files in formats VTK has no reader for (COLLADA .dae, .ply, .glb...), read with trimesh.

``read_polydata(path)`` returns a vtkPolyData of the file's triangles (every part of a scene
joined, in the file's units) or raises OSError/ValueError saying why it cannot. Results are
cached for the process by absolute path, modification time and size, so a model rebuilt after
an edit, or a second view, does not read its meshes again.
"""

from __future__ import annotations

import os
import threading

import numpy as np
from vtkmodules.util.numpy_support import numpy_to_vtk, numpy_to_vtkIdTypeArray
from vtkmodules.vtkCommonCore import vtkPoints
from vtkmodules.vtkCommonDataModel import vtkCellArray, vtkPolyData

_cache: dict[tuple, vtkPolyData] = {}
_lock = threading.Lock()


def read_polydata(path: str) -> vtkPolyData:
    st = os.stat(path)
    key = (os.path.abspath(path), st.st_mtime_ns, st.st_size)
    with _lock:
        if key in _cache:
            return _cache[key]
    poly = polydata_from_triangles(*read_triangles(path))
    with _lock:
        _cache[key] = poly
    return poly


def read_triangles(path: str) -> tuple[np.ndarray, np.ndarray]:
    """(vertices (n, 3), triangles (m, 3)) of a mesh file, read with trimesh."""
    import trimesh

    try:
        mesh = trimesh.load(path, force="mesh", process=False)
    except Exception as exc:  # noqa: BLE001  (every reader failure means: cannot be read)
        raise ValueError(f"trimesh cannot read it: {exc}") from None
    vertices = np.asarray(getattr(mesh, "vertices", ()), dtype=np.float64).reshape(-1, 3)
    faces = np.asarray(getattr(mesh, "faces", ()), dtype=np.int64).reshape(-1, 3)
    if len(vertices) == 0 or len(faces) == 0:
        raise ValueError("it has no triangles")
    return vertices, faces


def polydata_from_triangles(vertices: np.ndarray, faces: np.ndarray) -> vtkPolyData:
    points = vtkPoints()
    points.SetData(numpy_to_vtk(np.ascontiguousarray(vertices, dtype=np.float64), deep=True))
    offsets = np.arange(0, 3 * len(faces) + 1, 3, dtype=np.int64)
    cells = vtkCellArray()
    cells.SetData(
        numpy_to_vtkIdTypeArray(offsets, deep=True),
        numpy_to_vtkIdTypeArray(np.ascontiguousarray(faces, dtype=np.int64).ravel(), deep=True),
    )
    poly = vtkPolyData()
    poly.SetPoints(points)
    poly.SetPolys(cells)
    return poly


def clear_cache() -> None:
    with _lock:
        _cache.clear()
