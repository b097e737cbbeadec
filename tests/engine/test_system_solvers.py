"""System solvers and helpers: prescribe / project (and their counters), the N-matrix
multiplications, free-index lists and calcDecorativeGeometryAndAppend."""

from __future__ import annotations

import numpy as np
import pytest

from engine.common.exceptions import (
    InvalidArgumentError,
    ProjectionFailedError,
    StageTooLowError,
)
from engine.common.project_options import ProjectOptions, ProjectResults
from engine.common.stage import Stage
from engine.common.subsystem import Subsystem
from engine.common.system import System
from tests.engine.framework_fixtures import (
    CountsSubsystem,
    HarmonicOscillator,
    make_oscillator_system,
    realized,
)


def _counters(system):
    return (
        system.getNumPrescribeQCalls(),
        system.getNumPrescribeUCalls(),
        system.getNumProjectQCalls(),
        system.getNumProjectUCalls(),
    )


# ------------------------------------------------------- prescribe / project


def test_project_counts_one_of_each_and_ends_at_velocity():
    system, osc = make_oscillator_system(q0=[0.3, 0.2], u0=[0.5, 0.0], constrained=True)
    s = realized(system, Stage.Acceleration)
    system.resetAllCountersToZero()
    system.project(s, 1e-10)
    assert _counters(system) == (1, 1, 1, 1)
    assert s.getSystemStage() == Stage.Velocity
    assert s.getQ()[0] == 0.0 and s.getU()[0] == 0.0  # the constraint is now satisfied
    assert (system.getNumQProjections(), system.getNumUProjections()) == (1, 1)
    assert (system.getNumFailedProjectQCalls(), system.getNumFailedProjectUCalls()) == (0, 0)
    # Position was realized again after q moved; Velocity before and after u moved.
    assert system.getNumRealizationsOfThisStage(Stage.Position) == 1
    assert system.getNumRealizationsOfThisStage(Stage.Velocity) == 2


def test_project_with_nothing_to_do_changes_nothing():
    system, osc = make_oscillator_system(q0=[0.0, 0.2], constrained=True)
    s = realized(system, Stage.Acceleration)
    system.resetAllCountersToZero()
    system.project(s)
    assert _counters(system) == (1, 1, 1, 1)
    assert (system.getNumQProjections(), system.getNumUProjections()) == (0, 0)
    assert s.getSystemStage() == Stage.Acceleration


def test_prescribe_counts_and_realizes_through_position():
    system, osc = make_oscillator_system()
    s = realized(system, Stage.Model)
    system.prescribe(s)
    assert _counters(system) == (1, 1, 0, 0)
    assert s.getSystemStage() == Stage.Position
    assert system.prescribeQ(s) is False and system.prescribeU(s) is False
    assert _counters(system) == (2, 2, 0, 0)
    s.invalidateAll(Stage.Time)
    with pytest.raises(StageTooLowError, match="Time"):
        system.prescribeQ(s)
    with pytest.raises(StageTooLowError, match="Position"):
        system.prescribeU(s)


def test_prescribe_hooks_change_state():
    class Driven(CountsSubsystem):
        def prescribeQImpl(self, state):
            self.updQ(state)[0] = np.sin(state.getTime())
            return True

        def prescribeUImpl(self, state):
            self.updU(state)[0] = np.cos(state.getTime())
            return True

        def getPrescribedQIndexImpl(self, state):
            return [self.getQStart(state)]

        def getPrescribedUIndexImpl(self, state):
            return [self.getUStart(state)]

    system = System()
    system.adoptSubsystem(CountsSubsystem("free", nq=2, nu=2))
    driven = Driven("driven", nq=2, nu=2)
    system.adoptSubsystem(driven)
    s = realized(system, Stage.Instance)
    s.setTime(0.5)
    system.prescribe(s)
    assert driven.getQ(s)[0] == np.sin(0.5) and driven.getU(s)[0] == np.cos(0.5)
    assert s.getSystemStage() == Stage.Position
    np.testing.assert_array_equal(system.getFreeQIndex(s), [0, 1, 3])
    np.testing.assert_array_equal(system.getFreeUIndex(s), [0, 1, 3])
    with pytest.raises(StageTooLowError, match="Instance"):
        system.getFreeQIndex(system.realizeTopology())


