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


def test_simbody_index_types_port_unchanged():
    """Ported code names Simbody's index types; they are ints, and a default-constructed
    one is invalid and refused."""
    from engine import (
        BodyRotationSequence,
        Force,
        GeneralForceSubsystem,
        IndexOutOfRangeError,
        MobilizedBodyIndex,
        MobilizerQIndex,
        MobilizerUIndex,
        Rotation,
        UnitVec3,
    )

    system, matter, free, pin1, pin2 = _chain()
    forces = GeneralForceSubsystem(system)
    Force.MobilityLinearSpring(forces, pin1, MobilizerQIndex(0), 10.0, 0.25)
    assert matter.getMobilizedBody(MobilizedBodyIndex(2)) is pin1
    state = system.realizeTopology()
    pin2.setOneU(state, MobilizerUIndex(0), 1.5)
    assert matter.isUsingQuaternion(state, MobilizedBodyIndex(1))
    assert pin2.getOneU(state, MobilizerUIndex(0)) == 1.5
    assert not MobilizedBodyIndex().isValid() and MobilizedBodyIndex(0).isValid()
    with pytest.raises(IndexOutOfRangeError):
        matter.getMobilizedBody(MobilizedBodyIndex())
    np.testing.assert_array_equal(UnitVec3(XAxis), [1, 0, 0])
    angles = Rotation(0.5, XAxis).convertTwoAxesRotationToTwoAngles(
        BodyRotationSequence, XAxis, XAxis
    )
    np.testing.assert_allclose(angles, [0.25, 0.25])


def test_coordinate_axis_and_direction_members():
    """SimTK::CoordinateAxis / CoordinateDirection members as Simbody's tests use them."""
    from engine import CoordinateAxis, YAxis

    assert XAxis.getThirdAxis(YAxis) == ZAxis and ZAxis.getThirdAxis(XAxis) == YAxis
    assert XAxis.isXAxis() and YAxis.isYAxis() and ZAxis.isZAxis() and not XAxis.isZAxis()
    assert XAxis.isForwardCyclical(YAxis) and ZAxis.isForwardCyclical(XAxis)
    assert XAxis.isReverseCyclical(ZAxis) and not XAxis.isReverseCyclical(YAxis)
    assert XAxis.areAllDifferentAxes(YAxis, ZAxis) and not XAxis.areAllDifferentAxes(YAxis, XAxis)
    assert YAxis.areAllSameAxes(YAxis, CoordinateAxis(1)) and XAxis.isDifferentAxis(ZAxis)
    for a in (XAxis, YAxis, ZAxis):
        for b in (XAxis, YAxis, ZAxis):
            sign, axis = a.crossProduct(b)
            cross = np.cross(a.asVec3(), b.asVec3())
            np.testing.assert_array_equal(cross, sign * axis.asVec3())
            assert a.dotProduct(b) == a.asVec3() @ b.asVec3()
            for da in (+a, -a):  # CoordinateDirections
                for db in (+b, -b):
                    sign, axis = da.crossProduct(db)
                    cross = np.cross(da.asVec3(), db.asVec3())
                    np.testing.assert_array_equal(cross, sign * axis.asVec3())
                    assert da.dotProduct(db) == da.asVec3() @ db.asVec3()
    assert CoordinateAxis.getCoordinateAxis(2) == ZAxis
    assert CoordinateAxis.isIndexInRange(1) and not CoordinateAxis.isIndexInRange(3)
    assert (-YAxis).hasSameAxis(YAxis) and not (-YAxis).isSameAxisAndDirection(YAxis)
