"""Quaternion: a unit 4-vector ``[w, x, y, z]`` (scalar first) describing a rotation.

As Simbody's ``Quaternion``: the quaternion of a rotation by angle ``a`` about the unit axis
``v`` is ``[cos(a/2), sin(a/2) v]``. It is in *canonical form* when ``w >= 0`` (rotation angle in
(-pi, pi]). ``q`` and ``-q`` describe the same rotation.

``Quaternion`` is a float64 ``numpy.ndarray`` subclass of shape (4,). Arithmetic on it gives
plain arrays (a sum of quaternions is not a unit quaternion); indexing gives plain numbers or
arrays. The module also holds the two conversions between quaternions and rotation matrices,
used by both ``Quaternion`` and ``Rotation``.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.math.vec import as_vector

_EPS = float(np.finfo(np.float64).eps)


class Quaternion(np.ndarray):
    """A rotation as a unit quaternion ``[w, x, y, z]`` (scalar first, dimensionless).

    Constructors (as Simbody):

    - ``Quaternion()``: the zero rotation ``[1, 0, 0, 0]``.
    - ``Quaternion(w, x, y, z)`` or ``Quaternion(vec4)``: normalized to unit length (not put in
      canonical form). An exactly zero vector gives ``[1, 0, 0, 0]`` as in Simbody; a nonzero
      vector shorter than machine epsilon raises InvalidArgumentError (Simbody would give NaN).
    - ``Quaternion(rotation)``: the canonical quaternion (``w >= 0``) of a Rotation.
    - ``Quaternion(vec4, True)``: trust that ``vec4`` is already unit length; not normalized.
    """

    def __new__(cls, *args) -> Quaternion:
        if not args:
            q = np.array([1.0, 0.0, 0.0, 0.0])
        elif len(args) == 4:
            q = _normalized(as_vector(args, 4, "quaternion components"))
        elif len(args) == 2 and isinstance(args[1], bool):
            q = as_vector(args[0], 4, "quaternion")
            if not args[1]:
                q = _normalized(q)
        elif len(args) == 1 and hasattr(args[0], "asMat33"):
            q = quaternion_from_rotation_matrix(args[0].asMat33())
        elif len(args) == 1:
            q = _normalized(as_vector(args[0], 4, "quaternion"))
        else:
            raise InvalidArgumentError(
                "Quaternion takes (), (w, x, y, z), (vec4), (Rotation) or (vec4, True); got "
                f"{len(args)} arguments"
            )
        return np.array(q, dtype=np.float64).view(cls)

    def __array_wrap__(self, array, context=None, return_scalar=False):
        if return_scalar:
            return array[()]
        return np.asarray(array)

    def __getitem__(self, key):
        return np.asarray(self)[key]

    def asVec4(self) -> np.ndarray:
        """The four numbers ``[w, x, y, z]`` as a plain array (not angle-axis)."""
        return np.array(self, dtype=np.float64)

    def normalize(self) -> Quaternion:
        """A normalized copy of this quaternion (see the constructor for the zero case)."""
        return Quaternion(np.asarray(self))

    def normalizeThis(self) -> Quaternion:
        """Normalize this quaternion in place and return it."""
        self[...] = _normalized(np.asarray(self))
        return self

    def setQuaternionToZeroRotation(self) -> Quaternion:
        """Set this quaternion to ``[1, 0, 0, 0]`` and return it."""
        self[...] = (1.0, 0.0, 0.0, 0.0)
        return self

    def setQuaternionFromAngleAxis(self, *args) -> Quaternion:
        """Set from ``(angle, axis)`` or from a packed ``[angle, vx, vy, vz]``; canonical form.

        The angle is in radians; the axis may have any nonzero length (it is normalized). A zero
        axis raises InvalidArgumentError (Simbody would give NaN). Returns this quaternion.
        """
        if len(args) == 1:
            av = as_vector(args[0], 4, "angle-axis [angle, vx, vy, vz]")
            angle, axis = float(av[0]), av[1:]
        elif len(args) == 2:
            angle = float(as_vector([args[0]], 1, "rotation angle")[0])
            axis = as_vector(args[1], 3, "rotation axis")
        else:
            raise InvalidArgumentError(
                "setQuaternionFromAngleAxis takes (angle, axis) or ([angle, vx, vy, vz])"
            )
        n = float(np.linalg.norm(axis))
        if n == 0.0:
            raise InvalidArgumentError("cannot make a quaternion about a zero-length axis")
        q = np.concatenate(([np.cos(angle / 2)], np.sin(angle / 2) * axis / n))
        self[...] = -q if q[0] < 0 else q
        return self

    def convertQuaternionToAngleAxis(self) -> np.ndarray:
        """``[a, vx, vy, vz]`` with -pi < a <= pi and |v| = 1 (canonical angle-axis form).

        A zero rotation gives ``[0, 1, 0, 0]`` (angle 0 about x), as Simbody.
        """
        q = np.asarray(self)
        s = float(np.linalg.norm(q[1:]))
        if s == 0.0:
            return np.array([0.0, 1.0, 0.0, 0.0])
        angle = 2.0 * np.arctan2(s, q[0])
        if angle > np.pi:
            angle -= 2.0 * np.pi
        return np.concatenate(([angle], q[1:] / s))

    def __repr__(self) -> str:
        return f"Quaternion({np.asarray(self).tolist()})"


def _normalized(q: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(q))
    if n == 0.0:
        return np.array([1.0, 0.0, 0.0, 0.0])
    if n < _EPS:
        raise InvalidArgumentError(
            f"quaternion {q.tolist()} is too short (|q| = {n:.3g}) to be normalized reliably"
        )
    return q / n


def rotation_matrix_from_quaternion(q: np.ndarray) -> np.ndarray:
    """The 3x3 rotation matrix of the unit quaternion ``q = [w, x, y, z]`` (not checked)."""
    w, x, y, z = (float(c) for c in q)
    ww, xx, yy, zz = w * w, x * x, y * y, z * z
    wx, wy, wz = w * x, w * y, w * z
    xy, xz, yz = x * y, x * z, y * z
    return np.array(
        [
            [ww + xx - yy - zz, 2 * (xy - wz), 2 * (xz + wy)],
            [2 * (xy + wz), ww - xx + yy - zz, 2 * (yz - wx)],
            [2 * (xz - wy), 2 * (yz + wx), ww - xx - yy + zz],
        ]
    )


def quaternion_from_rotation_matrix(m: np.ndarray) -> np.ndarray:
    """The canonical (w >= 0) unit quaternion of the rotation matrix ``m``.

    Uses the largest of the trace and the diagonal elements as the pivot (Spurrier's
    singularity-free method, as Simbody), so it is accurate for every rotation.
    """
    m = np.asarray(m, dtype=np.float64)
    trace = float(np.trace(m))
    diag = np.diag(m)
    i = int(np.argmax(diag))
    q = np.empty(4)
    if trace >= diag[i]:
        w = 0.5 * np.sqrt(1.0 + trace)
        f = 0.25 / w
        q[:] = (w, f * (m[2, 1] - m[1, 2]), f * (m[0, 2] - m[2, 0]), f * (m[1, 0] - m[0, 1]))
    else:
        j, k = (i + 1) % 3, (i + 2) % 3
        qi = 0.5 * np.sqrt(max(0.0, 1.0 + 2.0 * diag[i] - trace))
        f = 0.25 / qi
        q[0] = f * (m[k, j] - m[j, k])
        q[1 + i] = qi
        q[1 + j] = f * (m[j, i] + m[i, j])
        q[1 + k] = f * (m[k, i] + m[i, k])
    if q[0] < 0.0:
        q = -q
    return q / np.linalg.norm(q)
