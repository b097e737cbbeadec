"""Simbody constraint usage ported line by line (issue 21): NoSlip1D's acceleration
equation and the frame of Constraint::calcConstraintForcesFromMultipliers."""

from __future__ import annotations

import numpy as np
import pytest

from engine import (
    Body,
    Constraint,
    Force,
    Function,
    GeneralForceSubsystem,
    Inertia,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    Rotation,
    SimbodyMatterSubsystem,
    Stage,
    Transform,
    Vec3,
    YAxis,
)


def test_no_slip_1d_uses_the_material_points_accelerations():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    body = Body.Rigid(MassProperties(1.0, Vec3(0), Inertia(1)))
    disk = MobilizedBody.Pin(matter.Ground(), Transform(), body, Transform())
    slider = MobilizedBody.Slider(matter.Ground(), Transform(), body, Transform())
    Constraint.NoSlip1D(matter.Ground(), Vec3(1, 0, 0), Vec3(1, 0, 0), disk, slider)
    state = system.realizeTopology()
    disk.setOneU(state, 0, 2.0)
    system.realize(state, Stage.Acceleration)
    # P0 on the disk at (1,0,0) has centripetal acceleration -w^2 r x = -4 x; the slider
    # must follow it along x (Simbody: udot = -4).
    assert slider.getOneUDot(state, 0) == pytest.approx(-4.0, abs=1e-12)


def _moving_base_ball():
    """A rotating base carrying two pendulums whose tips are joined by a Ball: the
    constraint's Ancestor is the base, not Ground."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.Gravity(forces, matter, -YAxis, 9.81)
    body = Body.Rigid(MassProperties(1.0, Vec3(0), Inertia(0.1)))
    base = MobilizedBody.Pin(
        matter.Ground(), Transform(Rotation(np.pi / 2, YAxis)), body, Transform()
    )
    left = MobilizedBody.Pin(base, Transform(Vec3(-1, 0, 0)), body, Transform(Vec3(0, 1, 0)))
    right = MobilizedBody.Pin(base, Transform(Vec3(1, 0, 0)), body, Transform(Vec3(0, 1, 0)))
    ball = Constraint.Ball(left, Vec3(1, 0, 0), right, Vec3(-1, 0, 0))
    return system, matter, base, left, right, ball


def test_constraint_forces_from_multipliers_are_in_the_ancestor_frame():
    system, matter, base, left, right, ball = _moving_base_ball()
    state = system.realizeTopology()
    base.setOneQ(state, 0, 0.7)
    base.setOneU(state, 0, 1.3)
    system.realize(state, Stage.Acceleration)
    assert ball.getAncestorMobilizedBody().getMobilizedBodyIndex() == base.getMobilizedBodyIndex()

    # Simbody: ball.calcConstraintForcesFromMultipliers(state, lambda, bodyForcesInA, mobF)
    bodyForcesInA, mobilityForces = ball.calcConstraintForcesFromMultipliers(
        state, ball.getMultipliersAsVector(state)
    )
    bodyForcesInG, mobilityForcesG = ball.getConstraintForcesAsVectors(state)
    R_GA = base.getBodyRotation(state).asMat33()
    assert not np.allclose(R_GA, np.eye(3))
    for k in range(ball.getNumConstrainedBodies()):
        np.testing.assert_allclose(R_GA @ bodyForcesInA[k][0], bodyForcesInG[k][0], atol=1e-12)
        np.testing.assert_allclose(R_GA @ bodyForcesInA[k][1], bodyForcesInG[k][1], atol=1e-12)
    np.testing.assert_allclose(mobilityForces, mobilityForcesG)
    # The matter-level operator keeps Ground (SimbodyMatterSubsystem's bodyForcesInG).
    F, _ = matter.calcConstraintForcesFromMultipliers(state, matter.getConstraintMultipliers(state))
    for k in range(ball.getNumConstrainedBodies()):
        b = int(ball.getMobilizedBodyFromConstrainedBody(k).getMobilizedBodyIndex())
        np.testing.assert_allclose(F[b], bodyForcesInG[k], atol=1e-12)


def test_speed_coupler_with_coordinate_arguments():
    # Constraint::SpeedCoupler(matter, f, speedBodies, speedIndices, coordBodies, coordIndices)
    # with f(u1, q2) = u1 - 2 q2: the first pin turns at twice the second pin's angle.
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.Gravity(forces, matter, -YAxis, 9.81)
    body = Body.Rigid(MassProperties(1.0, Vec3(0, -0.5, 0), Inertia(1)))
    first = MobilizedBody.Pin(matter.Ground(), Transform(), body, Transform())
    second = MobilizedBody.Pin(first, Transform(Vec3(0, -1, 0)), body, Transform())
    coupler = Constraint.SpeedCoupler(
        matter,
        Function.Linear([1.0, -2.0, 0.0]),
        [first.getMobilizedBodyIndex()],
        [0],
        [second.getMobilizedBodyIndex()],
        [0],
    )
    state = system.realizeTopology()
    second.setOneQ(state, 0, 0.3)
    first.setOneU(state, 0, 0.6)
    second.setOneU(state, 0, 0.4)
    system.realize(state, Stage.Acceleration)
    assert abs(coupler.getVelocityErrorsAsVector(state)[0]) < 1e-15
    # d/dt (u1 - 2 q2) = udot1 - 2 u2 = 0; the force acts on the speed argument only.
    assert first.getOneUDot(state, 0) == pytest.approx(2 * 0.4, abs=1e-12)
    _, f = coupler.getConstraintForcesAsVectors(state)
    assert f.shape == (2,) and f[1] == 0.0 and f[0] != 0.0
