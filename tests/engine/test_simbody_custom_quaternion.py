"""A quaternion Custom mobilizer (Custom::Implementation with nAngles = 4), written as a Simbody
user writes one: a ball joint whose q is a quaternion (or x-y-z angles when the State uses Euler
angles) and whose u is w_FM in F, with its own N, NInv and NDot. It must behave as the built-in
Ball: same q layout and counts in both modes, quaternion normalization, conversions, the same
accelerations and an energy-conserving simulation."""

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
    Quaternion,
    Rotation,
    RungeKuttaMersonIntegrator,
    SimbodyMatterSubsystem,
    Stage,
    TimeStepper,
    Transform,
    Vec3,
)


class QuaternionBall(MobilizedBody.Custom.Implementation):
    """A Ball: q = quaternion [w, x, y, z] (Euler mode: body-fixed x-y-z angles), u = w_FM."""

    def __init__(self, matter):
        super().__init__(matter, 3, 4, 4)  # nu, nq, nAngles = 4: a quaternion

    def calcMobilizerTransformFromQ(self, state, q):
        if self.getUseEulerAngles(state):
            return Transform(Rotation().setRotationToBodyFixedXYZ(Vec3(*q[0:3])), Vec3(0))
        return Transform(Rotation(Quaternion(q[0:4])), Vec3(0))

    def multiplyByHMatrix(self, state, u):
        return np.array([u[0:3], [0.0, 0.0, 0.0]])

    def multiplyByHDotMatrix(self, state, u):
        return np.zeros((2, 3))

    def _n(self, state):
        q = self.getQ(state)
        if self.getUseEulerAngles(state):
            return Rotation.calcNForBodyXYZInParentFrame(q[0:3])
        return Rotation.calcUnnormalizedNForQuaternion(q[0:4])

    def multiplyByN(self, state, matrixOnRight, inp):
        N = self._n(state)
        return (N.T if matrixOnRight else N) @ np.asarray(inp)

    def multiplyByNInv(self, state, matrixOnRight, inp):
        q = self.getQ(state)
        if self.getUseEulerAngles(state):
            NInv = Rotation.calcNInvForBodyXYZInParentFrame(q[0:3])
        else:
            NInv = Rotation.calcUnnormalizedNInvForQuaternion(q[0:4])
        return (NInv.T if matrixOnRight else NInv) @ np.asarray(inp)

    def multiplyByNDot(self, state, matrixOnRight, inp):
        q, qdot = self.getQ(state), self.getQDot(state)
        if self.getUseEulerAngles(state):
            NDot = Rotation.calcNDotForBodyXYZInParentFrame(q[0:3], qdot[0:3])
        else:
            NDot = Rotation.calcUnnormalizedNDotForQuaternion(qdot[0:4])
        return (NDot.T if matrixOnRight else NDot) @ np.asarray(inp)


X_BM = Transform(Vec3(0.2, 1.0, -0.1))


def _model(custom: bool, euler: bool):
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.UniformGravity(forces, matter, Vec3(0, -9.8, 0))
    body = Body.Rigid(MassProperties(2.0, Vec3(0.1, 0, 0), Inertia(0.3, 0.4, 0.5)))
    if custom:
        ball = MobilizedBody.Custom(
            matter.Ground(), Transform(), body, X_BM, QuaternionBall(matter)
        )
    else:
        ball = MobilizedBody.Ball(matter.Ground(), Transform(), body, X_BM)
    tip = MobilizedBody.Pin(ball, Transform(Vec3(0, -0.5, 0)), body, Transform())
    state = system.realizeTopology()
    matter.setUseEulerAngles(state, euler)
    system.realizeModel(state)
    return system, matter, ball, tip, state


@pytest.mark.parametrize("euler", [False, True])
def test_quaternion_custom_matches_the_builtin_ball(euler):
    results = []
    for custom in (False, True):
        system, matter, ball, tip, state = _model(custom, euler)
        assert ball.getNumQ(state) == (3 if euler else 4)
        assert matter.getNumQuaternionsInUse(state) == (0 if euler else 1)
        assert matter.isUsingQuaternion(state, ball) == (not euler)
        np.testing.assert_allclose(ball.getQ(state), [0, 0, 0] if euler else [1, 0, 0, 0])
        q = [0.3, -0.2, 0.5] if euler else np.array([0.9, 0.2, -0.3, 0.1]) / np.sqrt(0.95)
        ball.setQ(state, q)
        ball.setU(state, [0.4, -1.2, 0.7])
        tip.setOneU(state, 0, 0.5)
        system.realize(state, Stage.Acceleration)
        results.append(
            (
                np.array(state.getQDot()),
                np.array(state.getUDot()),
                np.array(state.getQDotDot()),
                ball.getBodyTransform(state).toMat44(),
                tip.getBodyAcceleration(state),
            )
        )
    for a, b in zip(*results, strict=True):
        np.testing.assert_allclose(b, a, atol=1e-12)


def test_quaternion_custom_normalization_conversion_and_energy():
    system, matter, ball, tip, state = _model(True, False)
    ball.setQ(state, [2.0, 0.4, -0.6, 0.2])  # not unit length
    system.realize(state, Stage.Position)
    qerr = np.array(state.getQErr())
    assert qerr[-1] == pytest.approx(np.linalg.norm([2.0, 0.4, -0.6, 0.2]) - 1)
    matter.normalizeQuaternions(state)
    assert np.linalg.norm(ball.getQ(state)) == pytest.approx(1.0)
    system.realize(state, Stage.Position)
    X = ball.getBodyTransform(state).toMat44()
    euler = matter.convertToEulerAngles(state)
    system.realize(euler, Stage.Position)
    assert ball.getNumQ(euler) == 3
    np.testing.assert_allclose(ball.getBodyTransform(euler).toMat44(), X, atol=1e-12)
    back = matter.convertToQuaternions(euler)
    system.realize(back, Stage.Position)
    np.testing.assert_allclose(ball.getBodyTransform(back).toMat44(), X, atol=1e-12)
    # A simulation conserves energy and keeps the quaternion unit length.
    ball.setU(state, [0.4, -1.2, 0.7])
    system.realize(state, Stage.Velocity)
    e0 = system.calcEnergy(state)
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(1e-8)
    ts = TimeStepper(system, integ)
    ts.initialize(state)
    ts.stepTo(0.5)
    final = integ.getState()
    system.realize(final, Stage.Velocity)
    assert system.calcEnergy(final) == pytest.approx(e0, abs=1e-5)
    assert np.linalg.norm(ball.getQ(final)) == pytest.approx(1.0, abs=1e-8)
