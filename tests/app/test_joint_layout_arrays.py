"""The joints the sliders show (``ModelInfo.joint_layout``) made from the sample-column
names' per-body arrays (``ColumnNames.joint_layout``) equal those grouped from every q_index
entry (``snapshot.joint_layout``, the definition), in the same order and with equal joint
kinds sharing one value; the worker makes them that way for a new model and after each edit,
never from the q_index entries."""

from __future__ import annotations

import pytest

from app.document import BodySpec, ModelData, ModelDocument, build
from app.document.examples import rod_body
from app.simulation import snapshot
from app.simulation.column_names import ColumnNames
from app.simulation.session import SimulationSession
from engine import State


def _document(n: int = 12) -> ModelDocument:
    kinds = ("Pin", "Ball", "Weld", "Slider", "Free", "Universal")
    bodies = [
        rod_body(f"b{i}", "Ground" if i == 0 else f"b{i - 1}", 0.3, 1.0, mobilizer=kinds[i % 6])
        for i in range(n)
    ]
    return ModelDocument(ModelData("chain", bodies))


EDITS = [
    lambda d: d.add_body(BodySpec("extra", parent="b4")),
    lambda d: d.set_body("b7", parent="b2"),
    lambda d: d.set_body("b5", mobilizer="Pin"),
    lambda d: d.remove_body("extra"),
    lambda d: d.add_body(BodySpec("first", parent="Ground"), 0),
]


def _types(built) -> dict:
    return {n: m.getMobilizerTypeName() for n, m in built.mobilized_bodies.items()}


@pytest.mark.parametrize("euler", [False, True])
def test_the_layout_made_from_the_arrays_equals_the_one_grouped_from_q_index(euler):
    document = _document()
    names = None
    for edit in [None, *EDITS]:
        if edit is not None:
            edit(document)
        built = build(document.data)
        state = State(built.state)
        built.matter.setUseEulerAngles(state, euler)
        built.system.realizeModel(state)
        names = ColumnNames.of(built, state, names)
        types = _types(built)
        made = names.joint_layout(types)
        expected = snapshot.joint_layout(types, names.q_index)
        assert list(made.items()) == list(expected.items())
        assert "b2" not in made  # (a Weld has no q, so no joint row)
        # equal joint kinds are one object
        by_value: dict = {}
        for value in made.values():
            assert by_value.setdefault(value, value) is value


def test_the_worker_never_groups_the_q_index_entries(monkeypatch):
    document = _document()
    grouped = snapshot.joint_layout

    def refused(*_args):
        raise AssertionError("joint layout grouped from every q_index entry")

    monkeypatch.setattr(snapshot, "joint_layout", refused)
    session = SimulationSession(build(document.data, True))
    for edit in [None, *EDITS]:
        if edit is not None:
            edit(document)
            with session._state.getStateLock():  # noqa: SLF001
                session._cmd_rebuild(document, frozenset({"topology"}))  # noqa: SLF001
        info = session.model_info
        assert info.body_names[1:] == tuple(document.body_names())
        expected = grouped(_types(session.built), info.q_index)
        assert list(info.joint_layout.items()) == list(expected.items())
