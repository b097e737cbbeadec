"""Simbody Force::Gravity usage ported line by line (issue 21): zero gravity vectors, the
magnitude-only constructor, getBodyForce and the force cache queries."""

from __future__ import annotations

import numpy as np

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
    ZAxis,
)


def _system():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    body = Body.Rigid(MassProperties(2.0, Vec3(0.5, 0, 0), Inertia(1)))
    pin = MobilizedBody.Pin(matter.Ground(), Transform(), body, Transform())
    return system, matter, forces, pin


def test_zero_gravity_vector_is_magnitude_zero():
    system, matter, forces, pin = _system()
    gravity = Force.Gravity(forces, matter, Vec3(0))
    assert gravity.getDefaultMagnitude() == 0.0
    np.testing.assert_array_equal(gravity.getDefaultGravityVector(), [0, 0, 0])
    state = system.realizeTopology()
    gravity.setGravityVector(state, Vec3(0, -9.8, 0))
    gravity.setGravityVector(state, Vec3(0))
    assert gravity.getMagnitude(state) == 0.0
    np.testing.assert_array_equal(gravity.getDownDirection(state), [0, -1, 0])
    system.realize(state, Stage.Acceleration)
    assert pin.getOneUDot(state, 0) == 0.0


def test_magnitude_constructor_pulls_against_the_up_direction():
    system, matter, forces, pin = _system()
    system.setUpDirection(ZAxis)
    # Force::Gravity gravity(forces, matter, 9.8);
    gravity = Force.Gravity(forces, matter, 9.8)
    np.testing.assert_allclose(gravity.getDefaultGravityVector(), [0, 0, -9.8])


def test_get_body_force_and_the_force_cache():
    system, matter, forces, pin = _system()
    gravity = Force.Gravity(forces, matter, Vec3(0, -10, 0))
    state = system.realizeTopology()
    pin.setOneQ(state, 0, 0.0)
    system.realize(state, Stage.Position)
    assert gravity.getNumEvaluations() == 0 and not gravity.isForceCacheValid(state)
    F = gravity.getBodyForce(state, pin)
    # m g = (0, -20, 0) at the mass center (0.5, 0, 0): torque -10 about z at Bo.
    np.testing.assert_allclose(F, [[0, 0, -10], [0, -20, 0]])
    np.testing.assert_array_equal(gravity.getBodyForce(state, matter.Ground()), np.zeros((2, 3)))
    assert gravity.getNumEvaluations() == 1 and gravity.isForceCacheValid(state)
    gravity.invalidateForceCache(state)
    assert not gravity.isForceCacheValid(state)
    gravity.getBodyForce(state, 1)
    assert gravity.getNumEvaluations() == 2
    pin.setOneQ(state, 0, np.pi / 2)
    system.realize(state, Stage.Position)
    assert not gravity.isForceCacheValid(state)
    np.testing.assert_allclose(
        gravity.getBodyForce(state, pin), [[0, 0, 0], [0, -20, 0]], atol=1e-14
    )
