"""Simbody kinematics usage ported line by line (issue 21): realizePositionKinematics and
realizeVelocityKinematics make the pose and velocity accessors work, setTime keeps them,
and calcResidualForceIgnoringConstraints takes zero-length arguments as zeros."""

from __future__ import annotations

import numpy as np
import pytest

from engine import (
    Body,
    Force,
    GeneralForceSubsystem,
    Inertia,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    SimbodyMatterSubsystem,
    Stage,
    StageTooLowError,
    Transform,
    Vec3,
    YAxis,
)


def _pendulum():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.Gravity(forces, matter, -YAxis, 9.81)
    body = Body.Rigid(MassProperties(1.0, Vec3(0), Inertia(1)))
    pendulum = MobilizedBody.Pin(matter.Ground(), Transform(), body, Transform(Vec3(0, 1, 0)))
    state = system.realizeTopology()
    pendulum.setOneQ(state, 0, 0.5)
    pendulum.setOneU(state, 0, 2.0)
    return system, matter, pendulum, state


def test_accessors_work_after_explicit_kinematics_realization():
    system, matter, pendulum, state = _pendulum()
    system.realize(state, Stage.Instance)
    matter.realizePositionKinematics(state)
    p = pendulum.getBodyTransform(state).p()
    np.testing.assert_allclose(p, [np.sin(0.5), -np.cos(0.5), 0], atol=1e-15)
    np.testing.assert_allclose(matter.calcSystemMassCenterLocationInGround(state), p)
    matter.realizeVelocityKinematics(state)
    np.testing.assert_allclose(pendulum.getBodyAngularVelocity(state), [0, 0, 2.0])
    np.testing.assert_allclose(
        pendulum.getBodyOriginVelocity(state), 2.0 * np.array([np.cos(0.5), np.sin(0.5), 0])
    )
    # setTime leaves q, u and so the kinematics valid.
    state.setTime(1.0)
    assert matter.isPositionKinematicsRealized(state)
    np.testing.assert_allclose(pendulum.getBodyTransform(state).p(), p)
    # Changing q does not.
    pendulum.setOneQ(state, 0, 0.1)
    assert not matter.isPositionKinematicsRealized(state)


def test_residual_force_takes_zero_length_arguments_as_zeros():
    system, matter, pendulum, state = _pendulum()
    system.realize(state, Stage.Velocity)
    nu, nb = state.getNU(), matter.getNumBodies()
    full = matter.calcResidualForceIgnoringConstraints(
        state, np.zeros(nu), np.zeros((nb, 2, 3)), np.zeros(nu)
    )
    empty = matter.calcResidualForceIgnoringConstraints(state, [], [], [])
    np.testing.assert_array_equal(empty, full)
    # M udot - f with udot = 1: the mass matrix column
    with_udot = matter.calcResidualForceIgnoringConstraints(state, [], [], [1.0])
    np.testing.assert_allclose(with_udot, full + matter.calcM(state)[:, 0])


def test_set_time_after_realize_keeps_kinematics_and_operators():
    """Simbody: setTime invalidates Time stage and up, but the kinematics computed by
    realize(Position/Velocity) depend on q and u only and stay valid, and so do the
    operators that need only kinematics."""
    system, matter, pendulum, state = _pendulum()
    system.realize(state, Stage.Velocity)
    before = {
        "X": pendulum.getBodyTransform(state).toMat44(),
        "V": pendulum.getBodyVelocity(state),
        "J": matter.calcSystemJacobian(state),
        "M": matter.calcM(state),
        "MInv": matter.multiplyByMInv(state, [1.0]),
        "bias": matter.calcBiasForSystemJacobian(state),
        "res": matter.calcResidualForceIgnoringConstraints(state, [], [], []),
        "KE": matter.calcKineticEnergy(state),
    }
    state.setTime(3.0)
    assert state.getSystemStage() == Stage.Instance
    assert matter.isPositionKinematicsRealized(state)
    assert matter.isVelocityKinematicsRealized(state)
    after = {
        "X": pendulum.getBodyTransform(state).toMat44(),
        "V": pendulum.getBodyVelocity(state),
        "J": matter.calcSystemJacobian(state),
        "M": matter.calcM(state),
        "MInv": matter.multiplyByMInv(state, [1.0]),
        "bias": matter.calcBiasForSystemJacobian(state),
        "res": matter.calcResidualForceIgnoringConstraints(state, [], [], []),
        "KE": matter.calcKineticEnergy(state),
    }
    for key, value in before.items():
        np.testing.assert_array_equal(after[key], value, err_msg=key)
    # updTime behaves as setTime
    state.updTime().value = 4.0
    assert matter.isVelocityKinematicsRealized(state)
    # u changes: velocity kinematics go, position kinematics stay
    pendulum.setOneU(state, 0, 1.0)
    assert matter.isPositionKinematicsRealized(state)
    assert not matter.isVelocityKinematicsRealized(state)
    np.testing.assert_array_equal(matter.calcM(state), before["M"])
    with pytest.raises(StageTooLowError):
        matter.calcBiasForSystemJacobian(state)
    # q changes: nothing kinematic is left
    pendulum.setOneQ(state, 0, 0.2)
    assert not matter.isPositionKinematicsRealized(state)
    with pytest.raises(StageTooLowError):
        matter.calcM(state)
    with pytest.raises(StageTooLowError):
        pendulum.getBodyTransform(state)
    system.realize(state, Stage.Position)
    np.testing.assert_allclose(
        pendulum.getBodyTransform(state).p(), [np.sin(0.2), -np.cos(0.2), 0], atol=1e-15
    )
