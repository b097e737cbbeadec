"""UnitVec3: a 3-vector of length 1 (a direction), as Simbody's ``UnitVec3``.

``UnitVec3`` is a read-only float64 ``numpy.ndarray`` subclass of shape (3,), so it can be used
anywhere a Vec3 is expected. Arithmetic on it (``2 * u``, ``u + v``) gives plain arrays, because
the result is generally not a unit vector; negation keeps the type.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.math.vec import as_vec3

# A vector shorter than this cannot be normalized meaningfully.
_TINY_NORM = 1e-300


class UnitVec3(np.ndarray):
    """A unit-length direction vector, stored read-only (shape (3,), dimensionless).

    Constructors (as Simbody):

    - ``UnitVec3(v)``: ``v / |v|`` for any nonzero finite 3-vector (or a CoordinateAxis /
      CoordinateDirection); a zero or non-finite vector raises InvalidArgumentError.
    - ``UnitVec3(x, y, z)``: the same, from three numbers.
    - ``UnitVec3(v, True)``: trust that ``v`` already has unit length (no normalization);
      use only for vectors known to be unit, e.g. columns of a rotation matrix.
    """

    def __new__(cls, *args) -> UnitVec3:
        if len(args) == 3:
            v = _normalized(as_vec3(args, "UnitVec3 components"))
        elif len(args) == 2 and isinstance(args[1], bool):
            v = as_vec3(args[0], "UnitVec3 vector")
            if not args[1]:
                v = _normalized(v)
        elif len(args) == 1:
            v = _normalized(as_vec3(args[0], "UnitVec3 vector"))
        else:
            raise InvalidArgumentError(
                f"UnitVec3 takes a 3-vector, three numbers, or (vector, True); got {len(args)} "
                "arguments"
            )
        obj = np.array(v, dtype=np.float64).view(cls)
        obj.flags.writeable = False
        return obj

    def __array_wrap__(self, array, context=None, return_scalar=False):
        # Results of arithmetic are plain arrays: they are generally not unit vectors.
        if return_scalar:
            return array[()]
        return np.asarray(array)

    def __getitem__(self, key):
        return np.asarray(self)[key]

    def __neg__(self) -> UnitVec3:
        return UnitVec3(-np.asarray(self), True)

    def asVec3(self) -> np.ndarray:
        """This direction as a plain (3,) float64 array."""
        return np.array(self, dtype=np.float64)

    def perp(self) -> UnitVec3:
        """A unit vector perpendicular to this one (arbitrary but deterministic, as Simbody).

        It is this vector crossed with the coordinate axis making the largest angle with it
        (the axis along which this vector has its smallest absolute component; lowest index on
        ties).
        """
        a = np.abs(np.asarray(self))
        axis = np.zeros(3)
        axis[int(np.argmin(a))] = 1.0
        return UnitVec3(np.cross(np.asarray(self), axis))

    def __repr__(self) -> str:
        return f"UnitVec3({np.asarray(self).tolist()})"


def _normalized(v: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(v))
    if n <= _TINY_NORM:
        raise InvalidArgumentError(
            f"cannot make a unit vector from {v.tolist()}: its length is zero"
        )
    return v / n
