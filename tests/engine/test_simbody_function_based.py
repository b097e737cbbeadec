"""Simbody's MobilizedBody::FunctionBased (issue 21): spatial functions of q reproduce the
built-in Screw and Gimbal mobilizers exactly (pose, velocity, accelerations), and a
nonlinear coupled mobilizer conserves energy."""

from __future__ import annotations

import numpy as np
import pytest

from engine import (
    Body,
    Force,
    Function,
    GeneralForceSubsystem,
    Inertia,
    InvalidArgumentError,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    Rotation,
    RungeKuttaMersonIntegrator,
    SimbodyMatterSubsystem,
    Stage,
    TimeStepper,
    Transform,
    Vec3,
    XAxis,
    YAxis,
)

C0 = Function.Constant(0, 0)
LINEAR = Function.Linear([1.0, 0.0])


def _build(make):
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.Gravity(forces, matter, -YAxis, 9.81)
    body = Body.Rigid(MassProperties(1.0, Vec3(0.3, -0.5, 0.1), Inertia(0.2, 0.3, 0.4)))
    X_PF = Transform(Rotation(0.3, XAxis), Vec3(0, 1, 0))
    X_BM = Transform(Vec3(0.1, 0.5, 0))
    mobod = make(matter.Ground(), X_PF, body, X_BM)
    # a second body on it, so the mobilizer's H and HDot reach another body too
    tip = MobilizedBody.Pin(mobod, Transform(Vec3(0.2, -0.6, 0)), body, Transform())
    return system, mobod, tip, system.realizeTopology()


def _compare(make_builtin, make_function_based, q, u):
    results = []
    for make in (make_builtin, make_function_based):
        system, mobod, tip, state = _build(make)
        state.updQ()[:] = q
        state.updU()[:] = u
        system.realize(state, Stage.Acceleration)
        results.append(
            (
                tip.getBodyTransform(state).toMat44(),
                tip.getBodyVelocity(state),
                np.array(state.getUDot()),
                mobod.getBodyAcceleration(state),
            )
        )
    for a, b in zip(*results, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-12)


def test_function_based_screw_matches_screw():
    _compare(
        lambda p, X, b, Y: MobilizedBody.Screw(p, X, b, Y, 0.2),
        lambda p, X, b, Y: MobilizedBody.FunctionBased(
            p,
            X,
            b,
            Y,
            1,
            [C0, C0, LINEAR, C0, C0, Function.Linear([0.2, 0.0])],
            [[], [], [0], [], [], [0]],
        ),
        [0.7, -0.4],
        [1.3, 0.6],
    )


def test_function_based_xyz_angles_match_gimbal():
    _compare(
        MobilizedBody.Gimbal,
        lambda p, X, b, Y: MobilizedBody.FunctionBased(
            p, X, b, Y, 3, [LINEAR, LINEAR, LINEAR, C0, C0, C0], [[0], [1], [2], [], [], []]
        ),
        [0.4, -0.3, 0.9, 0.2],
        [0.5, 1.0, -0.7, 0.3],
    )


def test_nonlinear_coupled_mobilizer_conserves_energy():
    """A knee-like mobilizer: one angle q0 about z and a translation along x and y that
    follow it nonlinearly, plus a slide q1 along a tilted axis."""
    curve = Function.Custom(lambda x: 0.1 * np.sin(x[0]), 1)
    lift = Function.Polynomial([0.05, -0.02, 0.0])
    system, mobod, tip, state = _build(
        lambda p, X, b, Y: MobilizedBody.FunctionBased(
            p,
            X,
            b,
            Y,
            2,
            [C0, C0, LINEAR, curve, lift, LINEAR],
            [[], [], [0], [0], [0], [1]],
            [
                Vec3(1, 0, 0),
                Vec3(0, 1, 0),
                Vec3(0, 0, 1),
                Vec3(1, 0, 0),
                Vec3(0, 1, 0),
                Vec3(0, 1, 1),
            ],
        )
    )
    state.updU()[:] = [1.5, -0.5, 2.0]
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(1e-8)
    ts = TimeStepper(system, integ)
    ts.initialize(state)
    s = integ.getState()
    system.realize(s, Stage.Velocity)
    e0 = system.calcEnergy(s)
    ts.stepTo(0.3)
    s = integ.getState()
    system.realize(s, Stage.Velocity)
    assert abs(system.calcEnergy(s) - e0) < 1e-6
    assert np.ptp(s.getQ()) > 0.2


def test_function_based_checks_its_arguments():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    body = Body.Rigid(MassProperties(1.0, Vec3(0), Inertia(1)))
    with pytest.raises(InvalidArgumentError, match="6 functions"):
        MobilizedBody.FunctionBased(
            matter.Ground(), Transform(), body, Transform(), 1, [LINEAR], [[0]]
        )
    with pytest.raises(InvalidArgumentError, match="outside"):
        MobilizedBody.FunctionBased(
            matter.Ground(),
            Transform(),
            body,
            Transform(),
            1,
            [C0, C0, LINEAR, C0, C0, C0],
            [[], [], [1], [], [], []],
        )
