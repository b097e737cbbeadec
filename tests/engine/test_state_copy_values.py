"""A State copy owns every value it holds (engine/common/state_copy.py): cache arrays of a
multibody State and discrete-variable values of any type; aliasing between values of one
subsystem is kept, as a deepcopy keeps it, and user objects' own __deepcopy__ is honoured."""

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
    State,
    Transform,
    Vec3,
)
from engine.common.state_copy import copy_value


class _Tagged:
    """A user value with its own __deepcopy__."""

    def __init__(self, items):
        self.items = items

    def __deepcopy__(self, memo):
        return _Tagged([*self.items, "copied"])


def test_copy_value_is_deep_and_keeps_aliasing():
    a = np.arange(3.0)
    value = {"x": [a, a], "t": (1, "s", a), "o": _Tagged([1]), "n": None}
    c = copy_value(value, {})
    assert c["x"][0] is c["x"][1] and c["x"][0] is c["t"][2]  # one array, as in the source
    assert c["x"][0] is not a
    c["x"][0][0] = 9.0
    assert a[0] == 0.0
    assert c["o"].items == [1, "copied"]
    t = (1, 2.0, "a")
    assert copy_value(t, {}) is t  # immutable values are shared


def _double_pendulum():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    gravity = Force.Gravity(forces, matter, Vec3(0, -1, 0), 9.81)
    body = Body.Rigid(MassProperties(1.0, Vec3(0, -0.5, 0), Inertia(1.0)))
    b1 = MobilizedBody.Pin(matter.Ground(), Transform(), body, Transform(Vec3(0, 1, 0)))
    b2 = MobilizedBody.Pin(b1, Transform(), body, Transform(Vec3(0, 1, 0)))
    return system, matter, forces, gravity, b2


def test_multibody_copy_has_its_own_cache_and_discrete_values():
    system, matter, forces, gravity, tip = _double_pendulum()
    s = system.realizeTopology()
    s.updQ()[:] = [0.3, -0.2]
    s.updU()[:] = [0.1, 0.4]
    system.realize(s, Stage.Acceleration)
    X_before = tip.getBodyTransform(s).p().copy()
    udot_before = s.getUDot().copy()
    c = State(s)
    assert c.getSystemStage() == Stage.Instance
    c.updQ()[:] = [1.0, 1.0]
    gravity.disable(c)
    system.realize(c, Stage.Acceleration)
    # the copy's realization wrote its own cache arrays, not the source's
    assert s.getSystemStage() == Stage.Acceleration
    np.testing.assert_array_equal(tip.getBodyTransform(s).p(), X_before)
    np.testing.assert_array_equal(s.getUDot(), udot_before)
    assert not np.allclose(tip.getBodyTransform(c).p(), X_before)
    # the force-enabled flags (a discrete variable) are the copy's own
    assert gravity.isDisabled(c) and not gravity.isDisabled(s)
    # and realizing the source again leaves the copy alone
    s.updU()[:] = [2.0, 2.0]
    system.realize(s, Stage.Acceleration)
    assert c.getSystemStage() == Stage.Acceleration
    np.testing.assert_array_equal(c.getU(), [0.1, 0.4])
