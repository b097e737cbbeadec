"""A System's default q (Model stage): every body's own default q, else its mobilizer type's
(quaternion slots as x-y-z angles in Euler-angle mode), in q order, equal to the body-by-body
definition below for a tree of many kinds (reversed, Custom, Weld, own defaults); the type's
default is looked up once per type, not once per body (issue 22: a 20,000-body chain)."""

from __future__ import annotations

import numpy as np
import pytest

from engine import (
    Body,
    Inertia,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    SimbodyMatterSubsystem,
    Transform,
    Vec3,
)
from engine.multibody.matter.model_stage import custom_default_in_euler_mode
from tests.engine.custom_mobilizer_examples import CustomBallQuat, CustomPin

BODY = Body.Rigid(MassProperties(1.0, Vec3(0.1, -0.2, 0), Inertia(0.1, 0.2, 0.3)))
KINDS = ("Ball", "Pin", "Free", "Weld", "Universal", "Ellipsoid", "Slider")


def _tree(n: int = 40):
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    mobods = [matter.Ground()]
    for i in range(n):
        parent = mobods[(i * 7) % len(mobods)]
        X = Transform(Vec3(0.1, 0.2, 0.0))
        if i % 13 == 5:
            mb = MobilizedBody.Custom(parent, X, BODY, X, CustomBallQuat(matter))
        elif i % 13 == 9:
            mb = MobilizedBody.Custom(parent, X, BODY, X, CustomPin(matter), MobilizedBody.Reverse)
        else:
            kind = getattr(MobilizedBody, KINDS[i % len(KINDS)])
            extra = (MobilizedBody.Reverse,) if i % 4 == 3 else ()
            mb = kind(parent, X, BODY, X, *extra)
        mobods.append(mb)
    mobods[2].setDefaultQ([0.4])  # a Pin's own
    mobods[1].setDefaultQ([0.0, 1.0, 0.0, 0.0])  # a Ball's own
    return system, matter, mobods


def _reference(matter, euler: bool) -> np.ndarray:
    """The definition, body by body."""
    topo = matter._topo()  # noqa: SLF001
    q0 = []
    for b in range(1, matter.getNumBodies()):
        mobod = matter.getMobilizedBody(b)
        default = mobod._default_q  # noqa: SLF001
        if default is None:
            default = mobod._module.DEFAULT_Q.copy()  # noqa: SLF001
            if euler and topo.uses_quaternion[b] and mobod._module.NAME == "Custom":  # noqa: SLF001
                default = custom_default_in_euler_mode(default)
            elif euler and topo.uses_quaternion[b]:
                default[0:4] = 0.0
        q0.append(default)
    return np.concatenate(q0)


@pytest.mark.parametrize("euler", [False, True])
def test_the_default_q_equals_the_body_by_body_definition(euler):
    system, matter, _ = _tree()
    state = system.realizeTopology()
    matter.setUseEulerAngles(state, euler)
    system.realizeModel(state)
    expected = _reference(matter, euler)
    assert state.getQ().shape == expected.shape
    np.testing.assert_array_equal(state.getQ(), expected)


def test_a_type_s_default_is_looked_up_once_per_type(monkeypatch):
    system, matter, mobods = _tree(200)
    state = system.realizeTopology()
    pin = type(mobods[2])
    module = pin.__dict__["_module"]
    reads = []

    class Counting:
        def __get__(self, obj, owner=None):
            reads.append(obj)
            return module

    monkeypatch.setattr(pin, "_module", Counting())
    matter.setUseEulerAngles(state, True)  # (back to Topology stage: Model is made again)
    system.realizeModel(state)
    assert len(reads) <= 2  # (once per direction, not once per Pin body: 200 // 7)
    np.testing.assert_array_equal(state.getQ(), _reference(matter, True))
