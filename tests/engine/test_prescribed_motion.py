"""Prescribed motion and locks: physics oracles and bad input.

- a locked mobility never moves in a simulation (Position lock), or keeps its speed
  (Velocity lock); an Acceleration lock gives exactly the locked udot;
- a Steady motion at Velocity level integrates q exactly (q = q0 + rate t);
- lock then unlock restores the free dynamics;
- a Position-level Motion.Sinusoid gives the same accelerations, and the same generalized
  force, as the equivalent Constraint.PrescribedMotion (a multiplier instead of tau);
- Motion.Custom with sinusoid formulas equals Motion.Sinusoid;
- with a closed loop and a prescribed crank, the constraint solve keeps the prescribed
  udot, satisfies G udot + b = 0 and M udot + G^T lambda + tau = f - bias;
- bad input (lockAt with a wrong size or level, a Motion on Ground, a second Motion, a
  Custom implementation returning the wrong size) raises a clear error before anything
  changes.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine import (
    Body,
    Constraint,
    Force,
    Function,
    GeneralForceSubsystem,
    Inertia,
    MassProperties,
    MobilizedBody,
    Motion,
    MultibodySystem,
    SimbodyMatterSubsystem,
    Stage,
    Transform,
)
from engine.common.exceptions import InvalidArgumentError, StageTooLowError
from engine.integrators import RungeKuttaMersonIntegrator, TimeStepper

A, W, PHI = 0.4, 1.3, 0.2  # sinusoid amplitude (rad), rate (rad/s), phase (rad)


def _body() -> Body:
    return Body.Rigid(MassProperties(1.0, [0.5, 0, 0], Inertia(0.01, 0.3, 0.3)))


def _chain(n: int = 3, motion=None, lock_default=None):
    """Planar chain of n pins (gravity -y), links 1 m along x; optional Motion on body 2."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.UniformGravity(forces, matter, [0, -9.81, 0])
    mobods = [matter.Ground()]
    for k in range(n):
        X_PF = Transform() if k == 0 else Transform([1.0, 0, 0])
        mobods.append(MobilizedBody.Pin(mobods[-1], X_PF, _body(), Transform()))
    if motion is not None:
        motion(mobods[2])
    if lock_default is not None:
        mobods[2].lockByDefault(lock_default)
    return system, matter, mobods


def _state(system, q=(0.3, -0.4, 0.5), u=(0.2, 0.7, -0.3), t=0.0):
    state = system.realizeTopology()
    state.setTime(t)
    state.setQ(q)
    state.setU(u)
    system.realize(state, Stage.Model)
    return state


def _simulate(system, state, t_end: float, reports: int = 5, accuracy: float = 1e-8):
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(accuracy)
    stepper = TimeStepper(system, integ)
    stepper.initialize(state)
    out = []
    for t in np.linspace(t_end / reports, t_end, reports):
        stepper.stepTo(t)
        s = stepper.getState()
        out.append((s.getTime(), np.array(s.getQ()), np.array(s.getU())))
    return out


# -------------------------------------------------------------------- locks


def test_position_lock_never_moves_in_a_simulation():
    system, matter, mobods = _chain()
    state = _state(system)
    mobods[2].lock(state)  # at the current q = -0.4, u = 0
    assert state.getSystemStage() == Stage.Model
    assert mobods[2].getLockLevel(state) == Motion.Position
    np.testing.assert_array_equal(mobods[2].getLockValueAsVector(state), [-0.4])
    system.realize(state, Stage.Instance)
    np.testing.assert_array_equal(matter.getFreeQIndex(state), [0, 2])
    np.testing.assert_array_equal(matter.getKnownUDotIndex(state), [1])
    for _, q, u in _simulate(system, state, 1.0, accuracy=1e-6):
        assert q[1] == -0.4 and u[1] == 0.0
        assert np.any(q[[0, 2]] != [0.3, 0.5])  # the free links do move


