"""The document's mesh geometry: JSON round trip and older files, relative names, and the
renderer drawing formats VTK has no reader for (through trimesh, cached)."""

from __future__ import annotations

import numpy as np

from app.document import ModelDocument, build, model_io
from app.document.specs import BodySpec, FrameSpec, GeometrySpec, ModelData

PLY = """ply
format ascii 1.0
element vertex 4
property float x
property float y
property float z
element face 2
property list uchar int vertex_indices
end_header
0 0 0
1 0 0
1 1 0
0 1 0
3 0 1 2
3 0 2 3
"""


def test_mesh_geometry_round_trips_and_plain_files_are_unchanged(tmp_path):
    mesh = GeometrySpec(
        "mesh", {"file": "meshes/square.ply", "scale": (2.0, 2.0, 1.0)}, FrameSpec(), None, 1.0
    )
    hull = GeometrySpec("sphere", {"radius": 0.5}, role="collision")
    data = ModelData("m", [BodySpec("b", geometry=(mesh, hull))])
    (tmp_path / "meshes").mkdir()
    (tmp_path / "meshes" / "square.ply").write_text(PLY)
    path = tmp_path / "m.mbs.json"
    model_io.save(ModelDocument(data), path)
    text = path.read_text()
    assert '"role": "collision"' in text and text.count('"role"') == 1  # visual is the default
    doc = model_io.load(path)
    assert doc.data.body("b").geometry == (mesh, hull)
    assert doc.base_dir == tmp_path.resolve()
    decorations = build(doc).mobilized_bodies["b"].getBody().getDecorations()
    assert len(decorations) == 1  # the collision sphere is not drawn
    g = decorations[0][1]
    assert g.getMeshFile() == str(tmp_path.resolve() / "meshes" / "square.ply")
    assert np.allclose(g.getScaleFactors(), (2, 2, 1))


def test_renderer_reads_formats_vtk_lacks_through_trimesh(tmp_path):
    from engine.common.decorative_geometry import DecorativeMeshFile
    from viz import mesh_files
    from viz.vtk_builder import VtkGeometryBuilder

    path = tmp_path / "square.ply"
    path.write_text(PLY)
    builder = VtkGeometryBuilder()
    messages = []
    builder.report_once = lambda key, message: messages.append(message)
    (item,) = builder.build([DecorativeMeshFile(str(path))])
    assert not messages and item.mapper is not None
    poly = mesh_files.read_polydata(str(path))
    assert poly.GetNumberOfPoints() == 4 and poly.GetNumberOfPolys() == 2
    assert mesh_files.read_polydata(str(path)) is poly  # cached
    (tmp_path / "broken.ply").write_text("ply\nnonsense\n")
    assert builder.build([DecorativeMeshFile(str(tmp_path / "broken.ply"))]) == []
    assert "broken.ply" in messages[0] and "cannot be read" in messages[0]
