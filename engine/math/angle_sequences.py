"""Rotation matrices from sequences of rotations about coordinate axes, and back to angles.

A *body-fixed* sequence (``BodyRotationSequence``) rotates about axis 1 of the moving frame,
then about axis 2 of the once-rotated frame, ...: ``R = R1(a1) R2(a2) R3(a3)``. A *space-fixed*
sequence (``SpaceRotationSequence``) rotates about axes fixed in the base frame:
``R = R3(a3) R2(a2) R1(a1)``. Angles are in radians; ``Ri(t)`` is the right-handed rotation by t
about coordinate axis i.

The extraction functions return principal values: for three distinct axes (Cardan/Tait-Bryan,
e.g. x-y-z) the middle angle is in [-pi/2, pi/2], for repeated axes (proper Euler, e.g. z-x-z)
it is in [0, pi]; the others are in (-pi, pi]. At the singular middle angle (gimbal lock) only a
combination of the first and last angles is determined; the last angle is then set to 0.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.math.coordinate_axis import CoordinateAxis

# Below this value of |cos| (Cardan) or |sin| (Euler) of the middle angle the sequence is
# treated as singular (gimbal lock).
_SINGULAR = 4.0 * float(np.finfo(np.float64).eps)


class BodyOrSpaceType(IntEnum):
    """Whether an angle sequence rotates about moving (body) or fixed (space) axes."""

    BodyRotationSequence = 0
    SpaceRotationSequence = 1


BodyRotationSequence = BodyOrSpaceType.BodyRotationSequence
SpaceRotationSequence = BodyOrSpaceType.SpaceRotationSequence


def as_body_or_space(value) -> BodyOrSpaceType:
    """Validate a BodyOrSpaceType argument."""
    if isinstance(value, BodyOrSpaceType):
        return value
    raise InvalidArgumentError(
        "expected BodyRotationSequence or SpaceRotationSequence as the sequence type, got "
        f"{value!r}"
    )


def axis_index(axis, name: str = "axis") -> int:
    """Index 0, 1 or 2 of a CoordinateAxis (or a plain int 0..2)."""
    if isinstance(axis, CoordinateAxis):
        return int(axis)
    if isinstance(axis, (int, np.integer)) and not isinstance(axis, bool) and 0 <= axis <= 2:
        return int(axis)
    raise InvalidArgumentError(f"{name} must be XAxis, YAxis or ZAxis, got {axis!r}")


def axis_rotation(axis: int, angle: float) -> np.ndarray:
    """The 3x3 right-handed rotation matrix by ``angle`` (radians) about coordinate ``axis``."""
    c, s = np.cos(angle), np.sin(angle)
    m = np.eye(3)
    j, k = (axis + 1) % 3, (axis + 2) % 3
    m[j, j] = m[k, k] = c
    m[k, j] = s
    m[j, k] = -s
    return m


def _sign(i: int, j: int) -> float:
    """+1 if (i, j) is a forward-cyclic pair (x->y, y->z, z->x), else -1."""
    return 1.0 if j == (i + 1) % 3 else -1.0


def matrix_from_sequence(seq: BodyOrSpaceType, angles, axes) -> np.ndarray:
    """The rotation matrix of a body- or space-fixed sequence of (angle, axis) rotations."""
    mats = [axis_rotation(ax, float(a)) for a, ax in zip(angles, axes, strict=True)]
    if seq == SpaceRotationSequence:
        mats.reverse()
    m = np.eye(3)
    for r in mats:
        m = m @ r
    return m


def one_angle(m: np.ndarray, axis: int) -> float:
    """The angle of a rotation about a single coordinate axis."""
    j, k = (axis + 1) % 3, (axis + 2) % 3
    return float(np.arctan2(m[k, j] - m[j, k], m[j, j] + m[k, k]))


def two_angles(m: np.ndarray, seq: BodyOrSpaceType, axis1: int, axis2: int) -> np.ndarray:
    """Angles (a1, a2) of a two-axis sequence. With the same axis twice the rotation's
    angle about that axis is split in halves, as Simbody."""
    if axis1 == axis2:
        half = one_angle(m, axis1) / 2
        return np.array([half, half])
    if seq == SpaceRotationSequence:
        a2, a1 = _two_body_angles(m, axis2, axis1)
        return np.array([a1, a2])
    return np.array(_two_body_angles(m, axis1, axis2))


def _two_body_angles(m: np.ndarray, i: int, j: int) -> tuple[float, float]:
    k = 3 - i - j
    s = _sign(i, j)
    a = np.arctan2(s * m[k, j], m[j, j])
    b = np.arctan2(s * m[i, k], m[i, i])
    return float(a), float(b)


def three_angles(
    m: np.ndarray, seq: BodyOrSpaceType, axis1: int, axis2: int, axis3: int
) -> np.ndarray:
    """Angles (a1, a2, a3) of a three-axis sequence (Cardan if axis1 != axis3, else Euler).
    Repeated consecutive axes are handled as Simbody: one axis three times splits its angle
    in thirds; a repeated pair splits the angle of that axis in the two-axis sequence in
    halves."""
    if axis1 == axis2 == axis3:
        third = one_angle(m, axis1) / 3
        return np.array([third, third, third])
    if axis1 == axis2:
        a, c = two_angles(m, seq, axis1, axis3)
        return np.array([a / 2, a / 2, c])
    if axis2 == axis3:
        a, c = two_angles(m, seq, axis1, axis3)
        return np.array([a, c / 2, c / 2])
    if seq == SpaceRotationSequence:
        return three_angles(m, BodyRotationSequence, axis3, axis2, axis1)[::-1].copy()
    if axis1 == axis3:
        return np.array(_euler_body_angles(m, axis1, axis2))
    return np.array(_cardan_body_angles(m, axis1, axis2, axis3))


def _cardan_body_angles(m: np.ndarray, i: int, j: int, k: int) -> tuple[float, float, float]:
    s = _sign(i, j)
    cos_b = np.sqrt((m[i, i] ** 2 + m[i, j] ** 2 + m[j, k] ** 2 + m[k, k] ** 2) / 2.0)
    b = np.arctan2(s * m[i, k], cos_b)
    if cos_b > _SINGULAR:
        a = np.arctan2(-s * m[j, k], m[k, k])
        c = np.arctan2(-s * m[i, j], m[i, i])
        return float(a), float(b), float(c)
    # Gimbal lock: put everything in the first angle. R Rj(b)^T = Ri(a) when c = 0.
    r = m @ axis_rotation(j, b).T
    a = np.arctan2(s * r[k, j], r[j, j])
    return float(a), float(b), 0.0


def _euler_body_angles(m: np.ndarray, i: int, j: int) -> tuple[float, float, float]:
    l = 3 - i - j
    s = _sign(i, j)
    sin_b = np.sqrt((m[i, j] ** 2 + m[i, l] ** 2 + m[j, i] ** 2 + m[l, i] ** 2) / 2.0)
    b = np.arctan2(sin_b, m[i, i])
    if sin_b > _SINGULAR:
        a = np.arctan2(m[j, i], -s * m[l, i])
        c = np.arctan2(m[i, j], s * m[i, l])
        return float(a), float(b), float(c)
    r = m @ axis_rotation(j, b).T
    a = np.arctan2(s * r[l, j], r[j, j])
    return float(a), float(b), 0.0
