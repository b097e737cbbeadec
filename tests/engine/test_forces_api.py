"""Defaults versus State values, and the DiscreteForces / Gravity APIs."""

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
    Transform,
    Vec3,
)


def _system():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    body = Body.Rigid(MassProperties(2.0, Vec3(0.1, -0.5, 0), Inertia(0.3, 0.05, 0.3)))
    pin = MobilizedBody.Pin(matter.Ground(), Transform(Vec3(0, 1, 0)), body, Transform())
    free = MobilizedBody.Free(pin, Transform(Vec3(0, -1, 0)), body, Transform())
    return system, matter, forces, pin, free


def test_state_values_start_at_the_defaults_and_stay_per_state():
    system, matter, forces, pin, free = _system()
    spring = Force.MobilityLinearSpring(forces, pin, 0, 3.0, 0.25)
    stop = Force.MobilityLinearStop(forces, pin, 0, 100.0, 0.5)
    a = system.realizeTopology()
    b = system.realizeTopology()
    spring.setStiffness(a, 7.0)
    assert spring.getStiffness(a) == 7.0 and spring.getStiffness(b) == 3.0
    assert spring.getDefaultStiffness() == 3.0 and spring.getQZero(a) == 0.25
    assert stop.getLowerBound(a) == -np.inf and stop.getUpperBound(a) == np.inf
    pin.setOneQ(a, 0, 1.0)
    system.realize(a, Stage.Dynamics)
    assert system.getMobilityForces(a)[0] == pytest.approx(-7.0 * 0.75)
    assert system.calcPotentialEnergy(a) == pytest.approx(0.5 * 7.0 * 0.75**2)
    spring.setDefaultStiffness(5.0).setDefaultQZero(0.0)
    c = system.realizeTopology()
    assert spring.getStiffness(c) == 5.0 and spring.getQZero(c) == 0.0


def test_discrete_forces_store_apply_and_clear():
    system, matter, forces, pin, free = _system()
    discrete = Force.DiscreteForces(forces, matter)
    s = system.realizeTopology()
    assert discrete.getAllMobilityForces(s).shape == (0,)
    assert discrete.getAllBodyForces(s).shape == (0, 2, 3)
    assert discrete.getOneMobilityForce(s, free, 4) == 0.0
    np.testing.assert_array_equal(discrete.getOneBodyForce(s, free), np.zeros((2, 3)))

    discrete.setOneMobilityForce(s, free, 4, 2.5)
    all_f = discrete.getAllMobilityForces(s)
    assert all_f.shape == (7,) and all_f[1 + 4] == 2.5 and not all_f.flags.writeable
    discrete.setOneBodyForce(s, pin, [[0, 0, 1], [1, 0, 0]])
    system.realize(s, Stage.Position)
    discrete.addForceToBodyPoint(s, free, [0, 1, 0], [0, 0, 3])
    discrete.addForceToBodyPoint(s, free, [0, 1, 0], [0, 0, 3])
    r = free.expressVectorInGroundFrame(s, [0, 1, 0])
    expected = np.array([np.cross(r, [0, 0, 6]), [0, 0, 6]])
    np.testing.assert_allclose(discrete.getOneBodyForce(s, free), expected)

    system.realize(s, Stage.Dynamics)
    F = system.getRigidBodyForces(s)
    np.testing.assert_allclose(F[2], expected)
    np.testing.assert_array_equal(F[1], [[0, 0, 1], [1, 0, 0]])
    assert system.getMobilityForces(s)[5] == 2.5

    discrete.clearAllBodyForces(s)
    assert discrete.getAllBodyForces(s).size == 0 and discrete.getAllMobilityForces(s).size == 7
    discrete.setAllBodyForces(s, np.ones((3, 2, 3)))
    discrete.setAllMobilityForces(s, [])
    system.realize(s, Stage.Dynamics)
    np.testing.assert_array_equal(system.getRigidBodyForces(s), np.ones((3, 2, 3)))
    assert not np.any(system.getMobilityForces(s))
    discrete.clearAllForces(s)
    system.realize(s, Stage.Dynamics)
    assert not np.any(system.getRigidBodyForces(s))


def test_gravity_exclusions_defaults_and_state():
    system, matter, forces, pin, free = _system()
    gravity = Force.Gravity(forces, matter, [0, 0, -2], 9.0)
    np.testing.assert_allclose(gravity.getDefaultDownDirection(), [0, 0, -1])
    assert gravity.getDefaultBodyIsExcluded(matter.Ground())
    gravity.setDefaultBodyIsExcluded(matter.Ground(), False)  # ignored for Ground
    gravity.setDefaultBodyIsExcluded(free, True)
    s = system.realizeTopology()
    assert gravity.getBodyIsExcluded(s, 0) and gravity.getBodyIsExcluded(s, free)
    system.realize(s, Stage.Dynamics)
    F = system.getRigidBodyForces(s)
    np.testing.assert_allclose(F[1, 1], [0, 0, -18.0])
    assert not np.any(F[2]) and not np.any(F[0])
    gravity.setBodyIsExcluded(s, free, False)
    gravity.setGravityVector(s, [3, 0, 0])
    system.realize(s, Stage.Dynamics)
    F = system.getRigidBodyForces(s)
    np.testing.assert_allclose(F[2, 1], [6.0, 0, 0])
    assert gravity.getMagnitude(s) == 3.0 and gravity.getDefaultMagnitude() == 9.0
    # The vector form of the constructor.
    g2 = Force.Gravity(forces, matter, [0, -4, 0])
    assert g2.getDefaultMagnitude() == 4.0
    np.testing.assert_allclose(g2.getDefaultGravityVector(), [0, -4, 0])


def test_uniform_gravity_and_constant_elements_accessors():
    system, matter, forces, pin, free = _system()
    ug = Force.UniformGravity(forces, matter, [0, -9.8, 0], 0.5)
    cf = Force.ConstantForce(forces, free, [0, 0.2, 0], [1, 2, 3])
    ct = Force.ConstantTorque(forces, free, [0.5, 0, 0])
    np.testing.assert_array_equal(ug.getGravity(), [0, -9.8, 0])
    assert ug.getZeroHeight() == 0.5
    s = system.realizeTopology()
    np.testing.assert_array_equal(cf.getForce(s), [1, 2, 3])
    np.testing.assert_array_equal(cf.getStation(s), [0, 0.2, 0])
    np.testing.assert_array_equal(ct.getTorque(s), [0.5, 0, 0])
    system.realize(s, Stage.Dynamics)
    # PE of UniformGravity: -sum m (g . p_com + h0), with h0 not scaled by |g|.
    pcom = [b.findStationLocationInGround(s, [0.1, -0.5, 0]) for b in (pin, free)]
    expected = -sum(2.0 * (np.dot([0, -9.8, 0], p) + 0.5) for p in pcom)
    assert system.calcPotentialEnergy(s) == pytest.approx(expected, rel=1e-14)
    body, _, _ = ct.calcForceContribution(s)
    np.testing.assert_array_equal(body[2], [[0.5, 0, 0], [0, 0, 0]])
