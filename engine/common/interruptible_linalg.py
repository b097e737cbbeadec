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
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np

#: a call estimated at more floating-point operations than this runs in a helper thread
#: (about a millisecond of LAPACK time; a thread costs a few tens of microseconds)
THREADED_WORK = 1e7

#: how often (s) the waiting main thread lets signal handlers run
_WAIT = 0.02


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
