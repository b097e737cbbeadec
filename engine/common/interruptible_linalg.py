"""numpy.linalg factorizations that a signal can interrupt.

A LAPACK call does not return to Python until it is done: on a large matrix (a model with
thousands of constraint equations or free coordinates) one SVD or least-squares solve can
take seconds to minutes, during which Python's signal handlers (Ctrl-C, SIGTERM) cannot
run. These wrappers run a call estimated to be large in a helper thread (LAPACK releases
the interpreter) while the main thread waits in short timed waits, so a handler runs within
a fraction of a second and its exception propagates from here. The helper then finishes its
call in the background and its result is dropped (a command that exits on the signal does
not wait for it). Small calls, and calls from threads other than the main one (where no
signal handler runs), are made directly.

The functions take and return what their ``numpy.linalg`` namesakes do.

``run_stoppably`` does the same for a compiled kernel that can stop early (the constrained
Runge-Kutta-Merson steps): when a handler raises while the main thread waits, it asks the
kernel to stop (the kernel looks at an ``InterruptRequest`` in its loops), waits a moment
for it to return, and hands the caller both the kernel's result and the exception, so the
caller can leave its State as the kernel left it before re-raising.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

#: a call estimated at more floating-point operations than this runs in a helper thread
#: (about a millisecond of LAPACK time; a thread costs a few tens of microseconds)
THREADED_WORK = 1e7

#: how often (s) the waiting main thread lets signal handlers run
_WAIT = 0.02

#: how long (s) ``run_stoppably`` waits for a kernel asked to stop (it stops within
#: milliseconds once running; longer only while numba is still loading its callees)
STOP_GRACE = 0.4


def run_interruptibly(work: float, fn: Callable, *args, **kwargs):
    """``fn(*args, **kwargs)``, in a helper thread when ``work`` (its estimated
    floating-point operations) exceeds THREADED_WORK and this is the main thread (see the
    module docstring). Exceptions of ``fn`` propagate; so does one raised by a signal
    handler while waiting."""
    if work <= THREADED_WORK or threading.current_thread() is not threading.main_thread():
        return fn(*args, **kwargs)
    outcome: dict = {}
    done = threading.Event()

    def run() -> None:
        try:
            outcome["value"] = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001  (re-raised in the waiting thread)
            outcome["error"] = exc
        finally:
            done.set()

    threading.Thread(target=run, name="mbstudio-linalg", daemon=True).start()
    while not done.wait(_WAIT):
        pass
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _work(a: np.ndarray) -> float:
    """Floating-point operations of an SVD-like factorization of ``a`` (m n min(m, n))."""
    if a.ndim < 2:
        return 0.0
    m, n = a.shape[-2], a.shape[-1]
    return float(m) * float(n) * float(min(m, n))


def svd(a, full_matrices: bool = True, compute_uv: bool = True):
    """numpy.linalg.svd, interruptible (module docstring)."""
    a = np.asarray(a)
    return run_interruptibly(
        _work(a), np.linalg.svd, a, full_matrices=full_matrices, compute_uv=compute_uv
    )


def lstsq(a, b, rcond=None):
    """numpy.linalg.lstsq, interruptible (module docstring)."""
    a = np.asarray(a)
    return run_interruptibly(_work(a), np.linalg.lstsq, a, b, rcond=rcond)


def solve(a, b):
    """numpy.linalg.solve, interruptible (module docstring)."""
    a = np.asarray(a)
    return run_interruptibly(_work(a) / 3.0, np.linalg.solve, a, b)


def eigh(a):
    """numpy.linalg.eigh, interruptible (module docstring)."""
    a = np.asarray(a)
    return run_interruptibly(_work(a), np.linalg.eigh, a)


def matmul(a, b):
    """numpy.matmul of matrices, interruptible (module docstring)."""
    a, b = np.asarray(a), np.asarray(b)
    work = 2.0 * a.size * (b.shape[-1] if b.ndim > 1 else 1)
    return run_interruptibly(work, np.matmul, a, b)


@dataclass
class Stopped:
    """What ``run_stoppably`` saw: the exception a signal handler raised while waiting
    (``interruption``, None if none did) and the call's ``outcome`` ("value" or "error"
    once it has returned, which sets ``done``)."""

    interruption: BaseException | None
    outcome: dict
    done: threading.Event

    @property
    def finished(self) -> bool:
        """Whether the call has returned."""
        return self.done.is_set()

    @property
    def value(self):
        """The call's value once it has returned (its exception is raised here)."""
        if "error" in self.outcome:
            raise self.outcome["error"]
        return self.outcome.get("value")


def run_stoppably(fn: Callable, args: tuple, stop: Callable[[], None], grace: float = STOP_GRACE):
    """``fn(*args)`` in a helper thread while the main thread waits in _WAIT timed waits.
    If a signal handler raises while it waits, ``stop()`` is called (it asks ``fn`` to
    return early) and ``fn`` is waited for at most ``grace`` more seconds (a second
    signal meanwhile is absorbed: the first is the one reported). Returns a ``Stopped``;
    an exception of ``fn`` propagates (from ``Stopped.value`` after an interruption).
    Called from another thread than the main one, ``fn`` runs in the caller's thread (no
    handler runs there)."""
    done = threading.Event()
    outcome: dict = {}
    if threading.current_thread() is not threading.main_thread():
        outcome["value"] = fn(*args)
        done.set()
        return Stopped(None, outcome, done)

    def run() -> None:
        try:
            outcome["value"] = fn(*args)
        except BaseException as exc:  # noqa: BLE001  (re-raised in the waiting thread)
            outcome["error"] = exc
        finally:
            done.set()

    threading.Thread(target=run, name="mbstudio-kernel", daemon=True).start()
    interruption = None
    try:
        while not done.wait(_WAIT):
            pass
    except BaseException as exc:  # noqa: BLE001  (handed to the caller)
        interruption = exc
        stop()
        end = time.monotonic() + grace
        while not done.is_set() and time.monotonic() < end:
            try:
                done.wait(_WAIT)
            except BaseException:  # noqa: BLE001, S110  (a second signal while stopping)
                pass
    if interruption is None and "error" in outcome:
        raise outcome["error"]
    return Stopped(interruption, outcome, done)
