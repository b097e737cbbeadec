"""Constraint::ConstantCoordinate on mobilizers whose qdot != u, as Simbody builds it: the
equation is on the coordinate q_i itself (perr = q_i - value, pverr = qdot_i = N_i u,
paerr = qdotdot_i) and the multiplier acts on q_i as the generalized force N_i^T lambda."""

from __future__ import annotations

import numpy as np
import pytest

from engine import (
    Body,
    Constraint,
    Force,
    GeneralForceSubsystem,
    Inertia,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    RungeKuttaMersonIntegrator,
    SimbodyMatterSubsystem,
    Stage,
    TimeStepper,
    Transform,
    Vec3,
)


def _ball_pendulum(euler: bool, which: int, value: float, q0):
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.UniformGravity(forces, matter, Vec3(0, -9.8, 0))
    body = Body.Rigid(MassProperties(1.5, Vec3(0), Inertia(0.2, 0.3, 0.4)))
    ball = MobilizedBody.Ball(matter.Ground(), Transform(), body, Transform(Vec3(0.3, 1, 0.2)))
    lock = Constraint.ConstantCoordinate(ball, which, value)
    state = system.realizeTopology()
    matter.setUseEulerAngles(state, euler)
    system.realizeModel(state)
    ball.setQ(state, q0)
    ball.setU(state, [0.4, -0.7, 1.1])
    return system, matter, ball, lock, state


@pytest.mark.parametrize(
    ("euler", "which", "value", "q0"),
    [
        (True, 1, 0.25, [0.1, 0.25, -0.2]),  # hold the y Euler angle
        (False, 3, 0.2, [np.sqrt(1 - 0.04 - 0.09 - 0.01), 0.3, 0.1, 0.2]),  # hold quaternion z
    ],
)
def test_constant_coordinate_on_a_ball_holds_the_coordinate(euler, which, value, q0):
    system, matter, ball, lock, state = _ball_pendulum(euler, which, value, q0)
    assert lock.getWhichQ() == which
    system.realize(state, Stage.Velocity)
    # The velocity error is the coordinate's rate qdot_i, not u_i.
    np.testing.assert_allclose(
        lock.getVelocityErrorsAsVector(state), [ball.getQDot(state)[which]], atol=1e-14
    )
    system.project(state, 1e-12)
    system.realize(state, Stage.Acceleration)
    np.testing.assert_allclose(ball.getQDot(state)[which], 0.0, atol=1e-10)
    np.testing.assert_allclose(ball.getQDotDot(state)[which], 0.0, atol=1e-9)
    e0 = system.calcEnergy(state)
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(1e-7)
    ts = TimeStepper(system, integ)
    ts.initialize(state)
    ts.stepTo(0.6)
    final = integ.getState()
    system.realize(final, Stage.Velocity)
    assert ball.getQ(final)[which] == pytest.approx(value, abs=1e-6)
    assert system.calcEnergy(final) == pytest.approx(e0, abs=1e-4)
    # It moved: the other coordinates are free.
    assert np.abs(np.array(ball.getQ(final)) - np.array(ball.getQ(state))).max() > 1e-2


def test_constant_coordinate_force_is_n_transpose_lambda():
    system, matter, ball, lock, state = _ball_pendulum(True, 0, 0.1, [0.1, 0.4, -0.3])
    system.realize(state, Stage.Acceleration)
    lam = lock.getMultipliersAsVector(state)
    body_forces, mobility_forces = lock.getConstraintForcesAsVectors(state)
    e0 = np.zeros(state.getNQ())
    e0[0] = 1.0
    row = matter.multiplyByN(state, True, e0)  # N^T e_0: row 0 of N
    assert abs(lam[0]) > 1e-3 and np.count_nonzero(np.abs(row) > 1e-12) > 1
    np.testing.assert_allclose(mobility_forces, lam[0] * row, atol=1e-12)
    np.testing.assert_allclose(body_forces, 0.0)
