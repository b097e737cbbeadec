"""Long computations outside a step stop at an interrupt request (issue 22: "every long
computation must be interruptible within a second"): an integrator's ``initialize``
(its projections), the minimum-norm solve of a projection with thousands of equations,
an Acceleration realization with many constraints; and every integrator the studio
offers has ``interruptStep``, which cuts its ``stepTo`` short, the State unchanged."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from app.simulation.integrators import INTEGRATORS, make_integrator
from engine import (
    ComputationInterruptedError,
    Stage,
    SuccessfulStepStatus,
    TimeStepper,
)
from engine.integrators import RungeKuttaMersonIntegrator
from engine.multibody.kernels.constraint_projection import INTERRUPTED, OK, min_norm_solve
from engine.multibody.kernels.interrupt_request import InterruptRequest, watching
from engine.multibody.matter.projection import _min_norm_solve
from tests.engine.test_many_constraints import ladder


@pytest.fixture(scope="module")
def ladder_80():
    return ladder(80)


@pytest.fixture(scope="module")
def ladder_20():
    return ladder(20)


@pytest.mark.parametrize("name", sorted(INTEGRATORS))
def test_every_integrator_s_step_stops_at_its_interrupt_request(ladder_20, name):
    system, state = ladder_20
    integ = make_integrator(name, system, 1e-3)
    ts = TimeStepper(system, integ)
    ts.setReportAllSignificantStates(True)  # as the studio: ReachedStepLimit is returned
    ts.initialize(state)
    assert ts.stepTo(0.01) == SuccessfulStepStatus.StartOfContinuousInterval
    before = np.array(ts.getState().getY())
    t0 = ts.getState().getTime()
    integ.interruptStep()
    assert ts.stepTo(0.01) == SuccessfulStepStatus.ReachedStepLimit
    assert ts.getState().getTime() == t0
    assert np.array_equal(ts.getState().getY(), before)
    ts.stepTo(0.002)  # the request was consumed: the next call steps
    assert ts.getState().getTime() > t0


def test_initialize_stops_at_the_request_and_can_be_done_again(ladder_80):
    system, state = ladder_80
    integ = RungeKuttaMersonIntegrator(system)
    integ.interruptStep()
    with pytest.raises(ComputationInterruptedError, match="interrupted"):
        integ.initialize(state)  # the Rods' velocity errors need a projection
    integ.initialize(state)  # the request was consumed
    uerr = np.array(integ.getState().getUErr())
    assert np.max(np.abs(uerr)) < 1e-3


def test_a_large_minimum_norm_solve_stops_within_a_second():
    rng = np.random.default_rng(5)
    A = rng.standard_normal((1400, 1700))  # about 2 s of Gram products and Cholesky
    b = rng.standard_normal(1400)
    x = np.empty(1700)
    request = InterruptRequest()
    status, ended = [], []

    def solve():
        status.append(min_norm_solve(A, b, x, request.address))
        ended.append(time.monotonic())

    min_norm_solve(A[:20, :30].copy(), b[:20].copy(), x[:30], 0)  # the kernel loaded
    worker = threading.Thread(target=solve)
    worker.start()
    time.sleep(0.15)
    asked = time.monotonic()
    request.set()
    worker.join(5.0)
    assert status == [INTERRUPTED]
    assert ended[0] - asked < 1.0


def test_large_projection_solves_are_minimum_norm_solutions():
    rng = np.random.default_rng(7)
    A = rng.standard_normal((40, 90))
    A[39] = A[3]  # a repeated equation
    b = A @ rng.standard_normal(90)
    x = _min_norm_solve(A, b)
    expected = np.linalg.lstsq(A, b, rcond=None)[0]
    assert np.allclose(x, expected, atol=1e-9)
    out = np.empty(90)
    assert min_norm_solve(A, b, out, 0) == OK


def test_an_acceleration_realization_stops_and_leaves_the_stage_unrealized(ladder_80):
    system, state = ladder_80
    work = state.__class__(state)
    system.realize(work, Stage.Velocity)
    request = InterruptRequest()
    request.set()
    with watching(request), pytest.raises(ComputationInterruptedError, match="Acceleration"):
        system.realize(work, Stage.Acceleration)
    assert work.getSystemStage() == Stage.Velocity
    system.realize(work, Stage.Acceleration)
    fresh = state.__class__(state)
    system.realize(fresh, Stage.Acceleration)
    assert np.array_equal(work.getUDot(), fresh.getUDot())
