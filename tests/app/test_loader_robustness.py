"""Malformed model files are refused with ModelFileError naming the field, and models that
would make the System singular are refused by the builder naming the body (issue 22)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from app.document.builder import BuildError, build
from app.document.model_io import ModelFileError, load, loads, save

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"


def _pendulum() -> dict:
    return json.loads((EXAMPLES / "pendulum.mbs.json").read_text())


def _refused(raw_or_text, field_part: str) -> ModelFileError:
    text = raw_or_text if isinstance(raw_or_text, str) else json.dumps(raw_or_text)
    with pytest.raises(ModelFileError) as info:
        loads(text)
    assert field_part in info.value.field, info.value
    return info.value


def test_integer_too_large_for_a_float_names_the_field():
    raw = _pendulum()
    raw["model"]["bodies"][0]["mass"] = 10**400
    _refused(raw, "bodies[0].mass")
    raw = _pendulum()
    raw["model"]["bodies"][0]["X_PF"]["p"][1] = -(10**309)
    _refused(raw, "bodies[0].X_PF")


def test_a_4401_digit_integer_is_refused():
    text = json.dumps(_pendulum()).replace('"mass": 1.0', '"mass": ' + "7" * 4401, 1)
    assert "7" * 4401 in text
    err = _refused(text, "mass")
    assert len(str(err)) < 400  # the message does not print the number


def test_deeply_nested_json_is_refused_without_recursion_error():
    text = '{"schema": "mbstudio.model", "version": 1, "model": ' + "[" * 100_000
    text += "]" * 100_000 + "}"
    assert "nested" in _refused(text, "file").message
    for depth in (5000, 500):
        raw = _pendulum()
        raw["model"]["bodies"][0]["mobilizer_params"] = {"pitch": "@@"}
        text = json.dumps(raw).replace('"@@"', "[" * depth + "1.0" + "]" * depth)
        err = _refused(text, "file" if depth == 5000 else "bodies[0].mobilizer_params.pitch")
        assert "nested" in err.message


@pytest.mark.parametrize("bad", ["Infinity", "-Infinity", "NaN", '"0"', "1.5", "-1"])
def test_an_index_given_as_a_non_number_is_refused(bad):
    raw = _pendulum()
    raw["version"] = 2
    raw["model"]["measures"] = [
        {"type": "JointCoordinate", "name": "angle", "args": {"body": "link", "which_q": 0}}
    ]
    text = json.dumps(raw).replace('"which_q": 0', f'"which_q": {bad}')
    _refused(text, "measures[0].args.which_q")


@pytest.mark.parametrize(
    ("where", "field"),
    [
        (("bodies", 0, "X_PF", "p"), "bodies[0].X_PF.p"),
        (("bodies", 0, "X_PF", "p", 0), "bodies[0].X_PF.p"),
        (("bodies", 0, "geometry", 0, "params", "radius"), "bodies[0].geometry[0]"),
        (("bodies", 0, "inertia", 2), "bodies[0].inertia"),
        (("hints", "time_scale"), "hints.time_scale"),
        (("ground_geometry", 0, "X", "rpy"), "ground_geometry[0].X.rpy"),
    ],
)
def test_a_string_where_a_number_belongs_names_the_field(where, field):
    raw = _pendulum()
    node = raw["model"]
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = "abc"
    _refused(raw, field)


def test_a_1200_deep_measure_chain_is_refused_naming_the_measure():
    raw = _pendulum()
    raw["version"] = 2
    measures = [{"type": "Time", "name": "m0", "args": {}}]
    for i in range(1, 1200):
        measures.append(
            {"type": "Scale", "name": f"m{i}", "args": {"factor": 1.0, "operand": f"m{i - 1}"}}
        )
    raw["model"]["measures"] = measures
    assert "chain of 201" in _refused(raw, "measures[200]").message


def test_an_inertia_with_overflowing_values_is_refused():
    raw = _pendulum()
    raw["model"]["bodies"][0]["inertia"] = [1e308, 1e308, 1e308, 1e308, -1e308, 1e308]
    _refused(raw, "bodies[0].inertia")
    raw["model"]["bodies"][0]["inertia"] = [1e200, 1e200, 1e200, 0, 0, 0]
    raw["model"]["bodies"][0]["com"] = [1e200, 0, 0]
    _refused(raw, "bodies[0]")


def test_a_lone_surrogate_in_a_name_is_refused():
    raw = _pendulum()
    raw["model"]["bodies"][0]["name"] = "link\ud800"
    text = json.dumps(raw)  # escapes it as \\ud800, which json accepts
    _refused(text, "bodies[0].name")
    raw = _pendulum()
    raw["model"]["name"] = "\udfff"
    _refused(json.dumps(raw), "model.name")


def test_non_finite_values_anywhere_are_refused_before_building():
    for path in (("bodies", 0, "X_BM", "rpy", 2), ("bodies", 0, "com", 0)):
        for bad in ("Infinity", "NaN"):
            raw = _pendulum()
            node = raw["model"]
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = "@@"
            _refused(json.dumps(raw).replace('"@@"', bad), f"bodies[0].{path[2]}")


def test_a_utf8_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "bom.mbs.json"
    path.write_bytes(b"\xef\xbb\xbf" + (EXAMPLES / "pendulum.mbs.json").read_bytes())
    document = load(path)
    assert document.data.bodies[0].name == "link"
    assert loads("\ufeff" + (EXAMPLES / "pendulum.mbs.json").read_text()).data.name


def test_mass_zero_body_is_refused_at_build_naming_it():
    raw = _pendulum()
    body = raw["model"]["bodies"][0]
    body["mobilizer"] = "Slider"
    body.pop("q", None)
    body.pop("u", None)
    body["mass"] = 0.0
    body["inertia"] = [0, 0, 0, 0, 0, 0]
    document = loads(json.dumps(raw))
    with pytest.raises(BuildError) as info:
        build(document)
    assert "link" in str(info.value) and "mass" in str(info.value)


def test_zero_quaternion_in_initial_q_is_refused_at_build_naming_the_body():
    raw = _pendulum()
    body = raw["model"]["bodies"][0]
    body["mobilizer"] = "Ball"
    body["q"] = [0.0, 0.0, 0.0, 0.0]
    body.pop("u", None)
    document = loads(json.dumps(raw))
    with pytest.raises(BuildError) as info:
        build(document)
    assert "link" in str(info.value) and "quaternion" in str(info.value)


def test_saving_refuses_nothing_that_loading_accepted(tmp_path):
    for example in sorted(EXAMPLES.glob("*.mbs.json")):
        document = load(example)
        save(document, tmp_path / example.name)
        assert load(tmp_path / example.name).data == document.data
        build(copy.deepcopy(document))
