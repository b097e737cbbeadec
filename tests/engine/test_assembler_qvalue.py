"""QValue (../shared/spec/QValue.txt): every method, as goal and as requirement, bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine import (
    AssembleFailedError,
    Body,
    IndexOutOfRangeError,
    InvalidArgumentError,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    SimbodyMatterSubsystem,
    SimTKError,
    Transform,
)
from engine.assembler import Assembler, AssemblyCondition, QValue


def _chain():
    """Ground -Pin- b1 -Slider- b2 -Universal- b3 (1 + 1 + 2 = 4 q, no loops)."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    body = Body.Rigid(MassProperties(1.0, [0.1, 0, 0], [0.1, 0.1, 0.1]))
    b1 = MobilizedBody.Pin(matter.Ground(), Transform(), body, Transform())
    b2 = MobilizedBody.Slider(b1, Transform([1, 0, 0]), body, Transform())
    b3 = MobilizedBody.Universal(b2, Transform([0, 1, 0]), body, Transform())
    return system, matter, (b1, b2, b3)


def test_value_accessors_and_equation_count():
    c = QValue(2, 0, 0.25)
    assert isinstance(c, AssemblyCondition)
    assert c.getName() == "QValue"
    assert c.getValue() == 0.25
    c.setValue(-1.5)
    assert c.getValue() == -1.5
    assert c.getNumEquations(None) == 1
    assert not c.isInAssembler()
    with pytest.raises(SimTKError, match="not been adopted"):
        c.getAssembler()
    with pytest.raises(InvalidArgumentError, match="finite"):
        c.setValue(math.nan)
    with pytest.raises(InvalidArgumentError, match="number"):
        c.setValue("one")
    assert c.getValue() == -1.5  # unchanged by the refused calls


def test_errors_jacobian_goal_gradient_at_a_state():
    system, matter, (b1, b2, b3) = _chain()
    asm = Assembler(system)
    c = QValue(b3, 1, 0.3)  # a MobilizedBody is accepted in place of its index
    cx = asm.adoptAssemblyGoal(c, 2.0)
    assert cx == 1 and c.getAssemblyConditionIndex() == 1 and c.getAssembler() is asm
    assert c.isInAssembler()
    state = system.realizeTopology()
    state.setQ([0.1, 0.2, 0.3, 0.7])
    asm.initialize(state)
    s = asm.getInternalState()
    assert c.getNumErrors(s) == 1
    status, err = c.calcErrors(s)
    assert status == 0 and err.shape == (1,) and err[0] == pytest.approx(0.7 - 0.3)
    status, J = c.calcErrorJacobian(s)
    assert status == 0 and J.shape == (1, 4)
    np.testing.assert_array_equal(J, [[0, 0, 0, 1]])
    status, goal = c.calcGoal(s)
    assert status == 0 and goal == pytest.approx(0.4**2 / 2)
    status, grad = c.calcGoalGradient(s)
    assert status == 0
    np.testing.assert_allclose(grad, [0, 0, 0, 0.4])
    # The Assembler's total goal weighs it.
    assert asm.calcCurrentGoal() == pytest.approx(2.0 * 0.4**2 / 2)


def test_jacobian_and_gradient_follow_the_free_q_numbering():
    system, matter, (b1, b2, b3) = _chain()
    asm = Assembler(system)
    c = QValue(3, 0, 0.0)
    asm.adoptAssemblyGoal(c)
    asm.lockMobilizer(b1)
    state = system.realizeTopology()
    state.setQ([0.1, 0.2, -0.5, 0.7])
    asm.initialize(state)
    assert asm.getNumFreeQs() == 3
    assert [asm.getQIndexOfFreeQ(i) for i in range(3)] == [1, 2, 3]
    assert asm.getFreeQIndexOfQ(0) == -1 and asm.getFreeQIndexOfQ(2) == 1
    s = asm.getInternalState()
    np.testing.assert_array_equal(c.calcErrorJacobian(s)[1], [[0, 1, 0]])
    np.testing.assert_allclose(c.calcGoalGradient(s)[1], [0, -0.5, 0])
    # A QValue on a locked q cannot be influenced: zero Jacobian and gradient.
    d = QValue(1, 0, 1.0)
    asm.adoptAssemblyGoal(d)
    asm.initialize(state)
    s = asm.getInternalState()
    np.testing.assert_array_equal(d.calcErrorJacobian(s)[1], [[0, 0, 0]])
    np.testing.assert_array_equal(d.calcGoalGradient(s)[1], [0, 0, 0])
    assert d.calcErrors(s)[1][0] == pytest.approx(0.1 - 1.0)


