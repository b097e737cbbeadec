"""Constraint projection during integration: a pendulum in Cartesian coordinates.

The particle's q = (x, y) must stay on the circle r = L (one qErr) and its
velocity tangent to it (one uErr). The integrators project q, u and the error
estimate after each step; the angle must follow theta'' = -(g/L) sin(theta).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from engine.integrators import (
    CPodesIntegrator,
    ExplicitEulerIntegrator,
    RungeKutta3Integrator,
    RungeKuttaFeldbergIntegrator,
    RungeKuttaMersonIntegrator,
    SemiExplicitEuler2Integrator,
    SemiExplicitEulerIntegrator,
    TimeStepper,
    VerletIntegrator,
)
from tests.engine.integration_fixtures import CartesianPendulum, DrivenOscillator, makeSystem

G, L, THETA0 = 9.81, 1.0, 1.0
REPORTS = np.linspace(0.25, 2.0, 8)


def _theta_reference():
    sol = solve_ivp(
        lambda t, y: [y[1], -(G / L) * math.sin(y[0])],
        (0.0, 2.0),
        [THETA0, 0.0],
        method="DOP853",
        rtol=1e-12,
        atol=1e-12,
        dense_output=True,
    )
    return lambda t: float(sol.sol(t)[0])


THETA = _theta_reference()

CASES = [
    (RungeKuttaMersonIntegrator, 1e-6, 2e-5),
    (RungeKuttaFeldbergIntegrator, 1e-6, 5e-5),
    (RungeKutta3Integrator, 1e-6, 1e-5),
    (VerletIntegrator, 1e-5, 1e-3),
    (CPodesIntegrator, 1e-6, 3e-5),
    (ExplicitEulerIntegrator, 1e-4, 0.1),
    (SemiExplicitEuler2Integrator, 1e-4, 0.03),
    (lambda s: SemiExplicitEulerIntegrator(s, 1e-3), 1e-3, 0.02),
]


@pytest.mark.parametrize(
    ("make", "accuracy", "thetaTol"), CASES, ids=lambda v: getattr(v, "__name__", str(v))
)
def test_integrators_keep_the_pendulum_on_its_circle(make, accuracy, thetaTol):
    pend = CartesianPendulum(L=L, g=G, theta0=THETA0)
    system, state = makeSystem(pend)
    integ = make(system)
    integ.setAccuracy(accuracy)
    stepper = TimeStepper(system, integ)
    stepper.initialize(state)
    tol = integ.getConstraintToleranceInUse()
    for t in REPORTS:
        stepper.stepTo(t)
        s = stepper.getState()
        system.realize(s)
        assert abs(s.getQErr()[0]) <= 2 * tol, f"t={t}: qErr {s.getQErr()[0]:.3g} > {tol:g}"
        assert abs(s.getUErr()[0]) <= 2 * tol, f"t={t}: uErr {s.getUErr()[0]:.3g} > {tol:g}"
        assert pend.theta(s) == pytest.approx(THETA(t), abs=thetaTol)
    assert integ.getNumProjections() > 0
    assert integ.getNumProjectionFailures() == 0


def test_error_estimate_is_projected_too():
    pend = CartesianPendulum(L=L, g=G, theta0=THETA0)
    system, state = makeSystem(pend)
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(1e-6)
    integ.setProjectEveryStep(True)
    stepper = TimeStepper(system, integ)
    stepper.initialize(state)
    stepper.stepTo(1.0)
    assert integ.getNumQProjections() >= integ.getNumStepsTaken()
    assert system.getNumQErrorEstimateProjections() > 0
    assert system.getNumUErrorEstimateProjections() > 0


def test_project_every_step_projects_more_often():
    counts = []
    for force in (False, True):
        pend = CartesianPendulum(L=L, g=G, theta0=THETA0)
        system, state = makeSystem(pend)
        integ = RungeKutta3Integrator(system)
        integ.setAccuracy(1e-5)
        integ.setProjectEveryStep(force)
        stepper = TimeStepper(system, integ)
        stepper.initialize(state)
        stepper.stepTo(1.0)
        counts.append(integ.getNumProjections())
    assert counts[1] > counts[0] > 0


def test_initialize_projects_a_state_that_violates_the_constraints():
    pend = CartesianPendulum(L=L, g=G, theta0=THETA0, omega0=0.5)
    system, state = makeSystem(pend)
    ix = pend.getMySubsystemIndex()
    q = np.array(state.getQ(ix)) * 1.01  # off the circle by 1 cm
    u = np.array(state.getU(ix)) + np.array([0.1, 0.2])  # radial velocity too
    state.updQ(ix)[:] = q
    state.updU(ix)[:] = u
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(1e-6)
    integ.initialize(state)
    s = integ.getState()
    system.realize(s)
    tol = integ.getConstraintToleranceInUse()
    assert abs(s.getQErr()[0]) <= tol
    assert abs(s.getUErr()[0]) <= tol
    assert integ.getNumQProjections() >= 1 and integ.getNumUProjections() >= 1


@pytest.mark.parametrize(
    "make",
    [RungeKuttaMersonIntegrator, CPodesIntegrator, VerletIntegrator],
    ids=lambda v: v.__name__,
)
def test_prescribed_motion_is_applied_before_every_evaluation(make):
    driven = DrivenOscillator()
    system, state = makeSystem(driven)
    integ = make(system)
    integ.setAccuracy(1e-7)
    stepper = TimeStepper(system, integ)
    stepper.initialize(state)
    ix = driven.getMySubsystemIndex()
    for t in (0.5, 1.7, 3.0):
        stepper.stepTo(t)
        s = stepper.getState()
        q, u = s.getQ(ix), s.getU(ix)
        assert q[1] == math.sin(t) and u[1] == math.cos(t)  # exactly the prescription
        assert q[0] == pytest.approx(driven.exact(t), abs=1e-5)
    assert system.getNumPrescribeQCalls() > integ.getNumStepsTaken()
