"""EnsembleIntegrator (engine.integrators.ensemble): members advanced together take exactly
the steps of their single RungeKuttaMersonIntegrator runs, report the same States at the
report times, fail alone, and models the compiled stepping cannot take are refused with the
reason."""

from __future__ import annotations

import numpy as np
import pytest

from engine import (
    Body,
    Constraint,
    EnsembleIntegrator,
    Force,
    GeneralForceSubsystem,
    InvalidArgumentError,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    RungeKuttaMersonIntegrator,
    SimbodyMatterSubsystem,
    Stage,
    TimeStepper,
    Transform,
    Vec3,
)


def double_pendulum(mass: float = 1.0):
    """Two 1 kg (``mass`` for the lower) point masses on 1 m massless rods, pins about z,
    gravity 9.81 m/s^2 along -y."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.Gravity(forces, matter, Vec3(0, -1, 0), 9.81)
    upper = MobilizedBody.Pin(
        matter.Ground(), Transform(), Body.Rigid(MassProperties(1.0, Vec3(0), Vec3(0))),
        Transform(Vec3(0, 1, 0)),
    )  # fmt: skip
    lower = MobilizedBody.Pin(
        upper, Transform(), Body.Rigid(MassProperties(mass, Vec3(0), Vec3(0))),
        Transform(Vec3(0, 1, 0)),
    )  # fmt: skip
    state = system.realizeTopology()
    return system, matter, (upper, lower), state


def members(n: int, spacing: float = 1e-6):
    system, matter, _, state = double_pendulum()
    states = []
    for k in range(n):
        s = state.copy()
        s.setQ([2.0, -0.5 + spacing * k])
        states.append(s)
    return system, states


def single(system, state, times, accuracy, interpolate=False):
    """The State at each time of one run: a TimeStepper's, or the integrator's own stepTo
    (which steps past the report time and interpolates)."""
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(accuracy)
    stepper = TimeStepper(system, integ)
    stepper.initialize(state)
    out = []
    for t in times:
        if interpolate:
            while integ.getState().getTime() < t:
                integ.stepTo(t)
        else:
            stepper.stepTo(t)
        s = integ.getState()
        out.append(np.concatenate([s.getQ(), s.getU()]))
    return integ, np.array(out)


@pytest.mark.parametrize("interpolate", [False, True])
def test_members_take_their_single_runs_steps_and_report_their_states(interpolate):
    """8 chaotic double pendulums 1e-6 rad apart, 1 s, accuracy 1e-6, reported every 0.1 s:
    each member's step counts equal its single run's (a TimeStepper's, or with interpolate
    the integrator's own stepTo), its advanced state is bit-identical and each report equals
    the single run's (to rounding, 1e-12, for the dense output)."""
    system, states = members(8)
    times = [0.1 * k for k in range(1, 11)]
    ensemble = EnsembleIntegrator(system, states, accuracy=1e-6, interpolate=interpolate)
    reports = [ensemble.advanceTo(t) for t in times]
    assert (ensemble.getStatus() == 0).all()
    for t, (tt, q, u) in zip(times, reports, strict=True):
        assert np.array_equal(tt, np.full(8, t)) and q.shape == (8, 2) and u.shape == (8, 2)
    advanced = ensemble.getAdvancedY()
    for k, state in enumerate(states):
        integ, expected = single(system, state, times, 1e-6, interpolate)
        assert ensemble.getNumStepsTaken()[k] == integ.getNumStepsTaken() > 20
        assert ensemble.getNumStepsAttempted()[k] == integ.getNumStepsAttempted()
        assert ensemble.getNumErrorTestFailures()[k] == integ.getNumErrorTestFailures()
        assert np.array_equal(advanced[k], integ.getAdvancedState().getY())
        got = np.array([np.concatenate([r[1][k], r[2][k]]) for r in reports])
        if interpolate:
            assert np.abs(got - expected).max() < 1e-12
        else:
            assert np.array_equal(got, expected)
    # the members really are different runs: 1e-6 rad apart at the start, still apart
    assert np.ptp(advanced[:, 1]) > 1e-7


def test_members_of_different_systems_use_their_own_parameters():
    """One System per member (the lower mass differs): each member equals its own single
    run, so the members' parameters are not mixed up."""
    built = [double_pendulum(mass) for mass in (0.5, 1.0, 2.0)]
    for _, _, _, state in built:
        state.setQ([1.0, 0.3])
    ensemble = EnsembleIntegrator([b[0] for b in built], [b[3] for b in built], accuracy=1e-6)
    _, q, u = ensemble.advanceTo(0.5)
    for k, (system, _, _, state) in enumerate(built):
        _, expected = single(system, state, [0.5], 1e-6)
        assert np.array_equal(np.concatenate([q[k], u[k]]), expected[0])
    assert np.ptp(q[:, 1]) > 1e-3


def test_two_threads_give_the_same_results():
    system, states = members(5, spacing=0.1)
    one = EnsembleIntegrator(system, states, accuracy=1e-5)
    two = EnsembleIntegrator(system, states, accuracy=1e-5, threads=2)
    for t in (0.2, 0.7):
        a, b = one.advanceTo(t), two.advanceTo(t)
        assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    member = two.getMemberState(3)
    assert member.getTime() == two.getTime()[3] >= 0.7
    assert np.array_equal(member.getY(), one.getAdvancedY()[3])


def test_a_failing_member_stops_alone():
    """A member whose speeds overflow fails with a reason; the others reach the time."""
    system, states = members(3)
    states[1].setU([1e300, -1e300])
    ensemble = EnsembleIntegrator(system, states, accuracy=1e-4)
    t, q, _ = ensemble.advanceTo(0.3)
    status = ensemble.getStatus()
    assert status[1] != 0 and status[0] == status[2] == 0
    assert ensemble.getStatusText(1) and not ensemble.getStatusText(0)
    assert t[0] == t[2] == 0.3 and t[1] < 0.3
    assert np.isfinite(q[[0, 2]]).all()


def test_refusals_say_why():
    system, states = members(2)
    with pytest.raises(InvalidArgumentError, match="at least one State"):
        EnsembleIntegrator(system, [])
    with pytest.raises(InvalidArgumentError, match="member 1 is a list"):
        EnsembleIntegrator(system, [states[0], [0.0]])
    ensemble = EnsembleIntegrator(system, states)
    ensemble.advanceTo(0.2)
    with pytest.raises(InvalidArgumentError, match="earlier"):
        ensemble.advanceTo(0.1)
    with pytest.raises(InvalidArgumentError, match="already started"):
        ensemble.setAccuracy(1e-8)
    # a constrained model: the compiled stepping does not take it
    csys, matter, (upper, lower), cstate = double_pendulum()
    Constraint.Rod(matter.Ground(), Vec3(0, 1, 0), lower, Vec3(0), 1.5)
    cstate = csys.realizeTopology()
    csys.realize(cstate, Stage.Instance)
    with pytest.raises(InvalidArgumentError, match="member 0 cannot be stepped"):
        EnsembleIntegrator(csys, [cstate])


def test_progress_is_reported_while_the_members_advance(monkeypatch):
    """With a progress callback, advanceTo reports the fraction of members at the time as
    they get there (here after every member: PROGRESS_INTERVAL 0), and the members take the
    same steps as without it."""
    from engine.integrators.ensemble import ensemble_integrator

    monkeypatch.setattr(ensemble_integrator, "PROGRESS_INTERVAL", 0.0)
    system, states = members(6, spacing=0.05)
    plain = EnsembleIntegrator(system, states, accuracy=1e-5)
    reported = EnsembleIntegrator(system, states, accuracy=1e-5)
    seen = []
    for t in (0.3, 0.6):
        a = plain.advanceTo(t)
        b = reported.advanceTo(t, progress=seen.append)
        assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert seen == [k / 6 for k in range(1, 7)] * 2
    assert np.array_equal(plain.getNumStepsTaken(), reported.getNumStepsTaken())


@pytest.mark.parametrize("interpolate", [False, True])
def test_advance_through_all_times_equals_one_advance_per_time(interpolate):
    """advanceThrough (each member through every report time in one pass) returns what one
    advanceTo per time returns, bit for bit, failing member included, and leaves the
    ensemble where advanceTo leaves it."""
    system, states = members(4, spacing=0.05)
    states[2].setU([1e300, -1e300])  # fails at once
    times = [0.05 * k for k in range(1, 9)]
    one = EnsembleIntegrator(system, states, accuracy=1e-5, interpolate=interpolate)
    each = [one.advanceTo(t) for t in times]
    through = EnsembleIntegrator(system, states, accuracy=1e-5, interpolate=interpolate)
    seen = []
    t_all, q_all, u_all = through.advanceThrough(times[:5], progress=seen.append)
    t_rest, q_rest, u_rest = through.advanceThrough(times[5:])
    assert seen[-1] == 1.0 and seen == sorted(seen)
    t_all, q_all = np.concatenate([t_all, t_rest]), np.concatenate([q_all, q_rest])
    u_all = np.concatenate([u_all, u_rest])
    assert q_all.shape == (8, 4, 2) and u_all.shape == (8, 4, 2) and t_all.shape == (8, 4)
    for j, (tt, q, u) in enumerate(each):
        assert np.array_equal(t_all[j], tt)
        assert np.array_equal(q_all[j], q) and np.array_equal(u_all[j], u)
    assert np.array_equal(through.getStatus(), one.getStatus()) and one.getStatus()[2] != 0
    assert np.array_equal(through.getAdvancedY(), one.getAdvancedY())
    assert np.array_equal(through.getNumStepsTaken(), one.getNumStepsTaken())
    with pytest.raises(InvalidArgumentError, match="earlier"):
        through.advanceThrough([0.1])


def test_set_up_reports_progress_and_a_raising_callback_stops_it(monkeypatch):
    """The constructor reports the fraction of members set up; an exception raised by the
    callback (a caller's cancellation) stops the construction and propagates."""
    from engine.integrators.ensemble import ensemble_integrator

    monkeypatch.setattr(ensemble_integrator, "PROGRESS_INTERVAL", 0.0)  # after every member
    system, states = members(4)
    seen = []
    EnsembleIntegrator(system, states, progress=seen.append)
    assert seen == [0.25, 0.5, 0.75]

    def cancel(fraction):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        EnsembleIntegrator(system, states, progress=cancel)


@pytest.mark.parametrize("interpolate", [False, True])
def test_stepping_in_calls_of_a_few_steps_changes_no_step(monkeypatch, interpolate):
    """The kernels stop after their step budget and the next call goes on where they
    stopped: with calls of 1 to 3 steps, advanceTo and advanceThrough give what the default
    calls give, bit for bit."""
    from engine.integrators.ensemble import ensemble_integrator

    system, states = members(3, spacing=0.05)
    times = [0.05 * k for k in range(1, 5)]
    default = EnsembleIntegrator(system, states, accuracy=1e-5, interpolate=interpolate)
    expected = [default.advanceTo(t) for t in times]
    expected_through = EnsembleIntegrator(system, states, accuracy=1e-5).advanceThrough(times)
    monkeypatch.setattr(ensemble_integrator, "_FIRST_BUDGET", 1)
    monkeypatch.setattr(ensemble_integrator, "_MAX_BUDGET", 3)
    small = EnsembleIntegrator(system, states, accuracy=1e-5, interpolate=interpolate)
    for t, (tt, q, u) in zip(times, expected, strict=True):
        got = small.advanceTo(t)
        assert np.array_equal(got[0], tt) and np.array_equal(got[1], q)
        assert np.array_equal(got[2], u)
    assert np.array_equal(small.getNumStepsTaken(), default.getNumStepsTaken())
    through = EnsembleIntegrator(system, states, accuracy=1e-5).advanceThrough(times)
    for got, want in zip(through, expected_through, strict=True):
        assert np.array_equal(got, want)


class _AlarmError(Exception):
    pass


def test_a_signal_stops_a_long_advance_within_a_fraction_of_a_second():
    """A member that needs millions of steps to reach the report time: a signal handler's
    exception comes out of advanceTo while it runs, not after it."""
    import signal
    import time

    system, states = members(2)
    ensemble = EnsembleIntegrator(system, states, accuracy=1e-12)
    ensemble.advanceTo(1e-3)  # compiled and started

    def alarm(signum, frame):
        raise _AlarmError

    previous = signal.signal(signal.SIGALRM, alarm)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        start = time.perf_counter()
        with pytest.raises(_AlarmError):
            ensemble.advanceTo(1e4)
        took = time.perf_counter() - start
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert took < 0.8, f"the handler's exception came {took:.2f} s after the advance began"
    assert 0 < ensemble.getTime().min() < 1e4
