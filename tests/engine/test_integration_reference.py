"""Integrators and TimeStepper against ../shared/reference/integration.json (Simbody 3.7).

Each model is rebuilt with the multibody layer and integrated from the stored
initial state by ``TimeStepper(system, integrator)``, as Simbody did, with the
stored accuracy and constraint tolerance. Trajectories are implementation
specific, so (as the reference README says) they are judged by their properties:

* closeness to the high-accuracy (RungeKuttaMerson 1e-12) reference trajectory,
  within 20x the error Simbody's own run of that integrator had by then (or 20x
  the accuracy, whichever is larger);
* energy drift within 20x Simbody's (or 20x accuracy*|E|) for conservative models;
* constraint errors (holonomic and quaternion) within 10x the constraint tolerance
  (the matter subsystem's projectQImpl/projectUImpl keep them there).

Runs are compared at the report times up to ``T_END`` to keep the suite fast; the
runs that take tens of seconds in Python are marked ``slow`` and compared at
t = 0.5 only. RungeKutta2 and SemiExplicitEuler2 at 1e-8 (about 90k and 65k
steps) and the 1e-12 run itself are not re-run here; their methods' orders are
tested in test_integrator_order.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from engine import Stage
from engine.integrators import (
    CPodesIntegrator,
    ExplicitEulerIntegrator,
    RungeKutta3Integrator,
    RungeKuttaFeldbergIntegrator,
    RungeKuttaMersonIntegrator,
    SemiExplicitEulerIntegrator,
    TimeStepper,
    VerletIntegrator,
)
from tests.engine.reference_data import load_reference
from tests.engine.reference_models import build

T_END = 1.0
T_END_SLOW = 0.5

FAST_RUNS = {
    "RungeKuttaMerson": lambda s: RungeKuttaMersonIntegrator(s),
    "RungeKuttaFeldberg": lambda s: RungeKuttaFeldbergIntegrator(s),
    "CPodes_BDF_Newton": lambda s: CPodesIntegrator(s),
    "SemiExplicitEuler_fixed_1e-3": lambda s: SemiExplicitEulerIntegrator(s, 1e-3),
}
SLOW_RUNS = {
    "RungeKutta3": lambda s: RungeKutta3Integrator(s),
    "Verlet": lambda s: VerletIntegrator(s),
    "ExplicitEuler": lambda s: ExplicitEulerIntegrator(s),
}


def _cases(runs: dict, marks=()):
    case = load_reference("integration")
    out = []
    for model in case["models"]:
        for run in model["runs"]:
            if run["integrator"] in runs and not (
                run["integrator"] == "RungeKuttaMerson" and run["accuracy"] < 1e-10
            ):
                out.append(
                    pytest.param(
                        model["name"],
                        run["integrator"],
                        id=f"{model['name']}-{run['integrator']}",
                        marks=marks,
                    )
                )
    return out


def _find(modelName: str, integratorName: str):
    case = load_reference("integration")
    model = next(m for m in case["models"] if m["name"] == modelName)
    reference = model["runs"][0]
    assert reference["integrator"] == "RungeKuttaMerson" and reference["accuracy"] == 1e-12
    run = next(
        r
        for r in model["runs"]
        if r["integrator"] == integratorName
        and not (integratorName == "RungeKuttaMerson" and r["accuracy"] < 1e-10)
    )
    return model, reference, run


def _state_error(q, u, report) -> float:
    return max(
        float(np.max(np.abs(np.asarray(q) - report["q"]))),
        float(np.max(np.abs(np.asarray(u) - report["u"]))),
    )


def _run_and_compare(modelName: str, integratorName: str, make, tEnd: float) -> None:
    model, reference, run = _find(modelName, integratorName)
    built = build(model["model"])
    system = built.system
    state = built.new_state(model["initial_state"])

    integ = make(system)
    assert integ.getMethodName() == run["integrator_method_name"]
    assert integ.getMethodMinOrder() == run["method_min_order"]
    assert integ.getMethodMaxOrder() == run["method_max_order"]
    assert integ.methodHasErrorControl() == run["has_error_control"]
    integ.setAccuracy(run["accuracy"])
    integ.setConstraintTolerance(run["constraint_tolerance"])
    stepper = TimeStepper(system, integ)
    stepper.initialize(state)

    system.realize(stepper.getState(), Stage.Dynamics)
    e0 = system.calcEnergy(stepper.getState())
    simbodyErr = 0.0
    simbodyDrift = 0.0
    checked = 0
    constraintProblems: list[str] = []
    for mine, ref in zip(run["reports"], reference["reports"], strict=True):
        t = mine["t"]
        if t > tEnd:
            break
        assert ref["t"] == t
        stepper.stepTo(t)
        s = stepper.getState()
        assert s.getTime() == t
        system.realize(s, Stage.Dynamics)  # also computes qErr and uErr
        simbodyErr = max(simbodyErr, _state_error(mine["q"], mine["u"], ref))
        ourErr = _state_error(s.getQ(), s.getU(), ref)
        bound = 20 * max(simbodyErr, run["accuracy"])
        assert ourErr <= bound, (
            f"{modelName}/{integratorName} at t={t}: distance from the reference trajectory "
            f"{ourErr:.3g} > {bound:.3g} (Simbody's own run: {simbodyErr:.3g})"
        )
        if model["conserves_energy"]:
            simbodyDrift = max(simbodyDrift, abs(mine["energy_drift"]))
            drift = abs(system.calcEnergy(s) - e0)
            bound = 20 * max(simbodyDrift, run["accuracy"] * max(1.0, abs(e0)))
            assert drift <= bound, (
                f"{modelName}/{integratorName} at t={t}: energy drift {drift:.3g} > {bound:.3g}"
            )
        tol = 10 * run["constraint_tolerance"]
        for name, errors in (("qErr", s.getQErr()), ("uErr", s.getUErr())):
            if errors.size and np.max(np.abs(errors)) > tol:
                constraintProblems.append(
                    f"t={t}: max |{name}| = {np.max(np.abs(errors)):.3g} > {tol:.3g}"
                )
        checked += 1
    assert checked >= 2
    assert integ.getNumStepsTaken() > 0
    if constraintProblems:
        raise AssertionError(
            f"{modelName}/{integratorName}: constraint errors above 10x the tolerance: "
            + "; ".join(constraintProblems)
        )


@pytest.mark.parametrize(("modelName", "integratorName"), _cases(FAST_RUNS))
def test_trajectory_matches_simbody_reference(modelName, integratorName):
    _run_and_compare(modelName, integratorName, FAST_RUNS[integratorName], T_END)


@pytest.mark.parametrize(
    ("modelName", "integratorName"), _cases(SLOW_RUNS, marks=(pytest.mark.slow,))
)
def test_trajectory_matches_simbody_reference_slow_methods(modelName, integratorName):
    _run_and_compare(modelName, integratorName, SLOW_RUNS[integratorName], T_END_SLOW)


def test_fixed_step_semi_explicit_euler_takes_simbodys_steps():
    """With a fixed step the trajectory is deterministic: Simbody's step count to t=1."""
    model, _, run = _find("double_pendulum", "SemiExplicitEuler_fixed_1e-3")
    built = build(model["model"])
    system = built.system
    state = built.new_state(model["initial_state"])
    integ = SemiExplicitEulerIntegrator(system, 1e-3)
    stepper = TimeStepper(system, integ)
    stepper.initialize(state)
    for report in run["reports"][1:3]:
        stepper.stepTo(report["t"])
        np.testing.assert_allclose(stepper.getState().getQ(), report["q"], rtol=0, atol=1e-9)
        np.testing.assert_allclose(stepper.getState().getU(), report["u"], rtol=0, atol=1e-9)
    assert integ.getNumStepsTaken() == 1000
