"""The Assembler with the System's own Constraints on a model with quaternions."""

from __future__ import annotations

import numpy as np

from engine import (
    Body,
    Constraint,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    SimbodyMatterSubsystem,
    Stage,
    Transform,
)
from engine.assembler import Assembler, Markers
from engine.assembler.assembly_solver import AssemblySolver
from tests.engine.assembler_fixtures import projected_gradient


def _model():
    """Free body (quaternion) carrying a Ball-jointed body (quaternion); the second body
    is pinned to Ground by a Constraint.Ball, the first held by a Constraint.Rod."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    body = Body.Rigid(MassProperties(1.0, [0, 0, 0], [0.1, 0.1, 0.1]))
    b1 = MobilizedBody.Free(matter.Ground(), Transform(), body, Transform())
    b2 = MobilizedBody.Ball(b1, Transform([0.5, 0, 0]), body, Transform([-0.2, 0, 0]))
    Constraint.Ball(matter.Ground(), [1, 0.2, 0], b2, [0.3, 0, 0])
    Constraint.Rod(matter.Ground(), [0, 1, 0], b1, [0.1, 0, 0.2], 0.8)
    return system, matter, b1, b2


def _random_q(state, seed):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=state.getNQ())
    q[0:4] /= np.linalg.norm(q[0:4])
    q[7:11] /= np.linalg.norm(q[7:11])
    return q


def test_analytic_pq_with_quaternions_equals_finite_differences():
    system, matter, b1, b2 = _model()
    state = system.realizeTopology()
    state.setQ(_random_q(state, 1))
    asm = Assembler(system)
    asm.initialize(state)
    solver = AssemblySolver(asm)
    x = solver.get_x()
    status, _ = asm.getAssemblyCondition(0).calcErrorJacobian(asm.getInternalState())
    assert status == 0  # analytic (calcPq)
    analytic = solver.jacobian(x)
    asm.setForceNumericalJacobian(True)
    numeric = solver.jacobian(x)
    assert analytic.shape == (4, 11)
    np.testing.assert_allclose(analytic, numeric, atol=1e-8)


def test_assembly_keeps_quaternions_unit_and_meets_the_constraints():
    system, matter, b1, b2 = _model()
    for seed in range(4):
        state = system.realizeTopology()
        state.setQ(_random_q(state, seed))
        asm = Assembler(system).setErrorTolerance(1e-12)
        assert asm.assemble(state) == 0.0
        system.realize(state, Stage.Position)
        assert np.max(np.abs(state.getQErr())) <= 1e-12  # incl. the quaternion norms
        q = state.getQ()
        assert abs(np.linalg.norm(q[0:4]) - 1) < 1e-15 and abs(np.linalg.norm(q[7:11]) - 1) < 1e-15


def test_markers_goal_subject_to_constraints_is_stationary_on_the_manifold():
    system, matter, b1, b2 = _model()
    m = Markers()
    m.addMarker(b1, [0.2, 0.1, 0.0])
    m.addMarker(b2, [0.0, 0.3, 0.1], 2.0)
    m.addMarker(b1, [0.0, 0.0, 0.4], 0.5)
    asm = Assembler(system).setAccuracy(1e-10).setErrorTolerance(1e-12)
    asm.adoptAssemblyGoal(m)
    obs = np.array([[0.4, 0.3, 0.1], [0.9, 0.5, 0.2], [0.1, 0.2, 0.6]])
    m.moveAllObservations(obs)
    state = system.realizeTopology()
    state.setQ(_random_q(state, 5))
    goal = asm.assemble(state)
    q = np.array(state.getQ())
    probe = system.realizeTopology()
    w = np.array([1.0, 2.0, 0.5])
    stations = [(b1, [0.2, 0.1, 0.0]), (b2, [0.0, 0.3, 0.1]), (b1, [0.0, 0.0, 0.4])]

    def at(qq):
        qq = qq.copy()
        qq[0:4] /= np.linalg.norm(qq[0:4])
        qq[7:11] /= np.linalg.norm(qq[7:11])
        probe.setQ(qq)
        system.realize(probe, Stage.Position)
        return probe

    def f(qq):
        s = at(qq)
        d = [
            b.findStationLocationInGround(s, st) - o
            for (b, st), o in zip(stations, obs, strict=True)
        ]
        return float(w @ [di @ di for di in d]) / (2 * w.sum())

    def holonomic(qq):
        s = at(qq)
        return np.array(s.getQErr())[:4]

    assert abs(goal - f(q)) < 1e-12
    pg = projected_gradient(f, holonomic, q)
    # The null space includes the quaternions' radial directions, along which f is flat.
    assert np.max(np.abs(pg)) < 1e-7


def _fourbar_with_rod():
    from tests.engine.reference_data import load_reference
    from tests.engine.reference_models import add_constraint, build_tree

    model = next(m for m in load_reference("assembler")["models"] if m["name"] == "fourbar_rod")
    system, matter, mobods = build_tree(model["model"])
    add_constraint(matter, mobods, model["model"]["constraints"][0])
    return model, system, matter, mobods


def test_a_mobilizer_locked_in_the_state_is_held_like_assembler_lock_mobilizer():
    """MobilizedBody.lockAt (prescribed q) gives assembler.json's lockMobilizer answer."""
    model, system, matter, mobods = _fourbar_with_rod()
    run = next(r for r in model["runs"] if r["label"] == "ii_lock_mobilizer")
    state = system.realizeTopology()
    state.setQ(model["runs"][0]["q_start"])  # crank elsewhere: lockAt's value wins
    mobods[1].lockAt(state, run["q_start"][0])
    asm = Assembler(system).setAccuracy(1e-10).setErrorTolerance(1e-12)
    asm.assemble(state)
    assert asm.getNumFreeQs() == 1 and asm.getFreeQIndexOfQ(0) == -1
    np.testing.assert_allclose(state.getQ(), run["q_final"], atol=1e-10)


def test_position_level_motion_is_applied_at_the_state_time_and_held():
    from engine import Motion

    model, system, matter, mobods = _fourbar_with_rod()
    Motion.Sinusoid(mobods[1], Motion.Position, 0.3, 2.0, 1.4)
    state = system.realizeTopology()
    state.setTime(0.25)
    state.setQ(model["runs"][0]["q_start"])
    asm = Assembler(system).setErrorTolerance(1e-12)
    asm.assemble(state)
    q = state.getQ()
    assert q[0] == 0.3 * np.sin(2.0 * 0.25 + 1.4)
    system.realize(state, Stage.Position)
    assert abs(state.getQErr()[0]) <= 1e-12
