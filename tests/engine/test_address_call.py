"""A kernel called by address (``numba_internals.address_call``): the caller computes what a
linked call computes, the callee's exceptions reach the caller's Python caller, argument
types other than the declared ones are refused, and the callee's machine code is not
linked into the caller (which is what keeps each caller's compile small)."""

from __future__ import annotations

import signal
import sys
import time

import numpy as np
import pytest
from numba import njit, types
from numba.core.errors import TypingError

from engine.common.numba_internals import JIT_ENABLED, address_call

pytestmark = pytest.mark.skipif(not JIT_ENABLED, reason="address calls are compiled code")


@njit(_nrt=False)
def _scaled_sum(k, x, out):
    """out += k x (element by element); the new sum of out. Raises for k < 0."""
    if k < 0:
        raise ValueError("k must not be negative")
    total = 0.0
    for i in range(out.shape[0]):
        out[i] += k * x
        total += out[i]
    return total


_SIGNATURE = types.float64(types.int64, types.float64, types.float64[::1])
_scaled_sum_by_address = address_call(_scaled_sum, _SIGNATURE)


@njit(_nrt=False)
def _linked(k, out):
    total = 0.0
    for _ in range(3):
        total += _scaled_sum(k, 0.25, out)
    return total


@njit(_nrt=False)
def _by_address(k, out):
    total = 0.0
    for _ in range(3):
        total += _scaled_sum_by_address(k, 0.25, out)
    return total


@njit(_nrt=False)
def _literal_stage(out):
    return _scaled_sum_by_address(2, 0.5, out)  # a literal int: cast to int64


@njit(_nrt=False)
def _strided(out):
    return _scaled_sum_by_address(1, 0.5, out[::2])


def test_a_call_by_address_computes_what_a_linked_call_computes():
    linked, by_address = np.arange(5.0), np.arange(5.0)
    assert _by_address(3, by_address) == _linked(3, linked)
    np.testing.assert_array_equal(by_address, linked)
    assert _literal_stage(np.zeros(2)) == 2.0


def test_the_callees_exception_reaches_python():
    with pytest.raises(ValueError, match="must not be negative"):
        _by_address(-1, np.zeros(3))


def test_other_argument_types_are_refused_when_the_caller_compiles():
    with pytest.raises(TypingError, match="by address takes"):
        _strided(np.zeros(6))


def test_the_callee_is_not_linked_into_its_caller():
    _by_address(1, np.zeros(2))
    _linked(1, np.zeros(2))
    callee = _scaled_sum.overloads[_SIGNATURE.args].fndesc.mangled_name
    linked_ir = next(iter(_linked.inspect_llvm().values()))
    by_address_ir = next(iter(_by_address.inspect_llvm().values()))
    assert callee in linked_ir  # (the test's premise: numba links a jitted callee)
    assert callee not in by_address_ir


@njit(_nrt=False)
def _plus_one(x):
    return x + 1.0


_plus_one_by_address = address_call(_plus_one, types.float64(types.float64))


@njit(_nrt=False)
def _doubled_plus_one(x):
    return 2.0 * _plus_one_by_address(x)


def test_a_signal_while_a_callee_is_loaded_interrupts_after_the_kernel_returns(monkeypatch):
    """A signal handler that raises while the callee's address is being resolved (the JIT
    loading it, inside the callback from compiled code) neither leaves the cell empty nor
    prints a traceback: the kernel finishes and the handler's exception comes after."""
    from engine.common import numba_internals

    cell = next(c for c in numba_internals._ADDRESS_CELLS.values() if c.dispatcher is _plus_one)
    compile_ = cell.dispatcher.compile
    interrupts = [KeyboardInterrupt()]

    inside = []

    def compile_interrupted_once(argtypes):
        inside.append(numba_internals.in_compiled_callback(sys._getframe()))
        if interrupts:
            raise interrupts.pop()  # as Python's SIGINT handler raises in the callback
        return compile_(argtypes)

    monkeypatch.setattr(cell.dispatcher, "compile", compile_interrupted_once)
    # Python's own SIGINT handler, as in a program started from a terminal (pytest-xdist's
    # workers ignore SIGINT, and a re-delivered signal that is ignored never arrives)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    got = None
    try:
        with pytest.raises(KeyboardInterrupt):
            got = _doubled_plus_one(1.5)
            time.sleep(2.0)  # the signal is delivered again within milliseconds
    finally:
        signal.signal(signal.SIGINT, previous)
    assert got == 5.0 and not interrupts and cell.cell.value != 0
    # a signal handler called there is told so (it must not raise: see app.headless)
    assert inside and all(inside)
    assert not numba_internals.in_compiled_callback(sys._getframe())
