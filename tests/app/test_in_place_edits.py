"""An edit that leaves the System's bodies and State layout alone (mass properties, mobilizer
frames, initial q, gravity) is set on the live System in place (``app.document.in_place``)
instead of building a new System: the worker's cost is then O(changed bodies) plus one
realization, and the simulation goes on exactly as on a System built afresh. A rename
changes no System at all; other edits (a new body) still build a new System."""

from __future__ import annotations

import time

import numpy as np
import pytest

from app.document import BodySpec, ElementSpec, FrameSpec, ModelData, ModelDocument, build
from app.simulation.session import Pacing, Settings, SimulationSession
from engine import Stage, State

INERTIA = (0.02, 0.01, 0.02, 0.0, 0.0, 0.0)


def _document(n: int = 6) -> ModelDocument:
    bodies = [
        BodySpec(
            f"b{i}",
            parent="Ground" if i == 0 else f"b{i - 1}",
            mobilizer="Ball",
            X_PF=FrameSpec((0.0, -0.2, 0.0)),
            com=(0.0, -0.1, 0.0),
            inertia=INERTIA,
            q=(np.cos(0.1), 0.0, 0.0, np.sin(0.1)),
        )
        for i in range(n)
    ]
    gravity = ElementSpec("Gravity", {"down": (0.0, -1.0, 0.0), "magnitude": 9.81})
    return ModelDocument(ModelData(bodies=bodies, forces=[gravity]))


class _Version:
    """One version of the document's content, as the studio hands it to the worker."""

    def __init__(self, document) -> None:
        self.data = document.data
        self.base_dir = None


@pytest.fixture
def studio(monkeypatch):
    """(document, session, builds): a started session of ``_document()``, stepped to t > 0,
    and the list of models built since (``app.document.build`` counted)."""
    import app.document as document_module

    document = _document()
    session = SimulationSession(build(document.data), Settings(pacing=Pacing.FAST))
    builds = []
    real_build = document_module.build
    monkeypatch.setattr(
        document_module,
        "build",
        lambda model, *args: (builds.append(model), real_build(model, *args))[1],
    )
    session.start()
    session.step()
    _wait(session, lambda s: s.time > 0)
    yield document, session, builds
    session.stop()


