"""The worker's decorations after an edit that builds a new System are that System's own
(``static_decorations``: same decorations, fingerprints, bodies and order) although only the
changed bodies' are made (``body_decorations.collect``), and the q/u carried over by body name
as whole arrays equal those carried body by body (``builder.carry_state``)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from app.document import BodySpec, FrameSpec, GeometrySpec, ModelData, build, carry_state
from app.simulation import body_decorations
from app.simulation.state_carry import carry_by_name
from engine import Stage, State
from viz.decoration_keys import KeyedGeometry
from viz.system_decorations import static_decorations

N = 12


def _data() -> ModelData:
    box = (GeometrySpec("brick", {"half_lengths": (0.02, 0.05, 0.02)}),)
    kinds = ("Ball", "Pin", "Free", "Slider")
    bodies = [
        BodySpec(
            f"b{i}",
            parent="Ground" if i == 0 else f"b{i - 1}" if i % 5 else "b0",
            mobilizer=kinds[i % 4],
            X_PF=FrameSpec((0.0, -0.1, 0.0)),
            com=(0.0, -0.05 * (1 + i % 3), 0.0),
            inertia=(0.01, 0.001, 0.01, 0.0, 0.0, 0.0),
            geometry=box if i % 2 else (),
        )
        for i in range(N)
    ]
    return ModelData(name="mixed tree", bodies=bodies)


def _edited(data: ModelData, kind: str) -> ModelData:
    bodies = list(data.bodies)
    at = {b.name: i for i, b in enumerate(bodies)}
    if kind == "add leaf":
        bodies.append(BodySpec("extra", parent="b6", mobilizer="Pin"))
    elif kind == "remove middle leaf":  # (renumbers every later body)
        bodies.pop(at["b4"])
    elif kind == "re-parent":
        bodies[at["b8"]] = replace(bodies[at["b8"]], parent="b2")
    elif kind == "mobilizer":
        bodies[at["b7"]] = replace(bodies[at["b7"]], mobilizer="Ball")
    elif kind == "frame and mass centre":
        bodies[at["b3"]] = replace(bodies[at["b3"]], X_PF=FrameSpec((0.1, 0.0, 0.0)), com=(0, 0, 1))
    elif kind == "geometry":
        bodies[at["b9"]] = replace(bodies[at["b9"]], geometry=())
    elif kind == "length scale":
        return replace(data, bodies=bodies, hints=replace(data.hints, length_scale=3.0))
    return replace(data, bodies=bodies)


def _collected(data: ModelData, previous=None):
    built = build(data, pull_force=True)
    state = State(built.state)
    return built, state, body_decorations.collect(built, state, None, previous)


def _assert_the_systems_own(built, state, record) -> None:
    own = KeyedGeometry(static_decorations(built.system, state))
    shown = record.geometry
    assert len(shown) == len(own)
    assert [type(g) for g in shown] == [type(g) for g in own]
    assert np.array_equal(shown.hashes, own.hashes)
    assert np.array_equal(shown.bodies, own.bodies)


#: (edit, bodies whose decorations are made again)
EDITS = [
    ("add leaf", 1),
    ("re-parent", 1),
    ("mobilizer", 1),
    ("frame and mass centre", 1),
    ("geometry", 1),
    ("remove middle leaf", N - 1 - 4),  # the bodies after b4, renumbered
    ("length scale", N + 1),  # a model-wide setting: every body and Ground
]


@pytest.mark.parametrize(("kind", "made"), EDITS, ids=[e for e, _ in EDITS])
def test_after_an_edit_the_decorations_are_the_new_systems_own(kind, made):
    data = _data()
    built, state, first = _collected(data)
    _assert_the_systems_own(built, state, first)
    assert body_decorations.LAST_MADE["bodies"] == N + 1  # Ground and every body
    new = _edited(data, kind)
    assert new != data
    built, state, after = _collected(new, first)
    _assert_the_systems_own(built, state, after)
    assert body_decorations.LAST_MADE["bodies"] == made
    # the decorations kept are the very objects collected before
    kept = {id(g) for g in first.geometry}
    assert sum(id(g) in kept for g in after.geometry) >= len(after.geometry) - 12 * made


def test_q_and_u_carried_by_name_as_whole_arrays_equal_those_carried_body_by_body():
    data = _data()
    old = build(data, pull_force=True)
    rng = np.random.default_rng(7)
    old_state = State(old.state)
    old_state.setTime(0.25)
    old_state.setQ(old_state.getQ() + rng.normal(0.0, 0.3, old_state.getNQ()))
    old_state.setU(rng.normal(0.0, 1.0, old_state.getNU()))
    for kind in ("add leaf", "remove middle leaf", "mobilizer", "re-parent"):
        new = build(_edited(data, kind), pull_force=True)
        expected = carry_state(old, old_state, new)
        state = State(new.state)
        new.system.realizeModel(state)
        carry_by_name(old, old_state, new, state)
        assert state.getTime() == expected.getTime() == 0.25
        assert np.array_equal(state.getQ(), expected.getQ()), kind
        assert np.array_equal(state.getU(), expected.getU()), kind
        new.system.realize(state, Stage.Position)  # a valid State of the new System


@pytest.mark.parametrize(("kind", "made"), EDITS, ids=[e for e, _ in EDITS])
def test_the_pairing_with_the_drawn_decorations_is_match_s(kind, made, monkeypatch):
    """``pair`` gives the pairing ``match`` makes of all decorations, matching only those
    made again."""
    from viz import decoration_keys

    data = _data()
    built = build(data, pull_force=True)
    first = body_decorations.collect(built, State(built.state), built.body_name_of_index)
    built = build(_edited(data, kind), pull_force=True)
    after = body_decorations.collect(built, State(built.state), built.body_name_of_index, first)
    matched = []
    real = body_decorations.match
    monkeypatch.setattr(
        body_decorations,
        "match",
        lambda old, new: (matched.append(len(new.hashes)), real(old, new))[1],
    )
    body_decorations.pair(after, first.geometry)
    serial, pairing = after.geometry.paired
    assert serial == first.geometry.serial
    assert np.array_equal(pairing, decoration_keys.match(first.geometry, after.geometry))
    assert matched == [body_decorations.LAST_MADE["decorations"]]  # only those made now
