"""Small 3-vector helpers (numpy's cross is slow for single vectors)."""

from __future__ import annotations

import numpy as np


def cross3(a, b) -> np.ndarray:
    """a x b for two 3-vectors."""
    a0, a1, a2 = float(a[0]), float(a[1]), float(a[2])
    b0, b1, b2 = float(b[0]), float(b[1]), float(b[2])
    return np.array((a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0))
