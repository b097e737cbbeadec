"""A study's runs advanced together on this machine by ``engine.EnsembleIntegrator``
(``Study(ensemble=True)``, ``mbstudio sweep --ensemble``).

Each run's model is built from the document with its parameter values, as on a Dask worker
(``runner.build_model``); runs that cannot be built are failed runs with the reason. The
others must share the study model's topology (the same state variables) and be trees the
compiled stepping takes (no constraints, event witnesses or uncompiled forces); then all of
them advance together, each member through all sample times in one compiled pass
(``EnsembleIntegrator.advanceThrough``), each with its own Runge-Kutta-Merson error control,
so each run's steps are those of its single run and its samples equal that run's. Energies
and Measures are evaluated per sample on a copy of the run's State in Python.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import numpy as np

from app.studies.parameters import RunSpec, apply_values
from app.studies.runner import (
    STATISTICS,
    RunSettings,
    _sample,
    build_model,
    sample_columns,
    sample_times,
)


class EnsembleRefusedError(RuntimeError):
    """The study's runs cannot be advanced as one ensemble (the message says why)."""


class StudyCancelledError(Exception):
    """The study's ``cancel`` event was set: it stopped where it was (within about
    ``ensemble_integrator.PROGRESS_INTERVAL`` s), keeping the runs already recorded."""


#: shares of the progress fraction: building the members' models, advancing them (the rest:
#: sampling their energies and Measures, per member and sample time in Python)
BUILD_SHARE, ADVANCE_SHARE = 0.15, 0.15


class _Reporter:
    """``on_progress`` called with ``base + share * fraction`` at most about every
    ``PROGRESS_INTERVAL`` s (and always at the end of a phase)."""

    def __init__(self, on_progress) -> None:
        self.on_progress = on_progress
        self.last = time.perf_counter()

    def __call__(self, base: float, share: float, fraction: float, force: bool = False) -> None:
        from engine.integrators.ensemble import ensemble_integrator

        if self.on_progress is None:
            return
        now = time.perf_counter()
        if force or now - self.last >= ensemble_integrator.PROGRESS_INTERVAL:
            self.on_progress(min(1.0, base + share * fraction))
            self.last = now


def _check(cancel) -> None:
    if cancel is not None and cancel.is_set():
        raise StudyCancelledError("the study was cancelled")


def _failed(spec: RunSpec, reason: str, settings: RunSettings) -> dict:
    stats = {name: 0 for name in STATISTICS} | {"final_time": math.nan, "wall_time_s": 0.0}
    return {
        "run": spec.run,
        "status": "failed",
        "reason": reason,
        "data": np.empty((0, len(settings.columns))),
        "stats": stats,
    }


def run_ensemble(
    model: dict,
    specs: list[RunSpec],
    settings: RunSettings,
    on_result: Callable[[RunSpec, dict], None],
    threads: int = 1,
    on_progress: Callable[[float], None] | None = None,
    cancel=None,
) -> None:
    """Run ``specs`` as one ensemble; ``on_result(spec, result)`` (results as
    ``runner.run_one``'s) for each, failed builds first, then every member once the ensemble
    reaches ``settings.until``; ``on_progress(fraction)`` with the fraction (0..1] of the
    work done, about every ``ensemble_integrator.PROGRESS_INTERVAL`` s of wall time: the
    members built (the first ``BUILD_SHARE`` of it), then advanced to ``settings.until``
    (the next ``ADVANCE_SHARE``), then sampled (energies and Measures in Python, the rest),
    each phase's share about its part of a double pendulum ensemble's time. Raises
    EnsembleRefusedError before any run if the built runs cannot be one ensemble. ``cancel``
    (a ``threading.Event``), when set from another thread, stops the ensemble between two
    members' builds, between blocks of members as they advance, or between samples, by
    raising StudyCancelledError (the members' results are then not recorded)."""
    from engine import EnsembleIntegrator
    from engine.common.exceptions import InvalidArgumentError

    start = time.perf_counter()
    report = _Reporter(on_progress)
    members: list[tuple[RunSpec, object]] = []
    for i, spec in enumerate(specs):
        _check(cancel)
        report(0.0, BUILD_SHARE, i / len(specs))
        try:
            built = build_model(apply_values(model, spec.values))
            if sample_columns(built) != tuple(settings.columns):
                raise ValueError("the run's model has other state variables than the study's")
            if built.constraints:
                raise EnsembleRefusedError(
                    "the model has constraints, which the ensemble integrator does not take "
                    "(run the study without ensemble)"
                )
        except EnsembleRefusedError:
            raise
        except Exception as exc:  # this run's failure; the study goes on
            on_result(spec, _failed(spec, f"build: {type(exc).__name__}: {exc}", settings))
            continue
        members.append((spec, built))
    if not members:
        return

    def setting_up(_fraction: float) -> None:
        _check(cancel)

    def advancing(fraction: float) -> None:
        _check(cancel)
        report(BUILD_SHARE, ADVANCE_SHARE, fraction, force=True)

    try:
        ensemble = EnsembleIntegrator(
            [b.system for _, b in members],
            [b.state for _, b in members],
            accuracy=settings.accuracy,
            threads=threads,
            progress=None if cancel is None else setting_up,
        )
    except InvalidArgumentError as exc:
        raise EnsembleRefusedError(str(exc)) from exc
    scratch = [b.state.copy() for _, b in members]
    rows: list[list[list[float]]] = [[] for _ in members]
    sampled = sample_times(settings.until, settings.dt)
    watched = on_progress is not None or cancel is not None
    times, q, u = ensemble.advanceThrough(sampled, progress=advancing if watched else None)
    status = ensemble.getStatus()
    sampling = BUILD_SHARE + ADVANCE_SHARE
    for j, t in enumerate(sampled):
        _check(cancel)
        report(sampling, 1.0 - sampling, j / len(sampled))
        for k, (_, built) in enumerate(members):
            if status[k] and times[j, k] < t:
                continue  # stopped before this sample
            s = scratch[k]
            s.setTime(float(times[j, k]))
            s.setQ(q[j, k])
            s.setU(u[j, k])
            rows[k].append(_sample(built, s))
    report(1.0, 0.0, 0.0, force=True)
    wall = (time.perf_counter() - start) / len(members)
    steps = ensemble.getNumStepsTaken()
    attempts = ensemble.getNumStepsAttempted()
    failures = ensemble.getNumErrorTestFailures()
    realizations = ensemble.getNumRealizations()
    final = ensemble.getTime()
    status = ensemble.getStatus()
    for k, (spec, _) in enumerate(members):
        stats = {
            "steps_taken": int(steps[k]),
            "steps_attempted": int(attempts[k]),
            "realizations": int(realizations[k]),
            "error_test_failures": int(failures[k]),
            "projections": 0,
            "final_time": float(final[k]),
            "wall_time_s": wall,
        }
        ok = status[k] == 0
        reason = (
            ""
            if ok
            else f"simulate at t = {final[k]:.6g} s: StepFailedError: {ensemble.getStatusText(k)}"
        )
        data = np.asarray(rows[k], dtype=np.float64).reshape(len(rows[k]), len(settings.columns))
        on_result(
            spec,
            {
                "run": spec.run,
                "status": "ok" if ok else "failed",
                "reason": reason,
                "data": data,
                "stats": stats,
            },
        )
