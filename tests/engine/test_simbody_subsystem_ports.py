"""Simbody subsystem usage ported line by line (issue 21): measures owned by any
subsystem (or by a System, meaning its default subsystem), Subsystem::setSystem,
adoptMobilizedBody(parent, child), calcSystemMass at Instance stage."""

from __future__ import annotations

import pytest

from engine import (
    Body,
    Inertia,
    MassProperties,
    Measure,
    MobilizedBody,
    MultibodySystem,
    SimbodyMatterSubsystem,
    Stage,
    Subsystem,
    System,
    Transform,
    Vec3,
)
from engine.common.exceptions import InvalidArgumentError


def _system():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    body = Body.Rigid(MassProperties(2.5, Vec3(0), Inertia(1)))
    pin = MobilizedBody.Pin(matter.Ground(), Transform(), body, Transform())
    slider = MobilizedBody.Slider(pin, Transform(), body, Transform())
    return system, matter, pin, slider


def test_any_subsystem_owns_measures_and_a_system_means_its_default_subsystem():
    system, matter, _, _ = _system()
    # Measure::Constant three(matter, 3.0); Measure::Constant twoAndHalf(system, 2.5);
    three = Measure.Constant(matter, 3.0)
    twoAndHalf = Measure.Constant(system, 2.5)
    t = Measure.Time(matter)
    integral = Measure.Integrate(matter, three, Measure.Zero())
    assert three.getSubsystem() is matter and twoAndHalf.getSubsystem() is (
        system.getDefaultSubsystem()
    )
    assert matter.getNumMeasures() == 3 and matter.getMeasure(0) is three
    assert matter.getMeasure(2) is integral
    assert system.getDefaultSubsystem().getMeasure(0) is twoAndHalf
    state = system.realizeTopology()
    state.setTime(0.5)
    system.realize(state, Stage.Acceleration)
    assert three.getValue(state) == 3.0 and twoAndHalf.getValue(state) == 2.5
    assert t.getValue(state) == 0.5
    assert integral.getValue(state, 1) == 3.0  # its derivative is the integrand


def test_subsystem_set_system():
    system = System()
    sub = Subsystem("mine")
    sub.setSystem(system, 3)
    assert sub.isInSystem() and sub.getSystem() is system and sub.getMySubsystemIndex() == 3


def test_adopt_mobilized_body_parent_child_signature():
    system, matter, pin, slider = _system()
    # matter.adoptMobilizedBody(parentIndex, child): the constructed handle is adopted.
    assert matter.adoptMobilizedBody(pin.getMobilizedBodyIndex(), slider) == (
        slider.getMobilizedBodyIndex()
    )
    assert matter.adoptMobilizedBody(pin, slider) == 2
    with pytest.raises(InvalidArgumentError, match="parent 1, not 0"):
        matter.adoptMobilizedBody(0, slider)


def test_calc_system_mass_needs_only_instance_stage():
    system, matter, _, _ = _system()
    state = system.realizeTopology()
    system.realize(state, Stage.Instance)
    assert matter.calcSystemMass(state) == 5.0
