"""``kernel_jit``: numba's ``njit`` for kernels that allocate nothing (no reference
counting; see ``engine.common.numba_internals``, which holds it with the engine's other
uses of numba's private API)."""

from __future__ import annotations

from engine.common.numba_internals import kernel_jit

__all__ = ["kernel_jit"]
