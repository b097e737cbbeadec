"""Error-controlled integrators reach their accuracy; the common Integrator API."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.common.exceptions import InvalidArgumentError, SimTKError, StepFailedError
from engine.common.state import State
from engine.integrators import (
    CPodes,
    CPodesIntegrator,
    ExplicitEulerIntegrator,
    Integrator,
    RungeKutta2Integrator,
    RungeKutta3Integrator,
    RungeKuttaFeldbergIntegrator,
    RungeKuttaMersonIntegrator,
    SemiExplicitEuler2Integrator,
    SemiExplicitEulerIntegrator,
    TimeStepper,
    VerletIntegrator,
)
from tests.engine.integration_fixtures import Oscillator, makeSystem

# (factory, accuracies to try, Simbody method name, allowed global error / accuracy).
# Accuracy is a local (per step) tolerance, so the global error over about one period
# is a modest multiple of it; first-order methods accumulate much more (Simbody's own
# ExplicitEuler run in integration.json ends ~7000x its accuracy away).
ERROR_CONTROLLED = [
    (RungeKuttaMersonIntegrator, (1e-5, 1e-8), "RungeKuttaMerson", 100),
    (RungeKuttaFeldbergIntegrator, (1e-5, 1e-8), "RungeKuttaFeldberg", 100),
    (RungeKutta3Integrator, (1e-5, 1e-7), "RungeKutta3", 100),
    (RungeKutta2Integrator, (1e-3, 1e-5), "RungeKutta2", 100),
    (VerletIntegrator, (1e-4, 1e-6), "Verlet", 100),
    (ExplicitEulerIntegrator, (1e-2, 1e-4), "ExplicitEuler", 1000),
    (SemiExplicitEuler2Integrator, (1e-2, 1e-4), "SemiExplicitEuler2", 1000),
    (CPodesIntegrator, (1e-5, 1e-8), "CPodesBDF", 100),
    (lambda s: CPodesIntegrator(s, CPodes.Adams), (1e-5, 1e-8), "CPodesAdams", 100),
]
IDS = [case[2] for case in ERROR_CONTROLLED]


def _simulate(make, accuracy, T=3.0, reports=6):
    osc = Oscillator(omega=2.0, x0=1.0, v0=0.5)
    system, state = makeSystem(osc)
    integ = make(system)
    integ.setAccuracy(accuracy)
    stepper = TimeStepper(system, integ)
    stepper.initialize(state)
    worst = 0.0
    for t in np.linspace(0, T, reports + 1)[1:]:
        stepper.stepTo(t)
        s = stepper.getState()
        assert s.getTime() == pytest.approx(t, abs=1e-14)
        x, v = osc.exact(s.getTime())
        worst = max(worst, abs(osc.q(s)[0] - x), abs(osc.u(s)[0] - v) / 2.0)
    return worst, integ


@pytest.mark.parametrize(("make", "accuracies", "name", "factor"), ERROR_CONTROLLED, ids=IDS)
def test_error_controlled_methods_reach_their_accuracy(make, accuracies, name, factor):
    loose, tight = accuracies
    errLoose, integ = _simulate(make, loose)
    errTight, integTight = _simulate(make, tight)
    assert integ.getMethodName() == name
    assert integ.methodHasErrorControl()
    # Global error within a multiple of the (local, relative) accuracy...
    assert errTight < factor * tight, f"{name}: error {errTight:.3g} at accuracy {tight:g}"
    assert errLoose < factor * loose, f"{name}: error {errLoose:.3g} at accuracy {loose:g}"
    # ... and tightening the accuracy costs steps and buys accuracy.
    assert errTight < errLoose
    assert integTight.getNumStepsTaken() > integ.getNumStepsTaken()


@pytest.mark.parametrize(
    ("cls", "accuracy"),
    [(RungeKuttaMersonIntegrator, 1e-9), (RungeKuttaFeldbergIntegrator, 1e-9)],
)
def test_interpolated_reports_are_as_accurate_as_the_method(cls, accuracy):
    """Reports between internal steps come from a dense output of the method's order."""
    osc = Oscillator(omega=2.0, x0=1.0, v0=0.5)
    system, state = makeSystem(osc)
    integ = cls(system)
    integ.setAccuracy(accuracy)
    integ.initialize(state)
    interpolated, worstReport = 0, 0.0
    for t in np.linspace(0.05, 3.0, 60):
        _runTo(integ, t)
        s = integ.getState()
        interpolated += integ.isStateInterpolated()
        worstReport = max(worstReport, abs(osc.q(s)[0] - osc.exact(t)[0]))
    worstStep = abs(osc.q(integ.getAdvancedState())[0] - osc.exact(integ.getAdvancedTime())[0])
    assert interpolated > 40  # most reports fall between internal steps
    assert worstReport < 100 * accuracy
    assert worstReport < 10 * max(worstStep, accuracy)


