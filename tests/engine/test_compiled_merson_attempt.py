"""RungeKuttaMersonIntegrator's whole-attempt kernel (engine.integrators.merson_compiled.attempt)
and the compiled pieces it is built from: it takes bit for bit the steps of the
stage-by-stage Python path through the State (trial stages, kinematics, error norm,
quaternion projection, error test) and counts the same work (stage realizations, steps,
attempts, projections) as that path, while its realize and prescribe call counters count
only the calls it really makes; the pairwise sum and the weighted error norm equal numpy's; the
relative scaling equals its definition."""

from __future__ import annotations

import numpy as np
import pytest

from engine import Force, MultibodySystem, RungeKuttaMersonIntegrator, Stage, TimeStepper
from engine.integrators.error_norm import calcErrorNorm, calcRelativeScaling
from engine.multibody.kernels.weighted_error_norm import pairwise_sum
from tests.engine.test_matter_operator_oracles import DYNAMIC_TYPES, random_tree

QUATERNION_TYPES = ["Ball", "Free", "Pin", "Gimbal", "Slider"]


def _model(seed: int, types=QUATERNION_TYPES, nbodies: int = 8, euler: bool = False):
    system, matter, mobods, _, rng = random_tree(seed, types, nbodies=nbodies)
    forces = system._force_subsystems[0]
    Force.Gravity(forces, matter, [0, -1, 0], 9.81)
    Force.MobilityLinearSpring(forces, mobods[3], 0, 5.0, 0.1)
    Force.GlobalDamper(forces, matter, 0.05)
    state = system.realizeTopology()
    matter.setUseEulerAngles(state, euler)
    system.realizeModel(state)
    state.setQ(rng.uniform(-0.5, 0.5, state.getNQ()))
    system.realize(state, Stage.Time)
    matter.normalizeQuaternions(state)
    state.setU(rng.uniform(-1.5, 1.5, state.getNU()))
    return system, state


#: counters of calls the compiled paths leave out (they do the work without the call)
CALLS = ("realize calls", "prescribeQ", "prescribeU")


def assert_same_work_fewer_calls(fast: dict, slow: dict) -> None:
    """The compiled run's counters (``fast``) count the same work as the Python path's
    (``slow``), and fewer realize calls: the kernels count only the calls they make."""
    fast, slow = dict(fast), dict(slow)
    fast_calls = {k: fast.pop(k) for k in CALLS}
    slow_calls = {k: slow.pop(k) for k in CALLS}
    assert fast == slow
    assert all(fast_calls[k] <= slow_calls[k] for k in CALLS), (fast_calls, slow_calls)
    assert fast_calls["realize calls"] < slow_calls["realize calls"]


def _counters(system: MultibodySystem, integ) -> dict:
    return {
        "realize calls": system.getNumRealizeCalls(),
        "prescribeQ": system.getNumPrescribeQCalls(),
        "prescribeU": system.getNumPrescribeUCalls(),
        "projectQ": system.getNumProjectQCalls(),
        "q projections": system.getNumQProjections(),
        "q error estimate projections": system.getNumQErrorEstimateProjections(),
        "realizations": [system.getNumRealizationsOfThisStage(s) for s in Stage.__members__.values()
                         if Stage.Time <= s <= Stage.Acceleration],
        "steps": integ.getNumStepsTaken(),
        "attempts": integ.getNumStepsAttempted(),
        "error test failures": integ.getNumErrorTestFailures(),
        "integrator realizations": integ.getNumRealizations(),
        "integrator q projections": integ.getNumQProjections(),
    }  # fmt: skip


#: how simulate_merson runs the integrator: stage by stage through the State, with one
#: kernel per attempt, or with the stepping kernel (which falls back to the attempt
#: kernel for the steps it leaves to Python)
MODES = ("python", "attempts", "steps")


#: simulate_merson's settings: keyword -> the integrator setter it is passed to
SETTERS = {
    "infinity": "setUseInfinityNorm",
    "project_every_step": "setProjectEveryStep",
    "constraint_tolerance": "setConstraintTolerance",
    "max_step": "setMaximumStepSize",
    "min_step": "setMinimumStepSize",
    "step_limit": "setInternalStepLimit",
    "final_time": "setFinalTime",
    "interpolation": "setAllowInterpolation",
}


