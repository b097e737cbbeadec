"""The engine side of pulling bodies with the mouse: the PullForce's physics, the session
applying pull requests between batches (running: a spring; paused: the pose), and the strength
scaling with mass."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from app.body_puller import (
    PullRequest,
    ensure_pull_force,
    pull_strength,
    rotation_from_vector,
    rotation_vector,
)
from app.simulation.session import SimulationSession
from engine import Stage
from tests.app.sim_models import chain


def test_rotation_vector_round_trip():
    rng = np.random.default_rng(3)
    for theta in [*rng.normal(size=(20, 3)), np.array([0.0, 0.0, math.pi - 1e-12])]:
        theta = theta if np.linalg.norm(theta) < math.pi else theta / np.linalg.norm(theta) * 3
        R = rotation_from_vector(theta)  # noqa: N806
        assert np.allclose(R @ R.T, np.eye(3), atol=1e-12)
        assert np.allclose(rotation_vector(R), theta, atol=1e-9)


def test_pull_force_is_a_spring_damper_at_the_grabbed_station():
    built = chain(1, q0=0.0)
    force = ensure_pull_force(built)
    system, state = built.system, built.state
    assert force.isDisabled(state)  # costs nothing until someone pulls
    force.enable(state)
    station, target = np.array([0.1, 0.0, 0.0]), np.array([0.6, 0.2, 0.0])
    force.setPull(state, 1, "force", station, target, np.eye(3), 50.0, 0.0)
    system.realize(state, Stage.Dynamics)
    mobod = built.matter.getMobilizedBody(1)
    d = target - mobod.findStationLocationInGround(state, station)
    assert math.isclose(system.calcPotentialEnergy(state) - 9.81 * 0.5, 25.0 * d @ d, rel_tol=1e-6)
    # Its only effect on the pendulum (pin about z at (0, 1.5, 0)): the spring's moment.
    system.realize(state, Stage.Acceleration)
    udot_pulled = float(state.getUDot()[0])
    force.disable(state)
    system.realize(state, Stage.Acceleration)
    r = mobod.findStationLocationInGround(state, station) - np.array([0.0, 1.5, 0.0])
    moment = np.cross(r, 50.0 * d)[2]
    izz = 0.01 + 1.0 * 1.0  # ball inertia plus m L^2 about the pin
    assert math.isclose(udot_pulled - float(state.getUDot()[0]), moment / izz, rel_tol=1e-9)


def test_pull_strength_scales_with_the_mass_pulled():
    built = chain(2)
    ensure_pull_force(built)
    built.system.realize(built.state, Stage.Position)
    k1, c1, kr1, cr1 = pull_strength(built.matter, built.state, 1)
    k2, c2, kr2, cr2 = pull_strength(built.matter, built.state, 2)
    assert math.isclose(k1, 2 * k2)  # link 1 drags link 2 along: twice the mass
    assert math.isclose(k2, (2 * math.pi * 2.0) ** 2)  # a 1 kg link at 2 Hz
    assert math.isclose(c2, 2 * math.sqrt(k2 * 1.0))  # critically damped
    assert kr1 > kr2 > 0 and cr1 > 0 and cr2 > 0


@pytest.fixture
def session():
    sessions = []

    def make(built):
        s = SimulationSession(built)
        s.start()
        sessions.append(s)
        return s

    yield make
    for s in sessions:
        s.stop()


def wait_for(condition, timeout=20.0):
    end = time.perf_counter() + timeout
    while time.perf_counter() < end:
        if condition():
            return True
        time.sleep(0.02)
    return False


def test_running_torque_turns_a_pendulum_and_release_frees_it(session):
    s = session(chain(1, q0=0.0))
    s.play()
    assert wait_for(lambda: s.latest().running)
    R_target = rotation_from_vector([0.0, 0.0, math.pi / 2])  # noqa: N806
    s.pull_body(PullRequest(drag=1, body=1, mode="torque", R_G_target=tuple(R_target.ravel())))
    t0 = s.latest().time
    assert wait_for(lambda: s.latest().time > t0 + 1.5)
    q = float(s.latest().q[0])
    assert 1.2 < q < 1.6, q  # turned most of the way against gravity
    assert "Turning" in s.latest().status
    s.pull_body(PullRequest(drag=1, body=1, active=False))
    assert wait_for(lambda: s.built.pull_force.isDisabled(s._state))  # noqa: SLF001
    assert wait_for(lambda: s.latest().q[0] < q - 0.5)  # falls back down


def test_paused_drag_keeps_a_loop_closed(session):
    from engine import Constraint

    built = chain(2, q0=0.3)
    state = built.state
    built.system.realize(state, Stage.Position)
    tip = built.matter.getMobilizedBody(2)
    height = float(tip.findStationLocationInGround(state, [0.0, 0.0, 0.0])[1])
    # Link 2's ball stays at its height: one degree of freedom left, a loop to keep closed.
    Constraint.PointInPlane(built.matter.Ground(), [0.0, 1.0, 0.0], height, tip, [0.0, 0.0, 0.0])
    q = state.getQ()
    built.state = built.system.realizeTopology()
    built.system.realizeModel(built.state)
    built.state.setQ(q)
    built.constraints = ["point in plane"]
    s = session(built)
    q0 = s.latest().q.copy()
    s.pull_body(PullRequest(drag=1, body=1, p_G=(0.9, 2.2, 0.0)))
    assert wait_for(lambda: "Dragged" in s.latest().status or bool(s.latest().error))
    snap = s.latest()
    assert not snap.error and np.abs(snap.q - q0).max() > 0.05  # the pose moved
    assert abs(snap.x_gb[2][1, 3] - height) < 1e-6  # and the ball kept its height


def _ball_chain():
    """Two links on Ball joints under gravity: a 3-D model the one-call realization takes."""
    from types import SimpleNamespace

    from engine import (
        Body,
        Force,
        GeneralForceSubsystem,
        Inertia,
        MassProperties,
        MobilizedBody,
        MultibodySystem,
        SimbodyMatterSubsystem,
        Transform,
        Vec3,
    )

    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.Gravity(forces, matter, [0, -1, 0], 9.81)
    parent = matter.Ground()
    for k in range(2):
        body = Body.Rigid(MassProperties(1.0 + k, [0.1, 0, 0], Inertia(0.02, 0.03, 0.04)))
        parent = MobilizedBody.Ball(parent, Transform(), body, Transform(Vec3(0, 1, 0)))
    state = system.realizeTopology()
    built = SimpleNamespace(system=system, matter=matter, forces=forces, state=state)
    ensure_pull_force(built)
    rng = np.random.default_rng(8)
    q = built.state.getQ().copy()
    for start in (0, 4):
        quat = rng.normal(size=4)
        q[start : start + 4] = quat / np.linalg.norm(quat)
    built.state.setQ(q)
    built.state.setU(rng.normal(size=built.state.getNU()))
    return built


@pytest.mark.parametrize("mode", ["force", "torque", "half turn"])
def test_a_pulled_model_keeps_its_one_call_realization_with_the_same_forces(mode):
    built = _ball_chain()
    system, state, force = built.system, built.state, built.pull_force
    force.enable(state)
    system.realize(state, Stage.Position)
    R_GB = built.matter.getMobilizedBody(2).getBodyRotation(state).asMat33()  # noqa: N806
    if mode == "half turn":  # the target is the body turned half a turn about an axis
        axis = np.array([0.3, -0.5, 0.8]) / np.linalg.norm([0.3, -0.5, 0.8])
        R_target = rotation_from_vector(math.pi * axis) @ R_GB  # noqa: N806
    else:
        R_target = rotation_from_vector([0.4, -0.2, 0.7]) @ R_GB  # noqa: N806
    kind = "force" if mode == "force" else "torque"
    force.setPull(state, 2, kind, [0.1, 0.2, -0.1], [0.5, -1.0, 0.3], R_target, 40.0, 3.0)
    fused = system._fused_realization
    system.realize(state, Stage.Acceleration)
    assert fused.whyNotFused(state) == ""  # the pull did not send it stage by stage
    udot_fused = state.getUDot().copy()
    slow = state.copy()
    system._fused_realization = None  # the elements' own calcForce, stage by stage
    try:
        system.realize(slow, Stage.Acceleration)
    finally:
        system._fused_realization = fused
    np.testing.assert_allclose(udot_fused, slow.getUDot(), rtol=1e-12, atol=1e-12)
    force.disable(state)
    system.realize(state, Stage.Acceleration)
    assert np.abs(state.getUDot() - udot_fused).max() > 1e-3  # the pull did act
