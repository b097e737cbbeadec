"""The Qt-free model document: edits, validation, notifications, building and files."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import engine
from app.document import (
    BodySpec,
    DocumentError,
    ElementSpec,
    FrameSpec,
    GeometrySpec,
    ModelDocument,
    build,
    carry_state,
    model_io,
)
from app.document.examples import (
    BUILDERS,
    ROBOT_EXAMPLES,
    default_example_path,
    examples,
    rod_body,
)


def pendulum_doc() -> ModelDocument:
    return model_io.load(default_example_path())


def test_every_example_file_matches_its_builder_and_loads():
    assert [e.key for e in examples()][0] == "pendulum"
    assert default_example_path().name == "pendulum.mbs.json"
    for e in examples():
        doc = model_io.load(e.path)
        if e in ROBOT_EXAMPLES:  # imported from URDF: see tests/importers/test_robot_examples.py
            continue
        assert doc == ModelDocument(BUILDERS[e.key]()), e.key


@pytest.mark.parametrize("key", [e.key for e in examples()])
def test_each_example_builds_and_computes_accelerations(key):
    doc = model_io.load(next(e for e in examples() if e.key == key).path)
    built = build(doc)
    assert built.state.getSystemStage() >= engine.Stage.Model
    assert built.body_name_of_index[0] == "Ground"
    assert sorted(built.body_name_of_index[1:]) == sorted(doc.body_names())
    for b in doc.bodies:
        mb = built.mobilized_bodies[b.name]
        assert mb.getMobilizerTypeName() == b.mobilizer
        if b.q is not None:
            np.testing.assert_allclose(mb.getQ(built.state), b.q, atol=1e-12)
        if b.u is not None:
            np.testing.assert_allclose(mb.getU(built.state), b.u, atol=1e-12)
    built.system.realize(built.state, engine.Stage.Acceleration)
    assert np.all(np.isfinite(built.matter.getUDot(built.state)))


def test_pendulum_build_matches_hand_built_engine_model():
    built = build(pendulum_doc())
    built.system.realize(built.state, engine.Stage.Acceleration)
    link = built.mobilized_bodies["link"]
    # Uniform rod of 1 kg, 1 m from its end: theta'' = -(m g L/2) sin(theta) / I_pivot.
    body = pendulum_doc().body("link")
    expected = -1.0 * 9.81 * 0.5 * math.sin(body.q[0]) / body.inertia[2]
    assert link.getUDot(built.state)[0] == pytest.approx(expected, rel=1e-12)


def test_edits_notify_listeners_with_their_kind():
    doc = pendulum_doc()
    seen = []
    doc.add_listener(seen.append)
    doc.set_body("link", mass=2.0, inertia=(0.7, 0.01, 0.7, 0, 0, 0))
    doc.set_body("link", q=(0.1,))
    doc.set_body("link", mobilizer="Ball")
    doc.set_hints(up="+Z")
    doc.rename_body("link", "arm")
    doc.add_body(BodySpec("second", parent="arm", mobilizer="Pin"))
    assert [c.kind for c in seen] == [
        "parameters",
        "initial_state",
        "topology",
        "hints",
        "parameters",
        "topology",
    ]
    assert seen[0].target == "link" and set(seen[0].fields) == {"mass", "inertia"}
    # Changing the mobilizer reset q (a Pin q cannot fit a Ball).
    assert doc.body("arm").q is None


def test_invalid_edits_are_refused_and_change_nothing():
    doc = pendulum_doc()
    before = doc.to_dict()
    seen = []
    doc.add_listener(seen.append)
    cases = [
        (lambda: doc.set_body("link", mass=-1.0), "mass"),
        (lambda: doc.set_body("link", inertia=(1.0, 0.1, 0.1, 0, 0, 0)), "inertia"),
        (lambda: doc.set_body("link", inertia=(-1.0, 1, 1, 0, 0, 0)), "inertia"),
        (lambda: doc.set_body("link", mobilizer="Hinge"), "mobilizer"),
        (lambda: doc.set_body("link", q=(1.0, 2.0)), "q"),
        (lambda: doc.rename_body("link", "Ground"), "name"),
        (lambda: doc.rename_body("link", ""), "name"),
        (lambda: doc.set_hints(length_scale=0.0), "length_scale"),
        (lambda: doc.set_hints(up="+W"), "up"),
        (lambda: doc.add_body(BodySpec("link")), "name"),
        (lambda: doc.add_body(BodySpec("orphan", parent="nobody")), "parent"),
        (
            lambda: doc.add_element(
                "forces",
                ElementSpec(
                    "TwoPointLinearSpring",
                    {
                        "body1": "link",
                        "station1": (0, 0, 0),
                        "body2": "link",
                        "station2": (0, 1, 0),
                        "stiffness": 1.0,
                        "rest_length": 0.0,
                    },
                ),
            ),
            "station2",
        ),
    ]
    for edit, field in cases:
        with pytest.raises(DocumentError) as info:
            edit()
        assert info.value.field in (field, "body2"), (field, str(info.value))
    assert doc.to_dict() == before
    assert seen == []


def test_constraint_on_one_body_with_itself_is_refused():
    doc = pendulum_doc()
    rod = ElementSpec(
        "Rod",
        {"body1": "link", "point1": (0, 0, 0), "body2": "link", "point2": (1, 0, 0), "length": 1.0},
    )
    with pytest.raises(DocumentError, match="itself") as info:
        doc.add_element("constraints", rod)
    assert info.value.field == "body2"
    assert doc.constraints == []


def test_parent_loop_is_refused():
    doc = model_io.load(next(e for e in examples() if e.key == "double_pendulum").path)
    with pytest.raises(DocumentError, match="loop") as info:
        doc.set_body("upper", parent="lower")
    assert info.value.field == "parent"
    with pytest.raises(DocumentError):
        doc.set_body("upper", parent="upper")
    assert doc.body("upper").parent == "Ground"


def test_reparent_keeps_parents_first_and_builds():
    doc = ModelDocument()
    doc.add_body(rod_body("a", "Ground", 1.0, 1.0))
    doc.add_body(rod_body("b", "Ground", 1.0, 1.0))
    doc.set_body("a", parent="b")
    assert doc.body_names() == ["b", "a"]
    built = build(doc)
    assert built.mobilized_bodies["a"].getParentMobilizedBody().getMobilizedBodyIndex() == 1


def test_remove_body_removes_descendants_and_their_forces():
    doc = model_io.load(next(e for e in examples() if e.key == "double_pendulum").path)
    doc.add_element(
        "forces",
        ElementSpec(
            "MobilityLinearSpring", {"body": "lower", "which_q": 0, "stiffness": 1.0, "q_zero": 0.0}
        ),
    )
    removed = doc.remove_body("upper")
    assert removed == ["upper", "lower"]
    assert doc.bodies == []
    assert [f.type for f in doc.forces] == ["Gravity"]


def test_rename_updates_children_and_element_references():
    doc = model_io.load(next(e for e in examples() if e.key == "four_bar").path)
    doc.rename_body("coupler", "link2")
    assert doc.constraints[0].args["body1"] == "link2"
    doc.rename_body("crank", "link1")
    assert doc.body("link2").parent == "link1"


def test_geometry_edit_reaches_the_engine_decorations():
    doc = pendulum_doc()
    doc.set_geometry(
        "link", [GeometrySpec("brick", {"half_lengths": (0.1, 0.2, 0.3)}, color=(1, 0, 0))]
    )
    built = build(doc)
    decorations = built.mobilized_bodies["link"].getBody().getDecorations()
    assert len(decorations) == 1
    np.testing.assert_allclose(decorations[0][1].getColor(), (1, 0, 0))
    with pytest.raises(DocumentError):
        doc.set_geometry("link", [GeometrySpec("brick", {"half_lengths": (0.1, -0.2, 0.3)})])
    with pytest.raises(DocumentError):
        doc.set_geometry("link", [GeometrySpec("sphere", {"radius": 0.1}, color=(2, 0, 0))])


def test_frames_and_mass_edits_change_the_engine_model():
    doc = pendulum_doc()
    doc.set_body("link", X_PF=FrameSpec((0.0, 2.0, 0.0)), q=(0.0,))
    built = build(doc)
    built.system.realize(built.state, engine.Stage.Position)
    np.testing.assert_allclose(
        built.mobilized_bodies["link"].getBodyOriginLocation(built.state), (0, 2, 0), atol=1e-15
    )
    doc.set_body("link", mass=3.0, inertia=(3.0, 0.01, 3.0, 0, 0, 0))
    mp = build(doc).mobilized_bodies["link"].getBody().getDefaultRigidBodyMassProperties()
    assert mp.getMass() == 3.0


def test_hints_reach_the_system():
    doc = pendulum_doc()
    doc.set_hints(up="-Z", uniform_background=True, time_scale=0.5, length_scale=2.0)
    system = build(doc).system
    np.testing.assert_array_equal(system.getUpDirection().asVec3(), (0, 0, -1))
    assert system.getUseUniformBackground() is True
    assert system.getDefaultTimeScale() == 0.5
    assert system.getDefaultLengthScale() == 2.0


def test_carry_state_by_name_after_topology_change():
    doc = model_io.load(next(e for e in examples() if e.key == "double_pendulum").path)
    old = build(doc)
    state = old.state.copy()
    state.setTime(1.25)
    old.mobilized_bodies["lower"].setQ(state, [0.3])
    old.mobilized_bodies["lower"].setU(state, [-2.0])
    doc.add_body(BodySpec("extra", parent="lower", mobilizer="Slider", inertia=(1, 1, 1, 0, 0, 0)))
    doc.set_body("upper", mobilizer="Ball")
    new = build(doc)
    carried = carry_state(old, state, new)
    assert carried.getTime() == 1.25
    assert new.mobilized_bodies["lower"].getQ(carried)[0] == 0.3
    assert new.mobilized_bodies["lower"].getU(carried)[0] == -2.0
    np.testing.assert_allclose(new.mobilized_bodies["upper"].getQ(carried), (1, 0, 0, 0))


def test_save_load_round_trip_is_identical(tmp_path):
    for e in examples():
        doc = model_io.load(e.path)
        out = tmp_path / f"{e.key}.mbs.json"
        model_io.save(doc, out)
        again = model_io.load(out)
        assert again == doc
        assert again.to_dict() == doc.to_dict()
        assert out.read_text() == model_io.dumps(doc)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def _write(tmp_path, payload) -> object:
    path = tmp_path / "bad.mbs.json"
    path.write_text(payload if isinstance(payload, str) else json.dumps(payload))
    return path


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda d: d.update(version=model_io.VERSION + 1), "version"),
        (lambda d: d.update(version="1"), "version"),
        (lambda d: d.pop("schema"), "schema"),
        (lambda d: d.update(schema="something.else"), "schema"),
        (lambda d: d.pop("model"), "model"),
        (lambda d: d["model"].update(bodies={}), "model.bodies"),
        (lambda d: d["model"]["bodies"][0].update(mass=-2), "model.bodies[0].mass"),
        (
            lambda d: d["model"]["bodies"][0].update(inertia=[1, 0.1, 0.1, 0, 0, 0]),
            "model.bodies[0].inertia",
        ),
        (lambda d: d["model"]["bodies"][0].update(parent="nowhere"), "model.bodies[0].parent"),
        (lambda d: d["model"]["bodies"][0].pop("name"), "model.bodies[0].name"),
        (lambda d: d["model"]["hints"].update(up="sideways"), "model.hints.up"),
        (lambda d: d["model"]["forces"][0].update(type="Magic"), "model.forces[0].type"),
        (lambda d: d["model"]["bodies"][0].update(mass=None), "model.bodies[0].mass"),
        (lambda d: d["model"]["bodies"][0].update(mass="1"), "model.bodies[0].mass"),
        (lambda d: d["model"]["bodies"][0].update(com=[0, 1]), "model.bodies[0].com"),
        (lambda d: d["model"]["bodies"][0]["X_PF"].update(p="up"), "model.bodies[0].X_PF.p"),
        (
            lambda d: d["model"]["bodies"][0]["geometry"][0].update(color="red"),
            "model.bodies[0].geometry[0].color",
        ),
        (lambda d: d["model"]["bodies"][0]["geometry"].append(3), "model.bodies[0].geometry[2]"),
        (
            lambda d: d["model"]["hints"].update(uniform_background="yes"),
            "model.hints.uniform_background",
        ),
        (lambda d: d["model"].update(forces=[{"args": {}}]), "model.forces[0].type"),
    ],
)
def test_malformed_or_newer_files_are_refused_naming_the_field(tmp_path, mutate, field):
    raw = model_io.to_json_dict(pendulum_doc())
    mutate(raw)
    with pytest.raises(model_io.ModelFileError) as info:
        model_io.load(_write(tmp_path, raw))
    assert info.value.field == field, str(info.value)
    assert field.split(".")[-1] in str(info.value)


def test_corrupted_json_and_missing_file_are_refused(tmp_path):
    with pytest.raises(model_io.ModelFileError, match="not valid JSON") as info:
        model_io.load(_write(tmp_path, '{"schema": "mbstudio.model", "version": 1, "mod'))
    assert info.value.field == "file"
    with pytest.raises(model_io.ModelFileError, match="does not exist"):
        model_io.load(tmp_path / "missing.mbs.json")
    binary = tmp_path / "binary.mbs.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(model_io.ModelFileError):
        model_io.load(binary)


def test_save_is_atomic_when_writing_fails(tmp_path, monkeypatch):
    doc = pendulum_doc()
    out = tmp_path / "model.mbs.json"
    model_io.save(doc, out)
    original = out.read_text()
    doc.set_body("link", mass=5.0, inertia=(2, 0.1, 2, 0, 0, 0))

    def failing_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(model_io.os, "replace", failing_replace)
    with pytest.raises(OSError, match="disk full"):
        model_io.save(doc, out)
    assert out.read_text() == original
    assert [p.name for p in tmp_path.iterdir()] == ["model.mbs.json"]


def test_closed_loop_examples_start_assembled():
    """The four-bar (Ball closure) and slider-crank (Rod) initial q satisfy their loops."""
    for key in ("four_bar", "slider_crank"):
        built = build(model_io.load(next(e for e in examples() if e.key == key).path))
        built.system.realize(built.state, engine.Stage.Position)
        assert len(built.constraints) == 1
        assert np.max(np.abs(built.state.getQErr())) < 1e-12, key


def test_gimbal_lock_example_bodies_share_pose_and_angular_velocity():
    built = build(model_io.load(next(e for e in examples() if e.key == "gimbal_lock").path))
    built.system.realize(built.state, engine.Stage.Velocity)
    gimbal = built.mobilized_bodies["gimbal_body"]
    ball = built.mobilized_bodies["ball_body"]
    rot_gimbal = gimbal.getBodyRotation(built.state).asMat33()
    rot_ball = ball.getBodyRotation(built.state).asMat33()
    np.testing.assert_allclose(rot_gimbal, rot_ball, atol=1e-12)
    np.testing.assert_allclose(
        gimbal.getBodyAngularVelocity(built.state),
        ball.getBodyAngularVelocity(built.state),
        atol=1e-12,
    )


def _with_stop(tmp_path, **extra):
    d = json.loads(model_io.dumps(pendulum_doc()))
    body = d["model"]["bodies"][0]["name"]
    args = {"body": body, "which_q": 0, "stiffness": 1e4, "dissipation": 0.1}
    args.update({"q_low": -1.0, "q_high": 1.0, "enabled": True, **extra})
    d["model"]["forces"].append({"type": "MobilityLinearStop", "name": "stop", "args": args})
    return _write(tmp_path, d)


def test_a_stop_keeps_effort_and_velocity_limits_which_older_files_leave_out(tmp_path):
    old = model_io.load(_with_stop(tmp_path))  # a file written before the limits were kept
    build(old)
    new = model_io.load(_with_stop(tmp_path, effort_limit=87.0, velocity_limit=2.175))
    stop = new.data.forces[-1]
    assert (stop.args["effort_limit"], stop.args["velocity_limit"]) == (87.0, 2.175)
    build(new)  # kept in the model, not passed to the engine's stop
    with pytest.raises(model_io.ModelFileError) as info:
        model_io.load(_with_stop(tmp_path, effort_limit=-1.0))
    assert "effort_limit" in str(info.value.field)
