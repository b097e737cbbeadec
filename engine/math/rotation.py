"""Rotation: a 3x3 proper orthogonal matrix R_AB (components in B -> components in A).

``R_AB`` gives the orientation of frame B in frame A: its columns are B's unit axes expressed
in A, and ``v_A = R_AB v_B``. Angles are in radians.

Mutability: a Rotation is changed only by its ``set...`` methods, which (as Simbody's) modify
the object in place and return it. The matrix returned by ``asMat33()`` is a read-only snapshot
that a later ``set...`` call does not alter. Python names share objects, so an owner that must
not see later changes should keep a copy (``Rotation(R)``).
"""

from __future__ import annotations

import math

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.math import angle_sequences as seqs
from engine.math import rotation_kinematics as kin
from engine.math.angle_sequences import BodyOrSpaceType
from engine.math.coordinate_axis import CoordinateAxis, CoordinateDirection, XAxis, YAxis, ZAxis
from engine.math.quaternion import (
    Quaternion,
    quaternion_from_rotation_matrix,
    rotation_matrix_from_quaternion,
)
from engine.math.unit_vec import UnitVec3
from engine.math.vec import as_vec3, as_vector

# Tolerance on R R^T = I for a matrix handed to Rotation(mat33).
_ORTHO_TOL = 1e-8
# Simbody's "significant" precision, eps^(7/8), used by the ...OfMachinePrecision queries.
_SIGNIFICANT = float(np.finfo(np.float64).eps) ** 0.875


def _is_scalar(x) -> bool:
    return np.ndim(x) == 0 and not isinstance(x, (CoordinateAxis, CoordinateDirection))


def _angle(value, name: str = "rotation angle") -> float:
    """A finite angle in radians (a plain number or 0-d array)."""
    if np.ndim(value) != 0:
        raise InvalidArgumentError(f"{name} must be a single number, got {value!r}")
    try:
        a = float(value)
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(f"{name} must be a number, got {value!r}") from exc
    if not math.isfinite(a):
        raise InvalidArgumentError(f"{name} must be finite, got {a}")
    return a


def _rodrigues(angle: float, axis: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(axis))
    if n == 0.0:
        raise InvalidArgumentError("rotation axis must not be the zero vector")
    a = axis / n
    k = np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])
    return np.eye(3) + np.sin(angle) * k + (1.0 - np.cos(angle)) * (k @ k)


