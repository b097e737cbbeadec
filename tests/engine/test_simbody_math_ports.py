"""Simbody math and energy usage ported line by line (issue 21): Vec3(s), the 0th
derivative of a Function, Function::Step at its ends, rotation conversions with repeated
axes, and energies of a State at Position or Velocity stage."""

from __future__ import annotations

import numpy as np
import pytest

from engine import (
    Body,
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
    UnitInertia,
    Vec3,
    XAxis,
    YAxis,
    ZAxis,
)
from engine.common.exceptions import StageTooLowError
from engine.math import BodyRotationSequence


def test_vec3_of_one_scalar_fills_all_three():
    np.testing.assert_array_equal(Vec3(0.1), [0.1, 0.1, 0.1])
    np.testing.assert_array_equal(Vec3(), [0, 0, 0])
    np.testing.assert_array_equal(Vec3(1, 2, 3), [1, 2, 3])
    # UnitInertia(Vec3(.1), Vec3(0)): moments (.1, .1, .1), no products.
    np.testing.assert_allclose(UnitInertia(Vec3(0.1), Vec3(0)).toMat33(), 0.1 * np.eye(3))


def test_zeroth_derivative_is_the_value_and_step_is_exact_at_its_ends():
    f = Function.Sinusoid(2.0, 3.0, 0.5)
    assert f.calcDerivative([], [0.7]) == f.calcValue([0.7])
    step = Function.Step(0.1, 0.7, 0.3, 1.9)  # y0, y1, x0, x1
    assert step.calcValue([1.9]) == 0.7 and step.calcValue([0.3]) == 0.1
    assert step.calcValue([5.0]) == 0.7 and step.calcValue([-5.0]) == 0.1
    assert step.calcDerivative([], [1.9]) == 0.7


def test_rotation_conversions_with_repeated_axes():
    R = Rotation(0.5, XAxis)
    np.testing.assert_allclose(
        R.convertTwoAxesRotationToTwoAngles(BodyRotationSequence, XAxis, XAxis), [0.25, 0.25]
    )
    np.testing.assert_allclose(
        R.convertThreeAxesRotationToThreeAngles(BodyRotationSequence, XAxis, XAxis, XAxis),
        [0.5 / 3] * 3,
    )
    R2 = Rotation(0.4, XAxis) * Rotation(0.3, ZAxis)
    a = R2.convertThreeAxesRotationToThreeAngles(BodyRotationSequence, XAxis, XAxis, ZAxis)
    np.testing.assert_allclose(a, [0.2, 0.2, 0.3], atol=1e-15)
    b = R2.convertThreeAxesRotationToThreeAngles(BodyRotationSequence, XAxis, ZAxis, ZAxis)
    np.testing.assert_allclose(b, [0.4, 0.15, 0.15], atol=1e-15)


def test_energy_of_a_state_at_position_or_velocity_stage():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.Gravity(forces, matter, -YAxis, 9.81)
    body = Body.Rigid(MassProperties(1.0, Vec3(0), Inertia(1)))
    pendulum = MobilizedBody.Pin(matter.Ground(), Transform(), body, Transform(Vec3(0, 1, 0)))
    Force.MobilityLinearSpring(forces, pendulum, 0, 2.0, 0.0)
    state = system.realizeTopology()
    pendulum.setOneQ(state, 0, 0.5)
    pendulum.setOneU(state, 0, 2.0)
    with pytest.raises(StageTooLowError, match="Position"):
        system.calcPotentialEnergy(state)
    system.realize(state, Stage.Position)
    pe = system.calcPotentialEnergy(state)
    assert pe == pytest.approx(-9.81 * np.cos(0.5) + 0.5 * 2.0 * 0.25, rel=1e-14)
    system.realize(state, Stage.Velocity)
    assert system.calcEnergy(state) == pytest.approx(pe + 0.5 * 2.0 * 4.0, rel=1e-14)
    system.realize(state, Stage.Dynamics)
    assert system.calcEnergy(state) == pytest.approx(pe + 4.0, rel=1e-14)


def test_set_rotation_to_body_fixed_xyz_from_cosines_and_sines():
    """Simbody: ``R.setRotationToBodyFixedXYZ(Vec3(cos q), Vec3(sin q))`` is the angle form."""
    q = np.array([0.3, -1.1, 2.4])
    R = Rotation().setRotationToBodyFixedXYZ(Vec3(*np.cos(q)), Vec3(*np.sin(q)))
    expected = Rotation(q[0], XAxis) * Rotation(q[1], YAxis) * Rotation(q[2], ZAxis)
    assert R.getMaxAbsDifference(expected) < 1e-15
    assert R.getMaxAbsDifference(Rotation().setRotationToBodyFixedXYZ(Vec3(*q))) < 1e-15
    with pytest.raises(ValueError, match="c\\^2 \\+ s\\^2"):
        Rotation().setRotationToBodyFixedXYZ(Vec3(1, 1, 1), Vec3(1, 0, 0))
