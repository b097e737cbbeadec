"""`mbstudio` with no MODEL opens the default example and draws it (a real process)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gui

ROOT = Path(__file__).resolve().parents[2]


def test_mbstudio_opens_the_default_example(tmp_path):
    from PySide6.QtGui import QImage

    shot = tmp_path / "shot.png"
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"))
    result = subprocess.run(
        [sys.executable, "-m", "app", "--reset-layout", "--screenshot", str(shot)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    image = QImage(str(shot))
    assert not image.isNull() and image.width() > 600
    rgb = image.convertToFormat(QImage.Format.Format_RGB888)
    rows = np.frombuffer(rgb.constBits(), np.uint8).reshape(rgb.height(), rgb.bytesPerLine())
    pixels = rows[:, : 3 * rgb.width()].reshape(rgb.height(), rgb.width(), 3).astype(int)
    # A model is shown: the view draws the checkered ground plane only around a model.
    light = (np.abs(pixels - (206, 210, 214)).max(axis=2) <= 3).sum()
    dark = (np.abs(pixels - (168, 174, 182)).max(axis=2) <= 3).sum()
    assert light > 2000 and dark > 2000, (light, dark)


def test_mbstudio_replay_opens_a_recording_made_by_simulate(tmp_path):
    from PySide6.QtGui import QImage

    from app.document.examples import example_path

    run, shot = tmp_path / "run.npz", tmp_path / "replay.png"
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"))
    model = str(example_path("double_pendulum"))
    from app.cli import main

    assert main(["simulate", model, "--until", "0.5", "--record", str(run)]) == 0
    result = subprocess.run(
        [sys.executable, "-m", "app", "replay", str(run), "--screenshot", str(shot)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "Cannot" not in result.stderr and "screenshot saved" in result.stdout
    assert not QImage(str(shot)).isNull()
