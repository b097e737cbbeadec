"""count_value(value, what, minimum): a count or size argument (an int, a numpy integer or an
object with ``__index__``) as a Python int no smaller than ``minimum``, or
InvalidArgumentError naming the argument (a bool, a float such as 2.5 or 2.0, a string, None:
none is read as a whole number, so nothing is silently truncated)."""

from __future__ import annotations

from engine.common.exceptions import InvalidArgumentError


def count_value(value, what: str, minimum: int = 0) -> int:
    """``value`` as an int >= ``minimum``; InvalidArgumentError saying ``what`` it was for
    otherwise."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise InvalidArgumentError(f"{what} must be an integer, got {value!r}")
    i = int(value.__index__())
    if i < minimum:
        raise InvalidArgumentError(f"{what} must be >= {minimum}, got {i}")
    return i
