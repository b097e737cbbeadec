"""all_finite(a): whether every element of a float64 vector is finite, cheaply; and
copy_if_finite, the same check fused with the copy State.setQ/setU/... make.

One compiled loop (no temporary array, no floating-point warnings): the argument checks of
State.set* and the matter operators run on every call of the hot paths."""

from __future__ import annotations

import math

from numba import njit, types

from engine.common.numba_internals import kernel_jit, signature_entry_point


@njit(cache=True, nogil=True)
def all_finite(a) -> bool:
    """True if no element of the 1-D float64 array ``a`` is NaN or infinite."""
    for i in range(a.shape[0]):
        if not math.isfinite(a[i]):
            return False
    return True


@kernel_jit
def copy_if_finite(src, dst, start) -> bool:
    """Copy the 1-D float64 array ``src`` into ``dst[start : start + len(src)]`` if every
    element of ``src`` is finite (True); otherwise change nothing (False)."""
    n = src.shape[0]
    for i in range(n):
        if not math.isfinite(src[i]):
            return False
    for i in range(n):
        dst[start + i] = src[i]
    return True


_copy_entry = None


def copy_vector_if_finite(src, dst, start: int) -> bool:
    """copy_if_finite for a C-contiguous float64 vector ``src`` into the float64 vector
    ``dst`` (the caller has checked those types), through the kernel's compiled entry
    point: no numba type resolution per call (State.setU's path)."""
    global _copy_entry
    if _copy_entry is None:
        sig = (types.Array(types.float64, 1, "C"), types.Array(types.float64, 1, "C"), types.int64)
        _copy_entry = signature_entry_point(copy_if_finite, sig)
    return _copy_entry(src, dst, start)
