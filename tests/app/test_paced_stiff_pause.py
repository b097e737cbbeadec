"""A stiff model run in real time still pauses at once (issue 22: a paced stepTo to the next
reporting time ran every internal step of a stiff model before the worker saw the pause)."""

from __future__ import annotations

import json
import time

from app.document import build, model_io
from app.document.examples import example_path
from app.simulation.session import Pacing, Settings, SimulationSession


def _stiff_double_pendulum(tmp_path):
    """The double pendulum with a 1e12 N/m spring on its lower body: steps of about 1e-7 s,
    millions of them to a reporting time half a second away."""
    raw = json.loads(example_path("double_pendulum").read_text())
    raw["model"]["forces"].append(
        {
            "type": "TwoPointLinearSpring",
            "args": {
                "body1": "Ground",
                "station1": [0.0, 1.5, 0.0],
                "body2": "lower",
                "station2": [0.0, 0.0, 0.0],
                "stiffness": 1e12,
                "rest_length": 0.1,
            },
        }
    )
    path = tmp_path / "stiff.mbs.json"
    path.write_text(json.dumps(raw))
    return model_io.load(path)


def _wait(condition, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.005)
    return False


def test_a_stiff_model_in_real_time_pauses_within_a_second(tmp_path):
    settings = Settings(pacing=Pacing.REAL_TIME, report_interval=0.5)
    session = SimulationSession(
        build(_stiff_double_pendulum(tmp_path)), settings, sample_capacity=100
    )
    session.start()
    try:
        session.play()
        assert _wait(lambda: session.latest() is not None and session.latest().running, 10)
        time.sleep(1.0)  # the worker is deep in the steps to t = 0.5 s
        assert session.latest().running and session.latest().time < 0.5
        asked = time.monotonic()
        session.pause()
        assert _wait(lambda: not session.latest().running, 30), "the pause never came"
        took = time.monotonic() - asked
        assert took < 1.0, f"the pause took {took:.2f} s"
        # the run went on from where it was: no sample was taken short of a reporting time
        assert all(abs(t / 0.5 - round(t / 0.5)) < 1e-9 for t in session.samples.all()[:, 0])
    finally:
        session.stop()
