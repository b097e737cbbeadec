"""The dissipated energy z of a CompliantContactSubsystem (setTrackDissipatedEnergy) in
RungeKuttaMerson's compiled steps: y = [q, u, z], z's derivative is the contacts'
dissipated power. The compiled steps (``merson_steps``) must take exactly the steps the
Python loop takes with the same kernels (bit-identical q, u, z and counts), follow the
stage-by-stage run within the integrator's accuracy, and keep KE + PE + z constant."""

from __future__ import annotations

import numpy as np
import pytest

from engine import EnsembleIntegrator, RungeKuttaMersonIntegrator, Stage, TimeStepper
from engine.common.exceptions import InvalidArgumentError
from tests.engine.contact_models import build_compliant, contact_model
from tests.engine.test_contact_fused import _shapes_on_floor


def _python_steps(integ) -> None:
    """Make ``integ`` take every step in Python (each attempt still one kernel call)."""
    integ._takeCompiledSteps = lambda *args: 0


def _ball_drop(mode: str, t_end: float):
    """(states (t, y) at each report up to ``t_end``, integrator, built) of the reference
    ball drop with its z (accuracy 1e-4); ``mode`` "compiled", "python" (Python steps,
    kernel attempts) or "stages" (stage by stage)."""
    model = contact_model("ball_drop")
    run = model["runs"][1]
    built = build_compliant(model["model"])
    system = built.ref.system
    if mode == "stages":
        system._fused_realization = None
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(run["accuracy"])
    integ.setAllowInterpolation(False)
    if mode == "python":
        _python_steps(integ)
    stepper = TimeStepper(system, integ)
    stepper.initialize(built.ref.new_state(model["initial_state"]))
    assert stepper.getState().getNZ() == 1
    if mode == "compiled":
        assert integ.whyNotCompiledSteps() == ""
    rows = []
    for report in run["reports"][1:]:
        if report["t"] > t_end:
            break
        stepper.stepTo(report["t"])
        state = stepper.getState()
        rows.append((report, state.getY().copy()))
    return rows, integ, built, stepper


def test_ball_drop_with_z_compiled_steps_equal_the_python_steps():
    """Through two impacts: compiled steps give the Python loop's y (q, u and z) bit for
    bit, with the same step and attempt counts; z grows at each impact; the stage-by-stage
    run agrees within the accuracy; KE + PE + z stays at its start value as Simbody's."""
    compiled, integ, built, stepper = _ball_drop("compiled", 0.8)
    python, integ2, _, _ = _ball_drop("python", 0.8)
    stages, _, _, _ = _ball_drop("stages", 0.8)
    assert integ.getNumStepsTaken() == integ2.getNumStepsTaken() > 50
    assert integ.getNumStepsAttempted() == integ2.getNumStepsAttempted()
    assert integ.getNumErrorTestFailures() == integ2.getNumErrorTestFailures()
    assert integ.getNumRealizations() == integ2.getNumRealizations()
    for (_, y), (_, y2) in zip(compiled, python, strict=True):
        np.testing.assert_array_equal(y, y2)
    for (report, y), (_, y3) in zip(compiled, stages, strict=True):
        np.testing.assert_allclose(y, y3, rtol=0, atol=1e-5)
        assert abs(y[-1] - report["z"][0]) < 1e-4 * max(1.0, report["z"][0])
    z = np.array([y[-1] for _, y in compiled])
    assert z[0] == 0.0 and z[-1] > 0.1 and np.all(np.diff(z) >= 0)
    state = stepper.getState()
    system = built.ref.system
    system.realize(state, Stage.Acceleration)
    assert state.getZ()[0] == built.ccs.getDissipatedEnergy(state)
    e = system.calcKineticEnergy(state) + system.calcPotentialEnergy(state) + state.getZ()[0]
    report0 = contact_model("ball_drop")["runs"][1]["reports"][0]
    e0 = report0["kinetic_energy"] + report0["potential_energy"]
    assert abs(e - e0) < 1e-3 * abs(e0)


@pytest.mark.parametrize("seed", [2, 5, 11])
def test_shapes_with_z_compiled_steps_equal_the_python_steps(seed):
    """Ellipsoids, bricks and spheres landing on a tilted floor and a wall, with z tracked:
    the compiled steps equal the Python loop bit for bit (q, u, z and counts); at the end,
    the fused realization's udot and zdot match the stage-by-stage path's."""
    ys, counts = [], []
    for python in (False, True):
        system, _, ccs, state = _shapes_on_floor(True, seed, track=True)
        assert state.getNZ() == 1
        integ = RungeKuttaMersonIntegrator(system)
        integ.setAccuracy(1e-4)
        if python:
            _python_steps(integ)
        stepper = TimeStepper(system, integ)
        stepper.initialize(state)
        if not python:
            assert integ.whyNotCompiledSteps() == ""
        for t in (0.01, 0.02, 0.03):
            stepper.stepTo(t)
        ys.append(stepper.getState().getY().copy())
        counts.append((integ.getNumStepsTaken(), integ.getNumStepsAttempted()))
    np.testing.assert_array_equal(ys[0], ys[1])
    assert counts[0] == counts[1] and counts[0][0] > 5
    assert ys[0][-1] > 0.0  # energy was dissipated
    derivatives = []
    for fused in (True, False):
        system, _, _, state = _shapes_on_floor(fused, seed, track=True)
        state.setY(ys[0])
        system.realize(state, Stage.Acceleration)
        derivatives.append((state.getUDot().copy(), state.getZDot().copy()))
    (udot, zdot), (udot2, zdot2) = derivatives
    scale = max(1.0, float(np.max(np.abs(udot2))))
    np.testing.assert_allclose(udot, udot2, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(zdot, zdot2, rtol=1e-12, atol=1e-12)


def test_ensemble_refuses_a_member_with_z():
    """The ensemble kernels step q and u only: a State with z is refused, with the reason."""
    model = contact_model("ball_drop")
    built = build_compliant(model["model"])
    state = built.ref.new_state(model["initial_state"])
    with pytest.raises(InvalidArgumentError, match="z"):
        EnsembleIntegrator(built.ref.system, [state])
