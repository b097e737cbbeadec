"""Assembler API: settings, locks, bounds, weights, user conditions (numerical
derivatives), internal State, statistics."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine import (
    IndexOutOfRangeError,
    InvalidArgumentError,
    SimTKError,
    Stage,
)
from engine.assembler import Assembler, AssemblyCondition, BuiltInConstraints, QValue
from tests.engine.assembler_fixtures import (
    Evaluator,
    loop_errors,
    projected_gradient,
    user_loop_condition,
)
from tests.engine.reference_data import load_reference
from tests.engine.reference_models import build_tree

FOURBAR = next(m for m in load_reference("assembler")["models"] if m["name"] == "fourbar_rod")
ROD = FOURBAR["model"]["constraints"][0]
Q_START = FOURBAR["runs"][0]["q_start"]


def _fourbar():
    system, matter, mobods = build_tree(FOURBAR["model"])
    return system, matter, mobods


def test_defaults_and_settings():
    system, matter, _ = _fourbar()
    asm = Assembler(system)
    assert asm.getAccuracyInUse() == 1e-3
    assert asm.getErrorToleranceInUse() == pytest.approx(1e-4)
    asm.setAccuracy(1e-6)
    assert asm.getErrorToleranceInUse() == pytest.approx(1e-7)
    asm.setErrorTolerance(1e-9)
    assert asm.getErrorToleranceInUse() == 1e-9
    asm.unsetAccuracy().unsetErrorTolerance()
    assert asm.getAccuracyInUse() == 1e-3
    for bad in (-1.0, math.nan):
        with pytest.raises(InvalidArgumentError):
            asm.setAccuracy(bad)
        with pytest.raises(InvalidArgumentError):
            asm.setErrorTolerance(bad)
    assert asm.getSystemConstraintsWeight() == math.inf
    assert isinstance(asm.getAssemblyCondition(0), BuiltInConstraints)
    with pytest.raises(InvalidArgumentError, match="weight"):
        asm.setSystemConstraintsWeight(-2)
    with pytest.raises(IndexOutOfRangeError):
        asm.getAssemblyCondition(5)
    with pytest.raises(InvalidArgumentError, match="MultibodySystem"):
        Assembler(object())
    assert not asm.isUsingRMSErrorNorm()


def test_free_q_maps_need_initialization_and_follow_locks():
    system, matter, mobods = _fourbar()
    asm = Assembler(system)
    with pytest.raises(SimTKError, match="initialize"):
        asm.getNumFreeQs()
    asm.initialize()
    assert asm.getNumFreeQs() == 2
    asm.lockQ(1, 0)
    assert asm.isQLocked(1, 0) and not asm.isMobilizerLocked(1)
    assert not asm.isInitialized()
    asm.initialize()
    assert asm.getNumFreeQs() == 1 and asm.getQIndexOfFreeQ(0) == 1
    asm.unlockQ(1, 0)
    asm.lockMobilizer(mobods[2])
    asm.initialize()
    assert asm.getNumFreeQs() == 1 and asm.getQIndexOfFreeQ(0) == 0
    assert asm.getFreeQIndexOfQ(1) == -1
    asm.unlockMobilizer(2)
    asm.initialize()
    assert asm.getNumFreeQs() == 2
    with pytest.raises(IndexOutOfRangeError):
        asm.getQIndexOfFreeQ(2)
    with pytest.raises(IndexOutOfRangeError):
        asm.getFreeQIndexOfQ(7)
    with pytest.raises(IndexOutOfRangeError, match="no mobilized body 9"):
        asm.lockMobilizer(9)
    with pytest.raises(IndexOutOfRangeError, match="no q 1"):
        asm.lockQ(1, 1)
    assert asm.getNumInitializations() == 4


def _fourbar_assembler(**kw):
    system, matter, mobods = _fourbar()
    asm = Assembler(system).setAccuracy(1e-10).setErrorTolerance(1e-12)
    asm.adoptAssemblyError(user_loop_condition(ROD))
    state = system.realizeTopology()
    state.setQ(Q_START)
    return system, matter, asm, state


def test_locked_mobilizer_stays_and_the_other_closes_the_loop():
    system, matter, asm, state = _fourbar_assembler()
    asm.lockMobilizer(2)
    asm.assemble(state)
    q = state.getQ()
    assert q[1] == Q_START[1]
    assert abs(loop_errors(matter, Evaluator(system, matter).at(q), ROD)[0]) <= 1e-12


def test_restrict_q_keeps_the_result_in_bounds():
    """Without bounds the crank moves down to 1.7049 (see assembler.json); with the crank
    restricted to >= 1.74 the rocker must do the work."""
    system, matter, asm, state = _fourbar_assembler()
    asm.restrictQ(1, 0, 1.74, 2.0)
    assert asm.isQRestricted(1, 0)
    asm.assemble(state)
    q = state.getQ()
    assert 1.74 <= q[0] <= 2.0
    assert abs(loop_errors(matter, Evaluator(system, matter).at(q), ROD)[0]) <= 1e-12
    with pytest.raises(InvalidArgumentError, match="lowerBound <= upperBound"):
        asm.restrictQ(1, 0, 1.0, 0.0)
    asm.unrestrictQ(1, 0)
    assert not asm.isQRestricted(1, 0)


def test_system_constraints_weight_zero_ignores_them_and_finite_makes_a_goal():
    system, matter, mobods = _fourbar()
    asm = Assembler(system)
    asm.setSystemConstraintsWeight(0)
    assert asm.getSystemConstraintsWeight() == 0
    state = system.realizeTopology()
    state.setQ(Q_START)
    assert asm.assemble(state) == 0.0
    np.testing.assert_array_equal(state.getQ(), Q_START)
    # A user loop condition adopted as a goal with finite weight is minimized (to zero).
    asm2 = Assembler(system).setAccuracy(1e-10)
    asm2.adoptAssemblyGoal(user_loop_condition(ROD), 3.0)
    goal = asm2.assemble(state)
    err = loop_errors(matter, Evaluator(system, matter).at(state.getQ()), ROD)[0]
    assert goal == pytest.approx(3.0 * err**2, abs=1e-20)  # default goal = err^2 / m
    assert abs(err) < 1e-9


def test_goal_only_user_condition_uses_numerical_gradient():
    """A condition with only calcGoal: minimize the crank-rocker angle difference squared
    on the loop; the result is stationary on the constraint manifold."""
    system, matter, asm, state = _fourbar_assembler()

    class Spread(AssemblyCondition):
        def __init__(self):
            super().__init__("spread")

        def calcGoal(self, s):
            q = self.getMatterSubsystem().getQ(s)
            return (q[0] + q[1] - 0.2) ** 2 + 0.1 * q[0] ** 4

    asm.adoptAssemblyGoal(Spread(), 0.5)
    goal = asm.assemble(state)
    q = np.array(state.getQ())
    ev = Evaluator(system, matter)

    def f(qq):
        return 0.5 * ((qq[0] + qq[1] - 0.2) ** 2 + 0.1 * qq[0] ** 4)

    assert goal == pytest.approx(f(q), rel=1e-12)
    pg = projected_gradient(f, lambda qq: loop_errors(matter, ev.at(qq), ROD), q)
    assert np.max(np.abs(pg)) < 1e-7
    assert asm.getNumGoalGradientEvals() > 0
    # A goal-only condition cannot be a requirement.
    asm2 = Assembler(system)
    asm2.adoptAssemblyError(Spread())
    with pytest.raises(InvalidArgumentError, match="only be a goal"):
        asm2.assemble(state)


def test_forced_numerical_derivatives_give_the_same_answer():
    results = []
    for numeric in (False, True):
        system, matter, asm, state = _fourbar_assembler()
        asm.adoptAssemblyGoal(QValue(1, 0, 1.55), 10)
        asm.adoptAssemblyGoal(QValue(2, 0, -1.74), 1)
        asm.setForceNumericalGradient(numeric).setForceNumericalJacobian(numeric)
        results.append((asm.assemble(state), np.array(state.getQ())))
    assert results[0][0] == pytest.approx(results[1][0], rel=1e-9)
    np.testing.assert_allclose(results[0][1], results[1][1], atol=1e-8)


def test_internal_state_initialize_and_update():
    system, matter, asm, state = _fourbar_assembler()
    asm.initialize(state)
    internal = asm.getInternalState()
    assert internal is not state
    np.testing.assert_array_equal(matter.getQ(internal), Q_START)
    assert asm.calcCurrentErrorNorm() == pytest.approx(abs(FOURBAR["runs"][0]["qErr_start"][0]))
    asm.assemble()  # works on the internal State; the caller's is untouched
    np.testing.assert_array_equal(state.getQ(), Q_START)
    assert asm.calcCurrentErrorNorm() <= 1e-12
    other = system.realizeTopology()
    asm.updateFromInternalState(other)
    np.testing.assert_allclose(other.getQ(), FOURBAR["runs"][0]["q_final"], atol=1e-9)
    assert other.getSystemStage() < Stage.Position  # q changed: stages invalidated
    asm.setUseRMSErrorNorm(True)
    assert asm.isUsingRMSErrorNorm()
    assert asm.calcCurrentErrorNorm() <= 1e-12
    asm.resetStats()
    assert asm.getNumAssemblySteps() == 0 and asm.getNumErrorEvals() == 0
    with pytest.raises(InvalidArgumentError, match="State"):
        asm.updateFromInternalState("state")


def test_condition_status_codes_and_bad_shapes_are_reported():
    system, matter, asm, state = _fourbar_assembler()

    class Broken(AssemblyCondition):
        def __init__(self, mode):
            super().__init__(f"broken {mode}")
            self.mode = mode

        def calcErrors(self, s):
            if self.mode == "status":
                return 3, None
            if self.mode == "nan":
                return 0, np.array([np.nan])
            return 0, np.array([matter.getQ(s)[0] - 1.7])

        def calcErrorJacobian(self, s):
            if self.mode == "shape":
                return 0, np.zeros((2, 2))
            return -1, None

    for mode, match in (
        ("status", "could not evaluate calcErrors"),
        ("nan", "non-finite"),
        ("shape", r"shape \(2, 2\), expected \(1, 2\)"),
    ):
        a = Assembler(system).setErrorTolerance(1e-12)
        a.adoptAssemblyError(Broken(mode))
        with pytest.raises(SimTKError, match=match):
            a.assemble(state)


def test_redundant_requirements_are_solved_in_the_least_squares_sense():
    """The same loop closure adopted twice (a redundant set) still assembles."""
    system, matter, asm, state = _fourbar_assembler()
    asm.adoptAssemblyError(user_loop_condition(ROD))
    asm.assemble(state)
    np.testing.assert_allclose(state.getQ(), FOURBAR["runs"][0]["q_final"], atol=1e-9)


def test_user_condition_with_analytic_jacobian_and_initialization_hooks():
    """A user condition that uses the protected helpers: initializeCondition,
    getNumFreeQs, getFreeQIndexOfQ, getQIndexOfFreeQ; its analytic Jacobian is used (no
    finite differences of it)."""
    system, matter, asm, state = _fourbar_assembler()

    class RockerAt(AssemblyCondition):  # rocker q = -2.1 (analytic Jacobian)
        def __init__(self):
            super().__init__("rocker at -2.1")
            self.initialized = 0
            self.uninitialized = 0
            self.jacobians = 0

        def initializeCondition(self):
            self.initialized += 1
            assert self.getNumFreeQs() in (1, 2)
            assert self.getMultibodySystem() is system
            assert self.getMatterSubsystem() is matter
            return 0

        def uninitializeCondition(self):
            self.uninitialized += 1

        def calcErrors(self, s):
            return 0, np.array([matter.getQ(s)[1] + 2.1])

        def calcErrorJacobian(self, s):
            self.jacobians += 1
            J = np.zeros((1, self.getNumFreeQs()))
            fx = self.getFreeQIndexOfQ(1)
            if fx >= 0:
                assert self.getQIndexOfFreeQ(fx) == 1
                J[0, fx] = 1.0
            return 0, J

    c = RockerAt()
    asm.adoptAssemblyError(c)
    asm.assemble(state)
    assert c.initialized == 1 and c.jacobians > 0
    assert state.getQ()[1] == pytest.approx(-2.1, abs=1e-12)
    asm.lockMobilizer(1)  # uninitializes
    assert c.uninitialized == 1
    c.initializeAssembler()
    assert c.initialized == 2 and asm.getNumFreeQs() == 1
    c.uninitializeAssembler()
    assert not asm.isInitialized() and c.uninitialized == 2

    class Refuses(AssemblyCondition):
        def __init__(self):
            super().__init__("refuses")

        def initializeCondition(self):
            return 2

    asm.adoptAssemblyGoal(Refuses())
    with pytest.raises(SimTKError, match="'refuses' failed to initialize"):
        asm.initialize()


def test_euler_angle_mode_uses_three_angles_for_a_ball():
    from engine import (
        Body,
        MassProperties,
        MobilizedBody,
        MultibodySystem,
        SimbodyMatterSubsystem,
        Transform,
    )
    from engine.assembler import Markers

    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    body = Body.Rigid(MassProperties(1.0, [0, 0, 0], [0.1, 0.1, 0.1]))
    ball = MobilizedBody.Ball(matter.Ground(), Transform(), body, Transform())
    state = system.realizeTopology()
    matter.setUseEulerAngles(state, True)
    system.realizeModel(state)
    target = np.array([0.3, -0.2, 0.5, 0.0])
    probe = system.realizeTopology()
    matter.setUseEulerAngles(probe, True)
    system.realizeModel(probe)
    probe.setQ(target)
    system.realize(probe, Stage.Position)
    stations = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    m = Markers()
    for st in stations:
        m.addMarker(ball, st)
    asm = Assembler(system).setAccuracy(1e-10).setErrorTolerance(1e-12)
    asm.adoptAssemblyGoal(m)
    m.moveAllObservations([ball.findStationLocationInGround(probe, st) for st in stations])
    assert asm.assemble(state) < 1e-20
    assert asm.getNumFreeQs() == 3
    np.testing.assert_allclose(state.getQ()[:3], target[:3], atol=1e-8)


def test_an_assembly_stops_at_the_watched_interrupt_request_leaving_the_state():
    from engine import ComputationInterruptedError
    from engine.multibody.kernels.interrupt_request import InterruptRequest, watching

    system, matter, asm, state = _fourbar_assembler()
    request = InterruptRequest()
    request.set()
    with watching(request), pytest.raises(ComputationInterruptedError, match="assembly"):
        asm.assemble(state)
    assert list(state.getQ()) == list(Q_START)
    request.clear()
    with watching(request):
        asm.assemble(state)  # not interrupted: it closes the loop
    q = state.getQ()
    assert abs(loop_errors(matter, Evaluator(system, matter).at(q), ROD)[0]) <= 1e-12
