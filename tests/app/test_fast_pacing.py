""" "As fast as possible" pacing: faster than real time, with plot samples thinned to a bounded
number per wall-clock second (at multiples of the reporting interval)."""

from __future__ import annotations

import time

import numpy as np

from app.simulation.session import (
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
