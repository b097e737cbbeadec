"""One step of a model with hundreds of constraint equations cut short (issue 22: "Every
long computation must be interruptible within a second"): a ladder of 800 Rods takes
seconds per Runge-Kutta-Merson step (its cost grows as m^2 nu); a request from another
thread (``interruptStep``, the studio's Pause) or a signal in the main thread stops the
step within a second, the step is not taken and the State is left as it was before it.
The kernels look at the request in their outer loops (per row of W, per column of the
factorizations, per projection iteration)."""

from __future__ import annotations

import signal
import threading
import time

import numpy as np
import pytest

from engine import RungeKuttaMersonIntegrator, Stage
from engine.integrators.integrator import SuccessfulStepStatus
from engine.multibody.kernels.constraint_kernels import least_squares_into, row_products
from engine.multibody.kernels.constraint_projection import INTERRUPTED, OK, min_norm_solve
from engine.multibody.kernels.interrupt_request import InterruptRequest
from engine.multibody.kernels.pivoted_cholesky import INTERRUPTED as CHOLESKY_INTERRUPTED
from engine.multibody.kernels.pivoted_cholesky import LARGE_M, pivoted_cholesky
from tests.engine.test_many_constraints import ladder

#: rungs of the ladder: 800 Rod equations, 4,800 mobilities; a step takes several seconds
RUNGS = 800


def test_the_kernels_stop_at_once_when_asked_and_not_otherwise():
    rng = np.random.default_rng(3)
    m = LARGE_M + 9
    B = rng.standard_normal((m, m))
    W, b = B @ B.T, rng.standard_normal(m)
    request = InterruptRequest()
    request.set()
    L = W.copy()
    assert pivoted_cholesky(L, np.empty(m, dtype=np.int64), 1e-12, request.address) == (
        CHOLESKY_INTERRUPTED
    )
    assert np.array_equal(L, W)  # stopped before its first column
    out = np.full((m, m), 7.0)
    assert not row_products(B, B, out, True, request.address)
    assert (out == 7.0).all()
    lam = np.empty(m)
    assert not least_squares_into(W, b, lam, np.empty((m, m)), np.empty((m, m)), request.address)
    A = rng.standard_normal((m, 2 * m))
    assert min_norm_solve(A, b, np.empty(2 * m), request.address) == INTERRUPTED
    request.clear()  # withdrawn: the same calls do their work
    assert pivoted_cholesky(L, np.empty(m, dtype=np.int64), 1e-12, request.address) == m
    assert row_products(B, B, out, True, request.address)
    np.testing.assert_allclose(out, W, rtol=1e-12, atol=1e-12 * abs(W).max())
    assert least_squares_into(W, b, lam, np.empty((m, m)), np.empty((m, m)), request.address)
    np.testing.assert_allclose(W @ lam, b, rtol=0, atol=1e-9 * abs(b).max())
    x = np.empty(2 * m)
    assert min_norm_solve(A, b, x, request.address) == OK
    np.testing.assert_allclose(A @ x, b, rtol=0, atol=1e-9 * abs(b).max())


@pytest.fixture(scope="module")
def big_ladder():
    """(system, integrator) of the 800-Rod ladder, initialized; its stepTo past the start
    of the continuous interval, so the next one steps."""
    system, state = ladder(RUNGS, both=True)
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(1e-3)
    integ.initialize(state)
    assert integ.stepTo(1.0) == SuccessfulStepStatus.StartOfContinuousInterval
    assert integ.whyNotCompiledSteps() == ""  # the compiled constrained steps take them
    return system, integ


def _snapshot(integ):
    adv = integ.getAdvancedState()
    return (
        adv.getTime(),
        np.array(adv.getQ()),
        np.array(adv.getU()),
        integ.getNumStepsTaken(),
        integ.getNumStepsAttempted(),
    )


def _assert_unchanged(system, integ, before):
    t, q, u, steps, attempts = before
    adv = integ.getAdvancedState()
    assert integ.getNumStepsTaken() == steps and integ.getNumStepsAttempted() == attempts
    assert adv.getTime() == t
    assert np.array_equal(adv.getQ(), q) and np.array_equal(adv.getU(), u)
    # realized through Velocity at that q and u: the next stepTo steps in compiled code
    assert adv.getSystemStage() >= Stage.Velocity
    assert np.abs(adv.getQErr()).max() < 1e-6
    assert integ.whyNotCompiledSteps() == ""