def test_statistics_and_step_sizes_are_consistent():
    err, integ = _simulate(RungeKuttaMersonIntegrator, 1e-6)
    assert integ.getNumStepsAttempted() >= integ.getNumStepsTaken() > 0
    assert (
        integ.getNumStepsAttempted() - integ.getNumStepsTaken() == integ.getNumErrorTestFailures()
    )
    assert integ.getNumRealizations() >= 4 * integ.getNumStepsTaken()
    assert integ.getNumProjections() == 0  # no constraints
    assert integ.getNumConvergenceTestFailures() == 0
    assert integ.getPreviousStepSizeTaken() > 0
    assert integ.getPredictedNextStepSize() > 0
    assert integ.getActualInitialStepSizeTaken() > 0
    assert integ.getAccuracyInUse() == 1e-6
    assert integ.getConstraintToleranceInUse() == pytest.approx(1e-7)
    integ.resetAllStatistics()
    assert integ.getNumStepsTaken() == integ.getNumRealizations() == 0


def _runTo(integ, t: float) -> None:
    while integ.getTime() < t and not integ.isSimulationOver():
        integ.stepTo(t)


def test_fixed_step_size_is_respected():
    osc = Oscillator()
    system, state = makeSystem(osc)
    integ = RungeKuttaMersonIntegrator(system)
    integ.setFixedStepSize(0.125)
    integ.initialize(state)
    _runTo(integ, 1.0)
    assert integ.getNumStepsTaken() == 8
    assert integ.getPreviousStepSizeTaken() == 0.125


def test_maximum_and_initial_step_sizes():
    osc = Oscillator()
    system, state = makeSystem(osc)
    integ = RungeKutta3Integrator(system)
    integ.setAccuracy(1e-3)
    integ.setMaximumStepSize(0.01)
    integ.setInitialStepSize(0.001)
    integ.initialize(state)
    _runTo(integ, 0.5)
    assert integ.getActualInitialStepSizeTaken() == pytest.approx(0.001)
    assert integ.getNumStepsTaken() >= 50


def test_step_by_return_every_internal_step_and_step_limit():
    osc = Oscillator()
    system, state = makeSystem(osc)
    integ = RungeKuttaMersonIntegrator(system)
    integ.setFixedStepSize(0.1)
    integ.initialize(state)
    assert integ.stepTo(1.0) == Integrator.StartOfContinuousInterval
    integ.setReturnEveryInternalStep(True)
    assert integ.stepBy(1.0) == Integrator.TimeHasAdvanced
    assert integ.getTime() == pytest.approx(0.1)
    integ.setReturnEveryInternalStep(False)
    integ.setInternalStepLimit(3)
    assert integ.stepTo(5.0) == Integrator.ReachedStepLimit
    assert integ.getTime() == pytest.approx(0.4)


def test_final_time_ends_the_simulation():
    osc = Oscillator()
    system, state = makeSystem(osc)
    integ = RungeKuttaMersonIntegrator(system)
    integ.setFinalTime(0.75)
    integ.initialize(state)
    statuses = []
    while not integ.isSimulationOver():
        statuses.append(integ.stepTo(10.0))
    assert statuses[-1] == Integrator.EndOfSimulation
    assert integ.getTime() == 0.75
    assert integ.getTerminationReason() == Integrator.ReachedFinalTime
    assert Integrator.getTerminationReasonString(integ.getTerminationReason()) == (
        "ReachedFinalTime"
    )
    with pytest.raises(StepFailedError, match="already over"):
        integ.stepTo(11.0)
    # initialize() restarts it.
    integ.initialize(state)
    assert not integ.isSimulationOver()
    assert integ.getTerminationReason() == Integrator.InvalidTerminationReason


def test_interpolation_can_be_disabled():
    osc = Oscillator()
    system, state = makeSystem(osc)
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(1e-4)
    integ.initialize(state)
    _runTo(integ, 0.37)
    assert integ.isStateInterpolated()
    assert integ.getAdvancedTime() > 0.37
    integ2 = RungeKuttaMersonIntegrator(system)
    integ2.setAccuracy(1e-4)
    integ2.setAllowInterpolation(False)
    integ2.initialize(state)
    _runTo(integ2, 0.37)
    assert not integ2.isStateInterpolated()
    assert integ2.getAdvancedTime() == 0.37