def merson_in_mode(system, mode: str) -> RungeKuttaMersonIntegrator:
    """A RungeKuttaMersonIntegrator for ``system`` that runs in ``mode`` (MODES); it
    counts the steps the stepping kernel takes (``compiledStepsTaken``). "python" turns
    the System's fused realization off (the caller restores it)."""
    assert mode in MODES
    if mode == "python":
        system._fused_realization = None
    integ = RungeKuttaMersonIntegrator(system)
    integ.compiledStepsTaken = 0
    if mode == "attempts":
        integ._takeCompiledSteps = lambda tMax, tStop, maxSteps: 0
        return integ
    take = integ._takeCompiledSteps

    def counted(tMax, tStop, maxSteps):
        n = take(tMax, tStop, maxSteps)
        integ.compiledStepsTaken += n
        return n

    integ._takeCompiledSteps = counted
    return integ


def simulate_merson(system, state, mode: str, tfinal=0.6, accuracy=1e-5, **settings):
    """Run a RungeKuttaMerson TimeStepper to ``tfinal`` in ``mode`` (MODES), with the
    ``settings`` of SETTERS and ``report_times`` (stepTo each first); returns the
    integrator, the final State and the counters."""
    fused = system._fused_realization
    try:
        system.resetAllCountersToZero()
        integ = merson_in_mode(system, mode)
        integ.setAccuracy(accuracy)
        for key, value in settings.items():
            if key != "report_times":
                getattr(integ, SETTERS[key])(value)
        stepper = TimeStepper(system, integ)
        stepper.initialize(state)
        for t in settings.get("report_times", ()):
            stepper.stepTo(t)
        stepper.stepTo(tfinal)
        return integ, stepper.getState(), _counters(system, integ)
    finally:
        system._fused_realization = fused


CASES = {
    "quaternions": ({"seed": 11}, {}),
    "quaternions, infinity norm": ({"seed": 12}, {"infinity": True}),
    "quaternions, projected every step": ({"seed": 13}, {"project_every_step": True}),
    "quaternions, tight constraint tolerance": ({"seed": 14}, {"constraint_tolerance": 1e-9}),
    "Euler angles": ({"seed": 15, "euler": True}, {}),
    "every mobilizer type": ({"seed": 16, "types": DYNAMIC_TYPES, "nbodies": 15}, {}),
    "step size limits": ({"seed": 17}, {"max_step": 0.01, "min_step": 1e-4}),
    "reports and an internal step limit": (
        {"seed": 18},
        {"report_times": [0.05, 0.1, 0.2, 0.35], "step_limit": 7},
    ),
    "final time without interpolation": (
        {"seed": 19},
        {"report_times": [0.1, 0.25], "final_time": 0.45, "interpolation": False},
    ),
}


@pytest.mark.parametrize("mode", ["attempts", "steps"])
@pytest.mark.parametrize("case", list(CASES))
def test_compiled_attempts_take_the_python_paths_steps_and_counts(case, mode):
    model_args, settings = CASES[case]
    system, state = _model(**model_args)
    fast, fast_state, fast_counts = simulate_merson(system, state, mode, **settings)
    if mode == "attempts":
        assert fast._mersonEntry[0] is not None, "the compiled attempt was not used"
    else:
        assert fast.compiledStepsTaken > 0.8 * fast.getNumStepsTaken(), "kernel not used"
    slow, slow_state, slow_counts = simulate_merson(system, state, "python", **settings)
    assert_same_work_fewer_calls(fast_counts, slow_counts)
    assert fast_counts["steps"] > 10
    np.testing.assert_array_equal(fast_state.getY(), slow_state.getY())
    for s in (fast_state, slow_state):
        system.realize(s, Stage.Acceleration)
    np.testing.assert_array_equal(fast_state.getYDot(), slow_state.getYDot())
    assert fast_state.getTime() == slow_state.getTime()
    for getter in (
        "getPreviousStepSizeTaken",
        "getPredictedNextStepSize",
        "getActualInitialStepSizeTaken",
        "getPreviousStepWorstState",
        "getNumConvergentIterations",
    ):
        assert getattr(fast, getter)() == getattr(slow, getter)(), getter
    if not model_args.get("euler"):
        # the projection really ran and normalized quaternions on some steps
        assert fast_counts["q projections"] > 0


def test_the_state_after_a_compiled_attempt_reads_as_after_the_python_path():
    system, state = _model(21)
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(1e-5)
    integ.initialize(state)
    integ.stepBy(0.05)
    adv = integ.getAdvancedState()
    assert adv.getSystemStage() >= Stage.Velocity
    fresh = adv.copy()
    fresh.invalidateAllCacheAtOrAbove(Stage.Time)
    system.realize(fresh, Stage.Acceleration)
    system.realize(adv, Stage.Acceleration)
    np.testing.assert_array_equal(adv.getYDot(), fresh.getYDot())
    matter = system.getMatterSubsystem()
    assert matter.calcKineticEnergy(adv) == matter.calcKineticEnergy(fresh)
    # every quaternion is within the projection's target of unit norm
    q = np.asarray(adv.getQ())
    starts = matter._context(adv).quat_starts
    norms = [np.linalg.norm(q[s : s + 4]) for s in starts]
    assert len(norms) > 0
    assert max(abs(n - 1.0) for n in norms) <= 0.1 * integ.getConstraintToleranceInUse()


