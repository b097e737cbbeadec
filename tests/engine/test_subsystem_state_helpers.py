"""Simbody's Subsystem helpers: a subsystem reads and writes its own slice of the State."""

from __future__ import annotations

import numpy as np
import pytest

from engine import (
    Body,
    Constraint,
    Force,
    GeneralForceSubsystem,
    InvalidArgumentError,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    SimbodyMatterSubsystem,
    Stage,
    Transform,
    UnitInertia,
    Vec3,
    YAxis,
)


def loop_with_a_free_body():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.Gravity(forces, matter, -YAxis, 9.81)
    body = Body.Rigid(MassProperties(1.0, Vec3(0, 0, 0), UnitInertia(0.1, 0.1, 0.1)))
    a = MobilizedBody.Pin(matter.Ground(), Transform(), body, Transform(Vec3(0, 1, 0)))
    b = MobilizedBody.Pin(a, Transform(), body, Transform(Vec3(0, 1, 0)))
    MobilizedBody.Free(matter.Ground(), Transform(Vec3(3, 0, 0)), body, Transform())
    Constraint.Rod(matter.Ground(), Vec3(1.5, 0, 0), b, Vec3(0, 0, 0), 1.5)
    return system, matter, forces


def test_slices_agree_with_the_state_pools():
    system, matter, forces = loop_with_a_free_body()
    state = system.realizeTopology()
    ix = matter.getMySubsystemIndex()
    system.realize(state, Stage.Acceleration)
    assert matter.getNQErr(state) == state.getNQErr(ix) == 2  # the rod + one quaternion
    assert matter.getQErrStart(state) == state.getQErrStart(ix)
    assert matter.getNUErr(state) == 1 and matter.getNUDotErr(state) == 1
    assert matter.getNMultipliers(state) == 1
    assert matter.getMultipliersStart(state) == state.getMultipliersStart(ix)
    np.testing.assert_array_equal(matter.getQErr(state), state.getQErr(ix))
    np.testing.assert_array_equal(matter.getUErr(state), state.getUErr(ix))
    np.testing.assert_array_equal(matter.getUDotErr(state), state.getUDotErr(ix))
    np.testing.assert_array_equal(matter.getMultipliers(state), state.getMultipliers(ix))
    np.testing.assert_array_equal(matter.getUWeights(state), state.getUWeights(ix))
    np.testing.assert_array_equal(matter.getQErrWeights(state), state.getQErrWeights(ix))
    np.testing.assert_array_equal(matter.getZDot(state), state.getZDot(ix))
    assert forces.getNQErr(state) == 0 and forces.getMultipliers(state).size == 0


def test_set_q_u_z_check_sizes_and_invalidate():
    system, matter, _forces = loop_with_a_free_body()
    state = system.realizeTopology()
    system.realize(state, Stage.Velocity)
    q = matter.getQ(state).copy()
    q[0] = 0.25
    matter.setQ(state, q)
    assert state.getSystemStage() == Stage.Time
    assert matter.getQ(state)[0] == 0.25
    system.realize(state, Stage.Velocity)
    matter.setU(state, np.arange(matter.getNU(state), dtype=float))
    assert state.getSystemStage() == Stage.Position
    np.testing.assert_array_equal(matter.getU(state), np.arange(matter.getNU(state)))
    with pytest.raises(InvalidArgumentError, match="has 9 q, got 2 values"):
        matter.setQ(state, [1.0, 2.0])
    with pytest.raises(InvalidArgumentError, match="finite"):
        matter.setU(state, np.full(matter.getNU(state), np.nan))
    np.testing.assert_array_equal(matter.getU(state), np.arange(matter.getNU(state)))
