"""all_finite(a): whether every element of a float64 vector is finite, cheaply.

One compiled loop (no temporary array, no floating-point warnings): the argument checks of
State.set* and the matter operators run on every call of the hot paths."""

from __future__ import annotations

import math

from numba import njit


@njit(cache=True, nogil=True)
def all_finite(a) -> bool:
    """True if no element of the 1-D float64 array ``a`` is NaN or infinite."""
    for i in range(a.shape[0]):
        if not math.isfinite(a[i]):
            return False
    return True
