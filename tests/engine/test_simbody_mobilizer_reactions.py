"""Simbody's MobilizedBody accessors for reactions, hinge columns, frames and spatial
inertia (issue 21): getReactionPair of Simbody's reaction-force tests, checked against
statics and Newton's second law; getHCol against the velocity a single mobility makes;
getBodySpatialInertiaInGround against the kinetic energy."""

from __future__ import annotations

import numpy as np
import pytest

from engine import (
    Body,
    Force,
    GeneralForceSubsystem,
    IndexOutOfRangeError,
    Inertia,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    Rotation,
    SimbodyMatterSubsystem,
    Stage,
    Transform,
    Vec3,
    XAxis,
    YAxis,
)

G = 9.81


def _system():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.Gravity(forces, matter, -YAxis, G)
    return system, matter


def _reaction_pair(state, mobod):
    """Simbody's getReactionPair: the reactions in the parent's and the child's frames."""
    p = mobod.findMobilizerReactionOnParentAtFInGround(state)
    c = mobod.findMobilizerReactionOnBodyAtMInGround(state)
    R_GC = mobod.getBodyRotation(state).asMat33()
    R_GP = mobod.getParentMobilizedBody().getBodyRotation(state).asMat33()
    return p @ R_GP, c @ R_GC  # ~R * v for each row


def test_static_slider_reactions_at_m_f_and_origins():
    system, matter = _system()
    m, d, c = 2.0, 0.7, 0.2
    body = Body.Rigid(MassProperties(m, Vec3(c, 0, 0), Inertia(1)))
    slider = MobilizedBody.Slider(
        matter.Ground(), Transform(Vec3(0, 1, 0)), body, Transform()
    )  # slides along x; gravity along -y is carried by the mobilizer
    state = system.realizeTopology()
    slider.setLength(state, d)
    system.realize(state, Stage.Acceleration)
    np.testing.assert_allclose(slider.getUDotAsVector(state), [0], atol=1e-14)
    mg = m * G
    on_body_M = slider.findMobilizerReactionOnBodyAtMInGround(state)
    np.testing.assert_allclose(on_body_M, [[0, 0, c * mg], [0, mg, 0]], atol=1e-12)
    # Bo coincides with Mo here
    np.testing.assert_allclose(
        slider.findMobilizerReactionOnBodyAtOriginInGround(state), on_body_M, atol=1e-12
    )
    # the parent is pushed down at M, d along x from F: moment about F is d x (-mg y)
    on_parent_F = slider.findMobilizerReactionOnParentAtFInGround(state)
    np.testing.assert_allclose(on_parent_F, [[0, 0, -c * mg - d * mg], [0, -mg, 0]], atol=1e-12)
    # about Ground's origin, 1 m below F: a vertical force adds no moment
    np.testing.assert_allclose(
        slider.findMobilizerReactionOnParentAtOriginInGround(state), on_parent_F, atol=1e-12
    )
    parent, child = _reaction_pair(state, slider)
    np.testing.assert_allclose(child, on_body_M, atol=1e-12)  # frames aligned with Ground


def test_swinging_pendulum_reactions_obey_newton():
    system, matter = _system()
    m = 1.5
    body = Body.Rigid(MassProperties(m, Vec3(0.1, -0.2, 0.05), Inertia(0.3, 0.2, 0.25)))
    upper = MobilizedBody.Pin(
        matter.Ground(),
        Transform(Rotation(0.3, XAxis), Vec3(0, 2, 0)),
        body,
        Transform(Vec3(0, 1, 0)),
    )
    lower = MobilizedBody.Pin(
        upper, Transform(Vec3(0.2, -0.5, 0)), body, Transform(Vec3(0, 0.8, 0))
    )
    state = system.realizeTopology()
    state.updQ()[:] = [0.6, -0.9]
    state.updU()[:] = [1.2, -0.7]
    system.realize(state, Stage.Acceleration)
    for mobod in (upper, lower):
        at_M = mobod.findMobilizerReactionOnBodyAtMInGround(state)
        # a Pin's F and M coincide: the parent feels the opposite
        np.testing.assert_allclose(
            mobod.findMobilizerReactionOnParentAtFInGround(state), -at_M, atol=1e-10
        )
    # Newton on the lower body: reaction + gravity = m a_C
    at_Bo = lower.findMobilizerReactionOnBodyAtOriginInGround(state)
    a_C = lower.findMassCenterAccelerationInGround(state)
    np.testing.assert_allclose(at_Bo[1] + m * np.array([0, -G, 0]), m * a_C, atol=1e-10)
    # moments: the reaction at Bo and at M differ by the moment of the force
    p_GM = lower.findStationLocationInGround(state, Vec3(0, 0.8, 0))
    at_M = lower.findMobilizerReactionOnBodyAtMInGround(state)
    p_GB = lower.getBodyOriginLocation(state)
    np.testing.assert_allclose(at_Bo[0], at_M[0] + np.cross(p_GM - p_GB, at_M[1]), atol=1e-10)
    # the pin transmits no moment about its axis (z of F, in G)
    z_G = upper.getBodyRotation(state).asMat33() @ [0, 0, 1]
    assert abs(at_M[0] @ z_G) < 1e-10
    # the upper body's parent is Ground: its reaction at Ground's origin
    on_ground = upper.findMobilizerReactionOnParentAtOriginInGround(state)
    on_F = upper.findMobilizerReactionOnParentAtFInGround(state)
    np.testing.assert_allclose(on_ground[0], on_F[0] + np.cross([0, 2, 0], on_F[1]), atol=1e-10)


