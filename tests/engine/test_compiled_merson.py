"""RungeKuttaMersonIntegrator's compiled attempts (engine.integrators.merson_attempt_kernel)
on random trees of every dynamic mobilizer type take bit-for-bit the steps of its
stage-by-stage evaluation, count the same realizations, and leave failures to the
stage-by-stage path, which words them."""

from __future__ import annotations

import numpy as np
import pytest

from engine import Force, RungeKuttaMersonIntegrator, Stage, StepFailedError
from tests.engine.test_compiled_merson_attempt import simulate_merson
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


@pytest.mark.parametrize("seed", [1, 2])
def test_compiled_stages_take_the_same_steps(seed):
    system, state = _model(seed)
    fast, fast_state, fast_counts = simulate_merson(system, state, compiled=True, tfinal=0.5)
    slow, slow_state, slow_counts = simulate_merson(system, state, compiled=False, tfinal=0.5)
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
            simulate_merson(system, state, compiled=compiled, tfinal=0.1)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert "inf" in messages[0] or "nan" in messages[0]
