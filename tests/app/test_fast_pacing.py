""" "As fast as possible" pacing: faster than real time, with plot samples thinned to a bounded
number per wall-clock second (at multiples of the reporting interval)."""

from __future__ import annotations

import time

import numpy as np

from app.simulation.session import (
    FAST_CHUNK_BUDGET,
    FAST_MAX_CHUNK_INTERVALS,
    FAST_MAX_SAMPLES_PER_SECOND,
    Pacing,
    Settings,
    SimulationSession,
)
from tests.app.sim_models import chain


def test_fast_pacing_outruns_the_clock_and_thins_the_samples():
    session = SimulationSession(chain(1, q0=1.0), settings=Settings(pacing=Pacing.FAST))
    session.start()
    try:
        session.play()
        deadline = time.perf_counter() + 60
        while session.samples.total < 20 and time.perf_counter() < deadline:
            time.sleep(0.01)  # the first steps (and any compiling) are done
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
        steps = t[n0:] / report  # samples at multiples of the reporting interval
        np.testing.assert_allclose(steps, np.round(steps), atol=1e-6)
        ratio = np.diff(steps)
        assert ratio.min() > 1.0 - 1e-6
        # Thinned to about the cap (1.5x for the smoothing of the cost estimate).
        assert count / wall < 1.5 * FAST_MAX_SAMPLES_PER_SECOND
        if sim / wall > 2.0 * report * FAST_MAX_SAMPLES_PER_SECOND:
            assert ratio.max() >= 2.0  # fast enough that samples had to be thinned
    finally:
        session.stop()


def test_fast_stepping_runs_long_chunks_between_samples_within_the_caps():
    """Each stepTo covers as many reporting intervals as the sampling interval, the wall-clock
    chunk budget and FAST_MAX_CHUNK_INTERVALS allow, so the compiled steps run uninterrupted;
    the integrator stops at every chunk's end, so a sample time is always a step's end."""
    session = SimulationSession(chain(1, q0=1.0), settings=Settings(pacing=Pacing.FAST))
    report = session.settings.report_interval
    session._cost = None  # nothing measured yet: one reporting interval
    assert session._fast_chunk(8 * report) == report
    session._cost = 1e-4  # a cheap model: as long as the sampling interval...
    assert session._fast_chunk(4 * report) == 4 * report
    assert session._fast_chunk(report) == report
    # ...but never more than FAST_MAX_CHUNK_INTERVALS reporting intervals
    assert session._fast_chunk(1024 * report) == FAST_MAX_CHUNK_INTERVALS * report
    # a costly model: at most FAST_CHUNK_BUDGET of wall-clock time per stepTo
    session._cost = 0.5
    chunk = session._fast_chunk(1024 * report)
    assert chunk * session._cost <= FAST_CHUNK_BUDGET or chunk == report
    assert 2 * chunk * session._cost > FAST_CHUNK_BUDGET


def test_fast_run_calls_stepto_once_per_chunk(monkeypatch):
    """A cheap model running as fast as possible calls TimeStepper.stepTo for several
    reporting intervals at a time (not once per interval), and still samples only at
    multiples of the reporting interval."""
    from engine.integrators import TimeStepper

    calls = []
    original = TimeStepper.stepTo

    def counting(self, t):
        calls.append(t)
        return original(self, t)

    monkeypatch.setattr(TimeStepper, "stepTo", counting)
    session = SimulationSession(chain(1, q0=1.0), settings=Settings(pacing=Pacing.FAST))
    session.start()
    try:
        session.play()
        deadline = time.perf_counter() + 60
        while session.samples.total < 200 and time.perf_counter() < deadline:
            time.sleep(0.01)
        session.pause()
        time.sleep(0.1)
    finally:
        session.stop()
    report = session.settings.report_interval
    gaps = np.diff(np.array(calls[len(calls) // 2 :])) / report
    assert gaps.max() >= 2.0 - 1e-6  # chunks of several reporting intervals
    assert gaps.max() <= FAST_MAX_CHUNK_INTERVALS + 1e-6
    k = session.samples.all()[:, 0] / report
    np.testing.assert_allclose(k, np.round(k), atol=1e-6)