def test_velocity_lock_keeps_its_speed_and_acceleration_lock_its_udot():
    system, matter, mobods = _chain()
    state = _state(system)
    mobods[2].lockAt(state, 0.9, Motion.Velocity)
    np.testing.assert_array_equal(matter.getFreeQIndex(_realized(system, state)), [0, 1, 2])
    for t, q, u in _simulate(system, state, 1.0):
        assert u[1] == 0.9
        assert q[1] == pytest.approx(-0.4 + 0.9 * t, abs=1e-9)
    mobods[2].lockAt(state, [2.5], Motion.Acceleration)
    system.realize(state, Stage.Acceleration)
    assert matter.getUDot(state)[1] == 2.5
    np.testing.assert_array_equal(matter.getFreeUIndex(state), [0, 1, 2])
    np.testing.assert_array_equal(matter.getFreeUDotIndex(state), [0, 2])
    assert mobods[2].getUMotionMethod(state) == Motion.Free
    assert mobods[2].getUDotMotionMethod(state) == Motion.Discrete


def _realized(system, state, stage=Stage.Instance):
    system.realize(state, stage)
    return state


def test_lock_then_unlock_restores_the_free_dynamics():
    system, matter, mobods = _chain()
    free = _realized(system, _state(system), Stage.Acceleration)
    udot_free = np.array(free.getUDot())
    state = _state(system)
    mobods[2].lockAt(state, -0.4)
    system.realize(state, Stage.Acceleration)
    assert not np.allclose(state.getUDot(), udot_free)
    mobods[2].unlock(state)
    assert state.getSystemStage() == Stage.Model
    assert not mobods[2].isLocked(state) and mobods[2].getLockValueAsVector(state).size == 0
    system.realize(state, Stage.Acceleration)
    np.testing.assert_allclose(state.getUDot(), udot_free, rtol=0, atol=1e-13)
    assert matter.getMotionMultipliers(state).size == 0
    np.testing.assert_array_equal(matter.getFreeUDotIndex(state), [0, 1, 2])


def test_lock_by_default_uses_the_default_q():
    system, matter, mobods = _chain(lock_default=Motion.Position)
    assert mobods[2].isLockedByDefault()
    state = system.realizeTopology()
    system.realize(state, Stage.Instance)
    assert mobods[2].getLockLevel(state) == Motion.Position
    np.testing.assert_array_equal(mobods[2].getLockValueAsVector(state), [0.0])
    np.testing.assert_array_equal(system.getFreeQIndex(state), [0, 2])


def test_locked_multipliers_are_the_holding_force():
    """A Position lock holds the mobility with tau = f - bias - (M udot) at that slot, and
    the motion does no work (u = 0 there)."""
    system, matter, mobods = _chain()
    state = _state(system, u=(0.2, 0.0, -0.3))
    mobods[2].lockAt(state, -0.4)
    system.realize(state, Stage.Acceleration)
    tau = matter.findMotionForces(state)
    M = matter.calcM(state)
    nb = len(mobods)
    body, mobility = system.getAppliedForces(state)
    f = mobility + matter.multiplyBySystemJacobianTranspose(state, body.reshape(nb, 2, 3))
    bias = matter.calcResidualForceIgnoringConstraints(
        state, [0] * 3, np.zeros((nb, 2, 3)), [0] * 3
    )
    np.testing.assert_allclose(M @ state.getUDot() + tau, f - bias, atol=1e-12)
    assert tau[1] != 0 and tau[0] == 0 and tau[2] == 0
    assert matter.calcMotionPower(state) == 0.0


# ------------------------------------------------------------------ Motions


def test_steady_motion_integrates_q_exactly():
    system, matter, mobods = _chain(motion=lambda mb: Motion.Steady(mb, 1.25))
    state = _state(system)
    for t, q, u in _simulate(system, state, 1.5):
        assert u[1] == 1.25
        assert q[1] == pytest.approx(-0.4 + 1.25 * t, rel=0, abs=1e-12)


def test_steady_rate_is_a_state_variable():
    motion = []
    system, matter, mobods = _chain(motion=lambda mb: motion.append(Motion.Steady(mb, 1.0)))
    steady = motion[0]
    state = _state(system)
    system.realize(state, Stage.Acceleration)
    steady.setRate(state, -2.0)
    assert state.getSystemStage() == Stage.Time
    assert steady.getRate(state) == -2.0 and steady.getDefaultRate() == 1.0
    system.prescribe(state)
    assert state.getU()[1] == -2.0
    assert mobods[2].getMotion() is steady and mobods[2].hasMotion()


