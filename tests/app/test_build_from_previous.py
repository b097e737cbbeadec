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


@pytest.mark.parametrize("edit", list(EDITS))
def test_taken_bodies_are_the_previous_ones_moved_and_the_system_is_the_same(edit, clones):
    """``take``: the unchanged bodies are ``previous``'s very MobilizedBodies, now owned by
    the new System (nothing copied), and the System is the one a fresh build makes."""
    document = _document()
    previous = build(document.data, True)
    old = dict(previous.mobilized_bodies)
    before = document.data.bodies
    EDITS[edit](document)
    kept = [b.name for b in document.data.bodies if any(b is o for o in before)]
    clones.clear()
    built = build(document.data, True, previous, take=True)
    assert clones == [] and len(kept) >= len(before) - 2
    for name in kept:
        mobod = built.mobilized_bodies[name]
        assert mobod is old[name] and mobod.getMatterSubsystem() is built.matter
        assert built.body_name_of_index[mobod.getMobilizedBodyIndex()] == name
    _assert_same_system(built, build(document.data, True))


def test_a_refused_build_gives_the_taken_bodies_back():
    """A build that fails after taking bodies (a massless leaf: the System is singular)
    leaves ``previous`` as it was: its bodies are its own again, at their indices, and it
    still simulates and builds the next edit."""
    from app.document import BuildError

    document = _document()
    previous = build(document.data, True)
    expected = build(document.data, True)
    old = document.data
    document.add_body(BodySpec("ghost", parent="b3", mass=0.0, inertia=(0.0,) * 6))
    with pytest.raises(BuildError, match="ghost"):
        build(document.data, True, previous, take=True)
    for index in range(1, previous.matter.getNumBodies()):
        mobod = previous.matter.getMobilizedBody(index)
        assert mobod.getMatterSubsystem() is previous.matter
        assert mobod.getMobilizedBodyIndex() == index
    assert previous.matter.getMobilizedBody(5).getParentMobilizedBody().getMobilizedBodyIndex() == 4
    assert previous.data == old
    _assert_same_system(previous, expected)
    document.remove_body("ghost")
    document.set_body("b8", parent="b2")
    _assert_same_system(build(document.data, True, previous, take=True), build(document.data, True))


def test_a_session_s_structural_edit_takes_the_bodies_it_left_alone(clones):
    from app.simulation.session import SimulationSession

    class Version:
        def __init__(self, data) -> None:
            self.data, self.base_dir = data, None

    document = _document()
    session = SimulationSession(build(document.data, True))
    old = session.matter.getMobilizedBody(7)
    document.set_body("b5", mobilizer="Ball")
    clones.clear()
    session._cmd_rebuild(Version(document.data), frozenset({"topology"}))  # as the worker does
    assert not session._error
    assert clones == [] and session.matter.getMobilizedBody(7) is old
    assert old.getMatterSubsystem() is session.matter
    assert session.matter.getMobilizedBody(6).getMobilizerTypeName() == "Ball"
    _assert_same_system(session.built, build(document.data, True))


def test_a_session_s_refused_structural_edit_keeps_its_model_running():
    from app.simulation.session import SimulationSession

    class Version:
        def __init__(self, data) -> None:
            self.data, self.base_dir = data, None

    document = _document()
    session = SimulationSession(build(document.data, True))
    built = session.built
    document.add_body(BodySpec("ghost", parent="b3", mass=0.0, inertia=(0.0,) * 6))
    session._cmd_rebuild(Version(document.data), frozenset({"topology"}))
    assert "ghost" in session._error and session.built is built
    for index in range(1, session.matter.getNumBodies()):
        assert session.matter.getMobilizedBody(index).getMatterSubsystem() is session.matter
    session._cmd_step()
    assert not session._error.startswith("Simulation") and session._state.getTime() > 0.0
    session.system.realize(session._state, Stage.Acceleration)
    assert np.all(np.isfinite(session._state.getUDot()))


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
