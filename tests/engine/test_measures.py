"""Measures: values, derivatives, stages, and their state over a simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.common.exceptions import (
    CacheEntryOutOfDateError,
    InvalidArgumentError,
    SimTKError,
    StageTooLowError,
    TopologyMismatchError,
)
from engine.common.stage import Stage
from engine.common.system import System
from engine.integrators import RungeKuttaMersonIntegrator, TimeStepper
from engine.measures import (
    INFINITE_DERIVATIVES,
    Measure,
    Measure_Integrate,
    Measure_Sinusoid,
)
from tests.engine.integration_fixtures import Oscillator


def _system():
    system = System("measures")
    return system, system.updDefaultSubsystem()


def _stepper(system, accuracy=1e-8, maxStep=None):
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(accuracy)
    if maxStep is not None:
        integ.setMaximumStepSize(maxStep)
    stepper = TimeStepper(system, integ)
    stepper.initialize(system.realizeTopology())
    return stepper


# ---------------------------------------------------------------------- Sinusoid
def test_sinusoid_value_and_derivatives_are_analytic():
    system, ds = _system()
    a, w, p = 2.0, 3.0, 0.4
    wave = Measure.Sinusoid(ds, a, w, p)
    state = system.realizeTopology()
    for t in (0.0, 0.37, 1.9):
        state.setTime(t)
        system.realize(state, Stage.Time)
        arg = w * t + p
        assert wave.getValue(state) == pytest.approx(a * math.sin(arg), abs=1e-15)
        assert wave.getValue(state, 1) == pytest.approx(w * a * math.cos(arg), abs=1e-14)
        assert wave.getValue(state, 2) == pytest.approx(-w * w * a * math.sin(arg), abs=1e-13)
        assert wave.getValue(state, 3) == pytest.approx(-(w**3) * a * math.cos(arg), abs=1e-12)
    assert wave.getNumTimeDerivatives() == 3
    assert all(wave.getDependsOnStage(k) == Stage.Time for k in range(4))
    with pytest.raises(InvalidArgumentError, match="derivOrder 4 is out of range"):
        wave.getValue(state, 4)


def test_values_are_cached_until_what_they_depend_on_changes():
    system, ds = _system()
    wave = Measure.Sinusoid(ds, 1.0, 1.0)
    calls = []
    original = wave._calcCachedValue

    def counting(state, order):
        calls.append(order)
        return original(state, order)

    wave._calcCachedValue = counting
    state = system.realizeTopology()
    state.setTime(0.5)
    system.realize(state, Stage.Time)
    wave.getValue(state)
    wave.getValue(state)
    assert calls == [0]
    state.setTime(0.6)
    system.realize(state, Stage.Time)
    assert wave.getValue(state) == pytest.approx(math.sin(0.6))
    assert calls == [0, 0]


def test_asking_too_early_names_the_stages():
    system, ds = _system()
    wave = Measure.Sinusoid(ds, 1.0, 1.0)
    state = system.realizeTopology()  # realized through Model only
    with pytest.raises(StageTooLowError, match="depends on Time stage.*realized at least to"):
        wave.getValue(state)


# --------------------------------------------------------- Constant, Time, algebra
def test_constant_zero_one_time_work_without_a_subsystem():
    system, _ = _system()
    state = system.realizeTopology()
    state.setTime(2.5)
    system.realize(state, Stage.Time)
    c = Measure.Constant(4.0)
    assert c.getValue(state) == 4.0
    assert c.getValue(state, 7) == 0.0
    assert c.getNumTimeDerivatives() == INFINITE_DERIVATIVES
    assert Measure.Zero().getValue(state) == 0.0
    assert Measure.One().getValue(state) == 1.0
    np.testing.assert_array_equal(Measure.Zero(None, 3).getValue(state), np.zeros(3))
    t = Measure.Time()
    assert (t.getValue(state), t.getValue(state, 1), t.getValue(state, 2)) == (2.5, 1.0, 0.0)
    assert t.getDependsOnStage(0) == Stage.Time and t.getDependsOnStage(1) == Stage.Empty


def test_plus_minus_scale():
    system, ds = _system()
    s1 = Measure.Sinusoid(ds, 1.0, 2.0)
    c = Measure.Constant(ds, 0.5)
    plus = Measure.Plus(ds, s1, c)
    minus = Measure.Minus(ds, s1, c)
    scale = Measure.Scale(ds, -3.0, plus)
    state = system.realizeTopology()
    state.setTime(0.3)
    system.realize(state, Stage.Time)
    v = math.sin(0.6)
    assert plus.getValue(state) == pytest.approx(v + 0.5)
    assert minus.getValue(state) == pytest.approx(v - 0.5)
    assert scale.getValue(state) == pytest.approx(-3.0 * (v + 0.5))
    assert plus.getDependsOnStage() == Stage.Time
    assert plus.getNumTimeDerivatives() == 0  # as Simbody 3.7
    with pytest.raises(InvalidArgumentError, match="must be a Measure"):
        Measure.Plus(ds, s1, 2.0)


def test_vector_measures():
    system, ds = _system()
    c = Measure.Constant(ds, [1.0, 2.0, 3.0])
    doubled = Measure.Scale(ds, 2.0, c)
    state = system.realizeTopology()
    system.realize(state, Stage.Time)
    value = doubled.getValue(state)
    np.testing.assert_array_equal(value, [2.0, 4.0, 6.0])
    assert not value.flags.writeable


# ------------------------------------------------------------- Variable, Result
def test_variable_is_a_discrete_state_variable():
    system, ds = _system()
    var = Measure.Variable(ds, Stage.Position, 1.5)
    state = system.realizeTopology()
    assert var.getValue(state) == 1.5
    assert var.getValue(state, 3) == 0.0
    system.realize(state, Stage.Velocity)
    var.setValue(state, -2.0)
    assert var.getValue(state) == -2.0
    assert state.getSystemStage() == Stage.Time  # Position invalidated
    assert system.realizeTopology().getSystemStage() == Stage.Model
    assert var.getValue(system.realizeTopology()) == 1.5  # the default is unchanged


def test_result_is_set_by_the_user_and_goes_stale():
    system, ds = _system()
    result = Measure.Result(ds, Stage.Time, Stage.Dynamics)
    state = system.realizeTopology()
    system.realize(state, Stage.Time)
    assert not result.isValid(state)
    with pytest.raises(CacheEntryOutOfDateError, match="set externally"):
        result.getValue(state)
    result.setValue(state, 42.0)
    assert result.isValid(state)
    assert result.getValue(state) == 42.0
    state.setTime(1.0)  # Time stage invalidated: the result is stale
    system.realize(state, Stage.Time)
    assert not result.isValid(state)
    with pytest.raises(InvalidArgumentError, match="must be later"):
        Measure.Result(ds, Stage.Dynamics, Stage.Position)


# -------------------------------------------------------------------- Integrate
def test_integrate_of_a_constant_is_linear_in_time():
    system, ds = _system()
    rate = Measure.Constant(ds, 2.5)
    ic = Measure.Constant(ds, -1.0)
    area = Measure.Integrate(ds, rate, ic)
    stepper = _stepper(system)
    s = stepper.getState()
    assert area.getValue(s) == -1.0  # initialized from ic, not from initAlloc
    for t in (0.5, 1.25, 3.0):
        stepper.stepTo(t)
        assert area.getValue(stepper.getState()) == pytest.approx(-1.0 + 2.5 * t, abs=1e-12)
    assert area.getValue(stepper.getState(), 1) == 2.5
    assert area.getNumTimeDerivatives() == INFINITE_DERIVATIVES
    assert area.getDependsOnStage(0) == Stage.Time


def test_integrate_of_a_sinusoid_and_set_value():
    system, ds = _system()
    wave = Measure.Sinusoid(ds, 1.0, 2.0)
    area = Measure_Integrate(ds, wave, Measure.Zero(ds))
    assert Measure.Integrate is Measure_Integrate and Measure.Sinusoid is Measure_Sinusoid
    stepper = _stepper(system)
    stepper.stepTo(1.0)
    s = stepper.getState()
    assert area.getValue(s) == pytest.approx((1 - math.cos(2.0)) / 2, abs=1e-8)
    assert area.getValue(s, 1) == pytest.approx(math.sin(2.0))
    assert area.getValue(s, 2) == pytest.approx(2 * math.cos(2.0))
    # setValue writes the z variable; the cached value follows.
    adv = stepper.getIntegrator().updAdvancedState()
    area.setValue(adv, 10.0)
    system.realize(adv, Stage.Time)
    assert area.getValue(adv) == 10.0


def test_integrate_without_a_subsystem_is_refused():
    system, state = _system()[0], None
    area = Measure.Integrate(None, Measure.One(), Measure.Zero())
    state = system.realizeTopology()
    system.realize(state, Stage.Time)
    with pytest.raises(SimTKError, match="adopted by a subsystem"):
        area.getValue(state, 1)


# ---------------------------------------------------------------- Differentiate
def test_differentiate_of_a_sinusoid_is_its_exact_derivative():
    system, ds = _system()
    wave = Measure.Sinusoid(ds, 2.0, 3.0, 0.1)
    d = Measure.Differentiate(ds, wave)
    state = system.realizeTopology()
    state.setTime(0.8)
    system.realize(state, Stage.Time)
    assert not d.isUsingApproximation()
    assert d.getNumTimeDerivatives() == 2
    assert d.getValue(state) == pytest.approx(6.0 * math.cos(2.4 + 0.1))
    assert d.getValue(state, 1) == pytest.approx(-18.0 * math.sin(2.4 + 0.1))


def test_approximate_differentiation_follows_the_simulation():
    osc = Oscillator(omega=1.0, x0=0.0, v0=1.0)  # x = sin t
    system = System("diff")
    system.adoptSubsystem(osc)
    ds = system.updDefaultSubsystem()
    wave = Measure.Sinusoid(ds, 1.0, 1.0)
    d = Measure.Differentiate(ds, wave)
    d.setForceUseApproximation(True)
    stepper = _stepper(system, accuracy=1e-6, maxStep=0.01)
    assert d.isUsingApproximation()
    assert d.getValue(stepper.getState()) == 0.0  # no history yet
    stepper.stepTo(1.0)
    assert d.getValue(stepper.getState()) == pytest.approx(math.cos(1.0), abs=1e-3)
    stepper.stepTo(2.0)
    assert d.getValue(stepper.getState()) == pytest.approx(math.cos(2.0), abs=1e-3)


# --------------------------------------------------------------------- Extremes
def test_minimum_and_maximum_track_extremes_over_a_simulation():
    system, ds = _system()
    wave = Measure.Sinusoid(ds, 2.0, 1.0, 0.5)  # 2 sin(t + 0.5)
    lo = Measure.Minimum(ds, wave)
    hi = Measure.Maximum(ds, wave)
    biggest = Measure.MaxAbs(ds, wave)
    smallest = Measure.MinAbs(ds, wave)
    stepper = _stepper(system, accuracy=1e-6, maxStep=0.02)
    s = stepper.getState()
    v0 = 2 * math.sin(0.5)
    assert lo.getValue(s) == hi.getValue(s) == pytest.approx(v0)  # initialized
    stepper.stepTo(1.0)  # rising to the peak 2 at t = pi/2 - 0.5 = 1.07
    s = stepper.getState()
    assert lo.getValue(s) == pytest.approx(v0)
    assert hi.getValue(s) == pytest.approx(2 * math.sin(1.5), abs=1e-12)
    stepper.stepTo(6.0)  # through the peak and the trough -2 at t = 3pi/2 - 0.5 = 4.21
    s = stepper.getState()
    assert hi.getValue(s) == pytest.approx(2.0, abs=1e-3)
    assert hi.getValue(s) <= 2.0
    assert lo.getValue(s) == pytest.approx(-2.0, abs=1e-3)
    assert lo.getValue(s) >= -2.0
    assert abs(biggest.getValue(s)) == pytest.approx(2.0, abs=1e-3)  # +2 or -2, sign kept
    assert smallest.getValue(s) == pytest.approx(0.0, abs=0.05)  # near the zero crossing
    # The extreme stopped changing when it was reached.
    tMax = hi.getTimeOfExtremeValue(s)
    assert tMax == pytest.approx(math.pi / 2 - 0.5, abs=0.03)
    assert lo.getTimeOfExtremeValue(s) == pytest.approx(3 * math.pi / 2 - 0.5, abs=0.03)


def test_extreme_set_value_and_topology_checks():
    system, ds = _system()
    wave = Measure.Sinusoid(ds, 1.0, 1.0)
    hi = Measure.Maximum(ds, wave)
    state = system.realizeTopology()
    state.setTime(0.2)
    system.realize(state, Stage.Acceleration)
    assert hi.getValue(state) == pytest.approx(math.sin(0.2))  # new max over -inf
    hi.setValue(state, 5.0)  # also discards the pending update value
    system.realize(state, Stage.Acceleration)
    assert hi.getValue(state) == 5.0  # sin(0.2) is no new maximum
    assert hi.getOperation() == Measure.Extreme.Maximum
    # A measure added after realizeTopology has no resources in older States.
    late = Measure.Minimum(ds, wave)
    with pytest.raises(TopologyMismatchError, match="realizeTopology"):
        late.getValue(state)


def test_measures_need_a_subsystem_that_holds_measures():
    with pytest.raises(InvalidArgumentError, match="updDefaultSubsystem"):
        Measure.Sinusoid(Oscillator(), 1.0, 1.0)
