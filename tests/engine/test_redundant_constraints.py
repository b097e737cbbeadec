"""Redundant constraints (issue 21): as Simbody (least-squares multipliers and a
rank-revealing projection), a constraint whose equations repeat others or have a zero
Jacobian row changes neither the trajectory nor, much, the cost."""

from __future__ import annotations

import numpy as np
import pytest

from engine import (
    Body,
    Constraint,
    Force,
    GeneralForceSubsystem,
    Inertia,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    RungeKuttaMersonIntegrator,
    SimbodyMatterSubsystem,
    Stage,
    TimeStepper,
    Transform,
    Vec3,
    YAxis,
)


def _run(system, state, t_final):
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(1e-6)
    ts = TimeStepper(system, integ)
    ts.initialize(state)
    ts.stepTo(t_final)
    final = ts.getState()
    system.realize(final, Stage.Velocity)
    return final, integ


def _double_pendulum(rod: bool):
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.Gravity(forces, matter, -YAxis, 9.81)
    body = Body.Rigid(MassProperties(1.0, Vec3(0, -0.5, 0), Inertia(1)))
    upper = MobilizedBody.Pin(matter.Ground(), Transform(), body, Transform())
    lower = MobilizedBody.Pin(upper, Transform(Vec3(0, -1, 0)), body, Transform())
    if rod:
        # The two origins stay 1 apart whatever the motion: a workless constraint whose
        # Jacobian row is zero.
        Constraint.Rod(upper, Vec3(0), lower, Vec3(0), 1.0)
    state = system.realizeTopology()
    upper.setOneQ(state, 0, 0.8)
    lower.setOneQ(state, 0, -0.5)
    return system, state


def test_a_redundant_rod_leaves_a_double_pendulum_alone():
    system, state = _double_pendulum(rod=False)
    free, integ_free = _run(system, state, 1.0)
    system_rod, state_rod = _double_pendulum(rod=True)
    system_rod.realize(state_rod, Stage.Velocity)
    e0 = system_rod.calcEnergy(state_rod)
    roded, integ_rod = _run(system_rod, state_rod, 1.0)
    np.testing.assert_allclose(roded.getQ(), free.getQ(), atol=1e-6)
    np.testing.assert_allclose(roded.getU(), free.getU(), atol=1e-5)
    assert abs(system_rod.calcEnergy(roded) - e0) < 1e-4
    assert integ_rod.getNumStepsTaken() <= 3 * integ_free.getNumStepsTaken()


def _four_bar(balls: int):
    """A parallelogram four-bar (ground pivots at x = 0 and 1, links of length 1) closed
    by ``balls`` identical Ball constraints."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.Gravity(forces, matter, -YAxis, 9.81)
    up = Body.Rigid(MassProperties(1.0, Vec3(0, 0.5, 0), Inertia(1)))
    across = Body.Rigid(MassProperties(1.0, Vec3(0.5, 0, 0), Inertia(1)))
    a = MobilizedBody.Pin(matter.Ground(), Transform(), up, Transform())
    b = MobilizedBody.Pin(a, Transform(Vec3(0, 1, 0)), across, Transform())
    c = MobilizedBody.Pin(matter.Ground(), Transform(Vec3(1, 0, 0)), up, Transform())
    for _ in range(balls):
        Constraint.Ball(b, Vec3(1, 0, 0), c, Vec3(0, 1, 0))
    state = system.realizeTopology()
    a.setOneU(state, 0, 1.0)
    b.setOneU(state, 0, -1.0)
    c.setOneU(state, 0, 1.0)
    return system, state


def test_a_duplicated_ball_closing_a_loop():
    system1, state1 = _four_bar(1)
    one, integ1 = _run(system1, state1, 0.5)
    system2, state2 = _four_bar(2)
    two, integ2 = _run(system2, state2, 0.5)
    np.testing.assert_allclose(two.getQ(), one.getQ(), atol=1e-6)
    assert np.max(np.abs(two.getQErr())) < 1e-6
    assert integ2.getNumStepsTaken() <= 3 * integ1.getNumStepsTaken()


@pytest.mark.parametrize("welds", [1, 2])
def test_a_weld_over_a_weld_holds_the_body(welds):
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.Gravity(forces, matter, -YAxis, 9.81)
    body = Body.Rigid(MassProperties(1.0, Vec3(0.2, 0, 0), Inertia(1)))
    free = MobilizedBody.Free(matter.Ground(), Transform(Vec3(0, 1, 0)), body, Transform())
    for _ in range(welds):
        Constraint.Weld(matter.Ground(), Transform(Vec3(0, 1, 0)), free, Transform())
    state = system.realizeTopology()
    system.realize(state, Stage.Acceleration)
    np.testing.assert_allclose(state.getUDot(), 0, atol=1e-12)
    final, _ = _run(system, state, 0.5)
    np.testing.assert_allclose(free.getBodyOriginLocation(final), [0, 1, 0], atol=1e-9)
