"""A request, from any thread, that a long compiled computation stop early.

The constrained stepping kernels (``merson_compiled.constrained_steps`` and the
constraint kernels it calls: the rows of ``W = G M^-1 G^T``, the pivoted Cholesky
factorizations, the projections' iterations) take the ``address`` of an
``InterruptRequest`` (an int64; 0 for none) and look at it in their outer loops with
``interrupted(address)``: one atomic load, so a request set by another thread while a
kernel runs without the interpreter (``nogil``) is seen at the next look, within
milliseconds, whatever the size of the model. A kernel that sees it returns its
``INTERRUPTED`` status at once; the stepping kernel then puts the State back at the
start of the step it was taking.

With NUMBA_DISABLE_JIT the look is a ctypes read of the same cell.

Computations that are not handed an address (projections, Acceleration realizations,
assemblies) look at the request their thread watches: ``watching(request)`` makes it
``current_request()`` for a block (an integrator's ``stepTo`` and ``initialize`` watch the
integrator's), and ``stop_if_interrupted`` raises ComputationInterruptedError when it is
set.
"""

from __future__ import annotations

import contextlib
import ctypes
import threading

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from engine.common.numba_internals import JIT_ENABLED


class InterruptRequest:
    """One int64 cell that compiled kernels read at ``address`` (see the module
    docstring): ``set()`` asks the kernels reading it to stop, ``clear()`` withdraws the
    request. Any thread may set it; the cell lives as long as this object."""

    def __init__(self) -> None:
        self._cell = np.zeros(1, dtype=np.int64)
        #: the cell's address, the int64 the kernels take
        self.address = int(self._cell.ctypes.data)

    def set(self) -> None:
        """Ask the kernels that read this request to stop."""
        self._cell[0] = 1

    def clear(self) -> None:
        """Withdraw the request."""
        self._cell[0] = 0

    def is_set(self) -> bool:
        """Whether a stop is asked."""
        return bool(self._cell[0])


@intrinsic
def _load_acquire(typingctx, address):
    """The int64 at ``address``, read by an atomic load (acquire): a loop that looks at
    it again and again reads memory each time (a plain load could be kept in a register
    for the whole loop)."""
    if not isinstance(address, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        cell = builder.inttoptr(args[0], ir.IntType(64).as_pointer())
        return builder.load_atomic(cell, "acquire", 8)

    return types.int64(types.int64), codegen


if JIT_ENABLED:

    @njit(cache=True, nogil=True, inline="always")
    def interrupted(address):
        """Whether the InterruptRequest at ``address`` (0: none) is set."""
        return address != 0 and _load_acquire(address) != 0

else:

    def interrupted(address):
        """Whether the InterruptRequest at ``address`` (0: none) is set."""
        return address != 0 and ctypes.c_int64.from_address(address).value != 0


_watched = threading.local()


@contextlib.contextmanager
def watching(request: InterruptRequest):
    """While the block runs, ``current_address()`` in this thread is ``request``'s: the
    engine's long computations outside the stepping kernels (projections, assembly,
    acceleration realizations) look at it, so a request set by another thread (an
    integrator's ``interruptStep``) stops them. Blocks nest; the innermost wins."""
    previous = getattr(_watched, "request", None)
    _watched.request = request
    try:
        yield request
    finally:
        _watched.request = previous


def current_request() -> InterruptRequest | None:
    """The InterruptRequest this thread's computation watches (``watching``), or None."""
    return getattr(_watched, "request", None)


def current_address() -> int:
    """The address of ``current_request()`` (0 for none), the int64 kernels take."""
    request = current_request()
    return request.address if request is not None else 0


def stop_if_interrupted(what: str) -> None:
    """Raise ComputationInterruptedError, naming ``what``, if this thread's watched
    InterruptRequest (``watching``) is set: the look of a Python loop (a projection's
    iterations, an assembly's) between its steps."""
    request = current_request()
    if request is not None and request.is_set():
        from engine.common.exceptions import ComputationInterruptedError

        raise ComputationInterruptedError(f"{what} was interrupted (interruptStep)")