def test_hcol_frames_and_spatial_inertia():
    system, matter = _system()
    body = Body.Rigid(MassProperties(2.0, Vec3(0.3, 0.1, -0.2), Inertia(0.5, 0.4, 0.3, 0.01, 0, 0)))
    X_PF, X_BM = Transform(Rotation(0.4, YAxis), Vec3(0, 1, 0)), Transform(Vec3(0.2, 0.3, 0))
    upper = MobilizedBody.Pin(matter.Ground(), X_PF, body, X_BM)
    lower = MobilizedBody.Universal(upper, Transform(Vec3(0, -1, 0)), body, Transform())
    state = system.realizeTopology()
    state.updQ()[:] = [0.5, 0.3, -0.6]
    system.realize(state, Stage.Position)
    np.testing.assert_array_equal(upper.getInboardFrame(state).toMat44(), X_PF.toMat44())
    np.testing.assert_array_equal(upper.getOutboardFrame(state).toMat44(), X_BM.toMat44())
    # H column j: the body's velocity when only its own u_j moves (the parent is still)
    for j in range(2):
        u = np.zeros(3)
        u[1 + j] = 1.0
        V = matter.multiplyBySystemJacobian(state, u)
        np.testing.assert_allclose(lower.getHCol(state, j), V[2], atol=1e-14)
    # kinetic energy of one body from its spatial inertia in G: T = 1/2 V . (M V)
    state.updU()[:] = [0.7, -1.1, 0.4]
    system.realize(state, Stage.Velocity)
    total = 0.0
    for mobod in (upper, lower):
        M = mobod.getBodySpatialInertiaInGround(state).toSpatialMat()
        V = mobod.getBodyVelocity(state).reshape(6)
        total += 0.5 * V @ M @ V
        assert mobod.getBodySpatialInertiaInGround(state).getMass() == 2.0
    assert abs(total - matter.calcKineticEnergy(state)) < 1e-12


def test_h_fm_col_is_the_cross_mobilizer_velocity_per_u():
    """MobilizedBody::getH_FMCol(state, ux): V_FM = H_FM u, in F."""
    system, matter = _system()
    body = Body.Rigid(MassProperties(2.0, Vec3(0.3, 0.1, -0.2), Inertia(0.5, 0.4, 0.3)))
    upper = MobilizedBody.Pin(matter.Ground(), Transform(Vec3(0, 1, 0)), body, Transform())
    lower = MobilizedBody.Planar(
        upper, Transform(Vec3(0, -1, 0)), body, Transform(Vec3(0.2, 0, 0)), MobilizedBody.Reverse
    )
    state = system.realizeTopology()
    state.updQ()[:] = [0.5, 0.3, -0.6, 0.2]
    system.realize(state, Stage.Position)
    H = np.array([lower.getH_FMCol(state, j) for j in range(3)])
    for j in range(3):
        state.updU()[:] = 0.0
        lower.setOneU(state, j, 1.0)
        system.realize(state, Stage.Velocity)
        np.testing.assert_allclose(H[j], lower.getMobilizerVelocity(state), atol=1e-14)
    np.testing.assert_allclose(upper.getH_FMCol(state, 0), [[0, 0, 1], [0, 0, 0]])
    with pytest.raises(IndexOutOfRangeError, match="3 mobilities"):
        lower.getH_FMCol(state, 3)
