"""The fused realization's entry from Python: the stages and the State's books in one call.

``FusedRealization.realize`` (``engine.multibody.fused_realization``) calls
``realize_stages_in_books`` for a State without constraints: it realizes the stages
``first..last`` with ``realize_stages_from_table`` (``fused_stages``, called at its
compiled address so that it is compiled once, not again inside this function) and then
enters the State's lockstep at ``last`` in its books (``state_books.enter_lockstep``),
which Python would otherwise do with a method call after the kernel returned.
``ENTRY_SIGNATURE`` is the one signature it is compiled for; ``entry()`` gives its
compiled entry point for that signature (the function itself with the JIT off).
"""

from __future__ import annotations

from numba import types

from engine.common.numba_internals import kernel_jit, signature_entry_point
from engine.common.state_books import enter_lockstep
from engine.multibody.kernels.fused_stages import (
    REALIZE_STAGES_SIGNATURE,
    realize_stages_by_address,
)

#: realize_stages_in_books's argument types: realize_stages_from_table's, then the books
ENTRY_SIGNATURE = (*REALIZE_STAGES_SIGNATURE.args, types.int64[::1])


@kernel_jit
def realize_stages_in_books(first, last, with_inertias, euler, a, s, books):
    """Realize the stages ``first..last`` (Stage ints, Position 5 .. Acceleration 8) of
    the tree whose arrays are in the table (``a`` addresses, ``s`` shapes), with the
    articulated inertias first if ``with_inertias``, then record in the State's
    ``books`` that every subsystem and the System are at ``last`` (the lockstep).
    Returns the kinetic energy (J) if Velocity was among the stages, else 0."""
    ke = realize_stages_by_address(first, last, with_inertias, euler, a, s)
    enter_lockstep(books, last)
    return ke


def entry():
    """``realize_stages_in_books``'s compiled entry point for ``ENTRY_SIGNATURE``
    (compiled or loaded from numba's cache now): no per-call type resolution."""
    return signature_entry_point(realize_stages_in_books, ENTRY_SIGNATURE)
