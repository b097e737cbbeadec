"""Simbody Force::Gravity usage ported line by line (issue 21): zero gravity vectors, the
magnitude-only constructor, getBodyForce and the force cache queries."""

from __future__ import annotations

import numpy as np
import pytest

from engine import (
    Body,
    Force,
    GeneralForceSubsystem,
    IndexOutOfRangeError,
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


def test_default_exclusions_by_index_before_the_bodies_are_built():
    """Simbody: setDefaultBodyIsExcluded takes any MobilizedBodyIndex, also of a body not
    added yet; the exclusion applies once it is built (and one past the last body built
    does nothing). The State setter needs a body that exists."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    gravity = Force.Gravity(forces, matter, Vec3(0, -9.81, 0))
    gravity.setDefaultBodyIsExcluded(2, True)  # before any body exists
    gravity.setDefaultBodyIsExcluded(7, True)  # never built
    assert gravity.getDefaultBodyIsExcluded(2) and gravity.getDefaultBodyIsExcluded(7)
    assert not gravity.getDefaultBodyIsExcluded(3)
    with pytest.raises(IndexOutOfRangeError):
        gravity.setDefaultBodyIsExcluded(-1, True)
    body = Body.Rigid(MassProperties(1.0, Vec3(0), Inertia(1)))
    first = MobilizedBody.Translation(matter.Ground(), Transform(), body, Transform())
    second = MobilizedBody.Translation(matter.Ground(), Transform(), body, Transform())
    state = system.realizeTopology()
    system.realize(state, Stage.Acceleration)
    np.testing.assert_allclose(first.getUDot(state), [0, -9.81, 0])
    np.testing.assert_array_equal(second.getUDot(state), [0, 0, 0])
    assert gravity.getBodyIsExcluded(state, second) and not gravity.getBodyIsExcluded(state, 1)
    with pytest.raises(IndexOutOfRangeError):
        gravity.setBodyIsExcluded(state, 7, False)
    gravity.setBodyIsExcluded(state, second, False)
    system.realize(state, Stage.Acceleration)
    np.testing.assert_allclose(second.getUDot(state), [0, -9.81, 0])
