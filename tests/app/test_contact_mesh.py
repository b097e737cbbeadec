"""Mesh contact surfaces in the model document: round trip with the file name relative to the
model file, the build into a ContactGeometry.TriangleMesh, refusals (missing file, open mesh)
and the convex hull of an open mesh."""

from __future__ import annotations

import json

import numpy as np
import pytest
import trimesh

from app.document import DocumentError, ModelDocument, model_io
from app.document.builder import BuildError, build
from app.document.mesh_cache import mesh_names_for
from app.document.specs import ContactSurfaceSpec


def _box_file(path, open_mesh: bool = False):
    box = trimesh.creation.box(extents=(0.2, 0.4, 0.6))
    if open_mesh:
        box = trimesh.Trimesh(box.vertices, box.faces[:-1], process=False)
    box.export(str(path))
    return path


def _ball_document() -> ModelDocument:
    from app.document.contact_examples import bouncing_balls

    return ModelDocument(bouncing_balls())


def _mesh(file, **params) -> ContactSurfaceSpec:
    return ContactSurfaceSpec(
        "mesh", {"file": str(file), "scale": (1.0, 1.0, 1.0), "convex_hull": False, **params}
    )


def test_mesh_surface_round_trips_relative_to_the_model_file_and_builds(tmp_path):
    meshes = tmp_path / "meshes"
    meshes.mkdir()
    _box_file(meshes / "box.stl")
    doc = _ball_document()
    doc.base_dir = tmp_path
    body = doc.body_names()[0]
    surface = _mesh(meshes / "box.stl", scale=(2.0, 1.0, 1.0))
    doc.set_contact_surfaces(body, [*doc.contact_surfaces_of(body), surface])

    path = tmp_path / "model.mbs.json"
    model_io.save(mesh_names_for(doc.data, tmp_path, doc.base_dir), path)
    raw = json.loads(path.read_text())
    assert raw["version"] == 3
    saved = raw["model"]["bodies"][0]["contact_surfaces"][-1]
    assert saved["shape"] == "mesh"
    assert saved["params"]["file"] == "meshes/box.stl"
    assert saved["params"]["scale"] == [2.0, 1.0, 1.0]

    loaded = model_io.load(path)
    c = loaded.contact_surfaces_of(body)[-1]
    assert c.params["file"] == "meshes/box.stl" and c.params["convex_hull"] is False

    built = build(loaded)
    b = built.mobilized_bodies[body].getBody()
    geometries = [b.getContactSurface(i).getShape() for i in range(b.getNumContactSurfaces())]
    meshes_built = [g for g in geometries if g.getTypeName() == "TriangleMesh"]
    assert len(meshes_built) == 1
    v = np.asarray(meshes_built[0].vertices())
    np.testing.assert_allclose(v.max(axis=0) - v.min(axis=0), (0.4, 0.4, 0.6), atol=1e-12)


def test_missing_and_open_meshes_are_refused_naming_the_field(tmp_path):
    doc = _ball_document()
    doc.base_dir = tmp_path
    body = doc.body_names()[0]
    before = doc.contact_surfaces_of(body)
    with pytest.raises(DocumentError) as missing:
        doc.set_contact_surfaces(body, [*before, _mesh("nowhere.stl")])
    assert missing.value.field == f"contact_surfaces[{len(before)}].file"
    assert "no such file" in missing.value.message

    _box_file(tmp_path / "open.stl", open_mesh=True)
    with pytest.raises(DocumentError) as open_:
        doc.set_contact_surfaces(body, [*before, _mesh("open.stl")])
    assert open_.value.field.endswith(".convex_hull")
    assert "not closed; use its convex hull" in open_.value.message
    assert doc.contact_surfaces_of(body) == before

    doc.set_contact_surfaces(body, [*before, _mesh("open.stl", convex_hull=True)])
    b = build(doc).mobilized_bodies[body].getBody()
    hull = b.getContactSurface(b.getNumContactSurfaces() - 1).getShape()
    assert hull.getTypeName() == "TriangleMesh"
    assert hull.getNumFaces() == 12  # the box's hull: the missing face is back


def test_a_mesh_surface_with_no_file_is_refused_by_the_build(tmp_path):
    doc = _ball_document()
    body = doc.body_names()[0]
    doc.set_contact_surfaces(body, [*doc.contact_surfaces_of(body), _mesh("")])
    with pytest.raises(BuildError, match="no mesh file chosen"):
        build(doc)


def test_bad_mesh_params_are_refused():
    doc = _ball_document()
    body = doc.body_names()[0]
    with pytest.raises(DocumentError, match="must not be 0"):
        doc.set_contact_surfaces(body, [_mesh("", scale=(1.0, 0.0, 1.0))])
    with pytest.raises(DocumentError, match="true or false"):
        doc.set_contact_surfaces(body, [_mesh("", convex_hull="yes")])
