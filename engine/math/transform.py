"""Transform X_AB: the pose of frame B in frame A (rotation R_AB and origin p_AB).

Mutability: as Simbody's, a Transform changes only through its ``set...`` methods (``setP``,
``setR``, ``set``, ``setToZero``, ``setPInv``) or through the Rotation returned by ``R()`` /
``updR()``; these modify the object in place and return it, so calls chain. Every constructor
copies its arguments, and ``p()`` returns a read-only snapshot that later changes do not alter.
Python names share objects: an owner that must not see later changes should store a copy
(``Transform(X)``).
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.math.rotation import Rotation
from engine.math.vec import as_vec3, as_vector


def _frozen(p: np.ndarray) -> np.ndarray:
    out = np.array(p, dtype=np.float64)
    out.flags.writeable = False
    return out


class Transform:
    """A rigid transform X_AB = (R_AB, p_AB); lengths in metres.

    ``Transform()`` identity, ``Transform(p)`` pure translation, ``Transform(R)``
    pure rotation, ``Transform(R, p)`` (R a Rotation or anything ``Rotation(R)`` accepts),
    ``Transform(X)`` a copy. ``X_AB * X_BC`` composes; ``X_AB * p_BS`` maps a station to A;
    ``~X_AB`` (or ``invert()``) gives X_BA.
    """

    __slots__ = ("_R", "_p")

    def __init__(self, *args) -> None:
        if len(args) == 1 and type(args[0]) is Transform:  # a copy: the commonest call
            a = args[0]
            R = Rotation.__new__(Rotation)
            R._m = a._R._m  # read-only arrays, which the setters replace and never write
            self._R = R
            self._p = a._p
            return
        if len(args) == 0:
            R, p = Rotation(), np.zeros(3)
        elif len(args) == 1:
            a = args[0]
            if isinstance(a, Transform):
                R, p = Rotation(a._R), a._p
            elif isinstance(a, Rotation):
                R, p = Rotation(a), np.zeros(3)
            else:
                R, p = Rotation(), as_vec3(a, "translation")
        elif len(args) == 2:
            R = Rotation(args[0])
            p = as_vec3(args[1], "translation")
        else:
            raise InvalidArgumentError(f"Transform takes 0, 1 or 2 arguments, got {len(args)}")
        self._R = R
        self._p = _frozen(p)

    @staticmethod
    def _make(R: Rotation, p: np.ndarray) -> Transform:
        """Build from a Rotation this Transform may own and a valid translation (no checks)."""
        X = Transform.__new__(Transform)
        X._R = R
        X._p = _frozen(p)
        return X

    @classmethod
    def from_mat44(cls, m) -> Transform:
        """The Transform of a homogeneous 4x4 matrix ``[[R, p], [0, 0, 0, 1]]``.

        Raises InvalidArgumentError if the matrix is not 4x4 and finite, its last row is not
        ``[0, 0, 0, 1]``, or its upper-left block is not a proper rotation.
        """
        try:
            a = np.array(m, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise InvalidArgumentError(f"from_mat44 needs a 4x4 matrix, got {m!r}") from exc
        if a.shape != (4, 4) or not np.all(np.isfinite(a)):
            raise InvalidArgumentError(f"from_mat44 needs a finite 4x4 matrix, got shape {a.shape}")
        if not np.allclose(a[3], [0.0, 0.0, 0.0, 1.0], rtol=0.0, atol=1e-12):
            raise InvalidArgumentError(
                f"the last row of a homogeneous transform must be [0, 0, 0, 1], got {a[3].tolist()}"
            )
        return cls(Rotation(a[:3, :3]), a[:3, 3])

    # ----------------------------------------------------------------------- accessors

    def R(self) -> Rotation:  # noqa: N802
        """The rotation R_AB (this Transform's own object: changing it changes the Transform)."""
        return self._R

    updR = R

    def p(self) -> np.ndarray:
        """The origin p_AB (read-only (3,) array, in A)."""
        return self._p

    def RInv(self) -> Rotation:
        """R_BA, a new Rotation."""
        return self._R.transpose()

    def pInv(self) -> np.ndarray:
        """p_BA = -R_BA p_AB: A's origin seen from B, expressed in B."""
        return -(self._R.asMat33().T @ self._p)

    def x(self):
        """B's x axis expressed in A."""
        return self._R.x()

    def y(self):
        """B's y axis expressed in A."""
        return self._R.y()

    def z(self):
        """B's z axis expressed in A."""
        return self._R.z()

    # ----------------------------------------------------------------------- setters

    def setP(self, p) -> Transform:
        """Set the origin p_AB (in A); modifies this Transform and returns it."""
        self._p = _frozen(as_vec3(p, "translation"))
        return self

    def setR(self, R) -> Transform:
        """Set the rotation R_AB (copied); modifies this Transform and returns it."""
        self._R = Rotation(R)
        return self

    def set(self, R, p) -> Transform:
        """Set both rotation and origin; modifies this Transform and returns it."""
        new_R, new_p = Rotation(R), as_vec3(p, "translation")
        self._R, self._p = new_R, _frozen(new_p)
        return self

    def setToZero(self) -> Transform:
        """Set to the identity transform; returns self."""
        self._R = Rotation()
        self._p = _frozen(np.zeros(3))
        return self

    def setPInv(self, p_BA) -> Transform:
        """Set the origin so that ``pInv()`` becomes ``p_BA``; returns self."""
        self._p = _frozen(-(self._R.asMat33() @ as_vec3(p_BA, "p_BA")))
        return self

    # ----------------------------------------------------------------------- algebra

    def invert(self) -> Transform:
        """X_BA."""
        Rt = self._R.transpose()
        return Transform._make(Rt, -(Rt.asMat33() @ self._p))

    def __invert__(self) -> Transform:
        return self.invert()

    def compose(self, X_BC: Transform) -> Transform:
        """X_AC = X_AB * X_BC."""
        if not isinstance(X_BC, Transform):
            raise InvalidArgumentError(f"compose needs a Transform, got {type(X_BC).__name__}")
        m = self._R.asMat33()
        return Transform._make(self._R * X_BC._R, self._p + m @ X_BC._p)

    def __mul__(self, other):
        """``X_AB * X_BC`` -> X_AC; ``X_AB * p_BS`` -> p_AS (a station); a 4-vector
        ``[v, w]`` maps to ``[R v + w p, w]`` (w = 1 station, w = 0 direction)."""
        if isinstance(other, Transform):
            return self.compose(other)
        if np.shape(other) == (4,):
            v = as_vector(other, 4, "4-vector [v, w]")
            out = np.empty(4)
            out[:3] = self._R.asMat33() @ v[:3] + v[3] * self._p
            out[3] = v[3]
            return out
        return self.shiftFrameStationToBase(other)

    def __add__(self, offset_A) -> Transform:
        """A copy with origin moved by ``offset_A`` (in A)."""
        return Transform._make(Rotation(self._R), self._p + as_vec3(offset_A, "offset"))

    def __sub__(self, offset_A) -> Transform:
        """A copy with origin moved by ``-offset_A`` (in A)."""
        return Transform._make(Rotation(self._R), self._p - as_vec3(offset_A, "offset"))

    def shiftFrameStationToBase(self, p_BS) -> np.ndarray:  # noqa: N802
        """p_AS = p_AB + R_AB p_BS."""
        return self._p + self._R.asMat33() @ as_vec3(p_BS, "station p_BS")

    def shiftBaseStationToFrame(self, p_AS) -> np.ndarray:  # noqa: N802
        """p_BS = R_BA (p_AS - p_AB)."""
        return self._R.asMat33().T @ (as_vec3(p_AS, "station p_AS") - self._p)

    def xformFrameVecToBase(self, v_B) -> np.ndarray:  # noqa: N802
        """v_A = R_AB v_B."""
        return self._R.asMat33() @ as_vec3(v_B, "vector v_B")

    def xformBaseVecToFrame(self, v_A) -> np.ndarray:  # noqa: N802
        """v_B = R_BA v_A."""
        return self._R.asMat33().T @ as_vec3(v_A, "vector v_A")

    # ----------------------------------------------------------------------- conversions

    def asMat34(self) -> np.ndarray:
        """The 3x4 matrix ``[R | p]`` (a new array)."""
        m = np.empty((3, 4))
        m[:, :3] = self._R.asMat33()
        m[:, 3] = self._p
        return m

    toMat34 = asMat34

    def toMat44(self) -> np.ndarray:  # noqa: N802
        """The homogeneous 4x4 matrix [[R, p], [0, 1]]."""
        m = np.eye(4)
        m[:3, :3] = self._R.asMat33()
        m[:3, 3] = self._p
        return m

    def isSameTransform(
        self, X: Transform, angleTol: float = 1e-12, distanceTol: float = 1e-12
    ) -> bool:
        """True if the rotations agree to within ``angleTol`` radians and the origins are at
        most ``distanceTol`` (metres) apart. (Transform deliberately has no ``==``.)"""
        if not isinstance(X, Transform):
            raise InvalidArgumentError(f"isSameTransform needs a Transform, got {type(X).__name__}")
        if not np.isfinite(distanceTol) or distanceTol < 0:
            raise InvalidArgumentError(f"distanceTol must be finite and >= 0, got {distanceTol}")
        same_p = float(np.linalg.norm(self._p - X._p)) <= distanceTol
        return same_p and self._R.isSameRotationToWithinAngle(X._R, angleTol)

    def __repr__(self) -> str:
        return f"Transform(R={self._R.asMat33().tolist()}, p={self._p.tolist()})"
