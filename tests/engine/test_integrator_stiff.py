"""A stiff spring-damper: the implicit CPodes-like integrator needs far fewer steps."""

from __future__ import annotations

import pytest

from engine.integrators import CPodes, CPodesIntegrator, RungeKuttaMersonIntegrator, TimeStepper
from tests.engine.integration_fixtures import SpringDamper, makeSystem

T = 0.25
K, C = 1.0e6, 3.0e4  # eigenvalues about -33 and -3e4: stiff


def _run(make, accuracy=1e-6):
    sd = SpringDamper(k=K, c=C, x0=1.0, v0=0.0)
    system, state = makeSystem(sd)
    integ = make(system)
    integ.setAccuracy(accuracy)
    stepper = TimeStepper(system, integ)
    stepper.initialize(state)
    worst = 0.0
    for t in (0.01, 0.05, 0.1, T):
        stepper.stepTo(t)
        worst = max(worst, abs(sd.q(stepper.getState())[0] - sd.exact(t)))
    return integ, worst


def test_implicit_bdf_solves_a_stiff_system_in_far_fewer_steps():
    explicit, errExplicit = _run(RungeKuttaMersonIntegrator)
    implicit, errImplicit = _run(CPodesIntegrator)
    assert explicit.getNumStepsTaken() > 1000  # stability, not accuracy, limits the step
    assert implicit.getNumStepsTaken() * 8 < explicit.getNumStepsTaken()
    assert implicit.getNumRealizations() * 3 < explicit.getNumRealizations()
    # Both are accurate (relative to the initial displacement 1).
    assert errExplicit < 1e-4
    assert errImplicit < 1e-4


def test_bdf_accuracy_improves_with_the_accuracy_setting():
    _, errLoose = _run(CPodesIntegrator, 1e-4)
    integ, errTight = _run(CPodesIntegrator, 1e-8)
    assert errTight < errLoose
    assert errTight < 1e-6
    assert integ.getMethodName() == "CPodesBDF"
    assert integ.getLinearMultistepMethod() == CPodes.BDF
    assert integ.getNonlinearSystemIterationType() == CPodes.Newton


@pytest.mark.parametrize("method", [CPodes.Adams])
def test_adams_handles_the_stiff_system_too(method):
    integ, err = _run(lambda s: CPodesIntegrator(s, method))
    assert err < 1e-4
    assert integ.getMethodName() == "CPodesAdams"