def test_a_request_before_stepto_returns_at_once(big_ladder):
    system, integ = big_ladder
    before = _snapshot(integ)
    integ.interruptStep()
    start = time.monotonic()
    assert integ.stepTo(1.0) == SuccessfulStepStatus.ReachedStepLimit
    assert time.monotonic() - start < 1.0
    _assert_unchanged(system, integ, before)


def test_a_request_from_another_thread_stops_the_step_within_a_second(big_ladder):
    """The studio's case: the worker thread steps, the GUI thread asks it to stop."""
    system, integ = big_ladder
    before = _snapshot(integ)
    returned = {}

    def step():
        returned["status"] = integ.stepTo(1.0)
        returned["at"] = time.monotonic()

    worker = threading.Thread(target=step)
    worker.start()
    time.sleep(0.5)  # well inside the step (seconds long)
    assert worker.is_alive(), "the step was over before the request"
    asked = time.monotonic()
    integ.interruptStep()
    worker.join(30)
    assert not worker.is_alive()
    took = returned["at"] - asked
    assert took < 1.0, f"the step stopped {took:.2f} s after the request"
    assert returned["status"] == SuccessfulStepStatus.ReachedStepLimit
    _assert_unchanged(system, integ, before)


class _SignalledError(Exception):
    pass


def test_a_signal_in_the_main_thread_stops_the_step_within_a_second(big_ladder):
    """``mbstudio simulate``'s case: the handler runs (and raises) while the step runs in a
    helper thread; the exception comes out of stepTo with the step not taken."""
    system, integ = big_ladder
    before = _snapshot(integ)
    sent = {}

    def handler(signum, frame):
        raise _SignalledError()

    def send():
        time.sleep(0.5)
        sent["at"] = time.monotonic()
        signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)

    previous = signal.signal(signal.SIGINT, handler)
    try:
        threading.Thread(target=send).start()
        with pytest.raises(_SignalledError):
            integ.stepTo(1.0)
        took = time.monotonic() - sent["at"]
    finally:
        signal.signal(signal.SIGINT, previous)
    assert took < 1.0, f"stepTo raised {took:.2f} s after the signal"
    _assert_unchanged(system, integ, before)


def _run_ladder_to(t_end: float, interrupts: int):
    """A 120-Rod ladder (tens of ms per step) stepped to ``t_end`` while another thread
    calls ``interruptStep`` ``interrupts`` times, 30-70 ms apart (inside steps and
    between them); stepTo is called again after each ReachedStepLimit. (advanced t, q,
    u, steps taken, ReachedStepLimit returns)."""
    system, state = ladder(120)
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(1e-3)
    integ.initialize(state)
    integ.stepTo(t_end)  # the start of the continuous interval
    integ.stepTo(1e-4)  # the first step (the kernels' first call in this process)
    rng = np.random.default_rng(21)
    gaps = rng.uniform(0.03, 0.07, interrupts)

    def interrupter():
        for gap in gaps:
            time.sleep(gap)
            integ.interruptStep()

    thread = threading.Thread(target=interrupter)
    thread.start()
    limits = 0
    while integ.getAdvancedTime() < t_end:
        if integ.stepTo(t_end) == SuccessfulStepStatus.ReachedStepLimit:
            limits += 1
    thread.join()
    adv = integ.getAdvancedState()
    return (
        adv.getTime(),
        np.array(adv.getQ()),
        np.array(adv.getU()),
        integ.getNumStepsTaken(),
        limits,
    )


def test_steps_interrupted_and_taken_again_give_the_same_trajectory_bit_for_bit():
    """A dropped step leaves nothing behind: taken again, it is the step the
    uninterrupted run takes (same step sizes, same q and u to the last bit)."""
    t, q, u, steps, _ = _run_ladder_to(0.06, 0)
    ti, qi, ui, stepsi, limits = _run_ladder_to(0.06, 8)
    assert limits >= 1  # stepTo was cut short
    assert (ti, stepsi) == (t, steps)
    assert np.array_equal(qi, q) and np.array_equal(ui, u)
