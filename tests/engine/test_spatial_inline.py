"""The inline spatial-algebra helpers of the tree recursions (engine.multibody.kernels
.spatial_inline) against numpy and against the physics they encode: moving a force to
the parent and the motion to the child conserves power."""

from __future__ import annotations

import numpy as np

from engine.multibody.kernels.spatial_inline import (
    add_h_times,
    column6,
    column_dot6,
    cross3,
    frame_point,
    h_times,
    mat6_vec,
    mat33_mul,
    mat33_mul_transpose,
    mat33_vec,
    rotate6,
    row_dot6,
    shift_force,
    shift_motion,
    shift_motion_columns,
)

RNG = np.random.default_rng(20)


def _skew(r):
    return np.array([[0, -r[2], r[1]], [r[2], 0, -r[0]], [-r[1], r[0], 0]])


def _phi(r):
    """Phi(r) = [[1, [r]x], [0, 1]]: the rigid-body shift of spatial forces."""
    out = np.eye(6)
    out[:3, 3:] = _skew(r)
    return out


def test_shifts_are_the_rigid_body_transfer_and_conserve_power():
    for _ in range(5):
        r, V_P, F_C = RNG.normal(size=3), RNG.normal(size=6), RNG.normal(size=6)
        V_C = np.array(shift_motion(tuple(V_P), tuple(r)))
        F_P = np.array(shift_force(tuple(F_C), tuple(r)))
        np.testing.assert_allclose(V_C, _phi(r).T @ V_P, rtol=1e-14, atol=1e-14)
        np.testing.assert_allclose(F_P, _phi(r) @ F_C, rtol=1e-14, atol=1e-14)
        # the power of a force is the same at either origin
        assert abs(F_P @ V_P - F_C @ V_C) < 1e-12 * (1 + abs(F_P @ V_P))


def test_products_match_numpy():
    R, x3 = RNG.normal(size=(3, 3)), RNG.normal(size=3)
    M, x6 = RNG.normal(size=(6, 6)), RNG.normal(size=6)
    np.testing.assert_allclose(mat33_vec(R, tuple(x3)), R @ x3, rtol=1e-14)
    np.testing.assert_allclose(cross3(tuple(x3), tuple(x6[:3])), np.cross(x3, x6[:3]))
    p = RNG.normal(size=3)
    np.testing.assert_allclose(frame_point(tuple(p), R, tuple(x3)), p + R @ x3, rtol=1e-14)
    np.testing.assert_allclose(mat6_vec(M, tuple(x6)), M @ x6, rtol=1e-13)
    np.testing.assert_allclose(column_dot6(M, 2, tuple(x6)), M[:, 2] @ x6, rtol=1e-13)
    np.testing.assert_allclose(row_dot6(M, 4, tuple(x6)), M[4] @ x6, rtol=1e-13)
    np.testing.assert_array_equal(column6(M, 3), M[:, 3])
    rotated = np.concatenate([R @ x6[:3], R @ x6[3:]])
    np.testing.assert_allclose(rotate6(R, tuple(x6)), rotated, rtol=1e-14)
    A, B, out = RNG.normal(size=(3, 3)), RNG.normal(size=(3, 3)), np.empty((3, 3))
    mat33_mul(A, B, out)
    np.testing.assert_allclose(out, A @ B, rtol=1e-14)
    mat33_mul_transpose(A, B, out)
    np.testing.assert_allclose(out, A @ B.T, rtol=1e-14)


def test_joint_map_products_use_only_the_first_nu_columns():
    H = RNG.normal(size=(6, 6))
    u = RNG.normal(size=8)
    for nu in (0, 1, 3, 6):
        expected = H[:, :nu] @ u[2 : 2 + nu]
        np.testing.assert_allclose(h_times(H, nu, u, 2), expected, rtol=1e-13, atol=1e-15)
        start = tuple(RNG.normal(size=6))
        np.testing.assert_allclose(
            add_h_times(start, H, nu, u, 2), np.add(start, expected), rtol=1e-13, atol=1e-15
        )


def test_shift_motion_columns_expresses_a_joint_map_in_ground():
    Hf, R, p = RNG.normal(size=(6, 6)), RNG.normal(size=(3, 3)), RNG.normal(size=3)
    H = np.full((6, 6), np.nan)
    shift_motion_columns(Hf, R, tuple(p), H, 2)
    rot = np.zeros((6, 6))
    rot[:3, :3] = rot[3:, 3:] = R
    np.testing.assert_allclose(H[:, :2], _phi(p).T @ rot @ Hf[:, :2], rtol=1e-13, atol=1e-14)
    assert np.all(H[:, 2:] == 0.0)
