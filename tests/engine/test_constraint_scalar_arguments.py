"""Constraints' scalar arguments (rod lengths, speeds, coordinate values, heights, angles):
anything but a finite real number is refused with InvalidArgumentError naming the argument,
and the State is left as it was; real numbers of any numeric type are taken as floats."""

from __future__ import annotations

import numpy as np
import pytest

from engine import (
    Body,
    Constraint,
    Inertia,
    InvalidArgumentError,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    SimbodyMatterSubsystem,
    Stage,
    Transform,
)

BAD = {
    "string": ("abc", "got str"),
    "None": (None, "got NoneType"),
    "bool": (True, "got bool"),
    "complex": (1j, "real numbers"),
    "nan": (float("nan"), "finite"),
    "inf": (np.inf, "finite"),
    "two values": ([1.0, 2.0], "2 values"),
}
GOOD = [2, np.float32(2.0), np.int64(2), np.array(2.0), [2.0]]


def two_pins():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    body = Body.Rigid(MassProperties(1.0, [0, 0, 0], Inertia(0.1, 0.1, 0.1)))
    a = MobilizedBody.Pin(matter.Ground(), Transform(), body, Transform())
    b = MobilizedBody.Pin(a, Transform([1.0, 0, 0]), body, Transform())
    return system, a, b


@pytest.mark.parametrize("case", list(BAD))
def test_a_rod_length_that_is_not_a_finite_real_number_is_refused(case):
    value, said = BAD[case]
    system, a, b = two_pins()
    with pytest.raises(InvalidArgumentError, match="rod length") as info:
        Constraint.Rod(a, [0, 0, 0], b, [0, 0, 0], value)
    assert said in str(info.value)
    rod = Constraint.Rod(a, [0, 0, 0], b, [0, 0, 0], 1.0)
    with pytest.raises(InvalidArgumentError, match="rod length"):
        rod.setDefaultRodLength(value)
    assert rod.getDefaultRodLength() == 1.0
    state = system.realizeTopology()
    system.realize(state, Stage.Position)
    with pytest.raises(InvalidArgumentError, match="rod length"):
        rod.setRodLength(state, value)
    assert rod.getRodLength(state) == 1.0
    assert state.getSystemStage() == Stage.Position  # nothing invalidated


@pytest.mark.parametrize("case", list(BAD))
def test_a_speed_that_is_not_a_finite_real_number_is_refused(case):
    value, said = BAD[case]
    system, a, _ = two_pins()
    with pytest.raises(InvalidArgumentError, match="ConstantSpeed") as info:
        Constraint.ConstantSpeed(a, value)
    assert said in str(info.value)
    speed = Constraint.ConstantSpeed(a, 0.5)
    with pytest.raises(InvalidArgumentError, match="ConstantSpeed"):
        speed.setDefaultSpeed(value)
    assert speed.getDefaultSpeed() == 0.5
    state = system.realizeTopology()
    system.realize(state, Stage.Velocity)
    with pytest.raises(InvalidArgumentError, match="ConstantSpeed"):
        speed.setSpeed(state, value)
    assert speed.getSpeed(state) == 0.5
    assert state.getSystemStage() == Stage.Velocity


@pytest.mark.parametrize("case", list(BAD))
def test_a_height_radius_or_angle_that_is_not_a_finite_real_number_is_refused(case):
    value, _ = BAD[case]
    _, a, b = two_pins()
    with pytest.raises(InvalidArgumentError, match="planeHeight"):
        Constraint.PointInPlane(a, [0, 1, 0], value, b, [0, 0, 0])
    with pytest.raises(InvalidArgumentError, match="angle"):
        Constraint.ConstantAngle(a, [0, 0, 1], b, [1, 0, 0], value)
    ball = Constraint.Ball(a, [1, 0, 0], b, [0, 0, 0])
    with pytest.raises(InvalidArgumentError, match="setDefaultRadius"):
        ball.setDefaultRadius(value)


@pytest.mark.parametrize("value", GOOD, ids=lambda v: type(v).__name__)
def test_real_numbers_of_any_numeric_type_are_taken_as_floats(value):
    _, a, b = two_pins()
    rod = Constraint.Rod(a, [0, 0, 0], b, [0, 0, 0], value)
    assert type(rod.getDefaultRodLength()) is float and rod.getDefaultRodLength() == 2.0
    speed = Constraint.ConstantSpeed(a, value)
    assert type(speed.getDefaultSpeed()) is float and speed.getDefaultSpeed() == 2.0
