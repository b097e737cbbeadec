"""Argument forms Simbody's signatures accept (issue 21): a MobilizedBodyIndex where
Simbody takes one, a CoordinateAxis where Simbody takes one."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine import (
    Body,
    Constraint,
    Function,
    Inertia,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    SimbodyMatterSubsystem,
    Stage,
    Transform,
    Vec3,
    XAxis,
    ZAxis,
)


def _chain():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    body = Body.Rigid(MassProperties(1.0, Vec3(0), Inertia(1)))
    free = MobilizedBody.Free(matter.Ground(), Transform(), body, Transform())
    pin1 = MobilizedBody.Pin(free, Transform(Vec3(1, 0, 0)), body, Transform())
    pin2 = MobilizedBody.Pin(pin1, Transform(Vec3(1, 0, 0)), body, Transform())
    return system, matter, free, pin1, pin2


def test_spherical_coords_takes_a_coordinate_axis():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    body = Body.Rigid(MassProperties(1.0, Vec3(0), Inertia(1)))
    # MobilizedBody::SphericalCoords(parent, X_PF, body, X_BM,
    #     azOffset, azNeg, zeOffset, zeNeg, ZAxis, radNeg)
    sz = MobilizedBody.SphericalCoords(
        matter.Ground(), Transform(), body, Transform(), 0.0, False, 0.0, False, ZAxis, False
    )
    sx = MobilizedBody.SphericalCoords(
        matter.Ground(), Transform(), body, Transform(), 0.0, False, 0.0, False, XAxis, False
    )
    state = system.realizeTopology()
    for mobod in (sz, sx):
        mobod.setQ(state, [0.0, 0.0, 2.0])
    system.realize(state, Stage.Position)
    np.testing.assert_allclose(sz.getBodyOriginLocation(state), [0, 0, 2], atol=1e-15)
    np.testing.assert_allclose(sx.getBodyOriginLocation(state), [2, 0, 0], atol=1e-15)


def test_couplers_and_prescribed_motion_take_mobilized_body_indices():
    system, matter, free, pin1, pin2 = _chain()
    i1, i2 = pin1.getMobilizedBodyIndex(), pin2.getMobilizedBodyIndex()
    # Constraint::CoordinateCoupler(matter, new Function::Linear(coefs), bodies, coords)
    coupler = Constraint.CoordinateCoupler(
        matter, Function.Linear([1.0, -2.0, 0.0]), [i1, i2], [0, 0]
    )
    speeds = Constraint.SpeedCoupler(matter, Function.Linear([1.0, 1.0, 0.0]), [i1, i2], [0, 0])
    motion = Constraint.PrescribedMotion(matter, Function.Sinusoid(0.5, 2.0, 0.0), i1, 0)
    assert coupler.getNumConstrainedMobilizers() == 2
    assert speeds.getNumConstrainedMobilizers() == 2
    assert motion.getNumConstrainedMobilizers() == 1
    state = system.realizeTopology()
    state.setTime(0.3)
    system.realize(state, Stage.Position)
    pin1.setOneQ(state, 0, 0.5 * math.sin(0.6))
    pin2.setOneQ(state, 0, 0.5 * math.sin(0.6) / 2)
    system.realize(state, Stage.Position)
    assert abs(coupler.getPositionErrorsAsVector(state)[0]) < 1e-15
    assert abs(motion.getPositionErrorsAsVector(state)[0]) < 1e-15
    with pytest.raises(Exception, match="no mobilized body 9"):
        Constraint.PrescribedMotion(matter, Function.Sinusoid(0.5, 2.0, 0.0), 9, 0)


def test_quaternion_queries_take_a_mobilized_body_index():
    system, matter, free, pin1, _ = _chain()
    state = system.realizeTopology()
    system.realizeModel(state)
    # matter.isUsingQuaternion(state, MobilizedBodyIndex(1))
    assert matter.isUsingQuaternion(state, 1) and matter.isUsingQuaternion(state, free)
    assert not matter.isUsingQuaternion(state, pin1.getMobilizedBodyIndex())
    assert matter.getQuaternionPoolIndex(state, 1) == 0
    assert matter.getQuaternionPoolIndex(state, 2) == -1
