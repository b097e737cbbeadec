"""MobilizedBody handle API on a small tree (Pin -> Ball -> Slider, plus a Free branch):
accessors agree with the State and with each other, kinematic helpers agree with finite
differences and with the Jacobian operators, force helpers add the right spatial forces, and
bad input or a too-low stage gives a typed error before anything changes."""

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
from engine.common.exceptions import (
    IndexOutOfRangeError,
    InvalidArgumentError,
    SimTKError,
    StageTooLowError,
)
from tests.engine.close import assert_close

H = 1e-6


class Tree:
    def __init__(self) -> None:
        self.system = MultibodySystem()
        self.matter = SimbodyMatterSubsystem(self.system)
        forces = GeneralForceSubsystem(self.system)
        Force.Gravity(forces, self.matter, Vec3(0, -1, 0), 9.81)
        mp = MassProperties(1.5, Vec3(0.1, -0.3, 0.05), Inertia(0.4, 0.3, 0.5, 0.01, 0.02, 0.03))
        self.X_PF = Transform(Rotation(0.3, Vec3(1, 2, 3)), Vec3(0.1, 0.8, -0.2))
        self.X_BM = Transform(Rotation(-0.5, Vec3(0, 1, 1)), Vec3(0.0, 0.4, 0.1))
        ground = self.matter.Ground()
        self.pin = MobilizedBody.Pin(ground, self.X_PF, Body.Rigid(mp), self.X_BM)
        self.ball = MobilizedBody.Ball(self.pin, self.X_PF, Body.Rigid(mp), self.X_BM)
        self.slider = MobilizedBody.Slider(self.ball, self.X_PF, Body.Rigid(mp), self.X_BM)
        self.free = MobilizedBody.Free(ground, Body.Rigid(mp))
        self.mobods = [ground, self.pin, self.ball, self.slider, self.free]
        self.state = self.system.realizeTopology()
        self.system.realizeModel(self.state)
        rng = np.random.default_rng(5)
        q = rng.uniform(-1, 1, size=self.state.getNQ())
        for m in (self.ball, self.free):
            s = int(self.matter._topo().qs[m.getMobilizedBodyIndex()])
            q[s : s + 4] /= np.linalg.norm(q[s : s + 4])
        self.q = q
        self.u = rng.uniform(-1, 1, size=self.state.getNU())

    def realized(self, q=None, u=None, stage=Stage.Acceleration):
        s = self.state.copy()
        s.setQ(self.q if q is None else q)
        s.setU(self.u if u is None else u)
        self.system.realize(s, stage)
        return s


@pytest.fixture(scope="module")
def tree():
    return Tree()


def test_topology_accessors(tree):
    assert [m.getMobilizedBodyIndex() for m in tree.mobods] == [0, 1, 2, 3, 4]
    assert tree.ball.getParentMobilizedBody() is tree.pin
    assert tree.free.getParentMobilizedBody().isGround()
    with pytest.raises(IndexOutOfRangeError):
        tree.matter.Ground().getParentMobilizedBody()
    for a, b in (
        (tree.pin.getDefaultInboardFrame(), tree.X_PF),
        (tree.pin.getDefaultOutboardFrame(), tree.X_BM),
    ):
        assert_close(a.R().asMat33(), b.R().asMat33(), tol=1e-12)
        assert_close(a.p(), b.p(), tol=1e-12)
    assert tree.ball.getMobilizerTypeName() == "Ball"
    assert tree.ball.getMatterSubsystem() is tree.matter


def test_q_u_accessors_and_derivatives(tree):
    s = tree.realized()
    assert [m.getNumQ(s) for m in tree.mobods[1:]] == [1, 4, 1, 7]
    assert [m.getNumU(s) for m in tree.mobods[1:]] == [1, 3, 1, 6]
    q_parts = np.concatenate([m.getQ(s) for m in tree.mobods[1:]])
    u_parts = np.concatenate([m.getU(s) for m in tree.mobods[1:]])
    assert_close(q_parts, s.getQ(), tol=1e-12)
    assert_close(u_parts, s.getU(), tol=1e-12)
    assert_close(np.concatenate([m.getQDot(s) for m in tree.mobods[1:]]), s.getQDot(), tol=1e-12)
    assert_close(np.concatenate([m.getUDot(s) for m in tree.mobods[1:]]), s.getUDot(), tol=1e-12)
    assert_close(
        np.concatenate([m.getQDotDot(s) for m in tree.mobods[1:]]), s.getQDotDot(), tol=1e-12
    )
    assert tree.ball.getOneQDot(s, 2) == s.getQDot()[3]
    assert tree.ball.getOneUDot(s, 1) == s.getUDot()[2]
    assert tree.ball.getOneQDotDot(s, 0) == s.getQDotDot()[1]
    with pytest.raises(IndexOutOfRangeError):
        tree.ball.getOneUDot(s, 3)
    t = s.copy()
    tree.ball.setOneQ(t, 3, 0.25)
    tree.slider.setU(t, [2.5])
    assert tree.ball.getOneQ(t, 3) == 0.25 and tree.slider.getOneU(t, 0) == 2.5
    assert t.getSystemStage() < Stage.Position
    with pytest.raises(InvalidArgumentError):
        tree.ball.setQ(t, [1.0, 0.0])
    with pytest.raises(InvalidArgumentError):
        tree.ball.setU(t, [np.nan, 0.0, 0.0])