def _checked_matrix(value) -> np.ndarray:
    try:
        m = np.array(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(f"a Rotation needs a 3x3 matrix, got {value!r}") from exc
    if m.shape != (3, 3):
        raise InvalidArgumentError(f"a Rotation needs a 3x3 matrix, got shape {m.shape}")
    if not np.all(np.isfinite(m)):
        raise InvalidArgumentError("a Rotation matrix must be finite")
    if not np.allclose(m @ m.T, np.eye(3), atol=_ORTHO_TOL) or np.linalg.det(m) < 0:
        raise InvalidArgumentError("matrix is not a proper rotation (R R^T != I or det < 0)")
    return m


class Rotation:
    """A rotation matrix R_AB, stored as a read-only float64 (3, 3) array.

    Constructors (as Simbody):

    - ``Rotation()``: identity.
    - ``Rotation(mat33)``: a proper orthogonal matrix (checked to 1e-8; see
      ``setRotationFromApproximateMat33`` for matrices that are only nearly orthogonal).
    - ``Rotation(R)``: a copy of another Rotation.
    - ``Rotation(quaternion)``: from a Quaternion (or any 4-vector ``[w, x, y, z]``, normalized).
    - ``Rotation(angle, axis)``: right-handed rotation by ``angle`` about a CoordinateAxis, a
      CoordinateDirection or any nonzero 3-vector.
    - ``Rotation(BodyRotationSequence | SpaceRotationSequence, a1, axis1, a2, axis2
      [, a3, axis3])``: a sequence of rotations about coordinate axes.
    - ``Rotation(uvec, axis)``: B's ``axis`` is the direction ``uvec`` (in A); the other two axes
      are perpendicular, chosen deterministically.
    - ``Rotation(uveci, axisi, vecj, axisj)``: B's ``axisi`` is exactly ``uveci``; B's ``axisj``
      is the direction perpendicular to it closest to ``vecj``.
    """

    __slots__ = ("_m",)

    def __init__(self, *args) -> None:
        if not args:
            self._m = _IDENTITY
            return
        if isinstance(args[0], BodyOrSpaceType):
            self._set_from_sequence(args)
        elif len(args) == 1:
            self._set_from_one(args[0])
        elif len(args) == 2 and _is_scalar(args[0]):
            self.setRotationFromAngleAboutAxis(args[0], args[1])
        elif len(args) == 2:
            self.setRotationFromOneAxis(args[0], args[1])
        elif len(args) == 4:
            self.setRotationFromTwoAxes(*args)
        else:
            raise InvalidArgumentError(
                f"Rotation takes 0, 1, 2, 4, 5 or 7 arguments, got {len(args)} (see the "
                "Rotation docstring for the accepted forms)"
            )

    def _set_from_one(self, arg) -> None:
        if isinstance(arg, Rotation):
            self._m = arg._m
        elif isinstance(arg, Quaternion) or np.shape(arg) == (4,):
            self.setRotationFromQuaternion(arg)
        else:
            self._m = _read_only(_checked_matrix(arg))

    def _set_from_sequence(self, args: tuple) -> None:
        if len(args) == 5:
            self.setRotationFromTwoAnglesTwoAxes(*args)
        elif len(args) == 7:
            self.setRotationFromThreeAnglesThreeAxes(*args)
        else:
            raise InvalidArgumentError(
                "a rotation sequence takes (BodyOrSpaceType, a1, axis1, a2, axis2[, a3, axis3]), "
                f"got {len(args)} arguments"
            )

    # ----------------------------------------------------------------------- setters

    def _set(self, m: np.ndarray) -> Rotation:
        self._m = _read_only(m)
        return self

    def setRotationToIdentityMatrix(self) -> Rotation:
        """Set to the identity; returns self."""
        return self._set(np.eye(3))

    def setRotationFromAngleAboutX(self, angle: float) -> Rotation:
        """Set to the rotation by ``angle`` (rad) about x; returns self."""
        return self._set(seqs.axis_rotation(0, _angle(angle)))

    def setRotationFromAngleAboutY(self, angle: float) -> Rotation:
        """Set to the rotation by ``angle`` (rad) about y; returns self."""
        return self._set(seqs.axis_rotation(1, _angle(angle)))

    def setRotationFromAngleAboutZ(self, angle: float) -> Rotation:
        """Set to the rotation by ``angle`` (rad) about z; returns self."""
        return self._set(seqs.axis_rotation(2, _angle(angle)))

    def setRotationFromAngleAboutAxis(self, angle: float, axis) -> Rotation:
        """Set to the rotation by ``angle`` (rad) about a CoordinateAxis or a 3-vector."""
        angle = _angle(angle)
        if isinstance(axis, (CoordinateAxis, int, np.integer)) and not isinstance(axis, bool):
            return self._set(seqs.axis_rotation(seqs.axis_index(axis), angle))
        return self._set(_rodrigues(angle, as_vec3(axis, "rotation axis")))

    def setRotationFromAngleAboutUnitVector(self, angle: float, unitVector) -> Rotation:
        """Set to the rotation by ``angle`` (rad) about a direction (normalized here)."""
        return self._set(_rodrigues(_angle(angle), as_vec3(unitVector, "rotation axis")))

    setRotationFromAngleAboutNonUnitVector = setRotationFromAngleAboutUnitVector

    def setRotationFromQuaternion(self, q) -> Rotation:
        """Set from a quaternion ``[w, x, y, z]`` (normalized first if not a Quaternion)."""
        if not isinstance(q, Quaternion):
            q = Quaternion(q)
        return self._set(rotation_matrix_from_quaternion(np.asarray(q)))

    def setRotationFromTwoAnglesTwoAxes(
        self, bodyOrSpace, angle1: float, axis1, angle2: float, axis2
    ) -> Rotation:
        """Set from a two-rotation body- or space-fixed sequence; returns self."""
        seq = seqs.as_body_or_space(bodyOrSpace)
        angles = (_angle(angle1, "angle1"), _angle(angle2, "angle2"))
        axes = (seqs.axis_index(axis1, "axis1"), seqs.axis_index(axis2, "axis2"))
        return self._set(seqs.matrix_from_sequence(seq, angles, axes))

    def setRotationFromThreeAnglesThreeAxes(
        self, bodyOrSpace, angle1: float, axis1, angle2: float, axis2, angle3: float, axis3
    ) -> Rotation:
        """Set from a three-rotation body- or space-fixed sequence; returns self."""
        seq = seqs.as_body_or_space(bodyOrSpace)
        angles = (_angle(angle1, "angle1"), _angle(angle2, "angle2"), _angle(angle3, "angle3"))
        axes = (
            seqs.axis_index(axis1, "axis1"),
            seqs.axis_index(axis2, "axis2"),
            seqs.axis_index(axis3, "axis3"),
        )
        return self._set(seqs.matrix_from_sequence(seq, angles, axes))

    def setRotationToBodyFixedXY(self, v) -> Rotation:
        """Set to ``Rx(v[0]) Ry(v[1])``; returns self."""
        a = as_vector(v, 2, "body-fixed XY angles")
        return self.setRotationFromTwoAnglesTwoAxes(
            seqs.BodyRotationSequence, a[0], XAxis, a[1], YAxis
        )

    def setRotationToBodyFixedXYZ(self, v, sinxyz=None) -> Rotation:
        """Set to ``Rx(v[0]) Ry(v[1]) Rz(v[2])`` (body-fixed 1-2-3); returns self. As in
        Simbody, ``(cosxyz, sinxyz)`` gives the angles by their cosines and sines instead."""
        if sinxyz is None:
            a = as_vec3(v, "body-fixed XYZ angles")
            return self._set(seqs.matrix_from_sequence(seqs.BodyRotationSequence, a, (0, 1, 2)))
        c0, c1, c2 = as_vec3(v, "cosines of the body-fixed XYZ angles")
        s0, s1, s2 = as_vec3(sinxyz, "sines of the body-fixed XYZ angles")
        if not np.allclose([c0 * c0 + s0 * s0, c1 * c1 + s1 * s1, c2 * c2 + s2 * s2], 1.0):
            raise InvalidArgumentError(
                "setRotationToBodyFixedXYZ(cosxyz, sinxyz): each cosine and sine pair must "
                f"satisfy c^2 + s^2 = 1, got cos {[c0, c1, c2]}, sin {[s0, s1, s2]}"
            )
        m = np.array(
            [
                [c1 * c2, -c1 * s2, s1],
                [s0 * s1 * c2 + c0 * s2, c0 * c2 - s0 * s1 * s2, -s0 * c1],
                [s0 * s2 - c0 * s1 * c2, s0 * c2 + c0 * s1 * s2, c0 * c1],
            ]
        )
        return self._set(m)

    def setRotationFromOneAxis(self, uvec, axis) -> Rotation:
        """Make B's ``axis`` point along ``uvec`` (in A); the other axes are perpendicular."""
        a = seqs.axis_index(axis, "axis")
        u = UnitVec3(uvec)
        v = u.perp()
        w = UnitVec3(np.cross(u, v), True)
        m = np.empty((3, 3))
        m[:, a], m[:, (a + 1) % 3], m[:, (a + 2) % 3] = u, v, w
        return self._set(m)

    def setRotationFromTwoAxes(self, uveci, axisi, vecjApprox, axisjApprox) -> Rotation:
        """B's ``axisi`` along ``uveci``; B's ``axisj`` perpendicular to it, closest to
        ``vecjApprox``. If ``vecjApprox`` is (nearly) parallel to ``uveci`` this falls back to
        ``setRotationFromOneAxis`` as Simbody does."""
        i = seqs.axis_index(axisi, "axisi")
        j = seqs.axis_index(axisjApprox, "axisjApprox")
        if i == j:
            raise InvalidArgumentError("setRotationFromTwoAxes needs two different axes")
        ui = UnitVec3(uveci)
        vj = as_vec3(vecjApprox, "vecjApprox")
        forward = j == (i + 1) % 3
        uk = np.cross(ui, vj) if forward else np.cross(vj, ui)
        if np.linalg.norm(uk) <= 1e-12 * max(np.linalg.norm(vj), 1e-300):
            return self.setRotationFromOneAxis(ui, i)
        uk = UnitVec3(uk)
        uj = np.cross(uk, ui) if forward else np.cross(ui, uk)
        m = np.empty((3, 3))
        m[:, i], m[:, j], m[:, 3 - i - j] = ui, uj, uk
        return self._set(m)

    def setRotationFromApproximateMat33(self, m) -> Rotation:
        """Set to the rotation nearest (Frobenius norm) to a finite 3x3 matrix ``m``."""
        a = np.array(m, dtype=np.float64)
        if a.shape != (3, 3) or not np.all(np.isfinite(a)):
            raise InvalidArgumentError("setRotationFromApproximateMat33 needs a finite 3x3 matrix")
        u, _, vt = np.linalg.svd(a)
        d = np.sign(np.linalg.det(u @ vt)) or 1.0
        return self._set(u @ np.diag([1.0, 1.0, d]) @ vt)

    # ----------------------------------------------------------------------- accessors

    def asMat33(self) -> np.ndarray:
        """The matrix as a read-only (3, 3) array."""
        return self._m

    def toMat33(self) -> np.ndarray:
        """A writable copy of the matrix."""
        return self._m.copy()

    def col(self, j: int) -> UnitVec3:
        """Column j: B's j-th axis expressed in A."""
        return UnitVec3(self._m[:, j], True)

    def row(self, i: int) -> UnitVec3:
        """Row i: A's i-th axis expressed in B."""
        return UnitVec3(self._m[i, :], True)

    def x(self) -> UnitVec3:
        """B's x axis expressed in A (column 0)."""
        return self.col(0)

    def y(self) -> UnitVec3:
        """B's y axis expressed in A (column 1)."""
        return self.col(1)

    def z(self) -> UnitVec3:
        """B's z axis expressed in A (column 2)."""
        return self.col(2)

    def getAxisUnitVec(self, axis) -> UnitVec3:
        """The column for a CoordinateAxis, or its signed version for a CoordinateDirection."""
        if isinstance(axis, CoordinateDirection):
            col = self.col(int(axis.getAxis()))
            return col if axis.getDirection() > 0 else -col
        return self.col(seqs.axis_index(axis))

    # ----------------------------------------------------------------------- algebra

    def transpose(self) -> Rotation:
        """The inverse rotation R_BA."""
        return Rotation._from_matrix(self._m.T)

    invert = transpose

    def __invert__(self) -> Rotation:
        return self.transpose()

    def __mul__(self, other):
        """``R_AB * R_BC`` -> R_AC; ``R_AB * v_B`` -> v_A; ``R_AB * V_B`` for a SpatialVec
        (shape (2, 3)) rotates both halves; ``R * M`` for a 3xN matrix is the matrix product."""
        if isinstance(other, Rotation):
            return Rotation._from_matrix(self._m @ other._m)
        a = np.asarray(other, dtype=np.float64)
        if a.shape == (3,):
            return self._m @ a
        if a.shape == (2, 3):
            return a @ self._m.T
        if a.ndim == 2 and a.shape[0] == 3:
            return self._m @ a
        raise InvalidArgumentError(
            f"a Rotation multiplies a Rotation, a 3-vector, a SpatialVec (2, 3) or a 3xN matrix; "
            f"got shape {a.shape}"
        )

    def reexpressSymMat33(self, S_BB) -> np.ndarray:
        """``S_AA = R_AB S_BB R_BA`` for a symmetric 3x3 matrix (inertia, covariance, ...)."""
        s = np.asarray(S_BB, dtype=np.float64)
        if s.shape != (3, 3):
            raise InvalidArgumentError(f"reexpressSymMat33 needs a 3x3 matrix, got {s.shape}")
        out = self._m @ s @ self._m.T
        return 0.5 * (out + out.T)

    # ----------------------------------------------------------------------- conversions

    def convertRotationToQuaternion(self) -> Quaternion:
        """The equivalent quaternion ``[w, x, y, z]`` in canonical form (``w >= 0``)."""
        return Quaternion(quaternion_from_rotation_matrix(self._m), True)

    def convertRotationToAngleAxis(self) -> np.ndarray:
        """``[angle, ax, ay, az]`` with -pi < angle <= pi and a unit axis (canonical)."""
        return self.convertRotationToQuaternion().convertQuaternionToAngleAxis()

    def convertOneAxisRotationToOneAngle(self, axis1) -> float:
        """The angle of this rotation viewed as a rotation about ``axis1`` only."""
        return seqs.one_angle(self._m, seqs.axis_index(axis1, "axis1"))

    def convertTwoAxesRotationToTwoAngles(self, bodyOrSpace, axis1, axis2) -> np.ndarray:
        """Angles (a1, a2) of a two-axis body- or space-fixed sequence (shape (2,))."""
        return seqs.two_angles(
            self._m,
            seqs.as_body_or_space(bodyOrSpace),
            seqs.axis_index(axis1, "axis1"),
            seqs.axis_index(axis2, "axis2"),
        )

    def convertThreeAxesRotationToThreeAngles(self, bodyOrSpace, axis1, axis2, axis3):
        """Angles (a1, a2, a3) of a three-axis body- or space-fixed sequence (shape (3,)).

        See ``engine.math.angle_sequences`` for the ranges and the gimbal-lock convention.
        """
        return seqs.three_angles(
            self._m,
            seqs.as_body_or_space(bodyOrSpace),
            seqs.axis_index(axis1, "axis1"),
            seqs.axis_index(axis2, "axis2"),
            seqs.axis_index(axis3, "axis3"),
        )

    def convertRotationToBodyFixedXY(self) -> np.ndarray:
        """Body-fixed x-y angles (shape (2,))."""
        return self.convertTwoAxesRotationToTwoAngles(seqs.BodyRotationSequence, XAxis, YAxis)

    def convertRotationToBodyFixedXYZ(self) -> np.ndarray:
        """Body-fixed x-y-z angles (shape (3,)): ``R = Rx(a0) Ry(a1) Rz(a2)``."""
        return self.convertThreeAxesRotationToThreeAngles(
            seqs.BodyRotationSequence, XAxis, YAxis, ZAxis
        )

    # ----------------------------------------------------------------------- queries

    def isSameRotationToWithinAngle(self, R: Rotation, okPointingAngleErrorRads: float) -> bool:
        """True if the rotation taking this one to ``R`` is by at most the given angle (rad)."""
        if not isinstance(R, Rotation):
            raise InvalidArgumentError("isSameRotationToWithinAngle needs a Rotation")
        tol = _angle(okPointingAngleErrorRads, "okPointingAngleErrorRads")
        if tol < 0:
            raise InvalidArgumentError(f"the angle tolerance must be >= 0, got {tol}")
        relative = (~self) * R
        return abs(relative.convertRotationToAngleAxis()[0]) <= tol

    def isSameRotationToWithinAngleOfMachinePrecision(self, R: Rotation) -> bool:
        """``isSameRotationToWithinAngle`` with Simbody's default precision (about 2e-14)."""
        return self.isSameRotationToWithinAngle(R, _SIGNIFICANT)

    def getMaxAbsDifferenceInRotationElements(self, R: Rotation) -> float:
        """The largest absolute difference between corresponding matrix elements."""
        if not isinstance(R, Rotation):
            raise InvalidArgumentError("getMaxAbsDifference needs a Rotation")
        return float(np.max(np.abs(self._m - R._m)))

    getMaxAbsDifference = getMaxAbsDifferenceInRotationElements

    def areAllRotationElementsSameToEpsilon(self, R: Rotation, epsilon: float) -> bool:
        """True if every element differs from R's by at most ``epsilon``."""
        return self.getMaxAbsDifferenceInRotationElements(R) <= float(epsilon)

    def areAllRotationElementsSameToMachinePrecision(self, R: Rotation) -> bool:
        """``areAllRotationElementsSameToEpsilon`` with Simbody's default precision."""
        return self.areAllRotationElementsSameToEpsilon(R, _SIGNIFICANT)

    # ----------------------------------------------------------------------- kinematics statics

    calcNForBodyXYZInBodyFrame = staticmethod(kin.calcNForBodyXYZInBodyFrame)
    calcNInvForBodyXYZInBodyFrame = staticmethod(kin.calcNInvForBodyXYZInBodyFrame)
    calcNDotForBodyXYZInBodyFrame = staticmethod(kin.calcNDotForBodyXYZInBodyFrame)
    calcNForBodyXYZInParentFrame = staticmethod(kin.calcNForBodyXYZInParentFrame)
    calcNInvForBodyXYZInParentFrame = staticmethod(kin.calcNInvForBodyXYZInParentFrame)
    calcNDotForBodyXYZInParentFrame = staticmethod(kin.calcNDotForBodyXYZInParentFrame)
    multiplyByBodyXYZ_N_P = staticmethod(kin.multiplyByBodyXYZ_N_P)
    multiplyByBodyXYZ_NT_P = staticmethod(kin.multiplyByBodyXYZ_NT_P)
    multiplyByBodyXYZ_NInv_P = staticmethod(kin.multiplyByBodyXYZ_NInv_P)
    multiplyByBodyXYZ_NInvT_P = staticmethod(kin.multiplyByBodyXYZ_NInvT_P)
    convertAngVelInParentToBodyXYZDot = staticmethod(kin.convertAngVelInParentToBodyXYZDot)
    convertAngAccInParentToBodyXYZDotDot = staticmethod(kin.convertAngAccInParentToBodyXYZDotDot)
    convertAngVelInBodyFrameToBodyXYZDot = staticmethod(kin.convertAngVelInBodyFrameToBodyXYZDot)
    convertBodyXYZDotToAngVelInBodyFrame = staticmethod(kin.convertBodyXYZDotToAngVelInBodyFrame)
    convertAngVelDotInBodyFrameToBodyXYZDotDot = staticmethod(
        kin.convertAngVelDotInBodyFrameToBodyXYZDotDot
    )
    calcUnnormalizedNForQuaternion = staticmethod(kin.calcUnnormalizedNForQuaternion)
    calcUnnormalizedNDotForQuaternion = staticmethod(kin.calcUnnormalizedNDotForQuaternion)
    calcUnnormalizedNInvForQuaternion = staticmethod(kin.calcUnnormalizedNInvForQuaternion)
    convertAngVelToQuaternionDot = staticmethod(kin.convertAngVelToQuaternionDot)
    convertQuaternionDotToAngVel = staticmethod(kin.convertQuaternionDotToAngVel)
    convertAngVelDotToQuaternionDotDot = staticmethod(kin.convertAngVelDotToQuaternionDotDot)

    # ----------------------------------------------------------------------- internals

    @staticmethod
    def _from_matrix(m: np.ndarray) -> Rotation:
        """Wrap a matrix known to be a rotation (no checks)."""
        r = Rotation.__new__(Rotation)
        r._m = _read_only(m)
        return r

    def __repr__(self) -> str:
        return f"Rotation({self._m.tolist()})"


def _read_only(m: np.ndarray) -> np.ndarray:
    out = np.array(m, dtype=np.float64)
    out.flags.writeable = False
    return out


_IDENTITY = _read_only(np.eye(3))
