"""real_array(values, what, expected): an array argument as float64, or the engine's typed
refusal.

Accepted: any array or (nested) sequence of real numbers: float64 arrays (returned as they
are, not copied), other float and integer dtypes, lists, tuples, numpy scalars. Refused with
InvalidArgumentError whose message starts with ``what`` and says ``expected``: None, strings,
ragged nesting, objects numpy cannot read as numbers, and arrays of complex, boolean, string or
object dtype (numpy would drop an imaginary part with only a warning, or parse "1.5").
Shape and finiteness are left to the caller, which knows what it expects.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError

_FLOAT64 = np.dtype(np.float64)
_NDARRAY = np.ndarray
_REAL_KINDS = "iuf"  # signed and unsigned integers, floats


def real_array(values, what: str, expected: str) -> np.ndarray:
    """``values`` as a float64 ndarray of its own shape (see the module docstring)."""
    if type(values) is _NDARRAY and values.dtype is _FLOAT64:
        return values
    if values is None or isinstance(values, (str, bytes)):
        raise InvalidArgumentError(f"{what}: expected {expected}, got {type(values).__name__}")
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError) as exc:  # ragged nesting, an unconvertible object
        raise InvalidArgumentError(
            f"{what}: expected {expected}, got a ragged or non-numeric {type(values).__name__}"
        ) from exc
    if arr.dtype.kind not in _REAL_KINDS:
        raise InvalidArgumentError(
            f"{what}: expected {expected} (real numbers), got values of dtype {arr.dtype}"
        )
    return arr.astype(np.float64, copy=False)


def real_scalar(value, what: str) -> float:
    """``value`` (a Python or numpy real number, or a 0-d or 1-element real array) as a finite
    float, or InvalidArgumentError whose message starts with ``what``: None, strings, booleans,
    complex numbers, NaN and infinities are refused."""
    if type(value) is float and value - value == 0.0:  # finite (NaN and inf give NaN)
        return value
    if value is None or isinstance(value, (str, bytes, bool, np.bool_)):
        raise InvalidArgumentError(f"{what}: expected a real number, got {type(value).__name__}")
    arr = real_array(value, what, "a real number")
    if arr.size != 1:
        raise InvalidArgumentError(f"{what}: expected a real number, got {arr.size} values")
    x = float(arr.reshape(-1)[0])
    if not np.isfinite(x):
        raise InvalidArgumentError(f"{what}: expected a finite number, got {x}")
    return x
