"""Contact in the model document: specs, validation, file version 3, older files, the ground
plane aligned with the up direction."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app.document import GROUND, DocumentError, ModelDocument, model_io
from app.document.examples import example_path
from app.document.specs import (
    ContactMaterialSpec,
    ContactSurfaceSpec,
    FrameSpec,
    ground_plane_frame,
    replace,
)


def _ball_document() -> ModelDocument:
    from app.document.contact_examples import bouncing_balls

    return ModelDocument(bouncing_balls())


def test_contact_round_trip_writes_version_3_and_reads_it_back(tmp_path):
    doc = _ball_document()
    doc.set_contact_settings(transition_velocity=0.02, track_dissipated_energy=True)
    name = doc.body_names()[0]
    surfaces = doc.contact_surfaces_of(name)
    surfaces[0] = replace(surfaces[0], cliques=("left", "balls"), color=(1.0, 0.0, 0.0))
    doc.set_contact_surfaces(name, surfaces)
    path = tmp_path / "balls.mbs.json"
    model_io.save(doc, path)
    raw = json.loads(path.read_text())
    assert raw["version"] == 3
    assert raw["model"]["contact"]["transition_velocity"] == 0.02
    assert raw["model"]["bodies"][0]["contact_surfaces"][0]["cliques"] == ["left", "balls"]
    loaded = model_io.load(path)
    assert loaded == doc
    assert loaded.data.contact.track_dissipated_energy is True


def test_old_version_files_still_open_and_models_without_contact_keep_their_version(tmp_path):
    # the bundled pendulum and ragdoll were written as version 1 before contact existed
    pendulum = model_io.load(example_path("pendulum"))
    assert not pendulum.data.has_contact()
    assert model_io.to_json_dict(pendulum)["version"] == 1
    old = json.loads(example_path("pendulum").read_text())
    assert old["version"] == 1
    # a version-2 file (measures) still loads
    old["version"] = 2
    (tmp_path / "v2.mbs.json").write_text(json.dumps(old))
    assert model_io.load(tmp_path / "v2.mbs.json") == pendulum


def test_contact_fields_in_an_older_file_are_refused_naming_the_field(tmp_path):
    raw = json.loads(model_io.dumps(_ball_document()))
    raw["version"] = 2
    path = tmp_path / "old.mbs.json"
    path.write_text(json.dumps(raw))
    with pytest.raises(model_io.ModelFileError) as err:
        model_io.load(path)
    assert "version 3" in err.value.message
    assert "contact" in err.value.field


def test_newer_version_is_refused():
    raw = json.loads(model_io.dumps(_ball_document()))
    raw["version"] = 4
    with pytest.raises(model_io.ModelFileError) as err:
        model_io.loads(json.dumps(raw))
    assert err.value.field == "version"


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        (dict(params={"radius": -0.1}), "contact_surfaces[0].radius", "> 0"),
        (dict(params={"radius": 0.1, "radii": (1, 1, 1)}), "contact_surfaces[0].params", "radii"),
        (dict(shape="cone"), "contact_surfaces[0].shape", "unknown contact shape"),
        (dict(material=ContactMaterialSpec(stiffness=0.0)), "contact_surfaces[0].stiffness", "> 0"),
        (
            dict(material=ContactMaterialSpec(static_friction=0.2, dynamic_friction=0.5)),
            "contact_surfaces[0].dynamic_friction",
            "static friction",
        ),
        (
            dict(material=ContactMaterialSpec(dissipation=-1.0)),
            "contact_surfaces[0].dissipation",
            ">= 0",
        ),
        (dict(cliques=("a", " ")), "contact_surfaces[0].cliques", "no name"),
        (dict(X=FrameSpec((0, float("nan"), 0))), "contact_surfaces[0].X.p", "finite"),
    ],
)
def test_invalid_contact_surfaces_are_refused_and_change_nothing(change, field, words):
    doc = _ball_document()
    name = doc.body_names()[0]
    before = doc.to_dict()
    surfaces = doc.contact_surfaces_of(name)
    surfaces[0] = replace(surfaces[0], **change)
    with pytest.raises(DocumentError) as err:
        doc.set_contact_surfaces(name, surfaces)
    assert err.value.field == field
    assert words in err.value.message
    assert err.value.target == name
    assert doc.to_dict() == before


def test_invalid_contact_settings_are_refused():
    doc = _ball_document()
    with pytest.raises(DocumentError) as err:
        doc.set_contact_settings(transition_velocity=0.0)
    assert err.value.field == "transition_velocity"
    assert doc.contact.transition_velocity == 0.01


@pytest.mark.parametrize("up", ["+X", "-X", "+Y", "-Y", "+Z", "-Z"])
def test_ground_plane_fills_the_space_below_the_floor(up):
    from app.document.builder import transform

    X = transform(ground_plane_frame(up))  # noqa: N806
    axis = np.zeros(3)
    axis["XYZ".index(up[1])] = 1.0 if up[0] == "+" else -1.0
    into_half_space = X.R().toMat33() @ np.array([1.0, 0.0, 0.0])
    np.testing.assert_allclose(into_half_space, -axis, atol=1e-15)
    np.testing.assert_allclose(X.p(), 0.0)


def test_add_ground_plane_uses_the_documents_up_direction():
    doc = ModelDocument()
    doc.set_hints(up="+Z")
    index = doc.add_ground_plane()
    plane = doc.contact_surfaces_of(GROUND)[index]
    assert plane.shape == "halfspace"
    assert plane.X == ground_plane_frame("+Z")
    assert doc.data.has_contact()
    assert model_io.to_json_dict(doc)["version"] == 3


def test_contact_surface_spec_from_dict_refuses_wrong_types():
    from app.document.specs import SpecError

    with pytest.raises(SpecError) as err:
        ContactSurfaceSpec.from_dict({"shape": "sphere", "cliques": [1]})
    assert err.value.field == "cliques[0]"
    with pytest.raises(SpecError) as err:
        ContactSurfaceSpec.from_dict({"shape": "sphere", "material": {"stiffness": "hard"}})
    assert err.value.field == "material.stiffness"


def test_ground_plane_follows_the_floor_when_the_up_direction_changes():
    doc = ModelDocument()
    doc.add_ground_plane()
    tilted = replace(doc.contact_surfaces_of(GROUND)[0], X=FrameSpec((0, 0, 0), (0.1, 0, 0)))
    doc.set_contact_surfaces(GROUND, [*doc.contact_surfaces_of(GROUND), tilted])
    changes = []
    doc.add_listener(changes.append)
    doc.set_hints(up="-Z")
    planes = doc.contact_surfaces_of(GROUND)
    assert planes[0].X == ground_plane_frame("-Z")  # was on the floor: follows it
    assert planes[1] == tilted  # placed by hand: stays
    assert changes[-1].kind == "parameters"  # the System is rebuilt with the moved plane
