"""Spatial vectors and the rigid shift operator, as Simbody's SpatialAlgebra.

A **SpatialVec** is a float64 array of shape (2, 3): row 0 the angular part, row 1 the linear
part (docs/conventions.md §5): velocities ``[w, v]`` (rad/s, m/s), accelerations
``[b, a]``, forces ``[torque, force]`` (N m, N). The linear part of a velocity or acceleration
is that of a particular point; the torque of a force is about a particular point.
A **SpatialMat** is a 6x6 float64 array acting on the flattened ``[angular, linear]`` 6-vector.

Shift conventions (Simbody's): ``shiftVelocityBy(V, r)`` re-measures at the point displaced by
``r`` (``v + w x r``); ``shiftForceBy(F, r)`` moves the application point by ``r``
(``torque - r x f``). ``PhiMatrix(l)`` is ``[[1, [l]x], [0, 1]]``: with ``l`` the vector from
point A to point B, ``V_B = Phi^T V_A`` and ``F_A = Phi F_B``.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.common.real_array import real_array
from engine.math.vec import as_vec3, cross_matrix


def SpatialVec(w, v=None) -> np.ndarray:  # noqa: N802
    """A spatial vector ``[w, v]`` as a (2, 3) float64 array.

    ``SpatialVec(w, v)`` from the angular and linear 3-vectors, or ``SpatialVec(x)`` from a
    (2, 3) array or a flat 6-vector (copied). Raises InvalidArgumentError on wrong sizes or
    non-finite numbers.
    """
    if v is None:
        return as_spatial_vec(w, "SpatialVec").copy()
    out = np.empty((2, 3))
    out[0] = as_vec3(w, "angular part of SpatialVec")
    out[1] = as_vec3(v, "linear part of SpatialVec")
    return out


def as_spatial_vec(value, name: str = "spatial vector") -> np.ndarray:
    """Validate ``value`` as a finite spatial vector; return it as a (2, 3) float64 array."""
    a = real_array(value, name, "6 numbers")
    if a.shape not in ((2, 3), (6,)):
        raise InvalidArgumentError(
            f"{name} must have shape (2, 3) [angular; linear] or (6,), got {a.shape}"
        )
    if not np.all(np.isfinite(a)):
        raise InvalidArgumentError(f"{name} must be finite, got {a.reshape(6).tolist()}")
    return a.reshape(2, 3)


def SpatialMat(m00, m01, m10, m11) -> np.ndarray:  # noqa: N802
    """A 6x6 spatial matrix from its four 3x3 blocks ``[[m00, m01], [m10, m11]]``."""
    out = np.empty((6, 6))
    for (r, c), block, name in (
        ((0, 0), m00, "m00"),
        ((0, 1), m01, "m01"),
        ((1, 0), m10, "m10"),
        ((1, 1), m11, "m11"),
    ):
        out[3 * r : 3 * r + 3, 3 * c : 3 * c + 3] = as_mat33(block, name)
    return out


def as_spatial_mat(value, name: str = "spatial matrix") -> np.ndarray:
    """Validate ``value`` as a finite 6x6 matrix."""
    a = real_array(value, name, "a 6x6 matrix")
    if a.shape != (6, 6) or not np.all(np.isfinite(a)):
        raise InvalidArgumentError(f"{name} must be a finite 6x6 matrix, got shape {a.shape}")
    return a


def as_mat33(value, name: str) -> np.ndarray:
    if np.ndim(value) == 0:
        return float(value) * np.eye(3)
    a = np.asarray(value, dtype=np.float64)
    if a.shape != (3, 3) or not np.all(np.isfinite(a)):
        raise InvalidArgumentError(f"block {name} must be a finite 3x3 matrix or a scalar")
    return a


def spatial_mat_times_vec(M: np.ndarray, V: np.ndarray) -> np.ndarray:
    """``M V`` for a 6x6 spatial matrix and a spatial vector; returns shape (2, 3)."""
    return (as_spatial_mat(M) @ as_spatial_vec(V).reshape(6)).reshape(2, 3)


# --------------------------------------------------------------------------- shifts


def shiftVelocityBy(V_AB, r_A) -> np.ndarray:
    """Spatial velocity of B in A re-measured at the point Q = Bo + r: ``[w, v + w x r]``."""
    V = as_spatial_vec(V_AB, "V_AB")
    r = as_vec3(r_A, "offset r_A")
    return np.array([V[0], V[1] + np.cross(V[0], r)])


def shiftVelocityFromTo(V_A_BP, fromP_A, toQ_A) -> np.ndarray:
    """Re-measure a spatial velocity from point P to point Q (both from A's origin, in A)."""
    return shiftVelocityBy(V_A_BP, as_vec3(toQ_A, "toQ_A") - as_vec3(fromP_A, "fromP_A"))


def shiftAccelerationBy(A_AB, w_AB, r_A) -> np.ndarray:
    """Spatial acceleration re-measured at Q = Bo + r: ``[b, a + b x r + w x (w x r)]``."""
    A = as_spatial_vec(A_AB, "A_AB")
    w = as_vec3(w_AB, "w_AB")
    r = as_vec3(r_A, "offset r_A")
    return np.array([A[0], A[1] + np.cross(A[0], r) + np.cross(w, np.cross(w, r))])


def shiftAccelerationFromTo(A_A_BP, w_AB, fromP_A, toQ_A) -> np.ndarray:
    """Re-measure a spatial acceleration from point P to point Q (from A's origin, in A)."""
    r = as_vec3(toQ_A, "toQ_A") - as_vec3(fromP_A, "fromP_A")
    return shiftAccelerationBy(A_A_BP, w_AB, r)


def shiftForceBy(F_AP, r_A) -> np.ndarray:
    """The same spatial force applied at Q = P + r instead of P: ``[t - r x f, f]``."""
    F = as_spatial_vec(F_AP, "F_AP")
    r = as_vec3(r_A, "offset r_A")
    return np.array([F[0] - np.cross(r, F[1]), F[1]])


def shiftForceFromTo(F_AP, fromP_A, toQ_A) -> np.ndarray:
    """Move a spatial force's application point from P to Q (from A's origin, in A)."""
    return shiftForceBy(F_AP, as_vec3(toQ_A, "toQ_A") - as_vec3(fromP_A, "fromP_A"))


# --------------------------------------------------------------------------- relative motion


def findRelativeVelocityInF(p_AB_F, V_FA, V_FB) -> np.ndarray:
    """V_AB expressed in F, from the velocities of A and B in F and p_AB (Ao to Bo, in F)."""
    p = as_vec3(p_AB_F, "p_AB_F")
    Va = as_spatial_vec(V_FA, "V_FA")
    Vb = as_spatial_vec(V_FB, "V_FB")
    return np.array([Vb[0] - Va[0], Vb[1] - Va[1] - np.cross(Va[0], p)])


def findRelativeVelocity(X_FA, V_FA, X_FB, V_FB) -> np.ndarray:
    """V_AB, the spatial velocity of B in A, expressed in A (poses and velocities in F)."""
    V = findRelativeVelocityInF(X_FB.p() - X_FA.p(), V_FA, V_FB)
    return V @ X_FA.R().asMat33()


def findRelativeAccelerationInF(p_AB_F, V_FA, A_FA, V_FB, A_FB) -> np.ndarray:
    """A_AB expressed in F, from the velocities and accelerations of A and B in F."""
    p = as_vec3(p_AB_F, "p_AB_F")
    Va, Aa = as_spatial_vec(V_FA, "V_FA"), as_spatial_vec(A_FA, "A_FA")
    Vb, Ab = as_spatial_vec(V_FB, "V_FB"), as_spatial_vec(A_FB, "A_FB")
    w_FA, b_FA = Va[0], Aa[0]
    p_dot = Vb[1] - Va[1]
    w_AB = Vb[0] - Va[0]
    v_AB = p_dot - np.cross(w_FA, p)
    w_AB_dot = Ab[0] - Aa[0]
    v_AB_dot = Ab[1] - Aa[1] - (np.cross(b_FA, p) + np.cross(w_FA, p_dot))
    return np.array([w_AB_dot - np.cross(w_FA, w_AB), v_AB_dot - np.cross(w_FA, v_AB)])


def findRelativeAcceleration(X_FA, V_FA, A_FA, X_FB, V_FB, A_FB) -> np.ndarray:
    """A_AB, the spatial acceleration of B in A, expressed in A."""
    A = findRelativeAccelerationInF(X_FB.p() - X_FA.p(), V_FA, A_FA, V_FB, A_FB)
    return A @ X_FA.R().asMat33()


def reverseRelativeVelocityInA(X_AB, V_AB) -> np.ndarray:
    """V_BA (velocity of A in B, measured at Ao) but still expressed in A."""
    return -shiftVelocityBy(V_AB, -X_AB.p())


def reverseRelativeVelocity(X_AB, V_AB) -> np.ndarray:
    """V_BA, the spatial velocity of A in B, expressed in B."""
    return reverseRelativeVelocityInA(X_AB, V_AB) @ X_AB.R().asMat33()


# --------------------------------------------------------------------------- Phi


class PhiMatrix:
    """Rigid shift operator ``Phi(l) = [[1, [l]x], [0, 1]]`` (6x6), as Simbody's.

    With ``l`` the vector from point A to point B (in some frame): ``Phi * F_B`` is the
    spatial force F_B (applied at B) moved to A, ``[t + l x f, f]``; ``~Phi * V_A`` is the
    spatial velocity V_A (measured at A) re-measured at B, ``[w, v + w x l]``.
    """

    __slots__ = ("_l",)
    __array_ufunc__ = None

    def __init__(self, l) -> None:
        l = as_vec3(l, "PhiMatrix shift l")
        l.flags.writeable = False
        self._l = l

    def l(self) -> np.ndarray:  # noqa: E743 (Simbody name)
        """The shift vector (read-only)."""
        return self._l

    def toSpatialMat(self) -> np.ndarray:
        """The 6x6 matrix ``[[1, [l]x], [0, 1]]``."""
        return SpatialMat(1.0, cross_matrix(self._l), 0.0, 1.0)

    def transpose(self) -> PhiMatrixTranspose:
        """``Phi^T`` (same as ``~phi``)."""
        return PhiMatrixTranspose(self._l)

    def __invert__(self) -> PhiMatrixTranspose:
        return self.transpose()

    def __mul__(self, other) -> np.ndarray:
        """``Phi * F`` for a SpatialVec (force shift), or ``Phi @ M`` for a 6x6 matrix."""
        if np.shape(other) == (6, 6):
            return self.toSpatialMat() @ as_spatial_mat(other)
        F = as_spatial_vec(other, "spatial vector multiplied by Phi")
        return np.array([F[0] + np.cross(self._l, F[1]), F[1]])

    __matmul__ = __mul__

    def __rmul__(self, other) -> np.ndarray:
        """``M * Phi`` for a 6x6 matrix M."""
        return as_spatial_mat(other) @ self.toSpatialMat()

    __rmatmul__ = __rmul__

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PhiMatrix):
            return NotImplemented
        return bool(np.array_equal(self._l, other._l))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PhiMatrix({self._l.tolist()})"