def test_project_failure_raises_unless_dont_throw():
    class Stubborn(Subsystem):
        def projectQImpl(self, state, qErrEst, options, results):
            results.setExitStatus(ProjectResults.FailedToConverge)
            results.setMessage("stubborn constraint did not converge")

    system = System()
    system.adoptSubsystem(Stubborn("stubborn"))
    s = realized(system, Stage.Position)
    with pytest.raises(ProjectionFailedError, match="did not converge"):
        system.projectQ(s)
    assert system.getNumFailedProjectQCalls() == 1
    err, results = system.projectQ(
        s, np.zeros(0), ProjectOptions(1e-3).setOption(ProjectOptions.DontThrow)
    )
    assert results.getExitStatus() == ProjectResults.FailedToConverge
    assert system.getNumFailedProjectQCalls() == 2 and system.getNumProjectQCalls() == 2


def test_project_error_estimate_counted_only_with_an_estimate():
    system, osc = make_oscillator_system(q0=[0.3, 0.2], constrained=True)
    s = realized(system, Stage.Position)
    est = np.array([1e-3, 2e-3])
    out, results = system.projectQ(s, est, ProjectOptions(1e-6))
    assert results.getAnyChangeMade() and out is est
    assert system.getNumQErrorEstimateProjections() == 1
    assert s.getSystemStage() == Stage.Position  # realized again after projecting


# ---------------------------------------------------------- N multiplication


@pytest.fixture
def n_system():
    system = System()
    system.adoptSubsystem(HarmonicOscillator(n=2))
    system.adoptSubsystem(CountsSubsystem("none"))
    system.adoptSubsystem(HarmonicOscillator(name="three", n=3))
    return system, realized(system, Stage.Position)


@pytest.mark.parametrize(
    "name", ["multiplyByN", "multiplyByNTranspose", "multiplyByNPInv", "multiplyByNPInvTranspose"]
)
def test_multiply_by_n_is_identity_when_nq_equals_nu(n_system, name):
    system, s = n_system
    v = np.arange(1.0, 6.0)
    out = getattr(system, name)(s, v)
    np.testing.assert_array_equal(out, v)
    assert out is not v
    with pytest.raises(InvalidArgumentError, match="length 5"):
        getattr(system, name)(s, np.ones(4))
    with pytest.raises(InvalidArgumentError, match="length 5"):
        getattr(system, name)(s, np.ones((5, 1)))


def test_multiply_by_n_uses_subsystem_blocks():
    class Doubling(HarmonicOscillator):
        def multiplyByNImpl(self, state, transpose, inp, out):
            out[:] = 2.0 * inp

    system = System()
    system.adoptSubsystem(HarmonicOscillator(n=2))
    system.adoptSubsystem(Doubling(name="double", n=3))
    s = realized(system, Stage.Position)
    np.testing.assert_array_equal(system.multiplyByN(s, np.ones(5)), [1, 1, 2, 2, 2])
    np.testing.assert_array_equal(system.multiplyByNPInv(s, np.ones(5)), np.ones(5))


def test_multiply_by_n_needs_position(n_system):
    system, s = n_system
    s.invalidateAll(Stage.Position)
    with pytest.raises(StageTooLowError, match="Position"):
        system.multiplyByN(s, np.ones(5))


# ------------------------------------------------------- decorative geometry


def test_decorative_geometry_dispatches_to_subsystems_and_needs_the_stage():
    system = System()
    a = HarmonicOscillator(name="a", n=1, q0=[0.5])
    b = HarmonicOscillator(name="b", n=2, q0=[1.0, 2.0])
    system.adoptSubsystem(a)
    system.adoptSubsystem(b)
    s = realized(system, Stage.Time)
    with pytest.raises(StageTooLowError, match="Position"):
        system.calcDecorativeGeometryAndAppend(s, Stage.Position)
    assert a.geometry_calls == []
    system.realize(s, Stage.Position)
    existing = ["already here"]
    out = system.calcDecorativeGeometryAndAppend(s, Stage.Position, existing)
    assert out is existing
    assert out == ["already here", ("ball", 1, 0.5), ("ball", 2, 1.0), ("ball", 2, 2.0)]
    assert a.geometry_calls == [Stage.Position] and b.geometry_calls == [Stage.Position]
    # Other stages: every subsystem is asked, these have nothing to add.
    assert system.calcDecorativeGeometryAndAppend(s, Stage.Topology) == []
    assert a.geometry_calls == [Stage.Position, Stage.Topology]
