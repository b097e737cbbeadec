"""A State copy shares a tuple whose items are all immutable values (it cannot change), at
once, instead of looking at each item: the matter's "mobilizer locks" discrete variable is
one such tuple of an item per body (issue 22: a 20,000-body chain's State copied at each
edit). A tuple holding anything mutable is still copied item by item."""

from __future__ import annotations

import numpy as np

from engine import (
    Body,
    Inertia,
    MassProperties,
    MobilizedBody,
    Motion,
    MultibodySystem,
    SimbodyMatterSubsystem,
    State,
    Transform,
    Vec3,
)
from engine.common import state_copy


def test_a_tuple_of_immutable_values_is_shared_without_a_look_at_each(monkeypatch):
    calls = []
    real = state_copy.copy_value

    def counting(value, memo):
        calls.append(value)
        return real(value, memo)

    monkeypatch.setattr(state_copy, "copy_value", counting)
    locks = (None,) * 500 + (3, "x", 2.5, True)
    assert state_copy.copy_value(locks, {}) is locks
    assert len(calls) == 1
    # nested immutable tuples (locked bodies' entries): shared too, after a look at each
    locked = (None,) * 5 + ((2, None), (1, (0.5,)))
    assert state_copy.copy_value(locked, {}) is locked
    array = np.zeros(3)
    mixed = (None, array, "s")
    out = state_copy.copy_value(mixed, {})
    assert out is not mixed and out[1] is not array and out[2] == "s"
    np.testing.assert_array_equal(out[1], array)


def test_a_chain_s_state_copy_shares_its_locks_and_keeps_a_lock_apart():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    body = Body.Rigid(MassProperties(1.0, Vec3(0.5, 0, 0), Inertia(0.1, 0.1, 0.1)))
    mobods = [matter.Ground()]
    for _ in range(300):
        mobods.append(MobilizedBody.Pin(mobods[-1], Transform(Vec3(1, 0, 0)), body, Transform()))
    state = system.realizeTopology()
    copy = State(state)
    mobods[10].lockAt(copy, 0.25, Motion.Position)  # the copy's lock only
    assert mobods[10].getLockLevel(copy) == Motion.Position
    assert mobods[10].getLockLevel(state) == Motion.NoLevel
