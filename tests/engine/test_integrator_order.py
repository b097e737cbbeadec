"""Order of accuracy: halving a fixed step divides the error by about 2**order.

Harmonic oscillator x'' = -x, x(0) = 1, integrated to T = 2 with a fixed step,
landing exactly on T (no interpolation), compared with cos(T).
"""

from __future__ import annotations

import math

import pytest

from engine.integrators import (
    ExplicitEulerIntegrator,
    RungeKutta2Integrator,
    RungeKutta3Integrator,
    RungeKuttaFeldbergIntegrator,
    RungeKuttaMersonIntegrator,
    SemiExplicitEuler2Integrator,
    SemiExplicitEulerIntegrator,
    VerletIntegrator,
)
from tests.engine.integration_fixtures import Oscillator, makeSystem

T = 2.0

# (integrator class, step size h, expected order)
CASES = [
    (ExplicitEulerIntegrator, 0.01, 1),
    (SemiExplicitEulerIntegrator, 0.01, 1),
    (SemiExplicitEuler2Integrator, 0.01, 1),
    (RungeKutta2Integrator, 0.02, 2),
    (VerletIntegrator, 0.02, 2),
    (RungeKutta3Integrator, 0.05, 3),
    (RungeKuttaMersonIntegrator, 0.1, 4),
    (RungeKuttaFeldbergIntegrator, 0.05, 5),
]


def _error_at_T(cls, h: float) -> float:
    osc = Oscillator(omega=1.0, x0=1.0, v0=0.0)
    system, state = makeSystem(osc)
    integ = cls(system, h) if cls is SemiExplicitEulerIntegrator else cls(system)
    integ.setFixedStepSize(h)
    integ.setAllowInterpolation(False)
    integ.initialize(state)
    while integ.getTime() < T:
        integ.stepTo(T)
    assert integ.getTime() == T
    assert integ.getNumStepsTaken() == round(T / h)
    x = osc.q(integ.getState())[0]
    return abs(x - math.cos(T))


@pytest.mark.parametrize(("cls", "h", "order"), CASES, ids=[c[0].__name__ for c in CASES])
def test_halving_the_step_divides_the_error_by_two_to_the_order(cls, h, order):
    e1 = _error_at_T(cls, h)
    e2 = _error_at_T(cls, h / 2)
    observed = math.log2(e1 / e2)
    assert abs(observed - order) < 0.3, f"{cls.__name__}: observed order {observed:.2f}"


@pytest.mark.parametrize(("cls", "h", "order"), CASES, ids=[c[0].__name__ for c in CASES])
def test_reported_minimum_order_is_the_observed_one(cls, h, order):
    system, _ = makeSystem(Oscillator())
    integ = cls(system, 0.1) if cls is SemiExplicitEulerIntegrator else cls(system)
    assert integ.getMethodMinOrder() == order
    assert integ.getMethodMaxOrder() >= order
