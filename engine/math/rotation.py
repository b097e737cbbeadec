"""Rotation: a 3x3 proper orthogonal matrix R_AB (components in B -> components in A)."""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.math.vec import as_vec3


def _axis_rotation(axis: int, angle: float) -> np.ndarray:
    c, s = np.cos(angle), np.sin(angle)
    if axis == 0:
        return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])
    if axis == 1:
        return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


class Rotation:
    """A rotation matrix R_AB, stored as a read-only float64 (3, 3) array.

    Constructors (as Simbody): ``Rotation()`` identity; ``Rotation(mat33)``;
    ``Rotation(angle, axis)`` with a CoordinateAxis or a Vec3 axis (angle in radians).
    """

    __slots__ = ("_m",)

    def __init__(self, *args) -> None:
        if not args:
            m = np.eye(3)
        elif len(args) == 1:
            m = np.array(args[0].asMat33() if isinstance(args[0], Rotation) else args[0], float)
            if m.shape != (3, 3):
                raise InvalidArgumentError(f"a Rotation needs a 3x3 matrix, got shape {m.shape}")
            if not np.all(np.isfinite(m)):
                raise InvalidArgumentError("a Rotation matrix must be finite")
            if not np.allclose(m @ m.T, np.eye(3), atol=1e-8) or np.linalg.det(m) < 0:
                raise InvalidArgumentError("matrix is not a proper rotation (R R^T != I or det < 0)")
        elif len(args) == 2:
            angle, axis = float(args[0]), args[1]
            if not np.isfinite(angle):
                raise InvalidArgumentError("rotation angle must be finite")
            if hasattr(axis, "__index__") and not hasattr(axis, "__len__"):
                m = _axis_rotation(int(axis), angle)
            else:
                a = as_vec3(axis, "rotation axis")
                n = np.linalg.norm(a)
                if n == 0.0:
                    raise InvalidArgumentError("rotation axis must not be the zero vector")
                a = a / n
                k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
                m = np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * (k @ k)
        else:
            raise InvalidArgumentError(f"Rotation takes 0, 1 or 2 arguments, got {len(args)}")
        m = np.array(m, dtype=np.float64)
        m.flags.writeable = False
        self._m = m

    def asMat33(self) -> np.ndarray:  # noqa: N802
        """The matrix as a read-only (3, 3) array."""
        return self._m

    def transpose(self) -> Rotation:
        """The inverse rotation R_BA."""
        return Rotation._from_matrix(self._m.T)

    invert = transpose

    def __invert__(self) -> Rotation:
        return self.transpose()

    def __mul__(self, other):
        if isinstance(other, Rotation):
            return Rotation._from_matrix(self._m @ other._m)
        return self._m @ np.asarray(other, dtype=np.float64)

    def x(self) -> np.ndarray:
        return self._m[:, 0]

    def y(self) -> np.ndarray:
        return self._m[:, 1]

    def z(self) -> np.ndarray:
        return self._m[:, 2]

    @staticmethod
    def _from_matrix(m: np.ndarray) -> Rotation:
        r = Rotation.__new__(Rotation)
        m = np.array(m, dtype=np.float64)
        m.flags.writeable = False
        r._m = m
        return r

    def __repr__(self) -> str:
        return f"Rotation({self._m.tolist()})"
