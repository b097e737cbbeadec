"""CoordinateAxis (X, Y, Z) and CoordinateDirection (an axis with a sign).

``-YAxis`` is the CoordinateDirection pointing along negative y, as in Simbody.
Both convert to a unit Vec3 with ``asVec3()``.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.common.index_arg import index_value


class CoordinateDirection:
    """A signed coordinate axis: one of +X, -X, +Y, -Y, +Z, -Z."""

    __slots__ = ("_axis", "_direction")

    def __init__(self, axis: CoordinateAxis | int, direction: int = 1) -> None:
        axis = CoordinateAxis(index_value(axis, "CoordinateDirection: axis"))
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

    def hasSameAxis(self, dir2: CoordinateDirection) -> bool:  # noqa: N802
        return self._axis == _direction(dir2)._axis

    def isSameAxisAndDirection(self, dir2: CoordinateDirection) -> bool:  # noqa: N802
        return self == _direction(dir2)

    def dotProduct(self, dir2: CoordinateDirection) -> int:  # noqa: N802
        """+1 or -1 along the same axis (same or opposite direction), 0 otherwise."""
        dir2 = _direction(dir2)
        return self._direction * dir2._direction if self._axis == dir2._axis else 0

    def crossProductSign(self, dir2: CoordinateDirection) -> int:  # noqa: N802
        """The sign of this x dir2 along crossProductAxis(dir2) (0 along the same axis)."""
        dir2 = _direction(dir2)
        return self._axis.crossProductSign(dir2._axis) * self._direction * dir2._direction

    def crossProductAxis(self, dir2: CoordinateDirection) -> CoordinateAxis:  # noqa: N802
        return self._axis.crossProductAxis(_direction(dir2)._axis)

    def crossProduct(self, dir2: CoordinateDirection) -> tuple[int, CoordinateAxis]:  # noqa: N802
        """(sign, axis) of this x dir2 (Simbody returns the sign and sets the axis)."""
        return self.crossProductSign(dir2), self.crossProductAxis(dir2)

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
        index = index_value(index, "CoordinateAxis: index")
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

    def getThirdAxis(self, axis2: CoordinateAxis) -> CoordinateAxis:  # noqa: N802
        """The axis that is neither this one nor ``axis2`` (which must differ from it)."""
        j = _axis(axis2)._index
        if j == self._index:
            raise InvalidArgumentError(f"getThirdAxis: {self!r} and {axis2!r} are the same axis")
        return CoordinateAxis(3 - self._index - j)

    def isXAxis(self) -> bool:  # noqa: N802
        return self._index == 0

    def isYAxis(self) -> bool:  # noqa: N802
        return self._index == 1

    def isZAxis(self) -> bool:  # noqa: N802
        return self._index == 2

    def isForwardCyclical(self, axis2: CoordinateAxis) -> bool:  # noqa: N802
        """True for X then Y, Y then Z, Z then X."""
        return _axis(axis2)._index == (self._index + 1) % 3

    def isReverseCyclical(self, axis2: CoordinateAxis) -> bool:  # noqa: N802
        """True for X then Z, Z then Y, Y then X."""
        return _axis(axis2)._index == (self._index + 2) % 3

    def isSameAxis(self, axis2: CoordinateAxis) -> bool:  # noqa: N802
        return _axis(axis2)._index == self._index

    def areAllSameAxes(self, axis2: CoordinateAxis, axis3: CoordinateAxis) -> bool:  # noqa: N802
        return self.isSameAxis(axis2) and self.isSameAxis(axis3)

    def isDifferentAxis(self, axis2: CoordinateAxis) -> bool:  # noqa: N802
        return not self.isSameAxis(axis2)

    def areAllDifferentAxes(self, axis2: CoordinateAxis, axis3: CoordinateAxis) -> bool:  # noqa: N802
        return (
            self.isDifferentAxis(axis2)
            and self.isDifferentAxis(axis3)
            and (_axis(axis2).isDifferentAxis(axis3))
        )

    def dotProduct(self, axis2: CoordinateAxis) -> int:  # noqa: N802
        """1 for the same axis, 0 otherwise (unit vectors)."""
        return 1 if self.isSameAxis(axis2) else 0

    def crossProductSign(self, axis2: CoordinateAxis) -> int:  # noqa: N802
        """+1 if this x axis2 is the third axis (forward cyclical), -1 if its negative, 0 for
        the same axis."""
        if self.isSameAxis(axis2):
            return 0
        return 1 if self.isForwardCyclical(axis2) else -1

    def crossProductAxis(self, axis2: CoordinateAxis) -> CoordinateAxis:  # noqa: N802
        """The axis of this x axis2 (this axis itself when they are the same: a zero
        product)."""
        return CoordinateAxis(self._index) if self.isSameAxis(axis2) else self.getThirdAxis(axis2)

    def crossProduct(self, axis2: CoordinateAxis) -> tuple[int, CoordinateAxis]:  # noqa: N802
        """(sign, axis) of this x axis2 (Simbody returns the sign and sets the axis)."""
        return self.crossProductSign(axis2), self.crossProductAxis(axis2)

    @staticmethod
    def getCoordinateAxis(i: int) -> CoordinateAxis:  # noqa: N802
        return (XAxis, YAxis, ZAxis)[CoordinateAxis(i)._index]

    @staticmethod
    def isIndexInRange(i: int) -> bool:  # noqa: N802
        return index_value(i, "isIndexInRange: i") in (0, 1, 2)

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


def _axis(value) -> CoordinateAxis:
    return value if isinstance(value, CoordinateAxis) else CoordinateAxis(value)


def _direction(value) -> CoordinateDirection:
    return value if isinstance(value, CoordinateDirection) else CoordinateDirection(value)


XAxis = CoordinateAxis(0)
YAxis = CoordinateAxis(1)
ZAxis = CoordinateAxis(2)