def test_pairwise_sum_adds_in_numpys_order():
    rng = np.random.default_rng(5)
    for n in list(range(1, 40)) + [127, 128, 129, 255, 256, 257, 300, 1000, 1031, 4099]:
        for offset in (0, 3):
            a = (rng.normal(size=n + offset) * 10.0 ** rng.uniform(-10, 6, n + offset)) ** 2
            assert pairwise_sum(a, offset, n) == float(a[offset:].sum()), (n, offset)


@pytest.mark.parametrize("infinity", [False, True])
def test_compiled_error_norm_equals_the_numpy_norm(monkeypatch, infinity):
    # 45 bodies of Ball/Free/...: y is longer than 128, so the sums split in halves
    system, state = _model(31, nbodies=45)
    system.realize(state, Stage.Velocity)
    rng = np.random.default_rng(3)
    ny, nu = state.getNY(), state.getNU()
    assert ny > 128
    u_scale = calcRelativeScaling(state.getU(), state.getUWeights())
    z_scale = np.zeros(0)
    for _ in range(20):
        est = rng.normal(size=ny) * 10.0 ** rng.uniform(-9, -3, ny)
        fast = calcErrorNorm(system, state, est, u_scale, z_scale, infinity)
        with monkeypatch.context() as m:
            m.setattr(type(system), "_calcErrorNorm", lambda *a: None)
            slow = calcErrorNorm(system, state, est, u_scale, z_scale, infinity)
        assert fast == slow
    assert system._calcErrorNorm(state, est, u_scale, z_scale, infinity) is not None
    # wrong sizes or non-finite entries are left to the numpy path
    assert system._calcErrorNorm(state, est[:-1], u_scale, z_scale, infinity) is None
    assert system._calcErrorNorm(state, est, u_scale[: nu - 1], z_scale, infinity) is None
    est[7] = np.nan
    assert system._calcErrorNorm(state, est, u_scale, z_scale, infinity) is None
    assert calcErrorNorm(system, state, est, u_scale, z_scale, infinity) == (np.inf, 7)


def test_relative_scaling_is_the_weight_or_the_inverse_magnitude():
    values = np.array([0.0, 0.5, -2.0, 4.0, np.nan, -np.inf, 1e-300, 10.0])
    weights = np.array([1.0, 1.0, 1.0, 0.1, 1.0, 1.0, 1e300, 0.5])
    expected = np.array([1.0, 1.0, 0.5, 0.1, 1.0, 0.0, 1e300, 0.1])
    got = calcRelativeScaling(values, weights)
    np.testing.assert_array_equal(got, expected)
    assert got.flags.c_contiguous and got.flags.writeable and got is not weights
    # other inputs (lists, ints, read-only views) give the same numbers
    np.testing.assert_array_equal(calcRelativeScaling(values.tolist(), weights.tolist()), got)
    view = values.view()
    view.flags.writeable = False
    np.testing.assert_array_equal(calcRelativeScaling(view, weights), got)
    np.testing.assert_array_equal(calcRelativeScaling(np.array([3]), np.array([1])), [1 / 3])
    assert calcRelativeScaling(np.zeros(0), np.zeros(0)).shape == (0,)


def test_the_stepping_kernel_resumes_where_its_step_cap_stopped_it(monkeypatch):
    import engine.integrators.runge_kutta_merson as merson

    system, state = _model(22)
    slow, slow_state, slow_counts = simulate_merson(system, state, "python")
    monkeypatch.setattr(merson, "_MAX_STEPS_PER_CALL", 3)
    calls = []
    take = merson.RungeKuttaMersonIntegrator._takeCompiledSteps

    def recorded(self, tMax, tStop, maxSteps):
        calls.append(take(self, tMax, tStop, maxSteps))
        return calls[-1]

    monkeypatch.setattr(merson.RungeKuttaMersonIntegrator, "_takeCompiledSteps", recorded)
    fast, fast_state, fast_counts = simulate_merson(system, state, "steps")
    assert max(calls) == 3 and calls.count(3) >= 5  # capped calls, each resumed
    assert_same_work_fewer_calls(fast_counts, slow_counts)
    np.testing.assert_array_equal(fast_state.getY(), slow_state.getY())
    assert fast.getPredictedNextStepSize() == slow.getPredictedNextStepSize()
