"""Transform X_AB: the pose of frame B in frame A (rotation R_AB and origin p_AB)."""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.math.rotation import Rotation
from engine.math.vec import as_vec3


class Transform:
    """A rigid transform X_AB = (R_AB, p_AB); lengths in metres.

    ``Transform()`` identity, ``Transform(p)`` pure translation, ``Transform(R)``
    pure rotation, ``Transform(R, p)``. ``X_AB * X_BC`` composes; ``X_AB * p_BS``
    maps a station to A; ``~X_AB`` (or ``invert()``) gives X_BA.
    """

    __slots__ = ("_R", "_p")

    def __init__(self, *args) -> None:
        if len(args) == 0:
            R, p = Rotation(), np.zeros(3)
        elif len(args) == 1:
            a = args[0]
            if isinstance(a, Transform):
                R, p = a._R, a._p
            elif isinstance(a, Rotation):
                R, p = a, np.zeros(3)
            else:
                R, p = Rotation(), as_vec3(a, "translation")
        elif len(args) == 2:
            R, p = args
            if not isinstance(R, Rotation):
                R = Rotation(R)
            p = as_vec3(p, "translation")
        else:
            raise InvalidArgumentError(f"Transform takes 0, 1 or 2 arguments, got {len(args)}")
        p = np.array(p, dtype=np.float64)
        p.flags.writeable = False
        self._R = R
        self._p = p

    def R(self) -> Rotation:  # noqa: N802
        """The rotation R_AB."""
        return self._R

    def p(self) -> np.ndarray:
        """The origin p_AB (read-only (3,) array, in A)."""
        return self._p

    def invert(self) -> Transform:
        """X_BA."""
        Rt = self._R.transpose()
        return Transform(Rt, -(Rt.asMat33() @ self._p))

    def __invert__(self) -> Transform:
        return self.invert()

    def __mul__(self, other):
        if isinstance(other, Transform):
            return Transform(self._R * other._R, self._p + self._R.asMat33() @ other._p)
        return self.shiftFrameStationToBase(other)

    def shiftFrameStationToBase(self, p_BS) -> np.ndarray:  # noqa: N802
        """p_AS = p_AB + R_AB p_BS."""
        return self._p + self._R.asMat33() @ np.asarray(p_BS, dtype=np.float64)

    def shiftBaseStationToFrame(self, p_AS) -> np.ndarray:  # noqa: N802
        """p_BS = R_BA (p_AS - p_AB)."""
        return self._R.asMat33().T @ (np.asarray(p_AS, dtype=np.float64) - self._p)

    def xformFrameVecToBase(self, v_B) -> np.ndarray:  # noqa: N802
        """v_A = R_AB v_B."""
        return self._R.asMat33() @ np.asarray(v_B, dtype=np.float64)

    def xformBaseVecToFrame(self, v_A) -> np.ndarray:  # noqa: N802
        """v_B = R_BA v_A."""
        return self._R.asMat33().T @ np.asarray(v_A, dtype=np.float64)

    def toMat44(self) -> np.ndarray:  # noqa: N802
        """The homogeneous 4x4 matrix [[R, p], [0, 1]]."""
        m = np.eye(4)
        m[:3, :3] = self._R.asMat33()
        m[:3, 3] = self._p
        return m

    def __repr__(self) -> str:
        return f"Transform(R={self._R.asMat33().tolist()}, p={self._p.tolist()})"
