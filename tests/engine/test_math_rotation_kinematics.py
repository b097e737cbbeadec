"""N, NInv, NDot for body-fixed x-y-z angles and quaternions, checked against finite
differences along trajectories whose angular velocity is known (CONVENTIONS.md section 4:
for Gimbal / Ball-Euler, qdot = N u with u = w_FM expressed in F, the parent)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.common.exceptions import InvalidArgumentError
from engine.math import Rotation, ZAxis

H = 1e-6  # finite-difference step (s)

xyz_angles = st.tuples(st.floats(-3.0, 3.0), st.floats(-1.4, 1.4), st.floats(-3.0, 3.0)).map(
    np.array
)


def R_xyz(a) -> np.ndarray:
    return Rotation().setRotationToBodyFixedXYZ(a).asMat33()


def skew_to_vec(S: np.ndarray) -> np.ndarray:
    return np.array([S[2, 1] - S[1, 2], S[0, 2] - S[2, 0], S[1, 0] - S[0, 1]]) / 2.0


def rotation_about(w: np.ndarray, t: float) -> np.ndarray:
    """exp([w]x t): rotation at constant angular velocity w for time t."""
    n = np.linalg.norm(w)
    return Rotation(n * t, w / n).asMat33()


# --------------------------------------------------------------------------- x-y-z angles


@settings(max_examples=100, deadline=None)
@given(xyz_angles)
def test_N_times_NInv_is_identity(q):
    for n, ninv in (
        (Rotation.calcNForBodyXYZInParentFrame, Rotation.calcNInvForBodyXYZInParentFrame),
        (Rotation.calcNForBodyXYZInBodyFrame, Rotation.calcNInvForBodyXYZInBodyFrame),
    ):
        assert np.allclose(n(q) @ ninv(q), np.eye(3), atol=1e-12)
        assert np.allclose(ninv(q) @ n(q), np.eye(3), atol=1e-12)


def test_NInv_in_parent_is_W_of_conventions():
    """W(a) = [ Fx | Rx(a0) y | Rx(a0) Ry(a1) z ] (columns)."""
    a = np.array([0.4, -0.7, 1.3])
    W = np.column_stack(
        [
            [1.0, 0.0, 0.0],
            Rotation(a[0], 0).asMat33() @ [0.0, 1.0, 0.0],
            Rotation(a[0], 0).asMat33() @ Rotation(a[1], 1).asMat33() @ [0.0, 0.0, 1.0],
        ]
    )
    assert np.allclose(Rotation.calcNInvForBodyXYZInParentFrame(a), W)
    # body-frame versions are the parent-frame ones rotated: N_B = N_P R_PB
    R = R_xyz(a)
    assert np.allclose(
        Rotation.calcNForBodyXYZInBodyFrame(a), Rotation.calcNForBodyXYZInParentFrame(a) @ R
    )


def test_N_maps_constant_angular_velocity_to_angle_rates():
    """Spin at a known constant w (in the parent P); angle rates by central differences."""
    w_P = np.array([0.3, -1.1, 0.7])
    R0 = R_xyz([0.2, 0.5, -0.4])
    for t in (0.0, 0.25, 0.6):

        def angles(tt: float) -> np.ndarray:
            return Rotation(rotation_about(w_P, tt) @ R0).convertRotationToBodyFixedXYZ()

        q = angles(t)
        qdot_fd = (angles(t + H) - angles(t - H)) / (2 * H)
        assert np.allclose(Rotation.calcNForBodyXYZInParentFrame(q) @ w_P, qdot_fd, atol=1e-7)
        w_B = R_xyz(q).T @ w_P
        assert np.allclose(Rotation.calcNForBodyXYZInBodyFrame(q) @ w_B, qdot_fd, atol=1e-7)
        assert np.allclose(
            Rotation.convertAngVelInBodyFrameToBodyXYZDot(q, w_B), qdot_fd, atol=1e-7
        )
        assert np.allclose(
            Rotation.convertBodyXYZDotToAngVelInBodyFrame(q, qdot_fd), w_B, atol=1e-7
        )
        cosxy, sinxy = np.cos(q[:2]), np.sin(q[:2])
        assert np.allclose(
            Rotation.convertAngVelInParentToBodyXYZDot(cosxy, sinxy, 1 / cosxy[1], w_P),
            qdot_fd,
            atol=1e-7,
        )


def _angle_trajectory(t: float) -> np.ndarray:
    return np.array([0.3 + 0.8 * t - 0.4 * t**2, -0.2 + 0.5 * t**2, 1.0 - 1.3 * t])


def _angle_rates(t: float) -> np.ndarray:
    return np.array([0.8 - 0.8 * t, 1.0 * t, -1.3])


def _angle_accels(t: float) -> np.ndarray:
    return np.array([-0.8, 1.0, 0.0])


def _w_parent_fd(t: float) -> np.ndarray:
    """Angular velocity in P from the rotation matrices: [w]x = Rdot R^T."""
    Rdot = (R_xyz(_angle_trajectory(t + H)) - R_xyz(_angle_trajectory(t - H))) / (2 * H)
    return skew_to_vec(Rdot @ R_xyz(_angle_trajectory(t)).T)


@pytest.mark.parametrize("t", [0.0, 0.4, 0.9])
def test_NInv_recovers_angular_velocity_of_angle_trajectory(t):
    q, qdot = _angle_trajectory(t), _angle_rates(t)
    w_P = _w_parent_fd(t)
    assert np.allclose(Rotation.calcNInvForBodyXYZInParentFrame(q) @ qdot, w_P, atol=1e-8)
    cosxy, sinxy = np.cos(q[:2]), np.sin(q[:2])
    assert np.allclose(Rotation.multiplyByBodyXYZ_NInv_P(cosxy, sinxy, qdot), w_P, atol=1e-8)
    assert np.allclose(
        Rotation.multiplyByBodyXYZ_N_P(cosxy, sinxy, 1 / cosxy[1], w_P), qdot, atol=1e-7
    )


@pytest.mark.parametrize("t", [0.0, 0.4, 0.9])
def test_NDot_is_derivative_of_N_along_trajectory(t):
    q, qdot = _angle_trajectory(t), _angle_rates(t)
    for n, ndot in (
        (Rotation.calcNForBodyXYZInParentFrame, Rotation.calcNDotForBodyXYZInParentFrame),
        (Rotation.calcNForBodyXYZInBodyFrame, Rotation.calcNDotForBodyXYZInBodyFrame),
    ):
        fd = (n(_angle_trajectory(t + H)) - n(_angle_trajectory(t - H))) / (2 * H)
        assert np.allclose(ndot(q, qdot), fd, atol=1e-7)
    cosxy, sinxy = np.cos(q[:2]), np.sin(q[:2])
    fast = Rotation.calcNDotForBodyXYZInParentFrame(cosxy, sinxy, 1 / cosxy[1], qdot)
    assert np.allclose(fast, Rotation.calcNDotForBodyXYZInParentFrame(q, qdot))


@pytest.mark.parametrize("t", [0.1, 0.7])
def test_angle_second_derivatives_from_angular_acceleration(t):
    q, qdot, qddot = _angle_trajectory(t), _angle_rates(t), _angle_accels(t)
    w_P = Rotation.calcNInvForBodyXYZInParentFrame(q) @ qdot
    wdot_P = (
        Rotation.calcNInvForBodyXYZInParentFrame(_angle_trajectory(t + H)) @ _angle_rates(t + H)
        - Rotation.calcNInvForBodyXYZInParentFrame(_angle_trajectory(t - H)) @ _angle_rates(t - H)
    ) / (2 * H)
    cosxy, sinxy = np.cos(q[:2]), np.sin(q[:2])
    got = Rotation.convertAngAccInParentToBodyXYZDotDot(cosxy, sinxy, 1 / cosxy[1], qdot, wdot_P)
    assert np.allclose(got, qddot, atol=1e-7)
    N, NDot = (
        Rotation.calcNForBodyXYZInParentFrame(q),
        Rotation.calcNDotForBodyXYZInParentFrame(q, qdot),
    )
    assert np.allclose(N @ wdot_P + NDot @ w_P, qddot, atol=1e-7)
    R = R_xyz(q)
    w_B = R.T @ w_P
    wdot_B = R.T @ wdot_P  # d/dt(R^T w_P) = R^T wdot_P since R^T [w_P]x w_P = 0
    got_B = Rotation.convertAngVelDotInBodyFrameToBodyXYZDotDot(q, w_B, wdot_B)
    assert np.allclose(got_B, qddot, atol=1e-7)


def test_transposed_fast_products():
    q = np.array([0.3, -0.6, 0.9])
    cosxy, sinxy = np.cos(q[:2]), np.sin(q[:2])
    x = np.array([0.5, -1.0, 2.0])
    N = Rotation.calcNForBodyXYZInParentFrame(q)
    NInv = Rotation.calcNInvForBodyXYZInParentFrame(q)
    assert np.allclose(Rotation.multiplyByBodyXYZ_NT_P(cosxy, sinxy, 1 / cosxy[1], x), N.T @ x)
    assert np.allclose(Rotation.multiplyByBodyXYZ_NInvT_P(cosxy, sinxy, x), NInv.T @ x)


def test_N_refuses_gimbal_lock_instead_of_returning_infinity():
    for func in (Rotation.calcNForBodyXYZInParentFrame, Rotation.calcNForBodyXYZInBodyFrame):
        with pytest.raises(InvalidArgumentError, match="gimbal lock"):
            func([0.1, math.pi / 2, 0.2])
    # NInv is fine there
    assert np.all(np.isfinite(Rotation.calcNInvForBodyXYZInParentFrame([0.1, math.pi / 2, 0.2])))


def test_kinematics_argument_errors():
    with pytest.raises(InvalidArgumentError, match="finite"):
        Rotation.calcNForBodyXYZInParentFrame([0.0, float("nan"), 0.0])
    with pytest.raises(InvalidArgumentError, match="3 components"):
        Rotation.calcNForBodyXYZInBodyFrame([0.0, 0.1])
    with pytest.raises(InvalidArgumentError, match="takes"):
        Rotation.calcNDotForBodyXYZInParentFrame([0.0, 0.1, 0.2])
    with pytest.raises(InvalidArgumentError, match="length 4"):
        Rotation.convertAngVelToQuaternionDot([1, 0, 0], [1, 2, 3])


# --------------------------------------------------------------------------- quaternions


def _quat(R: np.ndarray) -> np.ndarray:
    return np.asarray(Rotation(R).convertRotationToQuaternion())


def test_quaternion_N_matches_E_matrix_of_conventions():
    q = np.array([0.5, -0.1, 0.7, 0.3])  # deliberately unnormalized
    w, x, y, z = q
    E = np.array([[-x, -y, -z], [w, z, -y], [-z, w, x], [y, -x, w]])
    assert np.allclose(Rotation.calcUnnormalizedNForQuaternion(q), 0.5 * E)
    assert np.allclose(Rotation.calcUnnormalizedNInvForQuaternion(q), 2.0 * E.T)
    assert np.allclose(
        Rotation.calcUnnormalizedNInvForQuaternion(q) @ Rotation.calcUnnormalizedNForQuaternion(q),
        (q @ q) * np.eye(3),
    )
    assert np.allclose(Rotation.calcUnnormalizedNDotForQuaternion(q), 0.5 * E)


@pytest.mark.parametrize("t", [0.0, 0.3, 1.0])
def test_quaternion_derivative_from_angular_velocity(t):
    w_P = np.array([0.9, 0.4, -1.2])
    R0 = R_xyz([0.1, -0.3, 0.5])

    def q_of(tt: float) -> np.ndarray:
        return _quat(rotation_about(w_P, tt) @ R0)

    q = q_of(t)
    qdot_fd = (q_of(t + H) - q_of(t - H)) / (2 * H)
    assert np.allclose(Rotation.convertAngVelToQuaternionDot(q, w_P), qdot_fd, atol=1e-8)
    assert np.allclose(Rotation.convertQuaternionDotToAngVel(q, qdot_fd), w_P, atol=1e-7)


@pytest.mark.parametrize("t", [0.1, 0.6])
def test_quaternion_second_derivative_from_angular_acceleration(t):
    """Varying angular velocity: the x-y-z angle trajectory; w and wdot from NInv."""

    def w_of(tt: float) -> np.ndarray:
        return Rotation.calcNInvForBodyXYZInParentFrame(_angle_trajectory(tt)) @ _angle_rates(tt)

    def q_of(tt: float) -> np.ndarray:
        return _quat(R_xyz(_angle_trajectory(tt)))

    h = 1e-4
    q = q_of(t)
    qddot_fd = (q_of(t + h) - 2 * q + q_of(t - h)) / h**2
    wdot = (w_of(t + h) - w_of(t - h)) / (2 * h)
    got = Rotation.convertAngVelDotToQuaternionDotDot(q, w_of(t), wdot)
    assert np.allclose(got, qddot_fd, atol=1e-6)
    # it equals N b + NDot w with NDot = E(qdot)/2
    qdot = Rotation.convertAngVelToQuaternionDot(q, w_of(t))
    expected = Rotation.calcUnnormalizedNForQuaternion(q) @ wdot
    expected = expected + Rotation.calcUnnormalizedNDotForQuaternion(qdot) @ w_of(t)
    assert np.allclose(got, expected, atol=1e-12)


def test_quaternion_rate_is_zero_for_zero_spin_and_orthogonal_to_q():
    q = _quat(Rotation(1.0, ZAxis).asMat33())
    assert np.allclose(Rotation.convertAngVelToQuaternionDot(q, [0, 0, 0]), 0)
    qdot = Rotation.convertAngVelToQuaternionDot(q, [0.3, 2.0, -1.0])
    assert abs(float(q @ qdot)) < 1e-15  # |q| stays constant
