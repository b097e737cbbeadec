"""CoordinateAxis (X, Y, Z) and CoordinateDirection (an axis with a sign).

``-YAxis`` is the CoordinateDirection pointing along negative y, as in Simbody.
Both convert to a unit Vec3 with ``asVec3()``.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError


class CoordinateDirection:
    """A signed coordinate axis: one of +X, -X, +Y, -Y, +Z, -Z."""

    __slots__ = ("_axis", "_direction")

    def __init__(self, axis: CoordinateAxis | int, direction: int = 1) -> None:
        axis = CoordinateAxis(int(axis))
        if direction not in (1, -1):
            raise InvalidArgumentError(f"direction must be +1 or -1, got {direction!r}")
        self._axis = axis
        self._direction = direction

    def getAxis(self) -> CoordinateAxis:  # noqa: N802
        """The unsigned axis."""
        return self._axis

    def getDirection(self) -> int:  # noqa: N802
        """+1 or -1."""
        return self._direction

    def asVec3(self) -> np.ndarray:  # noqa: N802
        """Unit vector along this direction."""
        v = np.zeros(3)
        v[int(self._axis)] = float(self._direction)
        return v

    def __neg__(self) -> CoordinateDirection:
        return CoordinateDirection(self._axis, -self._direction)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CoordinateAxis):
            other = CoordinateDirection(other)
        if not isinstance(other, CoordinateDirection):
            return NotImplemented
        return self._axis == other._axis and self._direction == other._direction

    def __hash__(self) -> int:
        return hash((int(self._axis), self._direction))

    def __repr__(self) -> str:
        sign = "" if self._direction > 0 else "-"
        return f"{sign}{'XYZ'[int(self._axis)]}Axis"


class CoordinateAxis:
    """One of the coordinate axes X (0), Y (1), Z (2)."""

    __slots__ = ("_index",)

    def __init__(self, index: int) -> None:
        index = int(index)
        if index not in (0, 1, 2):
            raise InvalidArgumentError(f"a coordinate axis index is 0, 1 or 2, got {index}")
        self._index = index

    def __int__(self) -> int:
        return self._index

    def __index__(self) -> int:
        return self._index

    def asVec3(self) -> np.ndarray:  # noqa: N802
        """Unit vector along this axis."""
        v = np.zeros(3)
        v[self._index] = 1.0
        return v

    def getNextAxis(self) -> CoordinateAxis:  # noqa: N802
        return CoordinateAxis((self._index + 1) % 3)

    def getPreviousAxis(self) -> CoordinateAxis:  # noqa: N802
        return CoordinateAxis((self._index + 2) % 3)

    def __neg__(self) -> CoordinateDirection:
        return CoordinateDirection(self, -1)

    def __pos__(self) -> CoordinateDirection:
        return CoordinateDirection(self, 1)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CoordinateDirection):
            return other == self
        if isinstance(other, CoordinateAxis):
            return self._index == other._index
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self._index, 1))

    def __repr__(self) -> str:
        return f"{'XYZ'[self._index]}Axis"


XAxis = CoordinateAxis(0)
YAxis = CoordinateAxis(1)
ZAxis = CoordinateAxis(2)
