"""`mbstudio simulate` under stress (issue 22): rows reach the CSV while the run goes on,
SIGINT and SIGTERM stop it within a second keeping them, a diverging or stalled run stops
with a message and a non-zero exit, and mutated model files never end in a traceback, a
signal or a hang."""

from __future__ import annotations

import contextlib
import csv
import json
import math
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "resources" / "examples"


def _start(model: Path, csv_path: Path, *extra: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, "-m", "app", "simulate", str(model), "--csv", str(csv_path), *extra],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # as a terminal starts it: pytest-xdist's workers ignore SIGINT, which a child inherits
        preexec_fn=_default_sigint,
    )


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _rows(csv_path: Path) -> list[list[str]]:
    if not csv_path.exists():
        return []
    with open(csv_path, newline="", encoding="utf-8") as f:
        return [row for row in csv.reader(f) if row]


@contextlib.contextmanager
def _ended_at_exit(proc: subprocess.Popen):
    """``proc``, killed at the block's exit if it is still running (a failed wait or
    assertion leaves no process behind)."""
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _signal(proc: subprocess.Popen, signum: int, timeout: float = 30) -> tuple[str, float]:
    """Send ``signum`` to ``proc`` and wait for it to end: (the rest of its stderr, the
    seconds from the signal to its end)."""
    sent = time.monotonic()
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=timeout)
    return err, time.monotonic() - sent


def _wait_for_rows(proc: subprocess.Popen, csv_path: Path, n: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while len(_rows(csv_path)) < n + 1:  # + header
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no rows reached the CSV while the run went on"
        time.sleep(0.1)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_mid_run_stops_within_a_second_and_keeps_the_rows(tmp_path, signum):
    out = tmp_path / "run.csv"
    run = _start(EXAMPLES / "double_pendulum.mbs.json", out, "--until", "2000", "--dt", "0.01")
    with _ended_at_exit(run) as proc:
        _wait_for_rows(proc, out, 5, timeout=240)
        err, took = _signal(proc, signum, timeout=10)
    assert took < 1.0, f"took {took:.2f} s to stop"
    assert proc.returncode == 128 + signum
    assert signal.Signals(signum).name in err and "rows written so far" in err
    assert "Traceback" not in err
    rows = _rows(out)
    assert len(rows) >= 6
    for row in rows[1:]:
        assert len(row) == len(rows[0]) and all(math.isfinite(float(v)) for v in row)


def _run(model: Path, tmp_path: Path, until: str = "0.05", timeout: float = 240):
    out = tmp_path / f"{model.stem}.csv"
    proc = _start(model, out, "--until", until, "--dt", "0.01")
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"mbstudio simulate hung on {model}")
    return proc.returncode, err, _rows(out)


def _check_outcome(code: int, err: str, rows: list) -> None:
    assert code >= 0, f"killed by signal {-code}"
    assert "Traceback" not in err, err
    if code == 0:
        assert len(rows) >= 2
        for row in rows[1:]:
            assert all(math.isfinite(float(v)) for v in row), row
    else:
        assert "mbstudio:" in err, err


def test_a_diverging_model_stops_with_a_message_and_non_zero_exit(tmp_path):
    raw = json.loads((EXAMPLES / "pendulum.mbs.json").read_text())
    raw["model"]["bodies"][0]["X_BM"]["p"] = [0.0, 1e200, 0.0]
    raw["model"]["bodies"][0]["u"] = [1e150]
    model = tmp_path / "diverging.mbs.json"
    model.write_text(json.dumps(raw))
    code, err, rows = _run(model, tmp_path, until="1")
    _check_outcome(code, err, rows)
    assert code != 0


def test_non_finite_values_in_a_sample_stop_the_run_with_no_such_cell_written(tmp_path):
    """A frame offset of 1e308 m under gravity: the State is finite but the potential energy
    is not. The run stops at that sample with a message and exit status 1, and the CSV holds
    no NaN or infinite cell (issue 22: 102 NaN cells and exit status 0)."""
    raw = json.loads((EXAMPLES / "pendulum.mbs.json").read_text())
    raw["model"]["bodies"][0]["X_PF"]["p"] = [0.0, 1e308, 0.0]
    model = tmp_path / "far.mbs.json"
    model.write_text(json.dumps(raw))
    code, err, rows = _run(model, tmp_path, until="1")
    assert code == 1, err
    assert "non-finite" in err and "Traceback" not in err
    assert rows and rows[0][0] == "t"
    for row in rows[1:]:
        assert all(math.isfinite(float(v)) for v in row), row


