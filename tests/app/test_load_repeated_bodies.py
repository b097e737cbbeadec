"""Loading a model whose bodies repeat one link (issue 22: a 20,000-body chain took seconds to
read): bodies that differ only in name and parent are read and validated once and share their
(immutable) specs, and every refusal still names the body and field it concerns."""

from __future__ import annotations

import json

import pytest

from app.document import model_io
from app.document.examples import example_path
from app.document.model_io import ModelFileError


def _chain(n: int) -> dict:
    data = json.loads(example_path("chain50").read_text())
    model = data["model"]
    link = model["bodies"][1]
    model["bodies"] = [
        dict(link, name=f"b{i}", parent="Ground" if i == 0 else f"b{i - 1}") for i in range(n)
    ]
    return data


def _load(data) -> model_io.ModelDocument:
    return model_io.loads(json.dumps(data))


def test_repeated_links_share_their_specs_and_round_trip():
    document = _load(_chain(300))
    bodies = document.data.bodies
    assert [b.name for b in bodies] == [f"b{i}" for i in range(300)]
    assert [b.parent for b in bodies] == ["Ground"] + [f"b{i}" for i in range(299)]
    assert all(b.X_PF is bodies[0].X_PF and b.geometry is bodies[0].geometry for b in bodies)
    again = model_io.loads(model_io.dumps(document))
    assert again.data.bodies == bodies


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        (lambda b: b.update(mass=True), "model.bodies[7].mass", "must be a number"),
        (lambda b: b.pop("name"), "model.bodies[7].name", "must be a string"),
        (lambda b: b.update(parent=3), "model.bodies[7].parent", "must be a string"),
        (lambda b: b.update(inertia=[1.0, 1.0, 5.0, 0, 0, 0]), "model.bodies[7].inertia", ""),
        (lambda b: b["X_PF"].update(p=[0.0, float("inf"), 0.0]), "model.bodies[7].X_PF.p", ""),
    ],
)
def test_one_bad_body_among_repeated_ones_is_named(change, field, words):
    data = _chain(20)
    body = data["model"]["bodies"][7]
    body["X_PF"] = dict(body["X_PF"])
    change(body)
    with pytest.raises(ModelFileError) as info:
        _load(data)
    assert info.value.field == field
    assert words in info.value.message


def test_a_bad_repeated_link_is_refused_at_the_first_body():
    data = _chain(20)
    for body in data["model"]["bodies"]:
        body["mass"] = -1.0
    with pytest.raises(ModelFileError) as info:
        _load(data)
    assert info.value.field == "model.bodies[0].mass"