def test_sinusoid_motion_equals_prescribed_motion_constraint():
    """Motion (tau) and Constraint.PrescribedMotion (lambda) give the same udot, and the
    constraint's generalized force is the motion force."""
    system, matter, mobods = _chain(
        motion=lambda mb: Motion.Sinusoid(mb, Motion.Position, A, W, PHI)
    )
    state = _state(system, t=0.7)
    system.prescribe(state)
    system.realize(state, Stage.Acceleration)

    system2, matter2, mobods2 = _chain()
    Constraint.PrescribedMotion(matter2, Function.Sinusoid(A, W, PHI), mobods2[2], 0)
    state2 = _state(system2, q=state.getQ(), u=state.getU(), t=0.7)
    system2.realize(state2, Stage.Acceleration)
    np.testing.assert_allclose(state.getUDot(), state2.getUDot(), rtol=0, atol=1e-11)
    assert state.getUDot()[1] == pytest.approx(-A * W * W * math.sin(W * 0.7 + PHI), abs=1e-14)
    _, f_constraint = matter2.findConstraintForces(state2)
    # both enter the equations the same way: M udot + tau = M udot + G^T lambda = f - bias
    np.testing.assert_allclose(matter.findMotionForces(state), f_constraint, atol=1e-11)


def test_simulation_with_a_driven_joint_matches_the_constraint_version():
    def make_motion(mb):
        Motion.Sinusoid(mb, Motion.Position, A, W, PHI)

    system, matter, mobods = _chain(motion=make_motion)
    res = _simulate(system, _state(system), 1.0, reports=2, accuracy=1e-7)
    system2, matter2, mobods2 = _chain()
    Constraint.PrescribedMotion(matter2, Function.Sinusoid(A, W, PHI), mobods2[2], 0)
    state2 = _state(system2)
    system2.project(state2)
    res2 = _simulate(system2, state2, 1.0, reports=2, accuracy=1e-7)
    for (t, q, u), (_, q2, u2) in zip(res, res2, strict=True):
        assert q[1] == A * math.sin(W * t + PHI)  # exactly the prescription
        assert u[1] == A * W * math.cos(W * t + PHI)
        np.testing.assert_allclose(q, q2, atol=1e-5)
        np.testing.assert_allclose(u, u2, atol=1e-5)


class _SinusoidImpl(Motion.Custom.Implementation):
    def __init__(self, level):
        self.level = level

    def getLevel(self, state):
        return self.level

    def _f(self, state, order, n):
        x = W * state.getTime() + PHI
        return np.full(n, (A * math.sin(x), A * W * math.cos(x), -A * W * W * math.sin(x))[order])

    def calcPrescribedPosition(self, state, nq):
        return self._f(state, 0, nq)

    def calcPrescribedPositionDot(self, state, nq):
        return self._f(state, 1, nq)

    def calcPrescribedPositionDotDot(self, state, nq):
        return self._f(state, 2, nq)

    def calcPrescribedVelocity(self, state, nu):
        return self._f(state, 0, nu)

    def calcPrescribedVelocityDot(self, state, nu):
        return self._f(state, 1, nu)

    def calcPrescribedAcceleration(self, state, nu):
        return self._f(state, 0, nu)


@pytest.mark.parametrize("level", [Motion.Position, Motion.Velocity, Motion.Acceleration])
def test_custom_motion_equals_sinusoid(level):
    results = []
    for make in (
        lambda mb: Motion.Custom(mb, _SinusoidImpl(level)),
        lambda mb: Motion.Sinusoid(mb, level, A, W, PHI),
    ):
        system, matter, mobods = _chain(motion=make)
        state = _state(system, t=0.4)
        system.prescribe(state)
        system.realize(state, Stage.Acceleration)
        results.append(
            (
                np.array(state.getQ()),
                np.array(state.getU()),
                np.array(state.getUDot()),
                matter.getMotionMultipliers(state),
                [int(m) for m in matter.getMobilizedBody(2).getMotion().calcAllMethods(state)],
            )
        )
    for a, b in zip(*results, strict=True):
        np.testing.assert_array_equal(a, b)


