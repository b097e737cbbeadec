"""Spatial vectors, shifts, Phi, SpatialInertia and ArticulatedInertia."""

from __future__ import annotations

import numpy as np
import pytest

from engine.common.exceptions import InvalidArgumentError, NonPhysicalError
from engine.math import (
    ArticulatedInertia,
    Inertia,
    MassProperties,
    PhiMatrix,
    Rotation,
    SpatialInertia,
    SpatialMat,
    SpatialVec,
    Transform,
    UnitInertia,
    cross_matrix,
    findRelativeVelocity,
    reverseRelativeVelocity,
    shiftAccelerationBy,
    shiftForceBy,
    shiftForceFromTo,
    shiftVelocityBy,
    shiftVelocityFromTo,
    spatial_mat_times_vec,
)

RNG = np.random.default_rng(12345)


def rigid_velocity_of_point(V_O: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Velocity of the body point at r from O: v_O + w x r."""
    return V_O[1] + np.cross(V_O[0], r)


def sample_inertia() -> SpatialInertia:
    return SpatialInertia(
        2.5, (0.1, -0.3, 0.2), UnitInertia.brick(0.2, 0.1, 0.3).shiftFromCentroid((0.1, -0.3, 0.2))
    )


# --------------------------------------------------------------------------- SpatialVec, shifts


def test_spatial_vec_layout_and_errors():
    V = SpatialVec((1, 2, 3), (4, 5, 6))
    assert V.shape == (2, 3) and np.array_equal(V[0], [1, 2, 3]) and np.array_equal(V[1], [4, 5, 6])
    assert np.array_equal(SpatialVec(np.arange(6.0)), [[0, 1, 2], [3, 4, 5]])
    with pytest.raises(InvalidArgumentError, match="finite"):
        SpatialVec((1, 2, float("nan")), (0, 0, 0))
    with pytest.raises(InvalidArgumentError, match="3 components"):
        SpatialVec((1, 2), (0, 0, 0))
    with pytest.raises(InvalidArgumentError, match="shape"):
        shiftVelocityBy(np.zeros(5), (1, 0, 0))


def test_velocity_shift_matches_rigid_body_kinematics():
    V = SpatialVec((0.3, -1.0, 2.0), (1.0, 0.5, -0.2))
    r = np.array([0.4, 0.1, -0.7])
    shifted = shiftVelocityBy(V, r)
    assert np.allclose(shifted[1], rigid_velocity_of_point(V, r))
    assert np.array_equal(shifted[0], V[0])
    P, Q = np.array([1.0, 2.0, 3.0]), np.array([1.4, 2.1, 2.3])
    assert np.allclose(shiftVelocityFromTo(V, P, Q), shifted)


def test_force_shift_preserves_moment_about_any_point():
    F = SpatialVec((0.5, 0.0, -1.0), (2.0, -1.0, 3.0))  # at P
    r = np.array([0.2, -0.5, 0.9])  # Q = P + r
    FQ = shiftForceBy(F, r)
    assert np.allclose(FQ[1], F[1])
    # moment about an arbitrary point Z is the same for both descriptions
    z = np.array([-1.0, 0.3, 0.4])  # Z relative to P
    moment_P = F[0] + np.cross(-z, F[1])
    moment_Q = FQ[0] + np.cross(r - z, FQ[1])
    assert np.allclose(moment_P, moment_Q)
    assert np.allclose(shiftForceFromTo(F, (1, 1, 1), np.array([1, 1, 1]) + r), FQ)


def test_acceleration_shift_matches_differentiated_velocity_shift():
    w, b = np.array([0.5, -0.2, 1.0]), np.array([0.1, 0.3, -0.4])
    a = np.array([0.0, -9.8, 0.3])
    r = np.array([0.3, 0.2, -0.1])
    got = shiftAccelerationBy(SpatialVec(b, a), w, r)
    assert np.allclose(got[1], a + np.cross(b, r) + np.cross(w, np.cross(w, r)))


def test_relative_velocity_helpers():
    X_GA = Transform(Rotation(0.3, (0, 0, 1)), (1, 0, 0))
    X_GB = Transform(Rotation(-0.5, (1, 0, 0)), (0, 2, 1))
    V_GA = SpatialVec((0.0, 0.0, 0.7), (0.1, 0.2, 0.0))
    V_GB = SpatialVec((0.4, 0.0, 0.0), (0.0, -0.3, 0.5))
    V_AB = findRelativeVelocity(X_GA, V_GA, X_GB, V_GB)
    # B's origin velocity relative to A, computed by hand in G then re-expressed in A
    p = X_GB.p() - X_GA.p()
    v_rel_G = V_GB[1] - V_GA[1] - np.cross(V_GA[0], p)
    assert np.allclose(V_AB[1], X_GA.R().asMat33().T @ v_rel_G)
    assert np.allclose(V_AB[0], X_GA.R().asMat33().T @ (V_GB[0] - V_GA[0]))
    X_AB = ~X_GA * X_GB
    V_BA = reverseRelativeVelocity(X_AB, V_AB)
    assert np.allclose(V_BA[0], -(X_AB.R().asMat33().T @ V_AB[0]))


# --------------------------------------------------------------------------- Phi


def test_phi_shifts_match_the_shift_helpers_and_matrices():
    l = np.array([0.3, -0.2, 0.8])  # from A to B
    phi = PhiMatrix(l)
    V_A = SpatialVec((0.1, 0.9, -0.4), (1.0, 0.0, 0.5))
    F_B = SpatialVec((0.0, 0.2, 0.1), (-1.0, 2.0, 0.3))
    V_B = ~phi * V_A
    F_A = phi * F_B
    assert np.allclose(V_B, shiftVelocityBy(V_A, l))
    assert np.allclose(F_A, shiftForceBy(F_B, -l))
    assert np.allclose(phi.toSpatialMat().T, (~phi).toSpatialMat())
    assert np.allclose(spatial_mat_times_vec(phi.toSpatialMat(), F_B), F_A)
    assert np.allclose(spatial_mat_times_vec((~phi).toSpatialMat(), V_A), V_B)
    # power is invariant: F_A . V_A == F_B . V_B
    assert np.isclose(np.sum(F_A * V_A), np.sum(F_B * V_B))
    M = RNG.normal(size=(6, 6))
    assert np.allclose(phi * M, phi.toSpatialMat() @ M)
    assert np.allclose(M * ~phi, M @ (~phi).toSpatialMat())


# --------------------------------------------------------------------------- SpatialInertia


def test_spatial_inertia_times_velocity_is_momentum_by_hand():
    m, c = 3.0, np.array([0.2, -0.1, 0.4])
    I_C = Inertia(0.5, 0.6, 0.7, 0.01, -0.02, 0.03)
    G_O = UnitInertia(I_C / m).shiftFromCentroid(c)
    M = SpatialInertia(m, c, G_O)
    w, v_O = np.array([0.3, -0.7, 1.1]), np.array([1.0, 0.4, -0.6])
    h = M * SpatialVec(w, v_O)
    # by hand: linear momentum m v_C, angular momentum about O = I_C w + c x m v_C
    v_C = v_O + np.cross(w, c)
    assert np.allclose(h[1], m * v_C)
    assert np.allclose(h[0], I_C.toMat33() @ w + np.cross(c, m * v_C))
    assert np.allclose(h.reshape(6), M.toSpatialMat() @ np.concatenate([w, v_O]))
    # MassProperties gives the same matrix
    mp = MassProperties(m, c, G_O * m)
    assert np.allclose(mp.toSpatialMat(), M.toSpatialMat())


def test_spatial_inertia_shift_reexpress_transform():
    M = sample_inertia()
    S = np.array([0.5, 0.2, -0.3])
    shifted = M.shift(S)
    # same as P_S = Phi(-S) P Phi(-S)^T
    phi = PhiMatrix(-S).toSpatialMat()
    assert np.allclose(shifted.toSpatialMat(), phi @ M.toSpatialMat() @ phi.T)
    assert np.allclose(shifted.shift(-S).toSpatialMat(), M.toSpatialMat())
    R_FB = Rotation(0.9, (1, 2, -1))
    R6 = np.kron(np.eye(2), R_FB.asMat33())
    assert np.allclose(M.reexpress(R_FB).toSpatialMat(), R6.T @ M.toSpatialMat() @ R6)
    X = Transform(R_FB, S)
    assert np.allclose(M.transform(X).toSpatialMat(), shifted.reexpress(R_FB).toSpatialMat())


def test_spatial_inertia_sum_and_difference():
    A = sample_inertia()
    B = SpatialInertia(1.0, (0.0, 0.5, 0.0), UnitInertia.sphere(0.1).shiftFromCentroid((0, 0.5, 0)))
    total = A + B
    assert np.allclose(total.toSpatialMat(), A.toSpatialMat() + B.toSpatialMat())
    assert np.allclose((total - B).toSpatialMat(), A.toSpatialMat())
    with pytest.raises(NonPhysicalError, match="negative mass"):
        B - total
    assert np.allclose((A * 2.0).toSpatialMat(), 2 * A.toSpatialMat())
    zero = SpatialInertia(0.0, (0, 0, 0), UnitInertia(0))
    assert (zero + zero).getMass() == 0.0


def test_spatial_inertia_refusals():
    with pytest.raises(NonPhysicalError, match="mass"):
        SpatialInertia(-1.0, (0, 0, 0), UnitInertia(1))
    with pytest.raises(InvalidArgumentError, match="finite"):
        SpatialInertia(float("nan"), (0, 0, 0), UnitInertia(1))
    with pytest.raises(NonPhysicalError, match="triangle"):
        SpatialInertia(1.0, (0.0, 0.0, 0.0), np.diag([0.1, 0.1, 1.0]))
    # as Simbody: G need not be consistent with the mass center, but it is reported
    inconsistent = SpatialInertia(1.0, (1.0, 0.0, 0.0), UnitInertia(0.01))
    assert not inconsistent.isPhysicallyConsistent()
    assert sample_inertia().isPhysicallyConsistent()


# --------------------------------------------------------------------------- ArticulatedInertia


def test_articulated_inertia_of_a_rigid_body_is_its_spatial_inertia():
    M = sample_inertia()
    P = ArticulatedInertia(M)
    assert np.allclose(P.toSpatialMat(), M.toSpatialMat())
    assert np.allclose(P.getMass(), M.getMass() * np.eye(3))
    assert np.allclose(P.getMassMoment(), cross_matrix(M.calcMassMoment()))
    A = SpatialVec((0.2, -0.1, 0.5), (1.0, 2.0, -1.0))
    assert np.allclose(P * A, M * A)


def test_articulated_shift_follows_simbody_direction():
    M = sample_inertia()
    P = ArticulatedInertia(M)
    s = np.array([0.3, -0.6, 0.2])
    expected = PhiMatrix(s).toSpatialMat() @ P.toSpatialMat() @ PhiMatrix(s).toSpatialMat().T
    assert np.allclose(P.shift(s).toSpatialMat(), expected)
    # s points from the new point to the old one: the rigid-body shift by -s
    assert np.allclose(P.shift(s).toSpatialMat(), M.shift(-s).toSpatialMat())


def test_articulated_general_blocks_and_arithmetic():
    J = np.array([[2.0, 0.1, 0.0], [0.1, 3.0, 0.2], [0.0, 0.2, 1.0]])
    F = RNG.normal(size=(3, 3))
    Mb = np.array([[4.0, 0.5, 0.0], [0.5, 3.0, 0.0], [0.0, 0.0, 2.0]])
    P = ArticulatedInertia(Mb, F, J)  # Simbody order: mass, massMoment, inertia
    full = P.toSpatialMat()
    assert np.allclose(full, SpatialMat(J, F, F.T, Mb))
    assert np.allclose(full, full.T)
    s = np.array([0.1, 0.2, 0.3])
    phi = PhiMatrix(s).toSpatialMat()
    assert np.allclose(P.shift(s).toSpatialMat(), phi @ full @ phi.T)
    Q = P + sample_inertia()
    assert np.allclose(Q.toSpatialMat(), full + sample_inertia().toSpatialMat())
    assert np.allclose((Q - P).toSpatialMat(), sample_inertia().toSpatialMat())
    with pytest.raises(InvalidArgumentError, match="symmetric"):
        ArticulatedInertia(F + 5 * np.eye(3), J, Mb)  # blocks in the wrong order
