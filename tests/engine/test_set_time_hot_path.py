"""State.setTime on the integrators' hot path: it touches only the cache entries that keep
their value across a change of t (declared prerequisites, earliest stage before Time), not
every cache entry of every subsystem, and keeps their values as Simbody does."""

from __future__ import annotations

import numpy as np

from engine import (
    Body,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    SimbodyMatterSubsystem,
    Stage,
    State,
    Vec3,
)


def _pendulum(extra_entries: int = 0):
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    body = Body.Rigid(MassProperties(1.0, Vec3(0, -1, 0), np.eye(3) * 0.1))
    pendulum = MobilizedBody.Pin(matter.Ground(), body)
    state = system.realizeTopology()
    sx = matter.getMySubsystemIndex()
    for k in range(extra_entries):
        state.allocateCacheEntry(sx, Stage.Dynamics, k)
    kept = state.allocateCacheEntryWithPrerequisites(
        sx, Stage.Instance, Stage.Position, True, False, False, [], [], 7.0
    )
    pendulum.setOneQ(state, 0, 0.4)
    pendulum.setOneU(state, 0, 1.5)
    system.realize(state, Stage.Velocity)
    return system, matter, pendulum, state, kept


def test_set_time_walks_only_time_independent_entries(monkeypatch):
    system, matter, pendulum, state, kept = _pendulum(extra_entries=500)
    sx = matter.getMySubsystemIndex()
    info = state.getPerSubsystemInfo(sx)
    assert len(info.cache) > 500
    assert kept in info.time_kept
    subsystems = range(state.getNumSubsystems())
    n_kept = sum(len(state.getPerSubsystemInfo(i).time_kept) for i in subsystems)
    assert n_kept < 20  # the matter kinematics entries and ours, not the 500 plain ones
    walked = []
    original = State._entry_realized

    def counting(sub, ce):
        walked.append(ce.name)
        return original(sub, ce)

    monkeypatch.setattr(State, "_entry_realized", staticmethod(counting))
    state.setTime(2.0)
    assert 0 < len(walked) <= n_kept
    assert matter.isPositionKinematicsRealized(state)
    assert matter.isVelocityKinematicsRealized(state)


def test_set_time_every_step_keeps_kinematics():
    system, matter, pendulum, state, kept = _pendulum()
    p = pendulum.getBodyOriginLocation(state)
    for k in range(1, 50):
        state.setTime(0.01 * k)
        assert matter.isPositionKinematicsRealized(state)
        np.testing.assert_array_equal(pendulum.getBodyOriginLocation(state), p)
    assert state.getTime() == 0.49
    assert state.getSystemStage() == Stage.Instance
    pendulum.setOneQ(state, 0, 0.1)
    assert not matter.isPositionKinematicsRealized(state)


def test_a_copy_has_its_own_list_of_kept_entries():
    system, matter, pendulum, state, kept = _pendulum()
    sx = matter.getMySubsystemIndex()
    copy = State(state)
    n = len(state.getPerSubsystemInfo(sx).time_kept)
    assert copy.getPerSubsystemInfo(sx).time_kept == state.getPerSubsystemInfo(sx).time_kept
    copy.getPerSubsystemInfo(sx).time_kept.append(0)
    assert len(state.getPerSubsystemInfo(sx).time_kept) == n