def test_motion_levels_and_methods_follow_simbodys_table():
    assert Motion.Sinusoid is not None
    system, matter, mobods = _chain(motion=lambda mb: Motion.Steady(mb, [0.5]))
    state = _realized(system, _state(system))
    mb = mobods[2]
    assert mb.getMotion().getLevel(state) == Motion.Velocity
    assert (
        mb.getQMotionMethod(state),
        mb.getUMotionMethod(state),
        mb.getUDotMotionMethod(state),
    ) == (Motion.Free, Motion.Prescribed, Motion.Prescribed)
    assert mobods[1].getUDotMotionMethod(state) == Motion.Free
    assert Motion.nameOfLevel(Motion.NoLevel) == "NoLevel"
    assert Motion.nameOfMethod(Motion.Discrete) == "Discrete"
    # a lock overrides the Motion while it is active
    mb.lockAt(state, -0.4)
    system.realize(state, Stage.Instance)
    assert mb.getQMotionMethod(state) == Motion.Discrete
    assert mb.getUMotionMethod(state) == Motion.Zero


# ---------------------------------------------------- constraints + Motions


def test_prescribed_crank_in_a_closed_loop():
    """Planar four-bar (three pinned links, the last closed to a Ground point by a Rod)
    with the crank driven: projection moves only the free q and u, the constraint solve
    keeps the prescribed udot, the constraints are met and the full equations of motion
    hold; a simulation keeps the crank on its prescription and the loop closed."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.UniformGravity(forces, matter, [0, -9.81, 0])
    ground = matter.Ground()
    crank = MobilizedBody.Pin(ground, Transform(), _body(), Transform())
    coupler = MobilizedBody.Pin(crank, Transform([1.0, 0, 0]), _body(), Transform())
    rocker = MobilizedBody.Pin(coupler, Transform([1.0, 0, 0]), _body(), Transform())
    Constraint.Rod(ground, [1.5, 0, 0], rocker, [1.0, 0, 0], 0.8)
    Motion.Sinusoid(crank, Motion.Position, A, W, PHI)
    state = system.realizeTopology()
    state.setTime(0.3)
    state.setQ([0.2, 1.2, 1.4])
    system.project(state, 1e-12)
    assert state.getQ()[0] == A * math.sin(W * 0.3 + PHI)  # projection left it alone
    assert state.getU()[0] == A * W * math.cos(W * 0.3 + PHI)
    assert abs(state.getQErr()[0]) < 1e-12 and abs(state.getUErr()[0]) < 1e-12
    system.realize(state, Stage.Acceleration)
    udot = np.array(state.getUDot())
    assert udot[0] == pytest.approx(-A * W * W * math.sin(W * 0.3 + PHI), abs=1e-13)
    np.testing.assert_allclose(state.getUDotErr(), 0, atol=1e-10)
    M = matter.calcM(state)
    GT = matter.calcGTranspose(state)
    lam = matter.getConstraintMultipliers(state)
    tau = matter.findMotionForces(state)
    nb = matter.getNumBodies()
    body, mobility = system.getAppliedForces(state)
    f = mobility + matter.multiplyBySystemJacobianTranspose(state, body.reshape(nb, 2, 3))
    bias = matter.calcResidualForceIgnoringConstraints(
        state, [0] * 3, np.zeros((nb, 2, 3)), [0] * 3
    )
    np.testing.assert_allclose(M @ udot + GT @ lam + tau, f - bias, atol=1e-10)
    assert tau[0] != 0 and tau[1] == 0 and tau[2] == 0
    # the free-mobility M^-1 used by the solve never moves the crank
    assert matter.multiplyByMInv(state, [1.0, 2.0, 3.0])[0] == 0.0

    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(1e-6)
    integ.setConstraintTolerance(1e-8)
    stepper = TimeStepper(system, integ)
    stepper.initialize(state)
    for t in (0.5, 1.0):
        stepper.stepTo(t)
        s = stepper.getState()
        system.realize(s, Stage.Velocity)
        assert s.getQ()[0] == A * math.sin(W * s.getTime() + PHI)
        assert abs(s.getQErr()[0]) <= 1e-8 and abs(s.getUErr()[0]) <= 1e-8


# ---------------------------------------------------------------- bad input


def test_bad_input_gives_clear_errors():
    system, matter, mobods = _chain(motion=lambda mb: Motion.Steady(mb, 1.0))
    with pytest.raises(InvalidArgumentError, match="Ground cannot be given a Motion"):
        Motion.Steady(matter.Ground(), 1.0)
    with pytest.raises(InvalidArgumentError, match="already has a Motion"):
        Motion.Sinusoid(mobods[2], Motion.Position, 1, 1, 0)
    with pytest.raises(InvalidArgumentError, match="at most|mobilities"):
        Motion.Steady(mobods[3], [1.0, 2.0])
    with pytest.raises(InvalidArgumentError, match="Motion.Position"):
        Motion.Sinusoid(mobods[3], "Jerk", 1, 1, 0)

    state = system.realizeTopology()
    system.realize(state, Stage.Acceleration)
    with pytest.raises(InvalidArgumentError, match="has 1 q's, got 2"):
        mobods[1].lockAt(state, [0.1, 0.2])
    with pytest.raises(InvalidArgumentError, match="Motion.Position, Motion.Velocity"):
        mobods[1].lockAt(state, 0.1, 7)
    with pytest.raises(InvalidArgumentError, match="NoLevel is not a lock level"):
        mobods[1].lockAt(state, 0.1, Motion.NoLevel)
    with pytest.raises(InvalidArgumentError, match="Ground cannot be locked"):
        matter.Ground().lock(state)
    with pytest.raises(InvalidArgumentError, match="finite"):
        mobods[1].lockAt(state, math.nan)
    assert state.getSystemStage() == Stage.Acceleration  # nothing changed
    assert not mobods[1].isLocked(state)
    with pytest.raises(InvalidArgumentError, match="stage must be Position"):
        matter.calcMotionErrors(state, Stage.Dynamics)
    with pytest.raises(InvalidArgumentError, match="length 2"):
        matter.unpackFreeU(state, [1.0])

    fresh = system.realizeTopology()
    with pytest.raises(StageTooLowError):
        matter.getMotionMultipliers(fresh)


def test_custom_motion_returning_the_wrong_size_is_reported():
    class Bad(Motion.Custom.Implementation):
        def getLevel(self, state):
            return Motion.Velocity

        def calcPrescribedVelocity(self, state, nu):
            return np.zeros(nu + 1)

    system, matter, mobods = _chain(motion=lambda mb: Motion.Custom(mb, Bad()))
    state = system.realizeTopology()
    with pytest.raises(InvalidArgumentError, match="must return 1 finite values"):
        system.prescribe(state)
    with pytest.raises(InvalidArgumentError, match="Implementation"):
        Motion.Custom(mobods[3], object())


def test_pack_and_unpack_free_variables():
    system, matter, mobods = _chain()
    state = _state(system)
    mobods[2].lockAt(state, 0.25)
    system.realize(state, Stage.Instance)
    q = np.array([1.0, 2.0, 3.0])
    packed = matter.packFreeQ(state, q)
    np.testing.assert_array_equal(packed, [1.0, 3.0])
    np.testing.assert_array_equal(matter.unpackFreeQ(state, packed), [1.0, 0.0, 3.0])
    np.testing.assert_array_equal(matter.unpackFreeQ(state, [7, 8], q), [7.0, 2.0, 8.0])
    np.testing.assert_array_equal(matter.packFreeU(state, q), [1.0, 3.0])
    np.testing.assert_array_equal(matter.unpackFreeU(state, [5, 6]), [5.0, 0.0, 6.0])
    system.prescribe(state)
    assert state.getQ()[1] == 0.25 and state.getU()[1] == 0.0
    assert system.getNumPrescribeQCalls() == 1


class _ZeroImpl(Motion.Custom.Implementation):
    def __init__(self, level):
        self.level = level

    def getLevel(self, state):
        return self.level

    def getLevelMethod(self, state):
        return Motion.Zero


def _ball_model(motion=None, lock_default=None):
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.UniformGravity(forces, matter, [0, -9.81, 0])
    pin = MobilizedBody.Pin(matter.Ground(), Transform(), _body(), Transform())
    ball = MobilizedBody.Ball(pin, Transform([1.0, 0, 0]), _body(), Transform())
    if motion is not None:
        motion(ball)
    if lock_default is not None:
        ball.lockByDefault(lock_default)
    return system, matter, ball


@pytest.mark.parametrize("euler", [False, True])
def test_zero_method_at_position_level_holds_the_reference_pose(euler):
    system, matter, ball = _ball_model(lambda mb: Motion.Custom(mb, _ZeroImpl(Motion.Position)))
    state = system.realizeTopology()
    matter.setUseEulerAngles(state, euler)
    system.realizeModel(state)
    state.setQ(0.3 * np.ones(state.getNQ()))
    state.setU(0.5 * np.ones(state.getNU()))
    system.prescribe(state)
    reference = [0.0, 0.0, 0.0] if euler else [1.0, 0.0, 0.0, 0.0]
    np.testing.assert_array_equal(ball.getQ(state), reference)
    np.testing.assert_array_equal(ball.getU(state), [0.0, 0.0, 0.0])
    system.realize(state, Stage.Acceleration)
    np.testing.assert_array_equal(ball.getUDotAsVector(state), [0.0, 0.0, 0.0])
    assert (ball.getQMotionMethod(state), ball.getUMotionMethod(state)) == (
        Motion.Zero,
        Motion.Zero,
    )
    np.testing.assert_array_equal(matter.getFreeQIndex(state), [0])
    np.testing.assert_allclose(matter.calcMotionErrors(state, Stage.Position), 0.0)


def test_zero_method_at_velocity_level_holds_q_and_stops_u():
    system, matter, ball = _ball_model(lambda mb: Motion.Custom(mb, _ZeroImpl(Motion.Velocity)))
    state = system.realizeTopology()
    state.setU([0.2, 0.5, 0.5, 0.5])
    q_before = np.array(ball.getQ(state))
    system.prescribe(state)
    np.testing.assert_array_equal(ball.getQ(state), q_before)  # Discrete: held, not set
    np.testing.assert_array_equal(ball.getU(state), [0.0, 0.0, 0.0])
    assert ball.getQMotionMethod(state) == Motion.Discrete
    np.testing.assert_array_equal(system.getFreeQIndex(state), [0])
    np.testing.assert_array_equal(system.getFreeUIndex(state), [0])


@pytest.mark.parametrize("euler", [False, True])
def test_ball_locks(euler):
    system, matter, ball = _ball_model(lock_default=Motion.Position)
    state = system.realizeTopology()
    matter.setUseEulerAngles(state, euler)
    system.realizeModel(state)
    reference = [0.0, 0.0, 0.0] if euler else [1.0, 0.0, 0.0, 0.0]
    np.testing.assert_array_equal(ball.getLockValueAsVector(state), reference)
    value = [0.1, 0.2, 0.3] if euler else [0.5, 0.5, 0.5, 0.5]
    ball.lockAt(state, value)
    with pytest.raises(InvalidArgumentError, match="has 3 u's, got 4"):
        ball.lockAt(state, [1, 2, 3, 4], Motion.Velocity)
    state.setU([0.4, 1.0, 1.0, 1.0])
    for _, q, u in _simulate(system, state, 0.5, reports=2):
        np.testing.assert_array_equal(q[1 : 1 + len(value)], value)  # Euler: 3 of 4 slots
        np.testing.assert_array_equal(u[1:], 0.0)


def test_articulated_inertias_are_the_hybrid_ones():
    """With every body outboard of body 1 locked, nothing outboard can move relative to it,
    so its (hybrid) articulated body inertia is its composite body inertia; the free
    chain's differs. multiplyByMInv then acts on the one free mobility as 1/M_11."""
    system, matter, mobods = _chain()
    state = _state(system)
    system.realize(state, Stage.Position)
    free_abi = matter.getArticulatedBodyInertia(state, mobods[1]).toSpatialMat()
    cbi = matter.getCompositeBodyInertia(state, mobods[1]).toSpatialMat()
    assert not np.allclose(free_abi, cbi)
    mobods[2].lock(state)
    mobods[3].lock(state)
    system.realize(state, Stage.Position)
    hybrid = matter.getArticulatedBodyInertia(state, mobods[1]).toSpatialMat()
    np.testing.assert_allclose(hybrid, cbi, rtol=1e-13, atol=1e-13)
    M = matter.calcM(state)
    np.testing.assert_allclose(matter.multiplyByMInv(state, [1.0, 5.0, 6.0]), [1 / M[0, 0], 0, 0])