def test_mutated_files_through_simulate_never_crash_or_hang(tmp_path):
    rng = random.Random(22)
    hostile = [1e300, -1e300, 0.0, -1.0, 1e-300, 10**30, "x", None, [], 1e12]
    for k in range(3):
        raw = json.loads((EXAMPLES / "double_pendulum.mbs.json").read_text())
        body = raw["model"]["bodies"][rng.randrange(len(raw["model"]["bodies"]))]
        key = rng.choice(["mass", "com", "inertia", "X_PF", "X_BM", "q", "u"])
        value = rng.choice(hostile)
        if isinstance(body.get(key), list) and not isinstance(value, list):
            body[key][rng.randrange(len(body[key]))] = value
        else:
            body[key] = value
        model = tmp_path / f"mutated{k}.mbs.json"
        model.write_text(json.dumps(raw))
        _check_outcome(*_run(model, tmp_path))


def _stiff_model(tmp_path: Path) -> Path:
    """The double pendulum with a spring of stiffness 1e12 N/m on its lower body."""
    raw = json.loads((EXAMPLES / "double_pendulum.mbs.json").read_text())
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
    model = tmp_path / "stiff.mbs.json"
    model.write_text(json.dumps(raw))
    return model


def test_a_stiff_model_whose_step_size_collapses_stops_with_a_stiffness_hint(tmp_path):
    code, err, rows = _run(_stiff_model(tmp_path), tmp_path, until="10")
    _check_outcome(code, err, rows)
    assert code == 1 and "too stiff" in err and "step size" in err


def _ladder(tmp_path: Path, rungs: int, both: bool = False) -> Path:
    """Two hanging chains of ``rungs`` Ball links joined by a Rod at every rung: each step
    projects onto ``rungs`` constraints and solves for as many multipliers (a few hundredths
    of a second per step with 120 rungs, seconds with 800). The first link of one chain
    swings (of both alike with ``both``: the velocities then satisfy the Rods' equations,
    so the start projects nothing)."""
    raw = json.loads((EXAMPLES / "chain50.mbs.json").read_text())
    link = raw["model"]["bodies"][1]
    bodies = []
    for side, x in (("a", 0.0), ("b", 0.3)):
        for k in range(rungs):
            body = json.loads(json.dumps(link))
            body.pop("geometry", None)
            body.update(name=f"{side}{k}", parent="Ground" if k == 0 else f"{side}{k - 1}")
            body["X_PF"]["p"] = [x, 4.5, 0.0] if k == 0 else [0.0, -0.08, 0.0]
            body["q"] = [1.0, 0.0, 0.0, 0.0]
            bodies.append(body)
    bodies[0]["u"] = [0.0, 0.0, 1.0]
    if both:
        bodies[rungs]["u"] = [0.0, 0.0, 1.0]
    rod = {"point1": [0.0, -0.08, 0.0], "point2": [0.0, -0.08, 0.0], "length": 0.3}
    raw["model"]["bodies"] = bodies
    raw["model"]["ground_geometry"] = []
    raw["model"]["constraints"] = [
        {"type": "Rod", "name": f"rung{k}", "args": {"body1": f"a{k}", "body2": f"b{k}", **rod}}
        for k in range(rungs)
    ]
    model = tmp_path / f"ladder{rungs}.mbs.json"
    model.write_text(json.dumps(raw))
    return model


def test_sigint_during_constraint_projecting_steps_stops_within_a_second(tmp_path):
    """Between two samples (--dt 1) the integrator takes dozens of steps, each projecting q and
    u onto 120 Rods and solving for their multipliers in compiled code; SIGINT must not wait
    for all of them, nor for one step."""
    out = tmp_path / "ladder.csv"
    ladder = _ladder(tmp_path, 120)
    with _ended_at_exit(_start(ladder, out, "--until", "100", "--dt", "1")) as proc:
        _wait_for_rows(proc, out, 1, timeout=240)  # the t = 0 row: the stepping has begun
        time.sleep(0.5)
        assert proc.poll() is None
        err, took = _signal(proc, signal.SIGINT)
    assert took < 1.0, f"took {took:.2f} s to stop"
    assert proc.returncode == 128 + signal.SIGINT
    assert "interrupted by SIGINT" in err and "Traceback" not in err
    rows = _rows(out)
    assert len(rows) >= 2 and rows[1][0] == "0.0"