def _wait(session, predicate, timeout: float = 20.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        snap = session.latest()
        if snap is not None and predicate(snap):
            return snap
        time.sleep(0.005)
    raise AssertionError("the session did not get there in time")


def _edit(document, session, action):
    """Make the edit, hand it to the worker as the studio does; the first snapshot after."""
    changes = []
    document.add_listener(changes.append)
    action()
    document.remove_listener(changes.append)
    serial = session.latest().model_serial
    session.rebuild(_Version(document), changes[-1].kind)
    return _wait(session, lambda s: s.model_serial != serial or bool(s.error))


def _udot_of_fresh_build(document, state) -> np.ndarray:
    """UDot of a System built afresh from the document, at ``state``'s t, q and u."""
    fresh = build(document.data)
    other = State(fresh.state)
    other.setTime(state.getTime())
    other.setQ(state.getQ())
    other.setU(state.getU())
    fresh.system.realize(other, Stage.Acceleration)
    return np.array(other.getUDot())


def _live_udot(session) -> np.ndarray:
    with session._state.getStateLock():
        state = State(session._state)
    session.system.realize(state, Stage.Acceleration)
    return state, np.array(state.getUDot())


def test_a_mass_edit_is_set_on_the_live_system(studio):
    document, session, builds = studio
    system, geometry = session.system, session._geometry
    before = session.latest()
    after = _edit(
        document,
        session,
        lambda: document.set_body("b3", mass=3.0, inertia=(0.3, 0.1, 0.3, 0, 0, 0)),
    )
    assert not after.error and builds == []  # no System built
    assert session.system is system and session._geometry is geometry  # nor redrawn
    assert session.built.mobilized_bodies["b3"].getDefaultMassProperties().getMass() == 3.0
    assert after.time == pytest.approx(before.time)  # t, q, u go on from where they were
    np.testing.assert_array_equal(after.q, before.q)
    assert session.history_kept
    state, udot = _live_udot(session)
    np.testing.assert_allclose(udot, _udot_of_fresh_build(document, state), rtol=1e-12)


def test_a_frame_edit_and_a_gravity_edit_behave_as_a_new_build(studio):
    from viz.decoration_keys import same_drawing

    document, session, builds = studio
    geometry = session._geometry
    after = _edit(
        document, session, lambda: document.set_body("b2", X_PF=FrameSpec((0.1, -0.3, 0.0)))
    )
    assert not after.error and builds == []
    assert session._geometry is not geometry  # the joint moved: drawn anew, as a new build's
    fresh = SimulationSession(build(document.data))
    assert same_drawing(session._geometry, fresh._geometry)
    after = _edit(
        document,
        session,
        lambda: document.set_element(
            "forces", 0, args={"down": (1.0, -1.0, 0.0), "magnitude": 3.0}
        ),
    )
    assert not after.error and builds == []
    state, udot = _live_udot(session)
    np.testing.assert_allclose(udot, _udot_of_fresh_build(document, state), rtol=1e-12)


def test_an_initial_q_edit_at_the_start_shows_the_new_initial_state():
    import app.document as document_module

    document = _document(3)
    session = SimulationSession(build(document.data))
    session.start()
    try:
        _wait(session, lambda s: True)
        q = (np.cos(0.4), np.sin(0.4), 0.0, 0.0)
        real_build, builds = document_module.build, []
        document_module.build = lambda model: (builds.append(1), real_build(model))[1]
        try:
            after = _edit(document, session, lambda: document.set_body("b1", q=q))
        finally:
            document_module.build = real_build
        assert builds == [] and not after.error
        np.testing.assert_allclose(after.q[4:8], q)
        # Reset starts from it too
        serial = after.serial
        session.reset()
        reset = _wait(session, lambda s: s.serial > serial and s.status.startswith("Reset"))
        np.testing.assert_allclose(reset.q[4:8], q)
    finally:
        session.stop()


def test_a_refused_edit_leaves_the_old_values_and_the_run_goes_on(studio):
    from app.simulation.session import REBUILD_FAILED

    document, session, builds = studio
    leaf = "b5"
    before = session.latest()
    failed = _edit(document, session, lambda: document.set_body(leaf, mass=0.0, inertia=(0,) * 6))
    assert failed.error.startswith(REBUILD_FAILED) and repr(leaf) in failed.error
    assert failed.model_serial == before.model_serial and builds == []
    assert session.built.mobilized_bodies[leaf].getDefaultMassProperties().getMass() == 1.0
    session.step()
    stepped = _wait(session, lambda s: s.time > failed.time)
    assert np.all(np.isfinite(stepped.q))


def test_a_rename_keeps_the_system_and_a_new_body_builds_one(studio):
    """The System knows no names: a rename changes only the names the session shows (the
    sample columns keep their rows under the new names); a body added needs a new System."""
    document, session, builds = studio
    system, state, geometry = session.system, session._state, session._geometry
    rows = len(session.samples)
    assert rows > 0
    after = _edit(document, session, lambda: document.rename_body("b2", "middle"))
    assert not after.error and builds == []
    assert session.system is system and session._state is state  # the run goes on as it was
    assert session._geometry is geometry  # nothing to redraw
    assert "middle" in after.model.body_names and "b2" not in after.model.body_names
    assert session.built.mobilized_bodies["middle"].getMobilizedBodyIndex() == 3
    assert any(c.endswith(" middle.q0") for c in session.samples.columns)
    assert len(session.samples) == rows
    after = _edit(document, session, lambda: document.add_body(BodySpec("extra", parent="b5")))
    assert not after.error and len(builds) == 1 and session.system is not system
    assert session.built.mobilized_bodies["middle"].getMobilizedBodyIndex() == 3


def test_a_mass_edit_copies_the_state_once_and_keeps_the_model_before(monkeypatch):
    """The System's new default State (its topology rows changed) is the edited model's
    initial State itself: the edit copies a State once (the session's working State); the
    model before keeps its own initial State as it was (the branch "before the edit")."""
    document = _document()
    session = SimulationSession(build(document.data, True))
    before = session.built
    q0, u0 = before.state.getQ().copy(), before.state.getU().copy()
    document.set_body("b3", mass=3.0, inertia=(0.3, 0.1, 0.3, 0, 0, 0), u=(0.1, 0.2, 0.3))
    copies: list = []
    real = State._copy_into
    monkeypatch.setattr(State, "_copy_into", lambda s, dst: (copies.append(s), real(s, dst))[1])
    session._cmd_rebuild(_Version(document), frozenset({"initial_state", "parameters"}))
    assert not session._error and session.built is not before
    assert session.system is before.system
    assert len(copies) == 1 and copies[0] is session.built.state
    assert session.built.state is session.system.getDefaultState()
    assert session.built.state is not before.state
    np.testing.assert_array_equal(before.state.getQ(), q0)
    np.testing.assert_array_equal(before.state.getU(), u0)
    assert np.any(session.built.state.getU() != u0)
