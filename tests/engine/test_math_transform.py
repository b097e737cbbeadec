"""Transform: composition and inversion identities, station/vector maps, setters, errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.common.exceptions import InvalidArgumentError
from engine.math import Quaternion, Rotation, Transform, XAxis, ZAxis

vec3s = st.tuples(*[st.floats(-10.0, 10.0)] * 3).map(np.array)
quats = (
    st.tuples(*[st.floats(-1.0, 1.0)] * 4).map(np.array).filter(lambda v: np.linalg.norm(v) > 0.1)
)
transforms = st.builds(lambda q, p: Transform(Rotation(Quaternion(q)), p), quats, vec3s)


@settings(max_examples=100, deadline=None)
@given(transforms, transforms, vec3s)
def test_compose_and_invert_identities(X_AB, X_BC, p_CS):
    X_AC = X_AB * X_BC
    # station maps compose
    assert np.allclose(X_AC * p_CS, X_AB * (X_BC * p_CS), atol=1e-12)
    # X * ~X = identity, both ways
    for X in (X_AB * ~X_AB, ~X_AB * X_AB):
        assert np.allclose(X.toMat44(), np.eye(4), atol=1e-12)
    # ~(X_AB X_BC) = ~X_BC ~X_AB
    assert (~X_AC).isSameTransform(~X_BC * ~X_AB, angleTol=1e-12, distanceTol=1e-11)
    # homogeneous matrices multiply the same way
    assert np.allclose(X_AC.toMat44(), X_AB.toMat44() @ X_BC.toMat44(), atol=1e-12)
    # base <-> frame station and vector maps are inverses
    p_AS = X_AB.shiftFrameStationToBase(p_CS)
    assert np.allclose(X_AB.shiftBaseStationToFrame(p_AS), p_CS, atol=1e-12)
    v_A = X_AB.xformFrameVecToBase(p_CS)
    assert np.allclose(X_AB.xformBaseVecToFrame(v_A), p_CS, atol=1e-12)
    assert np.allclose(v_A, X_AB.R() * p_CS)


def test_station_and_vector_maps_by_hand():
    X = Transform(Rotation(np.pi / 2, ZAxis), (1.0, 2.0, 3.0))
    assert np.allclose(X * (1.0, 0.0, 0.0), [1.0, 3.0, 3.0])
    assert np.allclose(X.xformFrameVecToBase((1, 0, 0)), [0, 1, 0])
    assert np.allclose(X.shiftBaseStationToFrame((1, 3, 3)), [1, 0, 0])
    assert np.allclose(X * np.array([1.0, 0.0, 0.0, 0.0]), [0, 1, 0, 0])  # direction
    assert np.allclose(X * np.array([1.0, 0.0, 0.0, 1.0]), [1, 3, 3, 1])  # station
    assert np.allclose(X.pInv(), (~X).p())
    assert np.allclose(X.asMat34(), X.toMat44()[:3])


def test_setters_modify_in_place_and_return_self():
    X = Transform()
    old_p = X.p()
    assert X.setP((1, 2, 3)) is X
    assert np.array_equal(X.p(), [1, 2, 3])
    assert np.array_equal(old_p, [0, 0, 0])  # earlier snapshot unchanged
    R = Rotation(0.3, XAxis)
    assert X.setR(R) is X
    R.setRotationFromAngleAboutZ(1.0)  # the Transform holds its own copy
    assert X.R().getMaxAbsDifference(Rotation(0.3, XAxis)) == 0.0
    X.setPInv((0, 0, 1))
    assert np.allclose(X.pInv(), [0, 0, 1])
    X.set(Rotation(), (4, 5, 6)).setToZero()
    assert np.array_equal(X.toMat44(), np.eye(4))


def test_copies_are_independent():
    X = Transform(Rotation(0.2, ZAxis), (1, 0, 0))
    Y = Transform(X)
    Y.updR().setRotationFromAngleAboutX(0.5)
    Y.setP((0, 0, 0))
    assert X.R().getMaxAbsDifference(Rotation(0.2, ZAxis)) == 0.0
    assert np.array_equal(X.p(), [1, 0, 0])
    with pytest.raises(ValueError):
        X.p()[0] = 3.0  # read-only


def test_from_mat44_round_trip_and_refusals():
    X = Transform(Rotation(0.7, (1, 2, 3)), (0.5, -1.0, 2.0))
    assert Transform.from_mat44(X.toMat44()).isSameTransform(X)
    bad = X.toMat44()
    bad[3, 0] = 0.1
    with pytest.raises(InvalidArgumentError, match="last row"):
        Transform.from_mat44(bad)
    skew = np.eye(4)
    skew[0, 1] = 0.5
    with pytest.raises(InvalidArgumentError, match="not a proper rotation"):
        Transform.from_mat44(skew)
    with pytest.raises(InvalidArgumentError, match="4x4"):
        Transform.from_mat44(np.eye(3))


def test_is_same_transform_tolerances():
    X = Transform(Rotation(0.4, ZAxis), (1, 1, 1))
    Y = Transform(Rotation(0.4 + 1e-6, ZAxis), (1, 1, 1 + 1e-6))
    assert not X.isSameTransform(Y)
    assert X.isSameTransform(Y, angleTol=2e-6, distanceTol=2e-6)
    assert not X.isSameTransform(Y, angleTol=2e-6, distanceTol=0.5e-6)


def test_offset_operators():
    X = Transform(Rotation(0.4, ZAxis), (1, 1, 1))
    assert np.allclose((X + (1, 0, 0)).p(), [2, 1, 1])
    assert np.allclose((X - (1, 0, 0)).p(), [0, 1, 1])
    assert np.allclose(X.p(), [1, 1, 1])


def test_transform_input_errors():
    with pytest.raises(InvalidArgumentError, match="finite"):
        Transform((0.0, float("nan"), 0.0))
    with pytest.raises(InvalidArgumentError, match="3 components"):
        Transform(Rotation(), (1.0, 2.0))
    with pytest.raises(InvalidArgumentError, match="3 components"):
        Transform() * (1.0, 2.0)
    with pytest.raises(InvalidArgumentError, match="finite"):
        Transform().setP((float("inf"), 0, 0))
    with pytest.raises(InvalidArgumentError, match="arguments"):
        Transform(Rotation(), (0, 0, 0), 1)
