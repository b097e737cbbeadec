"""index_value(value, what): an index argument (an int, a numpy integer, an index object with
``__index__``, or a float with an integral value) as a Python int, or IndexOutOfRangeError
naming the argument for anything else (a bool, NaN, an infinity, 1.5, a string, None).

Only the form is checked here; the caller checks the range it knows."""

from __future__ import annotations

import math
import operator

import numpy as np

from engine.common.exceptions import IndexOutOfRangeError


def index_value(value, what: str) -> int:
    """``value`` as an int index; IndexOutOfRangeError saying ``what`` it was for otherwise."""
    if type(value) is int:
        return value
    if isinstance(value, (bool, np.bool_)):  # (True.__index__ is 1: refused, not read as 1)
        raise IndexOutOfRangeError(f"{what} must be an integer index, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        pass
    if isinstance(value, float) and math.isfinite(value) and value == int(value):
        return int(value)
    raise IndexOutOfRangeError(f"{what} must be an integer index, got {value!r}")
