"""A structural edit's System built from the one it replaces (``build(model, True, previous)``):
the bodies whose specs the edit left alone are copied from the previous System
(``MobilizedBody.cloneForNewParent``) and only the others are made; the System is the one a
build from scratch makes (topology arrays, initial State, accelerations), also after an
in-place edit changed the previous System's values, and a session's structural edit builds
its System that way."""

from __future__ import annotations

import numpy as np
import pytest

from app.document import BodySpec, ModelData, ModelDocument, build
from app.document.examples import rod_body
from engine import MobilizedBody, Stage

FIELDS = ("mtype", "parent", "qs", "nqs", "us", "nus", "params", "R_PF", "p_PF", "R_BM")
FIELDS += ("p_BM", "mass", "com_B", "I_B", "uses_quaternion")


def _document(n: int = 12) -> ModelDocument:
    bodies = [
        rod_body(f"b{i}", "Ground" if i == 0 else f"b{i - 1}", 0.3, 1.0 + 0.1 * i) for i in range(n)
    ]
    return ModelDocument(ModelData("chain", bodies))


@pytest.fixture
def clones(monkeypatch) -> list:
    """The bodies copied by cloneForNewParent since the fixture began."""
    made: list = []
    real = MobilizedBody.cloneForNewParent

    def counting(self, parent):
        made.append(self)
        return real(self, parent)

    monkeypatch.setattr(MobilizedBody, "cloneForNewParent", counting)
    return made


def _assert_same_system(a, b) -> None:
    ta, tb = a.matter._topo(), b.matter._topo()
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(ta, name), getattr(tb, name), err_msg=name)
    assert a.body_name_of_index == b.body_name_of_index
    np.testing.assert_array_equal(a.state.getQ(), b.state.getQ())
    np.testing.assert_array_equal(a.state.getU(), b.state.getU())
    for built in (a, b):
        built.system.realize(built.state, Stage.Acceleration)
    np.testing.assert_allclose(a.state.getUDot(), b.state.getUDot(), rtol=0, atol=1e-12)


EDITS = {
    "add a leaf": lambda d: d.add_body(BodySpec("extra", parent="b4", mobilizer="Ball")),
    "remove a body": lambda d: d.remove_body("b11"),
    "re-parent": lambda d: d.set_body("b8", parent="b2"),
    "mobilizer": lambda d: d.set_body("b5", mobilizer="Ball"),
    "initial u": lambda d: d.set_body("b3", u=(0.4,)),
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_the_unchanged_bodies_are_copied_and_the_system_is_the_same(edit, clones):
    document = _document()
    previous = build(document.data, True)
    before = document.data.bodies
    EDITS[edit](document)
    unchanged = sum(any(b is old for old in before) for b in document.data.bodies)
    clones.clear()
    built = build(document.data, True, previous)
    assert len(clones) == unchanged and unchanged >= len(before) - 2
    _assert_same_system(built, build(document.data, True))


def test_a_system_edited_in_place_is_copied_with_its_new_values(clones):
    """The session edits mass properties in place (the previous System then holds the new
    spec's values) before a structural edit builds from it."""
    from app.document import in_place

    document = _document()
    built = build(document.data, True)
    old = document.data
    document.set_body("b6", mass=4.0, inertia=(0.2, 0.01, 0.2, 0.0, 0.0, 0.0))
    edit = in_place.plan(old, document.data)
    assert edit is not None
    in_place.apply(built, edit, document.data)
    document.add_body(BodySpec("extra", parent="b6"))
    clones.clear()
    rebuilt = build(document.data, True, built)
    assert len(clones) == 12  # b6 too: its spec is the one the System has now
    assert rebuilt.matter._topo().mass[7] == 4.0
    _assert_same_system(rebuilt, build(document.data, True))


def test_a_session_s_structural_edit_copies_the_bodies_it_left_alone(clones):
    from app.simulation.session import SimulationSession

    class Version:
        def __init__(self, data) -> None:
            self.data, self.base_dir = data, None

    document = _document()
    session = SimulationSession(build(document.data, True))
    document.set_body("b5", mobilizer="Ball")
    clones.clear()
    session._cmd_rebuild(Version(document.data), frozenset({"topology"}))  # as the worker does
    assert not session._error
    assert len(clones) == 11 and session.matter.getMobilizedBody(6).getMobilizerTypeName() == "Ball"


def test_a_structural_edit_copies_the_state_once(monkeypatch):
    """A session's structural edit copies a State once (its working State, from the built
    model's initial State, which is the new System's default State itself) and the new
    System's realizeTopology() still hands out an independent copy with the initial u."""
    from app.simulation.session import SimulationSession
    from engine import State

    class Version:
        def __init__(self, data) -> None:
            self.data, self.base_dir = data, None

    document = _document()
    document.set_body("b2", u=(0.7,))
    session = SimulationSession(build(document.data, True))
    document.set_body("b5", mobilizer="Ball")
    copies: list = []
    real = State._copy_into

    def counting(self, dst) -> None:
        copies.append(self)
        real(self, dst)

    monkeypatch.setattr(State, "_copy_into", counting)
    session._cmd_rebuild(Version(document.data), frozenset({"topology"}))  # as the worker does
    assert not session._error
    assert copies == [session.built.state]
    assert session.built.state is session.system.getDefaultState()
    other = session.system.realizeTopology()
    assert other is not session.built.state
    np.testing.assert_array_equal(other.getU(), session.built.state.getU())
    assert session.matter.getMobilizedBody(3).getOneU(other, 0) == 0.7
    other.updU()[:] = 0.0  # a copy: the model's initial State keeps its u
    assert session.matter.getMobilizedBody(3).getOneU(session.built.state, 0) == 0.7