class PhiMatrixTranspose:
    """``Phi(l)^T = [[1, 0], [-[l]x, 1]]``; ``PhiT * V = [w, v + w x l]``; ``M * PhiT`` for a
    6x6 matrix M is the matrix product."""

    __slots__ = ("_l",)
    __array_ufunc__ = None

    def __init__(self, l) -> None:
        l = as_vec3(l, "PhiMatrixTranspose shift l")
        l.flags.writeable = False
        self._l = l

    def l(self) -> np.ndarray:  # noqa: E743 (Simbody name)
        """The shift vector of the untransposed Phi (read-only)."""
        return self._l

    def toSpatialMat(self) -> np.ndarray:
        """The 6x6 matrix ``[[1, 0], [-[l]x, 1]]``."""
        return SpatialMat(1.0, 0.0, -cross_matrix(self._l), 1.0)

    def transpose(self) -> PhiMatrix:
        """Back to Phi."""
        return PhiMatrix(self._l)

    def __invert__(self) -> PhiMatrix:
        return self.transpose()

    def __mul__(self, other) -> np.ndarray:
        """``PhiT * V`` for a SpatialVec (velocity shift), or ``PhiT @ M`` for a 6x6 matrix."""
        if np.shape(other) == (6, 6):
            return self.toSpatialMat() @ as_spatial_mat(other)
        V = as_spatial_vec(other, "spatial vector multiplied by Phi^T")
        return np.array([V[0], V[1] + np.cross(V[0], self._l)])

    __matmul__ = __mul__

    def __rmul__(self, other) -> np.ndarray:
        """``M * PhiT`` for a 6x6 matrix M."""
        return as_spatial_mat(other) @ self.toSpatialMat()

    __rmatmul__ = __rmul__

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PhiMatrixTranspose):
            return NotImplemented
        return bool(np.array_equal(self._l, other._l))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PhiMatrixTranspose({self._l.tolist()})"