def test_requirement_and_goal_on_a_tree_reach_the_value_and_leave_the_rest():
    system, matter, (b1, b2, b3) = _chain()
    for adopt in ("error", "goal_inf", "goal_1"):
        asm = Assembler(system).setAccuracy(1e-10).setErrorTolerance(1e-12)
        c = QValue(2, 0, 0.75)
        if adopt == "error":
            asm.adoptAssemblyError(c)
        elif adopt == "goal_inf":
            asm.adoptAssemblyGoal(c, math.inf)
        else:
            asm.adoptAssemblyGoal(c, 1)
        state = system.realizeTopology()
        state.setQ([0.1, 0.2, 0.3, 0.4])
        goal = asm.assemble(state)
        np.testing.assert_allclose(state.getQ(), [0.1, 0.75, 0.3, 0.4], atol=1e-12)
        assert goal == pytest.approx(0.0, abs=1e-20)
        assert asm.calcCurrentErrorNorm() <= 1e-12


def test_value_changes_are_followed_by_track():
    system, matter, (b1, b2, b3) = _chain()
    asm = Assembler(system).setAccuracy(1e-10)
    c = QValue(1, 0, 0.0)
    asm.adoptAssemblyGoal(c)
    state = system.realizeTopology()
    asm.initialize(state)
    for value in (0.1, 0.2, 0.35):
        c.setValue(value)
        asm.track(0.01)
        assert matter.getQ(asm.getInternalState())[0] == pytest.approx(value, abs=1e-10)
    asm.updateFromInternalState(state)
    assert state.getQ()[0] == pytest.approx(0.35, abs=1e-10)
    assert asm.getNumAssemblySteps() == 3


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ((99, 0, 0.0), IndexOutOfRangeError),  # no such body
        ((1, 1, 0.0), IndexOutOfRangeError),  # a Pin has one q
        ((3, 2, 0.0), IndexOutOfRangeError),  # a Universal has two
        ((0, 0, 0.0), IndexOutOfRangeError),  # Ground has none
    ],
)
def test_qvalue_on_a_nonexistent_q_is_refused_at_adoption(args, error):
    system, matter, _ = _chain()
    asm = Assembler(system)
    c = QValue(*args)
    with pytest.raises(error, match="q|bod"):
        asm.adoptAssemblyGoal(c)
    assert asm.getNumAssemblyConditions() == 1  # only the System constraints
    assert not c.isInAssembler()


def test_bad_constructor_arguments_and_weights():
    with pytest.raises(IndexOutOfRangeError):
        QValue(-1, 0, 0.0)
    with pytest.raises(IndexOutOfRangeError):
        QValue(1, -2, 0.0)
    with pytest.raises(InvalidArgumentError, match="int"):
        QValue(1, 0.5, 0.0)
    with pytest.raises(InvalidArgumentError):
        QValue("body", 0, 0.0)
    with pytest.raises(InvalidArgumentError, match="finite"):
        QValue(1, 0, math.inf)
    system, matter, _ = _chain()
    asm = Assembler(system)
    for w in (-1.0, math.nan, "heavy"):
        with pytest.raises(InvalidArgumentError, match="weight"):
            asm.adoptAssemblyGoal(QValue(1, 0, 0.0), w)
    c = QValue(1, 0, 0.0)
    asm.adoptAssemblyGoal(c)
    with pytest.raises(InvalidArgumentError, match="already"):
        asm.adoptAssemblyGoal(c)
    with pytest.raises(InvalidArgumentError, match="AssemblyCondition"):
        asm.adoptAssemblyGoal("QValue")


def test_conflicting_requirements_raise_assemble_failed_naming_them():
    """Two QValue requirements on a 1-dof loop that cannot both hold: the message names
    each unmet condition and its error; the caller's State is untouched."""
    system, matter, (b1, b2, b3) = _chain()
    asm = Assembler(system).setErrorTolerance(1e-10)

    class Sum(AssemblyCondition):  # q0 + q1 = 1
        def __init__(self):
            super().__init__("sum of q0 and q1")

        def calcErrors(self, state):
            q = self.getMatterSubsystem().getQ(state)
            return 0, np.array([q[0] + q[1] - 1.0])

    asm.adoptAssemblyError(Sum())
    asm.adoptAssemblyError(QValue(1, 0, 0.25))
    asm.adoptAssemblyError(QValue(2, 0, 0.25))
    asm.lockMobilizer(3)
    state = system.realizeTopology()
    state.setQ([0.0, 0.0, 0.3, 0.4])
    before = np.array(state.getQ())
    with pytest.raises(AssembleFailedError) as info:
        asm.assemble(state)
    msg = str(info.value)
    assert "tolerance 1e-10" in msg
    assert "sum of q0 and q1" in msg and msg.count("QValue") == 2
    # Least squares spreads the 0.5 conflict: each error is 1/6 in size.
    assert "0.167" in msg
    np.testing.assert_array_equal(state.getQ(), before)
    assert isinstance(info.value, Assembler.AssembleFailed)
