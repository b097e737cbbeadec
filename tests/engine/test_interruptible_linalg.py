"""``engine.common.interruptible_linalg``: large factorizations run in a helper thread give
numpy's results and exceptions, and a signal handler's exception reaches the caller while
the call still runs (a long LAPACK call would otherwise hold off Ctrl-C until it is done)."""

from __future__ import annotations

import math
import signal
import threading
import time

import numpy as np
import pytest
from numba import njit

from engine.common import interruptible_linalg as il


@pytest.mark.parametrize("threaded", [False, True])
def test_the_calls_give_numpys_results(monkeypatch, threaded):
    if threaded:  # every call through the helper thread, as a large one goes
        monkeypatch.setattr(il, "THREADED_WORK", -1.0)
    rng = np.random.default_rng(22)
    M = rng.standard_normal((30, 50))
    b = rng.standard_normal(30)
    np.testing.assert_array_equal(il.lstsq(M, b)[0], np.linalg.lstsq(M, b, rcond=None)[0])
    np.testing.assert_array_equal(il.svd(M, full_matrices=False)[1], np.linalg.svd(M)[1])
    S = M @ M.T + np.eye(30)
    np.testing.assert_array_equal(il.eigh(S)[0], np.linalg.eigh(S)[0])
    np.testing.assert_array_equal(il.solve(S, b), np.linalg.solve(S, b))
    np.testing.assert_array_equal(il.matmul(M.T, M), M.T @ M)


def test_an_exception_of_a_threaded_call_reaches_the_caller(monkeypatch):
    monkeypatch.setattr(il, "THREADED_WORK", -1.0)
    with pytest.raises(np.linalg.LinAlgError):
        il.solve(np.zeros((4, 4)), np.ones(4))


@njit(nogil=True, cache=False)
def _spin(n):
    """Compiled work that neither returns to Python nor looks at signals for a while."""
    x = 0.0
    for i in range(n):
        x += math.sqrt(float(i) + x * 1e-300)
    return x


class _AlarmError(Exception):
    pass


def test_a_signal_handler_interrupts_a_long_call_within_a_fraction_of_a_second():
    assert threading.current_thread() is threading.main_thread()
    _spin(10)
    start = time.perf_counter()
    _spin(2_000_000)
    n = int(1.5 / max((time.perf_counter() - start) / 2_000_000, 1e-12))  # ~1.5 s of work

    def alarm(signum, frame):
        raise _AlarmError

    previous = signal.signal(signal.SIGALRM, alarm)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.1)
        start = time.perf_counter()
        with pytest.raises(_AlarmError):
            il.run_interruptibly(math.inf, _spin, n)
        took = time.perf_counter() - start
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert took < 0.5, f"the handler's exception came after {took:.2f} s"
