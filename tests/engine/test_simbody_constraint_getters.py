"""Simbody's per-type constraint error getters (issue 21): Ball.getPositionErrors (Vec3),
Rod.getPositionError (a number), ... the multipliers, and the nonholonomic ones."""

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
    SimbodyMatterSubsystem,
    Stage,
    Transform,
    Vec3,
    YAxis,
)


def test_ball_and_rod_getters():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.Gravity(forces, matter, -YAxis, 9.81)
    body = Body.Rigid(MassProperties(1.0, Vec3(0), Inertia(0.1)))
    free = MobilizedBody.Free(matter.Ground(), Transform(), body, Transform())
    other = MobilizedBody.Translation(matter.Ground(), Transform(), body, Transform())
    ball = Constraint.Ball(matter.Ground(), Vec3(0, 0, 0), free, Vec3(-1, 0, 0))
    rod = Constraint.Rod(matter.Ground(), Vec3(0, 0, 0), other, Vec3(0), 2.0)
    state = system.realizeTopology()
    free.setQToFitTranslation(state, Vec3(1.0, 0.3, -0.2))  # the station is at (0, .3, -.2)
    other.setQToFitTranslation(state, Vec3(0, -2.5, 0))  # 0.5 too far
    system.realize(state, Stage.Position)
    perr = ball.getPositionErrors(state)
    assert perr.shape == (3,)
    np.testing.assert_allclose(np.abs(perr), [0, 0.3, 0.2], atol=1e-15)
    np.testing.assert_array_equal(perr, ball.getPositionErrorsAsVector(state))
    assert isinstance(rod.getPositionError(state), float)
    assert rod.getPositionError(state) == pytest.approx(0.5)
    free.setUToFitLinearVelocity(state, Vec3(0, 1.0, 0))
    system.realize(state, Stage.Velocity)
    np.testing.assert_allclose(np.abs(ball.getVelocityErrors(state)), [0, 1.0, 0], atol=1e-15)
    assert rod.getVelocityError(state) == 0.0
    system.realize(state, Stage.Acceleration)
    np.testing.assert_allclose(ball.getAccelerationErrors(state), 0, atol=1e-10)
    np.testing.assert_array_equal(ball.getMultipliers(state), ball.getMultipliersAsVector(state))
    assert ball.getMultipliers(state).shape == (3,)
    # the rod holds the hanging body against gravity: its multiplier is the tension
    assert abs(rod.getMultiplier(state)) == pytest.approx(9.81, rel=1e-12)
    assert rod.getAccelerationError(state) == pytest.approx(0.0, abs=1e-10)


def test_nonholonomic_getters():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    body = Body.Rigid(MassProperties(1.0, Vec3(0), Inertia(1)))
    slider = MobilizedBody.Slider(matter.Ground(), Transform(), body, Transform())
    speed = Constraint.ConstantSpeed(slider, 0, 2.0)
    state = system.realizeTopology()
    slider.setOneU(state, 0, 3.5)
    system.realize(state, Stage.Acceleration)
    assert speed.getVelocityError(state) == pytest.approx(1.5)
    assert speed.getAccelerationError(state) == pytest.approx(0.0, abs=1e-14)
    assert speed.getMultiplier(state) == pytest.approx(0.0, abs=1e-14)
    assert not hasattr(speed, "getPositionError")