def test_accessors_need_their_stage(tree):
    s = tree.state.copy()
    s.setQ(tree.q)
    with pytest.raises(StageTooLowError):
        tree.pin.getBodyTransform(s)
    tree.system.realize(s, Stage.Position)
    tree.pin.getMobilizerTransform(s)
    with pytest.raises(StageTooLowError):
        tree.pin.getBodyVelocity(s)
    with pytest.raises(StageTooLowError):
        tree.pin.findStationVelocityInGround(s, Vec3(1, 0, 0))
    tree.system.realize(s, Stage.Velocity)
    with pytest.raises(StageTooLowError):
        tree.pin.getBodyAcceleration(s)


def test_pose_velocity_acceleration_accessors_agree(tree):
    s = tree.realized()
    for m in tree.mobods[1:]:
        X = m.getBodyTransform(s)
        assert_close(m.getBodyRotation(s).asMat33(), X.R().asMat33(), tol=1e-12)
        assert_close(m.getBodyOriginLocation(s), X.p(), tol=1e-12)
        V = m.getBodyVelocity(s)
        assert_close(m.getBodyAngularVelocity(s), V[0], tol=1e-12)
        assert_close(m.getBodyOriginVelocity(s), V[1], tol=1e-12)
        A = m.getBodyAcceleration(s)
        assert_close(m.getBodyAngularAcceleration(s), A[0], tol=1e-12)
        assert_close(m.getBodyOriginAcceleration(s), A[1], tol=1e-12)
        p = Vec3(0.3, -0.1, 0.2)
        loc, vel, acc = m.findStationLocationVelocityAndAccelerationInGround(s, p)
        assert_close(loc, X.p() + X.R().asMat33() @ p, tol=1e-12)
        assert_close(m.findStationLocationAndVelocityInGround(s, p)[1], vel, tol=1e-12)
        assert_close(m.findStationAtGroundPoint(s, loc), p, tol=1e-12)
        assert_close(
            m.expressGroundVectorInBodyFrame(s, m.expressVectorInGroundFrame(s, p)), p, tol=1e-12
        )
        c = m.getBodyMassCenterStation(s)
        assert_close(
            m.findMassCenterLocationInGround(s), m.findStationLocationInGround(s, c), tol=1e-12
        )
        assert_close(
            m.findMassCenterVelocityInGround(s), m.findStationVelocityInGround(s, c), tol=1e-12
        )
        assert_close(
            m.findMassCenterAccelerationInGround(s),
            m.findStationAccelerationInGround(s, c),
            tol=1e-12,
        )
        assert m.getBodyMass(s) == 1.5
        assert m.getBodyMassProperties(s).getMass() == 1.5


def test_station_kinematics_match_finite_differences(tree):
    s = tree.realized()
    q, u = s.getQ().copy(), s.getU().copy()
    qdot, qdd, udot = s.getQDot().copy(), s.getQDotDot().copy(), s.getUDot().copy()
    sp = tree.realized(q + H * qdot, u + H * udot, Stage.Velocity)
    sm = tree.realized(q - H * qdot, u - H * udot, Stage.Velocity)
    p = Vec3(-0.2, 0.4, 0.1)
    for m in tree.mobods[1:]:
        v_fd = (m.findStationLocationInGround(sp, p) - m.findStationLocationInGround(sm, p)) / (
            2 * H
        )
        assert_close(m.findStationVelocityInGround(s, p), v_fd, "station velocity", tol=1e-7)
        a_fd = (m.findStationVelocityInGround(sp, p) - m.findStationVelocityInGround(sm, p)) / (
            2 * H
        )
        # second-order q terms (qdotdot h^2/2) cancel in the central difference
        assert_close(
            m.findStationAccelerationInGround(s, p), a_fd, "station acceleration", tol=1e-6
        )
    assert qdd.shape == qdot.shape


