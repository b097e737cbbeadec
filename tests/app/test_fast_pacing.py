""" "As fast as possible" pacing: faster than real time, in the integrator's own steps (the
same steps and States as a headless run), with plot samples thinned to a bounded number per
wall-clock second."""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from app.body_puller import ensure_pull_force
from app.simulation.integrators import make_integrator
from app.simulation.session import (
    FAST_CALL_BUDGET,
    FAST_HORIZON_INTERVALS,
    FAST_MAX_SAMPLES_PER_SECOND,
    FAST_MAX_STEPS_PER_CALL,
    Pacing,
    Settings,
    SimulationSession,
)
from engine.integrators import TimeStepper
from tests.app.sim_models import chain


def _wait(predicate, timeout: float = 60.0) -> None:
    deadline = time.perf_counter() + timeout
    while not predicate():
        assert time.perf_counter() < deadline, "timed out"
        time.sleep(0.01)


def headless_run(built, t_final: float, grid: float, settings: Settings, max_step=None):
    """(State, steps taken) of a headless TimeStepper run of ``built`` with the session's
    integrator and accuracy (and ``max_step`` if given), stepped to every multiple of
    ``grid`` and then to ``t_final``."""
    ensure_pull_force(built)  # laid out as the session lays it out
    integ = make_integrator(settings.integrator, built.system, settings.accuracy)
    if max_step is not None:
        integ.setMaximumStepSize(max_step)
    stepper = TimeStepper(built.system, integ)
    stepper.initialize(built.state)
    k = 1
    while k * grid < t_final:
        stepper.stepTo(k * grid)
        k += 1
    stepper.stepTo(t_final)
    return stepper.getState(), integ.getNumStepsTaken()


def test_fast_pacing_outruns_the_clock_and_thins_the_samples():
    session = SimulationSession(chain(1, q0=1.0), settings=Settings(pacing=Pacing.FAST))
    session.start()
    try:
        session.play()
        _wait(lambda: session.samples.total >= 20)  # the first steps (and compiling) are done
        time.sleep(2.0)  # the sampling interval settles to the measured rate
        wall0, sim0, n0 = time.perf_counter(), session.latest().time, session.samples.total
        time.sleep(1.5)
        snap = session.latest()
        wall, sim = time.perf_counter() - wall0, snap.time - sim0
        count = session.samples.total - n0
        assert not snap.error
        assert sim > wall  # faster than real time
        report = session.settings.report_interval
        t = session.samples.all()[:, 0]
        # Samples are of steps' ends, at most one per reporting interval.
        cells = np.floor(t[n0:] / report + 1e-9)
        assert np.all(np.diff(cells) >= 1)
        # Thinned to about the cap (1.5x for the smoothing of the cost estimate).
        assert count / wall < 1.5 * FAST_MAX_SAMPLES_PER_SECOND
        if sim / wall > 2.0 * report * FAST_MAX_SAMPLES_PER_SECOND:
            assert np.diff(cells).max() >= 2  # fast enough that samples had to be thinned
    finally:
        session.stop()


def test_fast_run_takes_the_headless_steps_bit_for_bit():
    """Running as fast as possible (samples, history records, snapshots and batches taken on
    the way) goes through exactly the steps and States of a headless run reporting along the
    FAST_HORIZON_INTERVALS grid with steps of at most a reporting interval, whatever the
    machine's speed; it is as accurate as a headless run reporting every interval, in no
    more steps."""
    session = SimulationSession(chain(3, q0=1.0), settings=Settings(pacing=Pacing.FAST))
    session.start()
    try:
        session.play()
        _wait(lambda: session.latest().time > 1.5)
        session.pause()
        _wait(lambda: not session.latest().running)
        stepper = session._stepper
        state, steps = stepper.getState(), stepper.getIntegrator().getNumStepsTaken()
        t_final = state.getTime()
        assert session.samples.total > 3
    finally:
        session.stop()
    s = session.settings
    horizon = FAST_HORIZON_INTERVALS * s.report_interval
    ref, ref_steps = headless_run(chain(3, q0=1.0), t_final, horizon, s, s.report_interval)
    assert ref.getTime() == t_final
    assert np.array_equal(state.getQ(), ref.getQ())
    assert np.array_equal(state.getU(), ref.getU())
    assert steps == ref_steps
    every, every_steps = headless_run(chain(3, q0=1.0), t_final, s.report_interval, s)
    assert steps <= every_steps
    exact, _ = headless_run(chain(3, q0=1.0), t_final, horizon, replace(s, accuracy=1e-9))
    error = np.abs(state.getQ() - exact.getQ()).max()
    every_error = np.abs(every.getQ() - exact.getQ()).max()
    print(
        f"t = {t_final:.3f}: error {error:.3g} in {steps} steps, reporting every interval "
        f"{every_error:.3g} in {every_steps}"
    )
    assert error <= 3.0 * every_error + 1e-6


