"""Copy an imported model's meshes beside its document, so the two travel together.

``bundle_meshes(result, out_dir)`` copies every mesh file the model uses into
``out_dir/meshes/`` (keeping their layout below the deepest directory they share) together
with the licence files of the robot description they came from (LICENSE*, COPYING*, README*
found in the mesh directories' ancestors up to the description's root), and points the
document at the copies. With ``reduce`` (0 < reduce < 1) each mesh is decimated to about that
fraction of its triangles with VTK's quadric decimation and written as binary STL, which also
converts formats such as COLLADA.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from app.document.specs import replace
from app.importers.urdf.convert import ImportResult

LICENCE_PREFIXES = ("license", "licence", "copying", "readme")


def _licences(mesh_dirs: list[Path], stop: Path) -> list[Path]:
    """Licence files in the mesh directories and their ancestors, not above ``stop``."""
    found: list[Path] = []
    seen: set[Path] = set()
    for d in mesh_dirs:
        for a in (d, *d.parents):
            if a in seen:
                if a == stop:
                    break
                continue
            seen.add(a)
            for f in sorted(a.iterdir()) if a.is_dir() else ():
                if f.is_file() and f.name.lower().startswith(LICENCE_PREFIXES):
                    found.append(f)
            if a == stop or a == a.parent:
                break
    return found


def _decimated_stl(source: Path, target: Path, reduce: float) -> None:
    from vtkmodules.vtkCommonDataModel import vtkPolyData
    from vtkmodules.vtkFiltersCore import (
        vtkCleanPolyData,
        vtkQuadricDecimation,
        vtkTriangleFilter,
    )
    from vtkmodules.vtkIOGeometry import vtkSTLWriter

    from viz.mesh_files import polydata_from_triangles, read_triangles

    poly: vtkPolyData = polydata_from_triangles(*read_triangles(str(source)))
    clean = vtkCleanPolyData()  # COLLADA repeats vertices per face: join them first
    clean.SetInputData(poly)
    tri = vtkTriangleFilter()
    tri.SetInputConnection(clean.GetOutputPort())
    dec = vtkQuadricDecimation()
    dec.SetInputConnection(tri.GetOutputPort())
    dec.SetTargetReduction(1.0 - reduce)
    dec.VolumePreservationOn()
    writer = vtkSTLWriter()
    writer.SetInputConnection(dec.GetOutputPort())
    writer.SetFileTypeToBinary()
    writer.SetFileName(str(target))
    writer.Write()


def bundle_meshes(
    result: ImportResult, out_dir, reduce: float | None = None, package_root=None
) -> list[Path]:
    """Copy the meshes (and licences) of ``result`` into ``out_dir/meshes``; updates
    ``result.data`` and ``result.meshes`` in place and returns the files written."""
    out_dir = Path(out_dir)
    meshes = sorted(set(result.meshes))
    if not meshes:
        return []
    common = Path(os.path.commonpath([str(m.parent) for m in meshes]))
    target_dir = out_dir / "meshes"
    written: list[Path] = []
    new_name: dict[str, str] = {}
    for m in meshes:
        rel = m.relative_to(common)
        target = target_dir / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if reduce is not None:
            target = target.with_suffix(".stl")
            _decimated_stl(m, target, reduce)
        else:
            shutil.copyfile(m, target)
        written.append(target)
        new_name[str(m)] = str(target.resolve())
    stop = Path(package_root) if package_root is not None else common.parent
    for lic in _licences(sorted({m.parent for m in meshes}), stop):
        target = target_dir / lic.name
        if not target.exists():
            shutil.copyfile(lic, target)
            written.append(target)

    def renamed(g):
        if g.kind == "mesh" and g.params["file"] in new_name:
            return replace(g, params={**g.params, "file": new_name[g.params["file"]]})
        return g

    data = result.data
    data.bodies = [replace(b, geometry=tuple(renamed(g) for g in b.geometry)) for b in data.bodies]
    result.meshes = sorted(Path(p) for p in new_name.values())
    return written
