"""A step that cannot be taken raises StepFailedError that says why, in words."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from engine.common.exceptions import InvalidArgumentError, StepFailedError
from engine.integrators import (
    CPodesIntegrator,
    Integrator,
    RungeKuttaMersonIntegrator,
    SemiExplicitEulerIntegrator,
    TimeStepper,
)
from tests.engine.integration_fixtures import Broken, MechanicalSubsystem, makeSystem


def _fail(make, sub, T=1.0):
    system, state = makeSystem(sub)
    integ = make(system)
    integ.setAccuracy(1e-6)
    stepper = TimeStepper(system, integ)
    stepper.initialize(state)
    with pytest.raises(StepFailedError) as info:
        stepper.stepTo(T)
    return integ, str(info.value), info.value


@pytest.mark.parametrize("make", [RungeKuttaMersonIntegrator, CPodesIntegrator])
def test_non_finite_derivative_gives_step_size_underflow_naming_the_variable(make):
    integ, msg, _ = _fail(make, Broken(0.3, "nan"))
    assert "step size underflow" in msg
    assert "t=0.29999" in msg or "t=0.3" in msg
    assert "u[0] (u 0 of subsystem 'Broken')" in msg
    assert "nan" in msg
    assert "accuracy 1e-06" in msg
    # The simulation is over, and the advanced state is back at the last good step.
    assert integ.isSimulationOver()
    assert integ.getTerminationReason() == Integrator.AnUnrecoverableErrorOccurred
    assert integ.getAdvancedTime() <= 0.3
    assert np.all(np.isfinite(integ.getAdvancedState().getY()))


def test_exception_in_the_model_is_chained_and_quoted():
    _, msg, err = _fail(RungeKuttaMersonIntegrator, Broken(0.3, "raise"))
    assert "the model is undefined after t=0.3" in msg
    assert "InvalidArgumentError" in msg
    assert isinstance(err.__cause__, InvalidArgumentError)


class Blowup(MechanicalSubsystem):
    """u' = u^2 with u(0) = 1: u = 1/(1 - t) runs off to infinity at t = 1, so near there
    the error test fails however small the step."""

    def __init__(self) -> None:
        super().__init__("Blowup", [0.0], [1.0])

    def acceleration(self, t, q, u):
        return np.array([u[0] ** 2])


def test_error_test_failures_name_the_worst_variable_and_the_accuracy():
    integ, msg, _ = _fail(RungeKuttaMersonIntegrator, Blowup(), T=2.0)
    assert "step size underflow" in msg
    assert re.search(r"at t=1\.0000", msg)
    assert re.search(r"estimated error [0-9.e+-]+ \(weighted RMS norm", msg)
    assert "exceeded the accuracy 1e-06" in msg
    assert "the largest error was in u[0] (u 0 of subsystem 'Blowup')" in msg
    assert integ.getNumErrorTestFailures() > 10
    assert integ.getPreviousStepWorstState() == 1  # y index of u[0]


def test_fixed_step_method_cannot_shrink_and_says_so():
    integ, msg, _ = _fail(lambda s: SemiExplicitEulerIntegrator(s, 0.01), Broken(0.3, "nan"))
    assert "SemiExplicitEuler integrator step failed at t=0.3" in msg
    assert "u[0] (u 0 of subsystem 'Broken')" in msg
    assert integ.getTerminationReason() == Integrator.AnUnrecoverableErrorOccurred


def test_failure_at_the_minimum_step_size_is_reported():
    system, state = makeSystem(Broken(0.3, "nan"))
    integ = RungeKuttaMersonIntegrator(system)
    integ.setMinimumStepSize(1e-3)
    integ.initialize(state)
    with pytest.raises(StepFailedError, match="minimum step size") as info:
        while True:
            integ.stepTo(1.0)
    assert "minimum step size 0.001" in str(info.value)
    assert not math.isnan(integ.getAdvancedTime())
