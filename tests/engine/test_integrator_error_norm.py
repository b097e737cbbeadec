"""The integrators' weighted error norm (error_norm.calcErrorNorm).

calcErrorNorm forms every weighted entry in one array and reduces each group's slice;
_calcErrorNormChecked is the group-by-group definition (weightedNorm per q, u, z). The two
must give the same norm, bit for bit, and name the same worst variable; and the q part
must be weighted through N (Wq = N Wu pinv(N)), which for a quaternion removes the
component along q itself.
"""

from __future__ import annotations

import math

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
    SimbodyMatterSubsystem,
    Stage,
    Transform,
    Vec3,
)
from engine.integrators.error_norm import (
    _calcErrorNormChecked,
    calcErrorNorm,
    calcRelativeScaling,
    weightedNorm,
)
from engine.measures import Measure


def _ballPinSystem():
    """Ball (quaternion, 4 q / 3 u) then Pin under gravity, plus a Measure.Integrate z."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.Gravity(forces, matter, Vec3(0, -1, 0), 9.81)
    body = Body.Rigid(MassProperties(2.0, Vec3(0, -0.5, 0), Inertia(0.3, 0.1, 0.3)))
    ball = MobilizedBody.Ball(matter.Ground(), Transform(), body, Transform())
    MobilizedBody.Pin(ball, Transform(Vec3(0, -1, 0)), body, Transform())
    ds = system.updDefaultSubsystem()
    Measure.Integrate(ds, Measure.Constant(ds, 1.0), Measure.Zero(ds))
    state = system.realizeTopology()
    q = np.array([0.9, 0.3, -0.2, 0.25, 0.4])
    q[:4] /= np.linalg.norm(q[:4])
    state.setQ(q)
    state.setU([0.5, -1.5, 2.5, 3.0])
    system.realize(state, Stage.Position)
    return system, state


def test_system_has_quaternion_q_u_and_z():
    _, state = _ballPinSystem()
    assert (state.getNQ(), state.getNU(), state.getNZ()) == (5, 4, 1)


@pytest.mark.parametrize("infinity", [False, True], ids=["rms", "infinity"])
def test_fast_norm_equals_group_by_group_definition(infinity):
    system, state = _ballPinSystem()
    rng = np.random.default_rng(5)
    uScale = calcRelativeScaling(state.getU(), state.getUWeights())
    zScale = calcRelativeScaling(state.getZ(), state.getZWeights())
    winners = set()
    for trial in range(60):
        err = rng.normal(size=10) * 10.0 ** rng.uniform(-9, -3, size=10)
        group = trial % 3  # make each group the largest in turn
        sl = [slice(0, 5), slice(5, 9), slice(9, 10)][group]
        err[sl] *= 1e4
        fast = calcErrorNorm(system, state, err, uScale, zScale, infinity)
        checked = _calcErrorNormChecked(system, state, err, uScale, zScale, infinity)
        assert fast == checked
        winners.add(0 if fast[1] < 5 else (1 if fast[1] < 9 else 2))
    assert winners == {0, 1, 2}


def test_ties_and_zero_error():
    system, state = _ballPinSystem()
    ones = np.ones(4)
    z1 = np.ones(1)
    assert calcErrorNorm(system, state, np.zeros(10), ones, z1, False) == (0.0, 0)
    err = np.zeros(10)
    err[5:9] = 1e-6  # u and z with the same RMS norm: u wins the tie
    err[9] = 1e-6
    assert calcErrorNorm(system, state, err, ones, z1, False) == pytest.approx((1e-6, 5))
    assert calcErrorNorm(system, state, err, ones, z1, False)[1] == 5


def test_quaternion_error_along_q_is_not_counted():
    """Wq = N Wu pinv(N): for the Ball's quaternion N pinv(N) projects out q itself, so an
    error estimate along q (a change of the quaternion's length) weighs nothing."""
    system, state = _ballPinSystem()
    q = np.array(state.getQ())
    err = np.zeros(10)
    err[:4] = 1e-3 * q[:4]
    norm, _ = calcErrorNorm(system, state, err, np.ones(4), np.ones(1), True)
    assert norm < 1e-15
    err[4] = 2e-3  # the Pin angle counts in full
    norm, worst = calcErrorNorm(system, state, err, np.ones(4), np.ones(1), True)
    assert norm == pytest.approx(2e-3) and worst == 4


@pytest.mark.parametrize("bad", [math.nan, math.inf])
@pytest.mark.parametrize("where", [2, 6, 9])
def test_non_finite_entry_is_infinite_and_named(bad, where):
    system, state = _ballPinSystem()
    err = np.full(10, 1e-7)
    err[where] = bad
    norm, worst = calcErrorNorm(system, state, err, np.ones(4), np.ones(1), False)
    assert norm == math.inf and worst == where


def test_overflowing_but_finite_entries_are_not_mistaken_for_non_finite():
    system, state = _ballPinSystem()
    err = np.zeros(10)
    err[6] = 1e200  # its square overflows; the value itself is finite
    norm, worst = calcErrorNorm(system, state, err, np.ones(4), np.ones(1), True)
    assert norm == 1e200 and worst == 6


def test_weighted_norm_and_relative_scaling():
    assert weightedNorm(np.zeros(0), np.zeros(0), False) == (0.0, -1)
    assert weightedNorm(np.array([3.0, -4.0]), np.ones(2), False) == (
        pytest.approx(math.sqrt(12.5)),
        1,
    )
    scale = calcRelativeScaling(np.array([0.0, 0.5, -4.0]), np.array([1.0, 1.0, 1.0]))
    assert scale.tolist() == [1.0, 1.0, 0.25]  # relative once |v| exceeds one unit
    assert calcRelativeScaling(np.zeros(0), np.zeros(0)).size == 0


def test_non_finite_trial_state_is_refused_by_name_and_changes_nothing():
    """A trial y with a NaN (e.g. from an overflowing stage) makes the step attempt fail
    with the variable named; the advanced State keeps its time and y."""
    from engine.integrators import RungeKuttaMersonIntegrator
    from engine.integrators.integrator import _TrialStepError

    system, state = _ballPinSystem()
    integ = RungeKuttaMersonIntegrator(system)
    integ.initialize(state)
    adv = integ.getAdvancedState()
    t0, y0 = adv.getTime(), np.array(adv.getY())
    y = y0.copy()
    y[6] = math.nan
    with pytest.raises(_TrialStepError, match=r"trial state at t=0\.5 had u\[1\].* = nan"):
        integ._setAdvancedState(0.5, y)
    assert adv.getTime() == t0 and np.array_equal(adv.getY(), y0)
    integ._setAdvancedState(0.5, y0 + 1e-3)
    assert adv.getTime() == 0.5 and np.array_equal(adv.getY(), y0 + 1e-3)
