"""RungeKuttaMersonIntegrator's compiled attempts (engine.integrators.merson_compiled.attempt)
on random trees of every dynamic mobilizer type take bit-for-bit the steps of its
stage-by-stage evaluation, count the same realizations, and leave failures to the
stage-by-stage path, which words them."""

from __future__ import annotations

import numpy as np
import pytest

from engine import (
    Body,
    Force,
    GeneralForceSubsystem,
    Inertia,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    RungeKuttaMersonIntegrator,
    SimbodyMatterSubsystem,
    Stage,
    StepFailedError,
    Transform,
)
from tests.engine.test_compiled_merson_attempt import (
    MODES,
    assert_same_work_fewer_calls,
    merson_in_mode,
    simulate_merson,
)
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


@pytest.mark.parametrize("mode", ["attempts", "steps"])
@pytest.mark.parametrize("seed", [1, 2])
def test_compiled_stages_take_the_same_steps(seed, mode):
    system, state = _model(seed)
    fast, fast_state, fast_counts = simulate_merson(system, state, mode, tfinal=0.5)
    slow, slow_state, slow_counts = simulate_merson(system, state, "python", tfinal=0.5)
    assert fast.getNumStepsTaken() == slow.getNumStepsTaken() > 10
    assert fast.getNumStepsAttempted() == slow.getNumStepsAttempted()
    assert fast.getNumRealizations() == slow.getNumRealizations()
    assert fast.getNumProjections() == slow.getNumProjections()
    assert_same_work_fewer_calls(fast_counts, slow_counts)
    np.testing.assert_array_equal(fast_state.getY(), slow_state.getY())
    np.testing.assert_array_equal(fast_state.getQDot(), slow_state.getQDot())


def test_the_compiled_stages_are_used_for_such_a_model():
    system, state = _model(3)
    integ = RungeKuttaMersonIntegrator(system)
    integ.initialize(state)
    assert system._fused_realization.compiledDerivatives(integ.getAdvancedState()) is not None


def test_a_non_finite_stage_fails_with_the_stage_by_stage_message():
    messages = []
    for mode in MODES:
        system, state = _model(4)
        state.setU(np.full(state.getNU(), 1e154))  # squares overflow to inf
        with pytest.raises(StepFailedError) as info:
            simulate_merson(system, state, mode, tfinal=0.1)
        messages.append(str(info.value))
    assert messages[0] == messages[1] == messages[2]
    assert "inf" in messages[0] or "nan" in messages[0]


def _runaway_slider():
    """A Slider under a 1e300 m/s^2 field: RK4 is exact for it, so the steps grow
    fivefold until q overflows (near t = 1.9e4 s), many steps into the run."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.Gravity(forces, matter, [1, 0, 0], 1e300)
    body = Body.Rigid(MassProperties(1.0, [0, 0, 0], Inertia(0.1, 0.1, 0.1)))
    slider = MobilizedBody.Slider(matter.Ground(), Transform(), body, Transform())
    state = system.realizeTopology()
    system.realizeModel(state)
    slider.setOneQ(state, 0, 1.0)
    return system, state


def test_an_overflow_many_steps_in_fails_as_on_the_python_path():
    failures = {}
    for mode in MODES:
        system, state = _runaway_slider()
        integ = merson_in_mode(system, mode)
        integ.setAccuracy(1e-5)
        integ.initialize(state)
        with pytest.raises(StepFailedError) as info:
            for _ in range(3):  # the first call returns StartOfContinuousInterval
                integ.stepTo(1e6)
        failures[mode] = (str(info.value), integ.getState().getTime(), integ.getState().getY())
        if mode == "steps":  # the kernel took steps, then left the failing one to Python
            assert integ.compiledStepsTaken > 5
            assert integ._compiledStepsStopped == integ.getNumStepsTaken()
    message, t, y = failures["python"]
    assert "step size underflow" in message and "= inf" in message
    assert t > 1e4
    for mode in ("attempts", "steps"):
        assert failures[mode][0] == message
        assert failures[mode][1] == t
        np.testing.assert_array_equal(failures[mode][2], y)


def test_why_not_compiled_steps_names_what_keeps_the_steps_in_python():
    from engine import (
        Constraint,
        Measure,
        RungeKuttaFeldbergIntegrator,
        SimTKError,
        TriggeredEventHandler,
    )

    def why(system, state, integrator_class=RungeKuttaMersonIntegrator, **settings):
        integ = integrator_class(system)
        if settings.get("every_step"):
            integ.setReturnEveryInternalStep(True)
        integ.initialize(state)
        return integ.whyNotCompiledSteps()

    system, state = _model(5)
    assert why(system, state) == ""
    assert "setReturnEveryInternalStep" in why(system, state, every_step=True)
    assert "RungeKuttaFeldberg has no compiled stepping" in why(
        system, state, RungeKuttaFeldbergIntegrator
    )
    with pytest.raises(SimTKError, match="initialize"):
        RungeKuttaMersonIntegrator(system).whyNotCompiledSteps()

    system, state = _model(6)
    ds = system.getDefaultSubsystem()
    Measure.Time(ds)
    assert why(system, system.realizeTopology()) == ""  # computed when asked: no obstacle
    Measure.Integrate(ds, Measure.Constant(ds, 1.0), Measure.Zero(ds))
    assert why(system, system.realizeTopology()) == (
        "Position..Acceleration are realized stage by stage: a Measure.Integrate does work "
        "at Acceleration stage"
    )

    system, state = _model(7)
    matter = system.getMatterSubsystem()
    Constraint.Rod(
        matter.getMobilizedBody(1), [0.1, 0, 0], matter.getMobilizedBody(3), [0, 0.2, 0], 1
    )
    # compiled constraints: the constrained stepping kernel projects them
    assert why(system, system.realizeTopology()) == ""
    Constraint.ConstantSpeed(matter.getMobilizedBody(2), 0.5)
    assert why(system, system.realizeTopology()) == (
        "Position..Acceleration are realized stage by stage: constraints without a compiled "
        "form are enabled (constraint 1, a ConstantSpeed: its type has no compiled form)"
    )

    class Crossing(TriggeredEventHandler):
        def getValue(self, state) -> float:
            return state.getQ()[0] - 10.0

        def handleEvent(self, state, accuracy, shouldTerminate) -> None:
            pass

    system, state = _model(8)
    system.addEventHandler(Crossing(Stage.Position))
    assert why(system, system.realizeTopology()) == (
        "event witnesses are evaluated at Time to Acceleration stage"
    )
