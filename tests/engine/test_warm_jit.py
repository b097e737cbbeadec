"""engine.warm_jit: the set-up hook that fills numba's on-disk cache."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import engine
from engine.multibody.mobilizers.dispatch import MOBILIZER_MODULES


def test_warm_jit_covers_every_mobilizer_and_the_core_operators() -> None:
    summary = engine.warm_jit()
    assert summary["failed"] == {}
    assert set(summary["mobilizers"]) == {m.NAME for m in MOBILIZER_MODULES.values()}
    for op in (
        "calcM",
        "multiplyByMInv",
        "multiplyByM",
        "calcResidualForceIgnoringConstraints",
        "multiplyBySystemJacobian",
        "multiplyByNDot",
        "RungeKuttaMerson steps",
        "RungeKuttaMerson single steps",
        "RungeKuttaFeldberg steps",
    ):
        assert op in summary["operators"]


def test_warm_jit_compiles_the_fused_and_integrator_kernels() -> None:
    from engine.integrators.error_norm import _relative_scaling
    from engine.integrators.merson_compiled.attempt import merson_attempt
    from engine.integrators.merson_compiled.steps import merson_steps
    from engine.integrators.step_control import adjusted_step_size, trial_step_end
    from engine.multibody.kernels.checked_residual import residual_forces_from_table
    from engine.multibody.kernels.fused_stages import realize_stages_from_table
    from engine.multibody.kernels.quaternion_projection import remove_quaternion_norm_errors
    from engine.multibody.kernels.weighted_error_norm import weighted_error_norm

    engine.warm_jit()
    for kernel in (
        realize_stages_from_table,
        residual_forces_from_table,
        merson_attempt,
        merson_steps,
        adjusted_step_size,
        trial_step_end,
        _relative_scaling,
        weighted_error_norm,
        remove_quaternion_norm_errors,
    ):
        assert kernel.signatures, kernel


def test_a_cache_made_from_other_sources_is_forgotten(tmp_path) -> None:
    from engine.jit_warmup import forget_stale_kernels

    package = tmp_path / "pkg"
    (package / "sub" / "__pycache__").mkdir(parents=True)
    (package / "kernel.py").write_text("x = 1\n")
    (package / "sub" / "callee.py").write_text("y = 2\n")
    cached = [package / "sub" / "__pycache__" / f"callee.f-1.py311.{ext}" for ext in ("nbi", "nbc")]
    for path in cached:
        path.write_bytes(b"machine code")
    assert forget_stale_kernels(package) == 2  # no fingerprint yet: the cache is unknown
    assert not any(path.exists() for path in cached)
    for path in cached:
        path.write_bytes(b"machine code")
    assert forget_stale_kernels(package) == 0  # same sources: kept
    assert all(path.exists() for path in cached)
    (package / "sub" / "callee.py").write_text("y = 3\n")  # a callee changed
    assert forget_stale_kernels(package) == 2
    assert not any(path.exists() for path in cached)
    (package / "new.py").write_text("")  # a file added
    (package / "sub" / "__pycache__" / "k.nbi").write_bytes(b"")
    assert forget_stale_kernels(package) == 1


def test_every_task_comes_after_earlier_tasks_only() -> None:
    from engine.jit_warmup import TASKS

    names = [task.name for task in TASKS]
    assert len(set(names)) == len(names)
    for k, task in enumerate(TASKS):  # so a team can always take the first task left
        assert set(task.after) <= set(names[:k]), task.name
    with pytest.raises(ValueError, match="no such task"):
        engine.warm_jit(["everything"])


_TEAM_WORKER = """
import json, sys
import engine
summary = engine.warm_jit(sys.argv[2:], team=sys.argv[1])
print(json.dumps({"tasks": sorted(summary["tasks"]), "failed": summary["failed"]}))
"""


def test_a_team_of_processes_runs_each_task_once(tmp_path) -> None:
    tasks = ["fused realization", "stage-by-stage realization", "operators", "prescribed motion"]
    engine.warm_jit(tasks)  # the cache warm: the team only loads it
    team = tmp_path / "team"
    root = Path(engine.__file__).resolve().parent.parent
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", _TEAM_WORKER, str(team), *tasks],
            cwd=root,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    results = [json.loads(worker.communicate(timeout=300)[0]) for worker in workers]
    assert all(worker.returncode == 0 for worker in workers)
    assert all(result["failed"] == {} for result in results)
    ran = [task for result in results for task in result["tasks"]]
    assert sorted(ran) == sorted(tasks)  # each once, by one of them
    assert len(list(team.glob("*.finished"))) == len(tasks)


def test_a_task_whose_taker_died_counts_as_finished(tmp_path) -> None:
    from engine.jit_warmup import _file, _finished, _take

    assert not _finished(tmp_path, "a task")
    assert _take(tmp_path, "a task") and not _take(tmp_path, "a task")
    assert not _finished(tmp_path, "a task")  # taken by this (living) process
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    _file(tmp_path, "a task", "taken").write_text(gone.stdout.strip())
    assert _finished(tmp_path, "a task")
