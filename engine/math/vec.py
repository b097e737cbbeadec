"""Small-vector helpers: ``Vec3`` and argument validation.

A Vec3 in this engine is a float64 ``numpy.ndarray`` of shape (3,). Any length-3
sequence is accepted wherever a Vec3 is expected.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.common.real_array import real_array


def Vec3(x: float = 0.0, *yz: float) -> np.ndarray:  # noqa: N802
    """Return the 3-vector (x, y, z) as a float64 array of shape (3,). As Simbody's Vec3,
    one argument fills all three elements: ``Vec3(s)`` is (s, s, s); ``Vec3()`` is zero."""
    if not yz:
        return as_vec3((x, x, x))
    if len(yz) != 2:
        raise InvalidArgumentError(f"Vec3 takes 0, 1 or 3 numbers, got {1 + len(yz)}")
    return as_vec3((x, *yz))


def as_vec3(value, name: str = "value") -> np.ndarray:
    """Convert ``value`` to a finite float64 array of shape (3,).

    Raises InvalidArgumentError naming ``name`` if it is not three finite numbers.
    """
    if hasattr(value, "asVec3"):
        value = value.asVec3()
    arr = real_array(value, name, "3 numbers")
    arr = arr.reshape(-1).copy() if arr is value else arr.reshape(-1)
    if arr.shape != (3,):
        raise InvalidArgumentError(f"{name} must have 3 components, got {arr.size}")
    if not np.all(np.isfinite(arr)):
        raise InvalidArgumentError(f"{name} must be finite, got {arr.tolist()}")
    return arr


def as_vector(value, size: int | None = None, name: str = "value") -> np.ndarray:
    """Convert ``value`` to a finite 1-D float64 array, optionally of length ``size``."""
    arr = real_array(value, name, "a sequence of numbers")
    arr = arr.reshape(-1).copy() if arr is value else arr.reshape(-1)
    if size is not None and arr.size != size:
        raise InvalidArgumentError(f"{name} must have length {size}, got {arr.size}")
    if not np.all(np.isfinite(arr)):
        raise InvalidArgumentError(f"{name} must be finite (no NaN or infinity)")
    return arr


def cross_matrix(a: np.ndarray) -> np.ndarray:
    """Return the 3x3 cross-product matrix [a]x, so that [a]x b = a x b."""
    return np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]], dtype=np.float64)