def test_infinity_norm_is_stricter_than_rms():
    errRms, integRms = _simulate(RungeKuttaMersonIntegrator, 1e-6)

    def make(system):
        integ = RungeKuttaMersonIntegrator(system)
        integ.setUseInfinityNorm(True)
        return integ

    errInf, integInf = _simulate(make, 1e-6)
    assert integInf.isInfinityNormInUse() and not integRms.isInfinityNormInUse()
    assert integInf.getNumStepsTaken() >= integRms.getNumStepsTaken()


def test_initialize_copies_the_state_and_does_not_touch_the_original():
    osc = Oscillator()
    system, state = makeSystem(osc)
    before = State(state)
    integ = RungeKuttaMersonIntegrator(system)
    integ.initialize(state)
    _runTo(integ, 1.0)
    assert state.getTime() == 0.0
    np.testing.assert_array_equal(state.getY(), before.getY())
    assert integ.getState() is not state


@pytest.mark.parametrize(
    ("setter", "value"),
    [
        ("setAccuracy", 0.0),
        ("setAccuracy", 1.5),
        ("setConstraintTolerance", -0.5),
        ("setInitialStepSize", 0.0),
        ("setMinimumStepSize", -2.0),
        ("setMaximumStepSize", math.inf),
        ("setFixedStepSize", math.nan),
        ("setFinalTime", math.inf),
    ],
)
def test_bad_settings_raise_invalid_argument(setter, value):
    system, _ = makeSystem(Oscillator())
    with pytest.raises(InvalidArgumentError):
        getattr(RungeKuttaMersonIntegrator(system), setter)(value)


def test_inconsistent_step_size_limits_are_rejected():
    system, _ = makeSystem(Oscillator())
    integ = RungeKuttaMersonIntegrator(system)
    integ.setMaximumStepSize(0.1)
    with pytest.raises(InvalidArgumentError, match="larger than the maximum"):
        integ.setMinimumStepSize(0.2)


def test_usage_errors_are_worded():
    system, state = makeSystem(Oscillator())
    integ = RungeKuttaMersonIntegrator(system)
    with pytest.raises(SimTKError, match="initialize"):
        integ.stepTo(1.0)
    with pytest.raises(InvalidArgumentError):
        RungeKuttaMersonIntegrator("not a system")
    integ.initialize(state)
    _runTo(integ, 0.5)
    with pytest.raises(InvalidArgumentError, match="earlier than the current time"):
        integ.stepTo(0.25)
    with pytest.raises(SimTKError, match="no event had triggered"):
        integ.getTriggeredEvents()
    with pytest.raises(InvalidArgumentError):
        CPodesIntegrator(system, 7)


def test_method_descriptions_match_simbody():
    system, _ = makeSystem(Oscillator())
    expected = {
        ExplicitEulerIntegrator(system): ("ExplicitEuler", 1, 1, True),
        RungeKutta2Integrator(system): ("RungeKutta2", 2, 2, True),
        RungeKutta3Integrator(system): ("RungeKutta3", 3, 3, True),
        RungeKuttaMersonIntegrator(system): ("RungeKuttaMerson", 4, 4, True),
        RungeKuttaFeldbergIntegrator(system): ("RungeKuttaFeldberg", 5, 5, True),
        VerletIntegrator(system): ("Verlet", 2, 3, True),
        SemiExplicitEulerIntegrator(system, 0.01): ("SemiExplicitEuler", 1, 1, False),
        SemiExplicitEuler2Integrator(system): ("SemiExplicitEuler2", 1, 1, True),
        CPodesIntegrator(system): ("CPodesBDF", 1, 5, True),
        CPodesIntegrator(system, CPodes.Adams): ("CPodesAdams", 1, 12, True),
    }
    for integ, (name, lo, hi, ec) in expected.items():
        assert (
            integ.getMethodName(),
            integ.getMethodMinOrder(),
            integ.getMethodMaxOrder(),
            integ.methodHasErrorControl(),
        ) == (name, lo, hi, ec)


def test_state_weights_shape_the_error_control():
    """A u weight of 1e-3 (unit change 1000) makes errors in u, and through N Wu
    pinv(N) in q, count 1000 times less, so fewer steps meet the same accuracy."""
    steps = []
    for weight in (1.0, 1e-3):
        osc = Oscillator(omega=1.0, x0=0.5, v0=0.0)
        system, state = makeSystem(osc)
        state.updUWeights()[:] = weight
        integ = RungeKuttaMersonIntegrator(system)
        integ.setAccuracy(1e-8)
        stepper = TimeStepper(system, integ)
        stepper.initialize(state)
        stepper.stepTo(5.0)
        steps.append(integ.getNumStepsTaken())
    assert steps[1] * 3 < steps[0]