def test_relative_kinematics_match_finite_differences(tree):
    s = tree.realized(stage=Stage.Velocity)
    q, u, qdot = s.getQ().copy(), s.getU().copy(), s.getQDot().copy()
    sp = tree.realized(q + H * qdot, u, Stage.Position)
    sm = tree.realized(q - H * qdot, u, Stage.Position)
    A, B = tree.ball, tree.free
    p = Vec3(0.5, 0.1, -0.3)
    X_AB = B.findBodyTransformInAnotherBody(s, A)
    X_GA, X_GB = A.getBodyTransform(s), B.getBodyTransform(s)
    assert_close(X_AB.R().asMat33(), X_GA.R().asMat33().T @ X_GB.R().asMat33(), tol=1e-12)
    assert_close(B.findBodyOriginLocationInAnotherBody(s, A), X_AB.p(), tol=1e-12)
    assert_close(B.findBodyRotationInAnotherBody(s, A).asMat33(), X_AB.R().asMat33(), tol=1e-12)
    p_AS = B.findStationLocationInAnotherBody(s, p, A)
    assert_close(p_AS, X_AB.p() + X_AB.R().asMat33() @ p, tol=1e-12)
    v_fd = (
        B.findStationLocationInAnotherBody(sp, p, A) - B.findStationLocationInAnotherBody(sm, p, A)
    ) / (2 * H)
    assert_close(B.findStationVelocityInAnotherBody(s, p, A), v_fd, "v_AS", tol=1e-7)
    assert_close(
        B.findBodyOriginVelocityInAnotherBody(s, A),
        (
            B.findBodyOriginLocationInAnotherBody(sp, A)
            - B.findBodyOriginLocationInAnotherBody(sm, A)
        )
        / (2 * H),
        "v_AB",
        tol=1e-7,
    )
    Rdot = (
        B.findBodyRotationInAnotherBody(sp, A).asMat33()
        - B.findBodyRotationInAnotherBody(sm, A).asMat33()
    ) / (2 * H)
    W = Rdot @ X_AB.R().asMat33().T
    w_fd = 0.5 * np.array([W[2, 1] - W[1, 2], W[0, 2] - W[2, 0], W[1, 0] - W[0, 1]])
    assert_close(B.findBodyAngularVelocityInAnotherBody(s, A), w_fd, "w_AB", tol=1e-7)
    v = Vec3(1, 2, 3)
    assert_close(B.expressVectorInAnotherBodyFrame(s, v, A), X_AB.R().asMat33() @ v, tol=1e-12)


def test_mobilizer_transform_and_velocity_compose_body_pose(tree):
    s = tree.realized(stage=Stage.Velocity)
    m = tree.ball
    X_GP = m.getParentMobilizedBody().getBodyTransform(s)
    X_FM = m.getMobilizerTransform(s)
    R_GF = X_GP.R().asMat33() @ tree.X_PF.R().asMat33()
    R_GB = R_GF @ X_FM.R().asMat33() @ tree.X_BM.R().asMat33().T
    assert_close(m.getBodyRotation(s).asMat33(), R_GB, tol=1e-12)
    w_rel = m.getBodyAngularVelocity(s) - m.getParentMobilizedBody().getBodyAngularVelocity(s)
    assert_close(R_GF @ m.getMobilizerVelocity(s)[0], w_rel, tol=1e-12)
    assert_close(m.getMobilizerVelocity(s)[0], m.getU(s), tol=1e-12)  # Ball: u = w_FM in F


def test_force_helpers_add_the_right_spatial_forces(tree):
    s = tree.realized(stage=Stage.Velocity)
    nb = tree.matter.getNumBodies()
    F = np.zeros((nb, 2, 3))
    f, p = Vec3(1.0, -2.0, 0.5), Vec3(0.2, 0.3, -0.1)
    tree.slider.applyForceToBodyPoint(s, p, f, F)
    r = tree.slider.expressVectorInGroundFrame(s, p)
    assert_close(F[3], np.array([np.cross(r, f), f]), tol=1e-12)
    tree.pin.applyBodyTorque(s, Vec3(0, 0, 3.0), F)
    tree.pin.applyBodyForce(s, [[1, 0, 0], [0, 1, 0]], F)
    assert_close(F[1], [[1, 0, 3.0], [0, 1, 0]], tol=1e-12)
    flat = np.zeros((nb, 6))
    tree.free.applyBodyTorque(s, Vec3(1, 2, 3), flat)
    assert_close(flat[4], [1, 2, 3, 0, 0, 0], tol=1e-12)
    # virtual power: the generalized force of f at S does f . v_S for any u
    F = np.zeros((nb, 2, 3))
    tree.slider.applyForceToBodyPoint(s, p, f, F)
    gen = tree.matter.multiplyBySystemJacobianTranspose(s, F)
    assert gen @ s.getU() == pytest.approx(f @ tree.slider.findStationVelocityInGround(s, p))
    mob = np.zeros(s.getNU())
    tree.ball.applyOneMobilityForce(s, 2, 4.0, mob)
    assert mob[3] == 4.0 and np.count_nonzero(mob) == 1
    with pytest.raises(IndexOutOfRangeError):
        tree.ball.applyOneMobilityForce(s, 3, 1.0, mob)
    with pytest.raises(InvalidArgumentError):
        tree.pin.applyBodyForce(s, [1, 2, 3], np.zeros((nb, 2, 3)))
    with pytest.raises(InvalidArgumentError):
        tree.pin.applyBodyTorque(s, Vec3(1, 0, 0), np.zeros((nb - 1, 2, 3)))
    with pytest.raises(InvalidArgumentError):
        tree.pin.applyForceToBodyPoint(s, p, [np.inf, 0, 0], np.zeros((nb, 2, 3)))