def test_sigint_inside_one_long_constrained_step_stops_within_a_second(tmp_path):
    """A ladder of 600 Rods takes seconds per step (its cost grows as m^2 nu): SIGINT in the
    middle of the first step stops the run within a second, keeping the t = 0 row (the
    step runs in a helper thread that stops when asked; the main thread's handler runs)."""
    out = tmp_path / "ladder600.csv"
    ladder = _ladder(tmp_path, 600, both=True)
    with _ended_at_exit(_start(ladder, out, "--until", "100", "--dt", "1")) as proc:
        _wait_for_rows(proc, out, 1, timeout=240)  # the t = 0 row: the first step begins
        time.sleep(0.7)
        assert proc.poll() is None
        err, took = _signal(proc, signal.SIGINT)
    assert took < 1.0, f"took {took:.2f} s to stop"
    assert proc.returncode == 128 + signal.SIGINT, err
    assert "interrupted by SIGINT" in err and "Traceback" not in err
    rows = _rows(out)
    assert len(rows) == 2 and rows[1][0] == "0.0"


def test_sigint_while_the_engine_loads_exits_with_a_message(tmp_path):
    """Ctrl-C before the run starts (importing the engine, loading the model) ends with a
    message and exit status 130, never a traceback."""
    out = tmp_path / "early.csv"
    with _ended_at_exit(
        _start(EXAMPLES / "double_pendulum.mbs.json", out, "--until", "100")
    ) as proc:
        time.sleep(0.5)
        err, _ = _signal(proc, signal.SIGINT)
    assert proc.returncode == 130, err
    assert "interrupted by SIGINT" in err and "Traceback" not in err


def test_sigint_while_a_stiff_model_crawls_stops_within_a_second_keeping_the_first_row(tmp_path):
    """The stiff model's steps are ~1e-7 s: no second sample comes for a long while, yet the
    t = 0 row reaches the file within a second, and SIGINT stops the run with it kept."""
    out = tmp_path / "stiff.csv"
    with _ended_at_exit(
        _start(_stiff_model(tmp_path), out, "--until", "10", "--dt", "0.01")
    ) as proc:
        _wait_for_rows(proc, out, 1, timeout=240)
        err, took = _signal(proc, signal.SIGINT)
    assert took < 1.0, f"took {took:.2f} s to stop"
    assert proc.returncode == 128 + signal.SIGINT, err
    assert "interrupted by SIGINT" in err and "Traceback" not in err
    rows = _rows(out)
    assert len(rows) == 2 and rows[1][0] == "0.0"


def test_sigint_during_render_stops_within_a_second_with_a_message(tmp_path):
    out = tmp_path / "frame.png"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-m", "app", "render", "double_pendulum", "--time", "5000"]
        + ["--out", str(out)],
        cwd=ROOT,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    with _ended_at_exit(proc):
        first = proc.stderr.readline()  # the progress line: the stepping has begun
        assert first.startswith("simulating"), first
        time.sleep(0.3)
        rest, took = _signal(proc, signal.SIGINT)
        err = first + rest
    assert took < 1.0, f"took {took:.2f} s to stop"
    assert proc.returncode == 128 + signal.SIGINT, err
    assert "interrupted by SIGINT" in err and "Traceback" not in err
    assert not out.exists()


def test_sigint_while_initializing_a_large_ladder_stops_within_a_second(tmp_path):
    """Initializing 800 Rods (the velocity projection's minimum-norm solve, the constrained
    accelerations) takes seconds: SIGINT in the middle of it stops the run within a
    second, keeping the header the CSV already has."""
    out = tmp_path / "ladder800.csv"
    ladder = _ladder(tmp_path, 800)
    with _ended_at_exit(_start(ladder, out, "--until", "100", "--dt", "1")) as proc:
        _wait_for_rows(proc, out, 0, timeout=240)  # the header: initialize begins
        time.sleep(0.8)
        assert proc.poll() is None and len(_rows(out)) == 1  # still initializing
        err, took = _signal(proc, signal.SIGINT)
    assert took < 1.0, f"took {took:.2f} s to stop"
    assert proc.returncode == 128 + signal.SIGINT, err
    assert "interrupted by SIGINT" in err and "Traceback" not in err
    assert len(_rows(out)) == 1 and _rows(out)[0][0] == "t"
