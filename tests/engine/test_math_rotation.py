"""Rotation, Quaternion, UnitVec3 and angle sequences: conversions, round trips, errors."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.common.exceptions import InvalidArgumentError
from engine.math import (
    BodyRotationSequence,
    CoordinateAxis,
    Quaternion,
    Rotation,
    SpaceRotationSequence,
    UnitVec3,
    XAxis,
    YAxis,
    ZAxis,
)

AXES = (XAxis, YAxis, ZAxis)


def Rx(t: float) -> np.ndarray:
    c, s = math.cos(t), math.sin(t)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def Ry(t: float) -> np.ndarray:
    c, s = math.cos(t), math.sin(t)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def Rz(t: float) -> np.ndarray:
    c, s = math.cos(t), math.sin(t)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


BY_AXIS = {0: Rx, 1: Ry, 2: Rz}

unit_quaternions = (
    st.lists(st.floats(-1.0, 1.0), min_size=4, max_size=4)
    .map(np.array)
    .filter(lambda v: np.linalg.norm(v) > 0.1)
    .map(lambda v: v / np.linalg.norm(v))
)
angles = st.floats(-math.pi, math.pi)


# --------------------------------------------------------------------------- construction


def test_elementary_rotations_match_textbook_matrices():
    t = 0.37
    assert np.allclose(Rotation(t, XAxis).asMat33(), Rx(t))
    assert np.allclose(Rotation(t, YAxis).asMat33(), Ry(t))
    assert np.allclose(Rotation(t, ZAxis).asMat33(), Rz(t))
    assert np.allclose(Rotation().setRotationFromAngleAboutY(t).asMat33(), Ry(t))
    assert np.allclose(Rotation(t, (0, 0, 5)).asMat33(), Rz(t))  # non-unit vector axis
    assert np.allclose(Rotation(t, -YAxis).asMat33(), Ry(-t))  # CoordinateDirection


def test_body_and_space_sequences_compose_in_opposite_orders():
    a = (0.3, -0.8, 1.1)
    body = Rotation(BodyRotationSequence, a[0], XAxis, a[1], YAxis, a[2], ZAxis)
    space = Rotation(SpaceRotationSequence, a[0], XAxis, a[1], YAxis, a[2], ZAxis)
    assert np.allclose(body.asMat33(), Rx(a[0]) @ Ry(a[1]) @ Rz(a[2]))
    assert np.allclose(space.asMat33(), Rz(a[2]) @ Ry(a[1]) @ Rx(a[0]))
    two = Rotation(SpaceRotationSequence, a[0], ZAxis, a[1], XAxis)
    assert np.allclose(two.asMat33(), Rx(a[1]) @ Rz(a[0]))
    xyz = Rotation().setRotationToBodyFixedXYZ(a)
    assert xyz.getMaxAbsDifference(body) < 1e-15


def test_rotation_from_one_and_two_axes():
    u = np.array([1.0, 2.0, -0.5])
    R = Rotation(u, YAxis)
    assert np.allclose(R.y(), u / np.linalg.norm(u))
    assert np.allclose(R.asMat33() @ R.asMat33().T, np.eye(3))
    assert np.linalg.det(R.asMat33()) > 0
    R2 = Rotation(UnitVec3(0, 0, 1), ZAxis, (1, 1, 0.3), XAxis)
    assert np.allclose(R2.z(), [0, 0, 1])
    assert np.allclose(R2.x(), np.array([1, 1, 0]) / math.sqrt(2))
    assert np.linalg.det(R2.asMat33()) > 0
    # reverse-cyclic pair (z then y) is right-handed too
    R3 = Rotation((0, 0, 1), ZAxis, (0, 1, 0), YAxis)
    assert np.allclose(R3.asMat33(), np.eye(3))


def test_setters_change_in_place_and_return_self_but_old_snapshots_stay():
    R = Rotation()
    before = R.asMat33()
    assert R.setRotationFromAngleAboutZ(0.5) is R
    assert np.allclose(R.asMat33(), Rz(0.5))
    assert np.array_equal(before, np.eye(3))
    with pytest.raises(ValueError):
        R.asMat33()[0, 0] = 2.0  # read-only


def test_approximate_matrix_is_projected_to_nearest_rotation():
    noisy = Rz(0.4) + 1e-3 * np.arange(9).reshape(3, 3)
    R = Rotation().setRotationFromApproximateMat33(noisy)
    assert np.allclose(R.asMat33() @ R.asMat33().T, np.eye(3), atol=1e-14)
    assert R.getMaxAbsDifference(Rotation(0.4, ZAxis)) < 1e-2


def test_rotation_times_spatial_vec_rotates_both_rows():
    R = Rotation(0.7, (1, 2, 3))
    V = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
    out = R * V
    assert np.allclose(out[0], R.asMat33() @ V[0])
    assert np.allclose(out[1], R.asMat33() @ V[1])


# --------------------------------------------------------------------------- quaternions


@settings(max_examples=200, deadline=None)
@given(unit_quaternions)
def test_quaternion_rotation_round_trip(q):
    R = Rotation(Quaternion(q))
    m = R.asMat33()
    assert np.allclose(m @ m.T, np.eye(3), atol=1e-14)
    assert np.linalg.det(m) > 0
    back = R.convertRotationToQuaternion()
    assert back[0] >= 0.0
    b = np.asarray(back)
    assert np.allclose(b, q, atol=1e-13) or np.allclose(b, -q, atol=1e-13)  # same rotation
    if abs(q[0]) > 1e-12:  # sign is unambiguous: w >= 0 picks one of q, -q
        assert np.allclose(b, q if q[0] > 0 else -q, atol=1e-13)
    assert Rotation(back).getMaxAbsDifference(R) < 1e-14


def test_quaternion_matches_angle_axis_definition():
    axis = np.array([1.0, -2.0, 2.0]) / 3.0
    angle = 2.5
    q = Rotation(angle, axis).convertRotationToQuaternion()
    assert np.allclose(np.asarray(q), [math.cos(angle / 2), *(math.sin(angle / 2) * axis)])
    aa = Rotation(angle, axis).convertRotationToAngleAxis()
    assert np.allclose(aa, [angle, *axis])


def test_quaternion_of_half_turns_is_accurate():
    for axis in AXES:
        R = Rotation(math.pi, axis)
        q = R.convertRotationToQuaternion()
        assert Rotation(q).getMaxAbsDifference(R) < 1e-15
        assert abs(R.convertRotationToAngleAxis()[0]) == pytest.approx(math.pi)


def test_quaternion_canonical_form_and_angle_axis_range():
    q = Quaternion(-0.5, 0.5, 0.5, 0.5)  # w < 0 is kept by the constructor ...
    assert q[0] < 0
    assert Rotation(q).convertRotationToQuaternion()[0] > 0  # ... canonical from a Rotation
    aa = q.convertQuaternionToAngleAxis()
    assert -math.pi < aa[0] <= math.pi
    assert Rotation(aa[0], aa[1:]).getMaxAbsDifference(Rotation(q)) < 1e-14
    assert np.array_equal(Quaternion().convertQuaternionToAngleAxis(), [0, 1, 0, 0])


def test_quaternion_normalization_and_types():
    q = Quaternion(2.0, 0.0, 0.0, 0.0)
    assert np.array_equal(np.asarray(q), [1, 0, 0, 0])
    raw = Quaternion([0.0, 3.0, 0.0, 4.0], True)  # trusted: not normalized
    assert np.isclose(np.linalg.norm(raw), 5.0)
    assert np.isclose(np.linalg.norm(raw.normalize()), 1.0)
    assert np.isclose(np.linalg.norm(raw.normalizeThis()), 1.0)
    assert np.array_equal(np.asarray(Quaternion([0, 0, 0, 0])), [1, 0, 0, 0])  # Simbody rule
    assert type(q + q) is np.ndarray  # arithmetic is plain Vec4
    q2 = Quaternion().setQuaternionFromAngleAxis(-3.0, (0, 0, 2))
    assert q2[0] >= 0 and Rotation(q2).getMaxAbsDifference(Rotation(-3.0, ZAxis)) < 1e-15


def test_quaternion_errors():
    with pytest.raises(InvalidArgumentError, match="too short"):
        Quaternion(1e-20, 0, 0, 0)
    with pytest.raises(InvalidArgumentError, match="finite"):
        Quaternion(float("nan"), 0, 0, 1)
    with pytest.raises(InvalidArgumentError, match="length 4"):
        Quaternion([1, 0, 0])
    with pytest.raises(InvalidArgumentError, match="zero-length axis"):
        Quaternion().setQuaternionFromAngleAxis(1.0, (0, 0, 0))


# --------------------------------------------------------------------------- angle sequences


@settings(max_examples=200, deadline=None)
@given(angles, st.floats(-1.5, 1.5), angles)
def test_body_fixed_xyz_round_trip(a0, a1, a2):
    a = np.array([a0, a1, a2])
    R = Rotation().setRotationToBodyFixedXYZ(a)
    back = R.convertRotationToBodyFixedXYZ()
    assert np.allclose(back, a, atol=1e-12) or _angles_equal_mod_2pi(back, a)
    assert Rotation().setRotationToBodyFixedXYZ(back).getMaxAbsDifference(R) < 1e-14


def _angles_equal_mod_2pi(x, y) -> bool:
    d = np.mod(np.asarray(x) - np.asarray(y) + math.pi, 2 * math.pi) - math.pi
    return bool(np.all(np.abs(d) < 1e-12))


def test_body_fixed_xyz_matches_conventions_formulas():
    R = Rotation(BodyRotationSequence, 0.2, XAxis, 0.4, YAxis, -0.9, ZAxis)
    m = R.asMat33()
    expected = [math.atan2(-m[1, 2], m[2, 2]), math.asin(m[0, 2]), math.atan2(-m[0, 1], m[0, 0])]
    assert np.allclose(R.convertRotationToBodyFixedXYZ(), expected)


@pytest.mark.parametrize("seq", [BodyRotationSequence, SpaceRotationSequence])
@pytest.mark.parametrize(
    "axes", [ax for ax in itertools.product(range(3), repeat=3) if ax[0] != ax[1] != ax[2]]
)
def test_every_three_axis_sequence_round_trips(seq, axes):
    rng = np.random.default_rng(hash(axes) % 2**32)
    cardan = axes[0] != axes[2]
    for _ in range(20):
        a = rng.uniform(-3.0, 3.0, 3)
        a[1] = rng.uniform(-1.5, 1.5) if cardan else rng.uniform(0.05, 3.0)
        args = [seq]
        for angle, ax in zip(a, axes, strict=True):
            args += [angle, CoordinateAxis(ax)]
        R = Rotation(*args)
        back = R.convertThreeAxesRotationToThreeAngles(seq, *(CoordinateAxis(i) for i in axes))
        again = [seq]
        for angle, ax in zip(back, axes, strict=True):
            again += [angle, CoordinateAxis(ax)]
        assert Rotation(*again).getMaxAbsDifference(R) < 1e-13
        assert np.allclose(back, a, atol=1e-10)


@pytest.mark.parametrize("middle", [math.pi / 2, -math.pi / 2])
def test_gimbal_lock_still_reproduces_the_rotation(middle):
    R = Rotation().setRotationToBodyFixedXYZ((0.3, middle, -0.4))
    a = R.convertRotationToBodyFixedXYZ()
    assert a[1] == pytest.approx(middle)
    assert a[2] == 0.0
    assert Rotation().setRotationToBodyFixedXYZ(a).getMaxAbsDifference(R) < 1e-14
    euler = Rotation(BodyRotationSequence, 0.5, ZAxis, 0.0, XAxis, 0.25, ZAxis)
    e = euler.convertThreeAxesRotationToThreeAngles(BodyRotationSequence, ZAxis, XAxis, ZAxis)
    assert e[0] == pytest.approx(0.75) and e[1] == 0.0 and e[2] == 0.0


def test_two_and_one_angle_conversions():
    R = Rotation(BodyRotationSequence, 0.3, XAxis, -1.1, YAxis)
    assert np.allclose(R.convertRotationToBodyFixedXY(), [0.3, -1.1])
    S = Rotation(SpaceRotationSequence, 0.6, YAxis, 0.2, ZAxis)
    assert np.allclose(
        S.convertTwoAxesRotationToTwoAngles(SpaceRotationSequence, YAxis, ZAxis), [0.6, 0.2]
    )
    assert Rotation(2.5, YAxis).convertOneAxisRotationToOneAngle(YAxis) == pytest.approx(2.5)


def test_sequence_argument_errors():
    with pytest.raises(InvalidArgumentError, match="XAxis, YAxis or ZAxis"):
        Rotation(BodyRotationSequence, 0.1, "x", 0.2, YAxis)
    with pytest.raises(InvalidArgumentError, match="BodyRotationSequence or SpaceRotationSequence"):
        Rotation().convertTwoAxesRotationToTwoAngles(0, XAxis, YAxis)
    with pytest.raises(InvalidArgumentError, match="finite"):
        Rotation(BodyRotationSequence, float("nan"), XAxis, 0.2, YAxis)


# --------------------------------------------------------------------------- queries, errors


def test_same_rotation_within_angle():
    R = Rotation(0.3, (1, 1, 0))
    S = R * Rotation(1e-4, (0, 0, 1))
    assert R.isSameRotationToWithinAngle(S, 1.1e-4)
    assert not R.isSameRotationToWithinAngle(S, 0.9e-4)
    assert R.isSameRotationToWithinAngleOfMachinePrecision(Rotation(R))
    assert R.getMaxAbsDifference(S) > 0
    assert R.areAllRotationElementsSameToEpsilon(S, 1e-3)


def test_columns_are_unit_vectors_and_axis_lookup():
    R = Rotation(0.9, (1, 2, 3))
    for j, col in enumerate((R.x(), R.y(), R.z())):
        assert isinstance(col, UnitVec3)
        assert np.allclose(col, R.asMat33()[:, j])
    assert np.allclose(R.getAxisUnitVec(-YAxis), -R.asMat33()[:, 1])


def test_rotation_input_errors():
    with pytest.raises(InvalidArgumentError, match="finite"):
        Rotation(float("nan"), ZAxis)
    with pytest.raises(InvalidArgumentError, match="3 components"):
        Rotation(0.1, (1, 2))
    with pytest.raises(InvalidArgumentError, match="zero vector"):
        Rotation(0.1, (0, 0, 0))
    with pytest.raises(InvalidArgumentError, match="not a proper rotation"):
        Rotation(np.diag([1.0, 1.0, -1.0]))
    with pytest.raises(InvalidArgumentError, match="3x3"):
        Rotation(np.eye(2))
    with pytest.raises(InvalidArgumentError, match="shape"):
        Rotation() * np.ones(5)


def test_unit_vec3():
    u = UnitVec3(3, 0, 4)
    assert np.allclose(u, [0.6, 0, 0.8])
    assert isinstance(-u, UnitVec3)
    assert type(2 * u) is np.ndarray
    p = u.perp()
    assert abs(float(np.dot(p, u))) < 1e-15 and np.isclose(np.linalg.norm(p), 1.0)
    assert np.allclose(UnitVec3(-YAxis), [0, -1, 0])
    with pytest.raises(InvalidArgumentError, match="length is zero"):
        UnitVec3(0, 0, 0)
    with pytest.raises(InvalidArgumentError, match="finite"):
        UnitVec3([float("inf"), 0, 0])
    with pytest.raises(ValueError):
        u[0] = 1.0
