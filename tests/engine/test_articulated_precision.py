"""The articulated-body recursion stays accurate on long, badly conditioned chains.

A chain of 30 Ball joints with thin links (tiny inertia about each link axis), bent at random:
the udot that realize(Acceleration) computes by the O(n) articulated-body method must equal
M^-1 (f - bias) from the mass matrix and inverse dynamics. (Before the articulated inertias were
kept exactly symmetric, rounding grew from body to body and this chain lost every digit.)"""

from __future__ import annotations

import numpy as np
import pytest

from engine import (
    Body,
    Force,
    GeneralForceSubsystem,
    Inertia,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    Rotation,
    SimbodyMatterSubsystem,
    Stage,
    Transform,
    Vec3,
)


def test_ball_chain_udot_matches_mass_matrix_solve() -> None:
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.Gravity(forces, matter, Vec3(0, -1, 0), 9.81)
    body = Body.Rigid(MassProperties(1.0, Vec3(0, -0.5, 0), Inertia(0.33, 0.01, 0.33)))
    parent = matter.Ground()
    links = []
    for i in range(30):
        X_PF = Transform(Vec3(0, 0 if i == 0 else -1.0, 0))
        parent = MobilizedBody.Ball(parent, X_PF, body, Transform())
        links.append(parent)
    state = system.realizeTopology()
    rng = np.random.default_rng(3)
    for link in links:
        axis = rng.normal(size=3)
        link.setQToFitRotation(state, Rotation(0.4 * rng.uniform(), axis / np.linalg.norm(axis)))
    state.setU(rng.normal(scale=0.5, size=state.getNU()))
    system.realize(state, Stage.Acceleration)
    nu = state.getNU()
    M = matter.calcM(state)
    F = system.getRigidBodyForces(state)
    bias = matter.calcResidualForceIgnoringConstraints(state, np.zeros(nu), F, np.zeros(nu))
    expected = np.linalg.solve(M, -bias)
    udot = np.asarray(state.getUDot())
    assert np.linalg.cond(M) > 1e6  # the chain really is badly conditioned
    np.testing.assert_allclose(udot, expected, rtol=0, atol=1e-7 * np.abs(expected).max())


def test_the_three_mobility_hinge_inverse_is_the_matrix_inverse() -> None:
    """D^-1 = (H^T P H)^-1 of a Ball-like (3-mobility) joint, by cofactors: the inverse of
    well and badly conditioned symmetric positive definite D, exactly symmetric; a singular
    D is refused."""
    from engine.multibody.kernels.stage_kernels import _invert_3x3

    rng = np.random.default_rng(7)
    for scale in (1.0, 1e-4, 1e-8):  # the smallest principal inertia, relative
        for _ in range(20):
            Q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
            D = Q @ np.diag([1.0, rng.uniform(0.1, 1.0), scale]) @ Q.T
            D = 0.5 * (D + D.T)
            inv = D.copy()
            _invert_3x3(inv)
            np.testing.assert_array_equal(inv, inv.T)
            cond = np.linalg.cond(D)
            np.testing.assert_allclose(inv @ D, np.eye(3), atol=1e-14 * cond)
    singular = np.ones((3, 3))
    with pytest.raises(ZeroDivisionError, match="singular articulated-body hinge inertia"):
        _invert_3x3(singular)