def test_fast_stepto_aims_at_the_horizon_grid_and_returns_after_bounded_steps(monkeypatch):
    """Every TimeStepper.stepTo running as fast as possible aims at a multiple of
    FAST_HORIZON_INTERVALS reporting intervals (no sample or batch end shortens a step),
    with an internal step limit sized by the measured cost per step."""
    calls = []
    original = TimeStepper.stepTo

    def recording(self, t):
        calls.append((t, self.getIntegrator()._userInternalStepLimit))
        return original(self, t)

    monkeypatch.setattr(TimeStepper, "stepTo", recording)
    session = SimulationSession(chain(1, q0=1.0), settings=Settings(pacing=Pacing.FAST))
    session.start()
    try:
        session.play()
        _wait(lambda: session.samples.total >= 100)
        session.pause()
        _wait(lambda: not session.latest().running)
    finally:
        session.stop()
    horizon = FAST_HORIZON_INTERVALS * session.settings.report_interval
    k = np.array([t for t, _ in calls]) / horizon
    np.testing.assert_allclose(k, np.round(k), rtol=0, atol=1e-9)
    assert all(limit is not None and 1 <= limit <= FAST_MAX_STEPS_PER_CALL for _, limit in calls)
    # the limit is restored when the run pauses
    assert session._stepper.getIntegrator()._userInternalStepLimit is None
    session._step_cost = None
    assert session._fast_step_limit() == 8
    session._step_cost = 1e-6
    assert session._fast_step_limit() == FAST_MAX_STEPS_PER_CALL
    session._step_cost = 1.0
    assert session._fast_step_limit() == 1
    session._step_cost = FAST_CALL_BUDGET / 10.5
    assert session._fast_step_limit() == 10


def test_going_on_fast_from_an_earlier_recorded_state_replaces_the_plotted_future():
    """Played as fast as possible from a recorded State shown earlier in the run, the plot
    samples and the history after that moment are the new run's (the old future becomes a
    branch), in time order."""
    session = SimulationSession(chain(2, q0=1.0), settings=Settings(pacing=Pacing.FAST))
    session.start()
    try:
        session.play()
        _wait(lambda: session.latest().time > 2.0)
        session.pause()
        _wait(lambda: not session.latest().running)
        old_rows = session.samples.all()
        session.show_recorded(0.5)
        _wait(lambda: not session.latest().running and session.latest().time < 1.0)
        fork = session.latest().time
        session.set_u("link2", 0, 3.0)  # another future than the first run's
        session.play()
        _wait(lambda: session.latest().time > fork + 0.5)
        session.pause()
        _wait(lambda: not session.latest().running)
        t = session.samples.all()[:, 0]
        assert np.all(np.diff(t) > 0)
        records = [r.t for r in session.history_records()]
        assert np.all(np.diff(records) > 0)
        assert [name for name, *_ in session.branches()] == ["Branch 1"]
        # the samples from the fork on are the new run's: link2's rate starts at 3 rad/s, and
        # none of the first run's samples after the fork is left
        after = session.samples.all()[t >= fork]
        assert len(after) > 1 and after[0, 0] == fork
        column = session.samples.columns.index("u[1] link2.u0")
        assert after[0, column] == 3.0
        old_after = old_rows[old_rows[:, 0] > fork]
        assert len(old_after) > 0
        assert not any((row == old_after).all(axis=1).any() for row in after)
    finally:
        session.stop()
