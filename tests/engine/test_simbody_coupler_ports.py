"""Simbody's Constraint::CoordinateCoupler on mobilizers whose qdot != u (issue 21): a
Ball's quaternion coordinate (or Euler angle) coupled to a Pin angle, and a Free body's
quaternion coupled to a Slider. Oracles: the coupling holds along the motion, the
velocity and acceleration errors are the time derivatives of the position error, and the
constraint force does no work (energy is conserved)."""

from __future__ import annotations

import numpy as np
import pytest

from engine import (
    Body,
    Constraint,
    Force,
    Function,
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


def _ball_and_pin(useEuler: bool):
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.Gravity(forces, matter, -YAxis, 9.81)
    body = Body.Rigid(MassProperties(1.0, Vec3(0.3, -0.5, 0.1), Inertia(0.2, 0.3, 0.4)))
    ball = MobilizedBody.Ball(matter.Ground(), Transform(), body, Transform(Vec3(0, 0.5, 0)))
    pin = MobilizedBody.Pin(ball, Transform(Vec3(0.2, -1, 0)), body, Transform())
    # coordinate 1 of the Ball (quaternion x, or the first Euler angle) = 0.3 * pin angle
    coupler = Constraint.CoordinateCoupler(
        matter, Function.Linear([1.0, -0.3, 0.0]), [ball, pin], [1, 0]
    )
    state = system.realizeTopology()
    matter.setUseEulerAngles(state, useEuler)
    system.realizeModel(state)
    state.updU()[:] = [0.3, -0.2, 0.5, 1.0]
    system.realize(state, Stage.Position)
    system.project(state)
    return system, matter, ball, pin, coupler, state


def _energy_run(system, state, tFinal=1.0):
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(1e-8)
    ts = TimeStepper(system, integ)
    ts.initialize(state)
    s = integ.getState()
    system.realize(s, Stage.Velocity)
    e0 = system.calcEnergy(s)
    ts.stepTo(tFinal)
    s = integ.getState()
    system.realize(s, Stage.Acceleration)
    return s, e0, system.calcEnergy(s)


@pytest.mark.parametrize("useEuler", [False, True])
def test_ball_coordinate_coupled_to_a_pin(useEuler):
    system, matter, ball, pin, coupler, state = _ball_and_pin(useEuler)
    assert ball.getNumQ(state) == (3 if useEuler else 4)
    s, e0, e1 = _energy_run(system, state)
    q = s.getQ()
    assert abs(ball.getOneQ(s, 1) - 0.3 * pin.getOneQ(s, 0)) < 1e-7
    assert abs(e1 - e0) < 1e-6  # the coupler's force does no work
    assert abs(coupler.getPositionErrorsAsVector(s)[0]) < 1e-7
    np.testing.assert_allclose(coupler.getAccelerationErrorsAsVector(s), 0, atol=1e-9)
    assert np.ptp(q) > 0.1  # it moved


def test_velocity_and_acceleration_errors_are_derivatives_of_the_position_error():
    system, matter, ball, pin, coupler, state = _ball_and_pin(False)
    # an arbitrary state off the constraint, moving
    state.updQ()[:] = [0.9, 0.2, -0.3, 0.25, 0.4]
    state.updU()[:] = [0.7, -0.4, 0.2, -1.3]
    system.realize(state, Stage.Velocity)
    qdot = matter.multiplyByN(state, False, state.getU())
    h = 1e-6

    def perr(q):
        s = state.copy()
        s.updQ()[:] = q
        system.realize(s, Stage.Position)
        return coupler.getPositionErrorsAsVector(s)[0]

    q0 = np.array(state.getQ())
    fd = (perr(q0 + h * qdot) - perr(q0 - h * qdot)) / (2 * h)
    assert coupler.getVelocityErrorsAsVector(state)[0] == pytest.approx(fd, abs=1e-8)
    # acceleration error = d/dt velocity error along the motion with these udot
    udot = np.array([0.5, 1.5, -0.8, 2.0])

    def verr(q, u):
        s = state.copy()
        s.updQ()[:] = q
        s.updU()[:] = u
        system.realize(s, Stage.Velocity)
        return coupler.getVelocityErrorsAsVector(s)[0]

    u0 = np.array(state.getU())
    fd_a = (verr(q0 + h * qdot, u0 + h * udot) - verr(q0 - h * qdot, u0 - h * udot)) / (2 * h)
    system.realize(state, Stage.Acceleration)
    # the acceleration error for a given udot: from the bias and the constraint Jacobian
    G = matter.calcG(state)
    bias = matter.calcBiasForAccelerationConstraints(state)
    assert (G @ udot + bias)[0] == pytest.approx(fd_a, abs=1e-6)


def test_free_body_quaternion_coupled_to_a_slider():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.Gravity(forces, matter, -YAxis, 9.81)
    body = Body.Rigid(MassProperties(2.0, Vec3(0.1, 0, 0.2), Inertia(0.5, 0.4, 0.3)))
    free = MobilizedBody.Free(matter.Ground(), Transform(), body, Transform())
    slider = MobilizedBody.Slider(matter.Ground(), Transform(Vec3(0, 2, 0)), body, Transform())
    # quaternion z component of the Free body = 0.5 * slider displacement
    Constraint.CoordinateCoupler(matter, Function.Linear([1.0, -0.5, 0.0]), [free, 2], [3, 0])
    state = system.realizeTopology()
    state.updU()[:] = [0.4, 0.1, 0.9, 0.0, 1.0, 0.0, 0.3]
    system.realize(state, Stage.Position)
    system.project(state)
    s, e0, e1 = _energy_run(system, state, 0.8)
    assert abs(free.getOneQ(s, 3) - 0.5 * slider.getOneQ(s, 0)) < 1e-7
    assert abs(e1 - e0) < 1e-6
    assert abs(slider.getOneQ(s, 0)) > 0.05