def test_applied_body_force_drives_the_dynamics(tree):
    """A force applied with applyForceToBodyPoint gives the same udot as its generalized force."""
    s = tree.realized(stage=Stage.Velocity)
    nb, nu = tree.matter.getNumBodies(), s.getNU()
    F = np.zeros((nb, 2, 3))
    tree.ball.applyForceToBodyPoint(s, Vec3(0.1, 0.2, 0.3), Vec3(3.0, -1.0, 2.0), F)
    udot_F, _ = tree.matter.calcAccelerationIgnoringConstraints(s, np.zeros(nu), F)
    gen = tree.matter.multiplyBySystemJacobianTranspose(s, F)
    udot_f, _ = tree.matter.calcAccelerationIgnoringConstraints(s, gen, np.zeros((nb, 2, 3)))
    assert_close(udot_F, udot_f, "udot", tol=1e-12)


def test_block_accessors_and_default_q(tree):
    s = tree.realized()
    assert tree.ball.getFirstQIndex(s) == 1 and tree.ball.getFirstUIndex(s) == 1
    assert tree.free.getFirstQIndex(s) == 6 and tree.free.getFirstUIndex(s) == 5
    assert_close(tree.ball.getQAsVector(s), s.getQ()[1:5], tol=1e-12)
    assert_close(tree.ball.getUAsVector(s), s.getU()[1:4], tol=1e-12)
    assert_close(tree.ball.getQDotAsVector(s), s.getQDot()[1:5], tol=1e-12)
    assert_close(tree.ball.getUDotAsVector(s), s.getUDot()[1:4], tol=1e-12)
    assert_close(tree.ball.getQDotDotAsVector(s), s.getQDotDot()[1:5], tol=1e-12)
    t = s.copy()
    tree.slider.setQFromVector(t, [0.75])
    tree.slider.setUFromVector(t, [-0.5])
    assert tree.slider.getOneQ(t, 0) == 0.75 and tree.slider.getOneU(t, 0) == -0.5
    assert_close(tree.ball.getDefaultQ(), [1.0, 0.0, 0.0, 0.0], tol=1e-12)
    inertia = tree.pin.getBodyInertiaAboutBodyOrigin(s).toMat33()
    assert_close(inertia[0, 1], 0.01, tol=1e-12)
    assert tree.matter.Ground().getDefaultQ().shape == (0,)


def test_changing_default_frames_changes_the_topology():
    t = Tree()
    s = t.realized(stage=Stage.Position)
    X_GB_before = t.pin.getBodyTransform(s)
    new_X_PF = Transform(Rotation(0.1, Vec3(0, 0, 1)), Vec3(0.0, 2.0, 0.0))
    t.pin.setDefaultInboardFrame(new_X_PF).setDefaultOutboardFrame(Transform())
    assert_close(t.pin.getDefaultInboardFrame().p(), [0.0, 2.0, 0.0], tol=1e-12)
    with pytest.raises(SimTKError):
        t.system.realize(s, Stage.Position)  # the State belongs to the old topology
    state = t.system.realizeTopology()
    t.system.realizeModel(state)
    state.setQ(t.q)
    t.system.realize(state, Stage.Position)
    X_FM = t.pin.getMobilizerTransform(state)
    expected = new_X_PF.R().asMat33() @ X_FM.R().asMat33()
    assert_close(t.pin.getBodyRotation(state).asMat33(), expected, tol=1e-12)
    assert_close(t.pin.getBodyOriginLocation(state), [0.0, 2.0, 0.0], tol=1e-12)
    assert not np.allclose(X_GB_before.p(), [0.0, 2.0, 0.0])
    with pytest.raises(InvalidArgumentError):
        t.matter.Ground().setDefaultInboardFrame(Transform())
