"""A run whose plot sample holds NaN or infinity (here an infinite potential energy: a frame
offset of 1e308 m up) stops with a message naming the quantity, as ``mbstudio simulate``
refuses such a run, instead of plotting infinities without a word."""

from __future__ import annotations

import json

import pytest

from app.document import build, model_io
from app.document.examples import example_path
from app.simulation.session import Pacing, Settings, SimulationSession
from tests.app.test_simulation_session import wait_for


def _far_up_pendulum(tmp_path):
    data = json.loads(example_path("pendulum").read_text())
    data["model"]["bodies"][0]["X_PF"]["p"] = [0.0, 1e308, 0.0]
    path = tmp_path / "far_up.mbs.json"
    path.write_text(json.dumps(data))
    return model_io.load(path)


@pytest.mark.parametrize("pacing", [Pacing.REAL_TIME, Pacing.FAST])
def test_playing_a_model_with_an_infinite_energy_stops_with_a_message(tmp_path, pacing):
    built = build(_far_up_pendulum(tmp_path), True)
    session = SimulationSession(built, Settings(pacing=pacing))
    session.start()
    try:
        wait_for(lambda: session.latest() is not None)
        session.play()
        snap = wait_for(lambda: (lambda s: s if s.error else None)(session.latest()))
        assert not snap.running
        assert "diverged" in snap.error and "potential energy" in snap.error, snap.error
        assert snap.time < 0.5
    finally:
        session.stop()
