"""Index arguments that are not integers (NaN, an infinity, 1.5, a string, None) are refused
with the engine's typed IndexOutOfRangeError naming the argument, never a raw ValueError,
TypeError or OverflowError, and never truncated (issue 22)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine import (
    Body,
    Force,
    GeneralForceSubsystem,
    IndexOutOfRangeError,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    SimbodyMatterSubsystem,
    Stage,
    Transform,
    UnitInertia,
    Vec3,
)

BAD = [math.nan, math.inf, -math.inf, 1.5, "1", None, object()]


@pytest.fixture(scope="module")
def model():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    body = Body.Rigid(MassProperties(1.0, Vec3(0.1, 0.2, 0.0), UnitInertia(1.0)))
    ball = MobilizedBody.Ball(matter.Ground(), Transform(Vec3(0, -1, 0)), body, Transform())
    Force.Gravity(forces, matter, Vec3(0, -9.81, 0))
    state = system.realizeTopology()
    system.realize(state, Stage.Acceleration)
    return system, matter, forces, ball, state


def _calls(model):
    system, matter, forces, ball, state = model
    nu = state.getNU()
    return {
        "getOneQ": lambda i: ball.getOneQ(state, i),
        "getOneU": lambda i: ball.getOneU(state, i),
        "getOneQDot": lambda i: ball.getOneQDot(state, i),
        "getOneUDot": lambda i: ball.getOneUDot(state, i),
        "getOneQDotDot": lambda i: ball.getOneQDotDot(state, i),
        "setOneQ": lambda i: ball.setOneQ(state.copy(), i, 0.1),
        "setOneU": lambda i: ball.setOneU(state.copy(), i, 0.1),
        "applyOneMobilityForce": lambda i: ball.applyOneMobilityForce(state, i, 1.0, np.zeros(nu)),
        "getMobilizedBody": matter.getMobilizedBody,
        "getConstraint": matter.getConstraint,
        "getForce": forces.getForce,
        "isForceDisabled": lambda i: forces.isForceDisabled(state, i),
        "getSubsystem": system.getSubsystem,
        "getMeasure": matter.getMeasure,
        "State.getQ": state.getQ,
        "State.getSubsystemStage": state.getSubsystemStage,
        "State.getDiscreteVariable": lambda i: state.getDiscreteVariable(1, i),
        "State.getCacheEntry": lambda i: state.getCacheEntry(1, i),
    }


@pytest.mark.parametrize("bad", BAD, ids=lambda v: "object()" if type(v) is object else repr(v))
def test_non_integer_indices_are_refused_with_a_typed_error(model, bad):
    for name, call in _calls(model).items():
        if bad is None and name == "State.getQ":
            continue  # State.getQ() / getQ(None): the whole System's vector (Simbody overload)
        with pytest.raises(IndexOutOfRangeError) as info:
            call(bad)
        assert "index" in str(info.value), name
        if isinstance(bad, float):
            assert repr(bad) in str(info.value) or str(bad) in str(info.value), name


def test_integral_index_forms_still_work(model):
    _, matter, _, ball, state = model
    q1 = ball.getOneQ(state, 1)
    assert ball.getOneQ(state, np.int64(1)) == q1
    assert ball.getOneQ(state, 1.0) == q1  # C++ converts an integral double
    assert matter.getMobilizedBody(np.int32(1)) is matter.getMobilizedBody(1)
    with pytest.raises(IndexOutOfRangeError, match="out of range"):
        ball.getOneQ(state, 4)
