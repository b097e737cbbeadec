"""Bad input to the force elements is refused with typed errors before anything changes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine import (
    Body,
    Force,
    GeneralForceSubsystem,
    IndexOutOfRangeError,
    Inertia,
    InvalidArgumentError,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    NonPhysicalError,
    SimbodyMatterSubsystem,
    Stage,
    StageTooLowError,
    Transform,
    Vec3,
)


def _system():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    body = Body.Rigid(MassProperties(1.0, Vec3(0, -0.5, 0), Inertia(0.1, 0.02, 0.1)))
    pin = MobilizedBody.Pin(matter.Ground(), Transform(), body, Transform(Vec3(0, 0.5, 0)))
    ball = MobilizedBody.Ball(pin, Transform(Vec3(0, -1, 0)), body, Transform())
    return system, matter, forces, pin, ball


def _refused(forces, error, make, match=None):
    n = forces.getNumForces()
    with pytest.raises(error, match=match):
        make()
    assert forces.getNumForces() == n  # nothing was added


def test_constructors_refuse_bad_parameters():
    system, matter, forces, pin, ball = _system()
    g = matter.Ground()
    nan = math.nan
    cases = [
        (NonPhysicalError, lambda: Force.MobilityLinearSpring(forces, pin, 0, -1.0, 0.0), ">= 0"),
        (
            InvalidArgumentError,
            lambda: Force.MobilityLinearSpring(forces, pin, 0, nan, 0),
            "finite",
        ),
        (IndexOutOfRangeError, lambda: Force.MobilityLinearSpring(forces, pin, 1, 1, 0), "1 q"),
        (
            IndexOutOfRangeError,
            lambda: Force.MobilityLinearSpring(forces, ball, 3, 1, 0),
            "no matching u",
        ),
        (IndexOutOfRangeError, lambda: Force.MobilityLinearDamper(forces, ball, 3, 1.0), "3 u"),
        (
            IndexOutOfRangeError,
            lambda: Force.MobilityConstantForce(forces, pin, -1, 1.0),
            "out of range",
        ),
        (IndexOutOfRangeError, lambda: Force.MobilityDiscreteForce(forces, g, 0, 1.0), "0 u"),
        (NonPhysicalError, lambda: Force.MobilityLinearDamper(forces, pin, 0, -0.1), ">= 0"),
        (
            InvalidArgumentError,
            lambda: Force.MobilityLinearStop(forces, pin, 0, 1, 0, 1.0, -1.0),
            "above",
        ),
        (
            InvalidArgumentError,
            lambda: Force.MobilityLinearStop(forces, pin, 0, 1, 0, nan, 1.0),
            "NaN",
        ),
        (
            NonPhysicalError,
            lambda: Force.MobilityLinearStop(forces, pin, 0, 1, -2, -1, 1),
            "dissipation",
        ),
        (
            NonPhysicalError,
            lambda: Force.TwoPointLinearSpring(forces, pin, Vec3(), ball, Vec3(), -1, 0),
            "stiffness",
        ),
        (
            NonPhysicalError,
            lambda: Force.TwoPointLinearSpring(forces, pin, Vec3(), ball, Vec3(), 1, -1),
            "rest length",
        ),
        (
            InvalidArgumentError,
            lambda: Force.TwoPointLinearSpring(forces, pin, [1, 2], ball, Vec3(), 1, 0),
            "station1",
        ),
        (
            NonPhysicalError,
            lambda: Force.TwoPointLinearDamper(forces, pin, Vec3(), ball, Vec3(), -1),
            "damping",
        ),
        (
            InvalidArgumentError,
            lambda: Force.TwoPointConstantForce(forces, pin, Vec3(), ball, Vec3(), nan),
            "finite",
        ),
        (
            InvalidArgumentError,
            lambda: Force.ConstantForce(forces, pin, Vec3(), [0, nan, 0]),
            "force",
        ),
        (InvalidArgumentError, lambda: Force.ConstantTorque(forces, pin, [1, 2, 3, 4]), "torque"),
        (NonPhysicalError, lambda: Force.GlobalDamper(forces, matter, -0.5), "damping"),
        (
            InvalidArgumentError,
            lambda: Force.GlobalDamper(forces, forces, 0.5),
            "SimbodyMatterSubsystem",
        ),
        (
            InvalidArgumentError,
            lambda: Force.UniformGravity(forces, matter, [0, nan, 0]),
            "gravity",
        ),
        (
            InvalidArgumentError,
            lambda: Force.Gravity(forces, matter, Vec3(), 9.8),
            "down direction",
        ),
        (NonPhysicalError, lambda: Force.Gravity(forces, matter, [0, -1, 0], -9.8), "magnitude"),
        (
            NonPhysicalError,
            lambda: Force.LinearBushing(forces, pin, ball, [1, 1, 1, 1, 1, -1], np.zeros(6)),
            "stiffness",
        ),
        (
            InvalidArgumentError,
            lambda: Force.LinearBushing(forces, pin, ball, np.ones(5), np.zeros(6)),
            "6 components",
        ),
        (
            InvalidArgumentError,
            lambda: Force.LinearBushing(
                forces, pin, [0, 0, 0], ball, Transform(), np.ones(6), np.ones(6)
            ),
            "Transform",
        ),
        (
            InvalidArgumentError,
            lambda: Force.LinearBushing(forces, pin, ball, np.ones(6)),
            "LinearBushing",
        ),
        (
            InvalidArgumentError,
            lambda: Force.MobilityLinearSpring(matter, pin, 0, 1, 0),
            "GeneralForceSubsystem",
        ),
        (
            InvalidArgumentError,
            lambda: Force.MobilityLinearSpring(forces, "pin", 0, 1, 0),
            "MobilizedBody",
        ),
        (
            InvalidArgumentError,
            lambda: Force.MobilityLinearSpring(forces, pin, 0.5, 1, 0),
            "integer",
        ),
    ]
    for error, make, match in cases:
        _refused(forces, error, make, match)


def test_bodies_of_another_system_are_refused():
    system, matter, forces, pin, ball = _system()
    other_system, other_matter, other_forces, other_pin, _ = _system()
    _refused(
        forces,
        InvalidArgumentError,
        lambda: Force.MobilityLinearDamper(forces, other_pin, 0, 1),
        "different",
    )
    _refused(
        forces,
        InvalidArgumentError,
        lambda: Force.TwoPointLinearSpring(forces, pin, Vec3(), other_pin, Vec3(), 1, 0),
        "different",
    )
    _refused(
        forces,
        InvalidArgumentError,
        lambda: Force.GlobalDamper(forces, other_matter, 1.0),
        "different",
    )
    discrete = Force.DiscreteForces(forces, matter)
    s = system.realizeTopology()
    with pytest.raises(InvalidArgumentError, match="different"):
        discrete.setOneMobilityForce(s, other_pin, 0, 1.0)


def test_state_setters_refuse_bad_values_without_touching_the_state():
    system, matter, forces, pin, ball = _system()
    spring = Force.MobilityLinearSpring(forces, pin, 0, 2.0, 0.1)
    stop = Force.MobilityLinearStop(forces, pin, 0, 10.0, 0.1, -1.0, 1.0)
    gravity = Force.Gravity(forces, matter, [0, -1, 0], 9.8)
    bushing = Force.LinearBushing(forces, pin, ball, np.ones(6), np.ones(6))
    discrete = Force.DiscreteForces(forces, matter)
    s = system.realizeTopology()
    system.realize(s, Stage.Acceleration)
    bad = [
        (NonPhysicalError, lambda: spring.setStiffness(s, -1)),
        (InvalidArgumentError, lambda: spring.setQZero(s, math.inf)),
        (InvalidArgumentError, lambda: stop.setBounds(s, 2.0, 1.0)),
        (NonPhysicalError, lambda: stop.setMaterialProperties(s, 1.0, -1.0)),
        (NonPhysicalError, lambda: gravity.setMagnitude(s, -1)),
        (InvalidArgumentError, lambda: gravity.setDownDirection(s, [0, 0, 0])),
        (InvalidArgumentError, lambda: gravity.setGravityVector(s, [0, math.nan, 0])),
        (IndexOutOfRangeError, lambda: gravity.setBodyIsExcluded(s, 7, True)),
        (NonPhysicalError, lambda: bushing.setDamping(s, -np.ones(6))),
        (NonPhysicalError, lambda: bushing.setDissipatedEnergy(s, -1.0)),
        (InvalidArgumentError, lambda: discrete.setAllMobilityForces(s, np.ones(3))),
        (InvalidArgumentError, lambda: discrete.setAllBodyForces(s, np.ones((2, 2, 3)))),
        (InvalidArgumentError, lambda: discrete.setOneBodyForce(s, ball, [1, 2, 3])),
        (IndexOutOfRangeError, lambda: discrete.setOneMobilityForce(s, ball, 3, 1.0)),
        (InvalidArgumentError, lambda: discrete.setOneMobilityForce(s, pin, 0, math.nan)),
    ]
    for error, setter in bad:
        with pytest.raises(error):
            setter()
        assert s.getSystemStage() == Stage.Acceleration
    assert spring.getStiffness(s) == 2.0
    assert stop.getLowerBound(s) == -1.0 and stop.getUpperBound(s) == 1.0
    assert not discrete.getAllMobilityForces(s).size
    # Infinite bounds are legitimate (a one-sided stop).
    stop.setBounds(s, -math.inf, 0.5)
    assert stop.getLowerBound(s) == -math.inf


def test_reading_too_early_names_the_stage():
    system, matter, forces, pin, ball = _system()
    spring = Force.TwoPointLinearSpring(forces, pin, Vec3(), ball, Vec3(0, 0, 1), 1.0, 0.0)
    discrete = Force.DiscreteForces(forces, matter)
    with pytest.raises(StageTooLowError, match="realizeTopology"):
        spring.getStiffness(_unrealized_state(system))
    s = system.realizeTopology()
    with pytest.raises(StageTooLowError, match="Position"):
        spring.calcForceContribution(s)
    with pytest.raises(StageTooLowError, match="Position"):
        discrete.addForceToBodyPoint(s, ball, Vec3(), Vec3(1, 0, 0))
    with pytest.raises(StageTooLowError):
        system.calcPotentialEnergy(s)
    assert spring.getStiffness(s) == 1.0


def _unrealized_state(system):
    """A State from before a model change (the force's parameters are not in it)."""
    s = system.realizeTopology()
    system.invalidateSystemTopologyCache()
    return s


def test_coincident_stations_with_a_nonzero_force_are_refused():
    system, matter, forces, pin, ball = _system()
    Force.TwoPointConstantForce(forces, pin, Vec3(0, -1, 0), ball, Vec3(), 2.0)
    zero_length = Force.TwoPointLinearSpring(forces, pin, Vec3(0, -1, 0), ball, Vec3(), 3.0, 0.0)
    s = system.realizeTopology()
    with pytest.raises(NonPhysicalError, match="coincide"):
        system.realize(s, Stage.Dynamics)
    forces.getForce(0).disable(s)
    system.realize(s, Stage.Dynamics)  # a zero-length spring has no force there: fine
    body, _, _ = zero_length.calcForceContribution(s)
    assert not np.any(body)
    with pytest.raises(IndexOutOfRangeError):
        forces.getForce(5)
