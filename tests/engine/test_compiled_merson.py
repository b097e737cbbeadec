"""RungeKuttaMersonIntegrator's compiled trial stages (engine.integrators.merson_kernel)
take bit-for-bit the steps of its stage-by-stage evaluation, count the same realizations,
and leave failures to the stage-by-stage path, which words them."""

from __future__ import annotations

import numpy as np
import pytest

from engine import Force, RungeKuttaMersonIntegrator, Stage, StepFailedError, TimeStepper
from tests.engine.test_matter_operator_oracles import DYNAMIC_TYPES, random_tree


def _model(seed: int):
    system, matter, mobods, _, rng = random_tree(seed, DYNAMIC_TYPES, nbodies=8)
    forces = system._force_subsystems[0]
    Force.Gravity(forces, matter, [0, -1, 0], 9.81)
    Force.MobilityLinearSpring(forces, mobods[1], 0, 5.0, 0.1)
    Force.GlobalDamper(forces, matter, 0.05)
    state = system.realizeTopology()
    state.setQ(rng.uniform(-0.5, 0.5, state.getNQ()))
    system.realize(state, Stage.Time)
    matter.normalizeQuaternions(state)
    state.setU(rng.uniform(-0.5, 0.5, state.getNU()))
    return system, state


def _simulate(system, state, compiled: bool, tfinal: float = 0.5):
    fused = system._fused_realization
    if not compiled:
        system._fused_realization = None
    try:
        system.resetAllCountersToZero()
        integ = RungeKuttaMersonIntegrator(system)
        integ.setAccuracy(1e-5)
        stepper = TimeStepper(system, integ)
        stepper.initialize(state)
        stepper.stepTo(tfinal)
        counters = (
            system.getNumRealizeCalls(),
            system.getNumPrescribeQCalls(),
            system.getNumPrescribeUCalls(),
            [system.getNumRealizationsOfThisStage(s) for s in (Stage.Time, Stage.Acceleration)],
        )
        return integ, stepper.getState(), counters
    finally:
        system._fused_realization = fused


@pytest.mark.parametrize("seed", [1, 2])
def test_compiled_stages_take_the_same_steps(seed):
    system, state = _model(seed)
    fast, fast_state, fast_counts = _simulate(system, state, compiled=True)
    slow, slow_state, slow_counts = _simulate(system, state, compiled=False)
    assert fast.getNumStepsTaken() == slow.getNumStepsTaken() > 10
    assert fast.getNumStepsAttempted() == slow.getNumStepsAttempted()
    assert fast.getNumRealizations() == slow.getNumRealizations()
    assert fast.getNumProjections() == slow.getNumProjections()
    assert fast_counts == slow_counts
    np.testing.assert_array_equal(fast_state.getY(), slow_state.getY())
    np.testing.assert_array_equal(fast_state.getQDot(), slow_state.getQDot())


def test_the_compiled_stages_are_used_for_such_a_model():
    system, state = _model(3)
    integ = RungeKuttaMersonIntegrator(system)
    integ.initialize(state)
    assert system._fused_realization.compiledDerivatives(integ.getAdvancedState()) is not None


def test_a_non_finite_stage_fails_with_the_stage_by_stage_message():
    messages = []
    for compiled in (True, False):
        system, state = _model(4)
        state.setU(np.full(state.getNU(), 1e154))  # squares overflow to inf
        with pytest.raises(StepFailedError) as info:
            _simulate(system, state, compiled=compiled, tfinal=0.1)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert "inf" in messages[0] or "nan" in messages[0]
