"""``Study``: parameter sweeps and Monte-Carlo runs of one model on Dask (``dask.distributed``).

::

    from app.studies import Study

    frame = Study(
        "resources/examples/double_pendulum.mbs.json",
        sets=["upper.mass=1:5:9", "lower.q0=0.1,0.2"],
        until=10.0,
        dt=0.01,
    ).run()                      # a pandas DataFrame, one row per sample of each run

Runs go to a Dask cluster: a ``LocalCluster`` with one single-threaded worker process per core
(or ``workers``) that the study starts and stops, an existing scheduler (``scheduler=
"tcp://host:8786"``) or a ``Client`` the caller owns (``client=``). The model is shipped as its
document data (``worker.StudyPlugin``, which also warms each worker's numba kernels); each run is
built, simulated and sampled on a worker (``runner.run_one``). Results are bit-identical
whatever the number or location of the workers: a run depends only on the model, its parameter
values and the settings, and its perturbation draws only on the seed and the run index.

A failed run is recorded (status ``failed``, its reason) and the study goes on; a worker that
dies has its runs retried elsewhere by Dask. Ctrl-C (KeyboardInterrupt), or setting the
study's ``cancel`` event from another thread (a GUI closing), cancels what is left, keeps every
finished run (in ``out`` when given) and sets ``interrupted``; with ``out`` and
``resume=True`` a later study skips the runs the file already holds.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from app.studies.ensemble import StudyCancelledError
from app.studies.output import ResultWriter, read_table, run_frame, table_columns
from app.studies.parameters import (
    Perturbation,
    RunSpec,
    Sweep,
    fill_default_state,
    plan_runs,
)
from app.studies.progress import StudyProgress
from app.studies.runner import (
    RunSettings,
    build_model,
    default_state,
    load_model,
    sample_columns,
)

#: how often (s) a study on Dask looks at its ``cancel`` event while runs are computing
CANCEL_POLL = 0.1

#: Options of the scheduler of a LocalCluster a study owns: its HTTP server (Dask's health and
#: metrics routes; the dashboard stays off) listens on a free port of this machine only, so
#: clusters started side by side never compete for Dask's default port 8787.
SCHEDULER_OPTIONS = {"dashboard_address": "127.0.0.1:0"}


class StudyError(RuntimeError):
    """A study that cannot start (bad model, parameters, output or cluster); says why."""


def _as_sweeps(sets) -> list[Sweep]:
    if isinstance(sets, Mapping):
        out = []
        for path, values in sets.items():
            text = values if isinstance(values, str) else ",".join(repr(float(v)) for v in values)
            out.append(Sweep.parse(f"{path}={text}"))
        return out
    return [s if isinstance(s, Sweep) else Sweep.parse(s) for s in sets]


def _as_perturbations(perturb) -> list[Perturbation]:
    if isinstance(perturb, Mapping):
        return [Perturbation.parse(f"{path}~{dist}") for path, dist in perturb.items()]
    return [p if isinstance(p, Perturbation) else Perturbation.parse(p) for p in perturb]


def _model_dict(model) -> tuple[dict, str]:
    """(model dict, where it came from) from a path, document JSON text, ModelDocument or
    ModelData."""
    if isinstance(model, Path) or (isinstance(model, str) and not model.lstrip().startswith("{")):
        path = Path(model)
        from app.document.model_io import load

        return load(path).data.to_dict(), str(path)
    if isinstance(model, str):
        return load_model(model), "<model JSON>"
    data = getattr(model, "data", model)
    return data.to_dict(), getattr(data, "name", "<model>")


class Study:
    """A parameter sweep and/or Monte-Carlo study of one model (see the module docstring).

    ``sets``: ``"PATH=VALUES"`` strings or a mapping PATH -> values (a string like ``"1:5:9"``
    or a sequence of numbers); ``perturb``: ``"PATH~normal(0,1e-6)"`` strings or a mapping
    PATH -> distribution text; ``samples`` runs per sweep point; ``seed`` for the draws (a
    random one, kept in ``seed``, when None). ``until`` (s), ``dt`` (s between samples) and
    ``accuracy`` set the simulation. ``progress`` is a stream for the progress line (None: no
    progress); ``on_result(spec, result)`` is called in the caller's thread for each finished
    run. ``ensemble=True`` runs everything in this process with ``engine.EnsembleIntegrator``
    (all runs advanced together by one compiled call per sample time; ``app.studies.ensemble``)
    instead of on Dask, its members shared between ``workers`` threads (default one per core):
    for runs of one small tree model (no constraints), much faster; a model it cannot take
    raises StudyError saying why. ``on_progress(fraction)`` is called in the
    caller's thread as the study advances (fraction of it done, 0..1: runs done, or for an
    ensemble its members built, advanced and sampled: ``ensemble.run_ensemble``).
    ``cancel``: a ``threading.Event`` another thread may set to stop the study as Ctrl-C does
    (an ensemble within about a quarter of a second; on Dask within ``CANCEL_POLL`` s)."""

    def __init__(
        self,
        model,
        *,
        until: float,
        sets: Iterable[str] | Mapping = (),
        perturb: Iterable[str] | Mapping = (),
        samples: int = 1,
        seed: int | None = None,
        dt: float = 0.01,
        accuracy: float = 1e-4,
        out=None,
        resume: bool = False,
        workers: int | None = None,
        scheduler: str | None = None,
        client=None,
        progress=None,
        on_result: Callable[[RunSpec, dict], None] | None = None,
        ensemble: bool = False,
        on_progress: Callable[[float], None] | None = None,
        cancel=None,
    ) -> None:
        if not (until > 0 and dt > 0 and accuracy > 0):
            raise StudyError("until, dt and accuracy must be positive")
        if workers is not None and workers < 1:
            raise StudyError(f"workers must be at least 1, got {workers}")
        self.sweeps = _as_sweeps(sets)
        self.perturbations = _as_perturbations(perturb)
        if self.perturbations and seed is None:
            import numpy as np

            seed = int(np.random.SeedSequence().entropy % (2**63))
        self.seed = 0 if seed is None else int(seed)
        self.samples = int(samples)
        raw, self.source = _model_dict(model)
        built = build_model(raw)
        self.model = fill_default_state(raw, default_state(built))
        self.settings = RunSettings(float(until), float(dt), float(accuracy), sample_columns(built))
        self.runs: list[RunSpec] = plan_runs(
            self.model, self.sweeps, self.perturbations, self.samples, self.seed
        )
        self.params = list(dict.fromkeys(s.path.text for s in [*self.sweeps, *self.perturbations]))
        self.deltas = list(dict.fromkeys(p.path.text for p in self.perturbations))
        self.columns = table_columns(self.params, self.deltas, self.settings.columns)
        self.out = None if out is None else Path(out)
        self.resume = resume
        self.workers = workers
        self.scheduler = scheduler
        self.client = client
        self.progress = progress
        self.on_result = on_result
        self.ensemble = bool(ensemble)
        self.on_progress = on_progress
        self.cancel = cancel
        self.interrupted = False
        #: True while the study watches ``cancel`` (its runs are being computed), so that a
        #: Ctrl-C handler can set the event instead of interrupting Dask mid-call
        self.watching_cancel = False
        self._registered = False
        self.failed = 0
        self.completed = 0
        self.skipped = 0

    # -- description ------------------------------------------------------------------------------
    @property
    def model_sha256(self) -> str:
        text = json.dumps(self.model, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def metadata(self) -> dict:
        """The study's description (stored in a Parquet output's schema metadata)."""
        return {
            "model": self.source,
            "model_sha256": self.model_sha256,
            "until": self.settings.until,
            "dt": self.settings.dt,
            "accuracy": self.settings.accuracy,
            "sets": [f"{s.path}={','.join(repr(v) for v in s.values)}" for s in self.sweeps],
            "perturb": [str(p) for p in self.perturbations],
            "samples": self.samples,
            "seed": self.seed,
            "runs": len(self.runs),
            "integrator": "RungeKuttaMerson",
        }

    @property
    def key(self) -> str:
        """Names this study's model on the workers."""
        return f"mbstudio-study-{self.model_sha256[:16]}-{self.settings.accuracy!r}"

    # -- execution --------------------------------------------------------------------------------
    def _start_client(self):
        """(client, cluster or None): the caller's client, a connection to ``scheduler``, or a
        LocalCluster this study owns."""
        from dask.distributed import Client, LocalCluster

        if self.client is not None:
            return self.client, None
        try:
            if self.scheduler is not None:
                return Client(self.scheduler), None  # distributed.comm.timeouts.connect
            n = self.workers or os.cpu_count() or 1
            cluster = LocalCluster(
                n_workers=n,
                threads_per_worker=1,
                processes=True,
                preload=["app.studies.worker"],  # its dask_setup: workers ignore SIGINT
                dashboard_address=None,
                scheduler_kwargs=SCHEDULER_OPTIONS,
                silence_logs=logging.ERROR,
            )
            return Client(cluster), cluster
        except OSError as exc:
            raise StudyError(f"cannot reach the Dask scheduler {self.scheduler}: {exc}") from exc

    def run(self, as_: str = "pandas"):
        """Run every planned run not already in the output; returns all results as a pandas
        DataFrame (columns as ``app.studies.output``, sorted by run and time index), or with
        ``as_="xarray"`` as an xarray Dataset over (run, time_index)
        (``app.studies.dataset``)."""
        if as_ not in ("pandas", "xarray"):
            raise StudyError(f'as_ must be "pandas" or "xarray", got {as_!r}')
        frame = self._run_frame()
        if as_ == "xarray":
            from app.studies.dataset import to_dataset

            return to_dataset(frame, self.metadata())
        return frame

    def _run_frame(self):
        import pandas as pd

        writer = None
        if self.out is not None:
            writer = ResultWriter(self.out, self.columns, self.metadata(), resume=self.resume)
            writer.check_plan({s.run: s for s in self.runs}, self.params)
        done = writer.done if writer is not None else set()
        todo = [s for s in self.runs if s.run not in done]
        self.skipped = len(self.runs) - len(todo)
        frames: list = []
        bar = None
        client = cluster = None
        futures: dict = {}
        try:
            if todo and not self.ensemble:
                client, cluster = self._start_client()
            if self.progress is not None:
                bar = StudyProgress(len(self.runs), self.skipped, self.progress, "study")
                bar.update(self.skipped, 0, force=True)
            self.watching_cancel = self.cancel is not None
            if todo and self.ensemble:
                self._execute_ensemble(todo, writer, frames, bar)
            elif todo:
                from dask.distributed import as_completed  # not imported for an ensemble

                self._execute(client, todo, futures, writer, frames, bar, as_completed)
            if self.cancel is not None and self.cancel.is_set():
                raise StudyCancelledError("the study was cancelled")
        except (KeyboardInterrupt, StudyCancelledError):
            self.interrupted = True
            if client is not None and futures:
                try:
                    client.cancel(list(futures))
                except Exception:  # stopping anyway
                    pass
        finally:
            self.watching_cancel = False
            if bar is not None:
                bar.finish()
            if writer is not None:
                writer.close()
            if client is not None and client is self.client and self._registered:
                try:  # the caller's cluster outlives the study: take its model off the workers
                    client.unregister_worker_plugin(self.key)
                except Exception:  # a worker that is gone has nothing to remove
                    pass
            with _quiet_teardown(self.interrupted):
                if cluster is not None or (client is not None and client is not self.client):
                    client.close()
                if cluster is not None:
                    cluster.close()
        if writer is not None and self.out.exists():
            return read_table(self.out)
        if not frames:  # (with ``out``: nothing was written, e.g. stopped before any run)
            return pd.DataFrame({c: [] for c in self.columns})
        frame = pd.concat(frames, ignore_index=True)
        return frame.sort_values(["run", "time_index"], kind="stable", ignore_index=True)

    def _execute(self, client, todo, futures, writer, frames, bar, as_completed) -> None:
        from app.studies.worker import StudyPlugin, run_task

        client.register_plugin(StudyPlugin(self.key, self.model, self.settings), name=self.key)
        self._registered = True
        for spec in todo:
            future = client.submit(run_task, self.key, spec, self.settings, pure=False)
            futures[future] = spec
        finished = as_completed(list(futures))
        if self.cancel is None:
            for future in finished:
                self._finished(futures, future, writer, frames, bar)
            return
        while not finished.is_empty():  # polled, so that a set ``cancel`` is seen
            if self.cancel.is_set():
                raise StudyCancelledError("the study was cancelled")
            if finished.has_ready():
                for future in finished.next_batch(block=False):
                    self._finished(futures, future, writer, frames, bar)
            else:
                self.cancel.wait(CANCEL_POLL)

    def _finished(self, futures, future, writer, frames, bar) -> None:
        spec = futures[future]
        try:
            result = future.result()
        except Exception as exc:  # e.g. KilledWorker: the run could not be completed
            result = _failed(spec, f"{type(exc).__name__}: {exc}", self.settings)
        self._record(spec, result, writer, frames, bar)
        future.release()

    def _record(self, spec, result, writer, frames, bar) -> None:
        """One finished run: into the output (or ``frames``), the counts and the progress."""
        frame = run_frame(spec, result, self.params, self.deltas, self.settings.columns)
        if writer is not None:
            writer.write(frame)
        else:
            frames.append(frame)
        self.completed += 1
        if result["status"] != "ok":
            self.failed += 1
        if self.on_result is not None:
            self.on_result(spec, result)
        if bar is not None:
            bar.update(self.skipped + self.completed, self.failed)
        if self.on_progress is not None and not self.ensemble:
            self.on_progress((self.skipped + self.completed) / max(1, len(self.runs)))

    def _execute_ensemble(self, todo, writer, frames, bar) -> None:
        from app.studies.ensemble import EnsembleRefusedError, run_ensemble

        def on_progress(fraction: float) -> None:
            if bar is not None:
                bar.advance(fraction)
            if self.on_progress is not None:
                self.on_progress(fraction)

        try:
            run_ensemble(
                self.model,
                todo,
                self.settings,
                lambda spec, result: self._record(spec, result, writer, frames, bar),
                threads=self.workers or os.cpu_count() or 1,
                on_progress=None if bar is None and self.on_progress is None else on_progress,
                cancel=self.cancel,
            )
        except EnsembleRefusedError as exc:
            raise StudyError(f"the study cannot run as an ensemble: {exc}") from exc


@contextlib.contextmanager
def _quiet_teardown(interrupted: bool):
    """Closing a Dask client and cluster that Ctrl-C interrupted mid-call (a plugin being
    registered, runs being cancelled) makes Dask and asyncio log the connections it drops as
    errors; they say nothing to the user, whose message is the study's, so they are silenced
    for the teardown."""
    if not interrupted:
        yield
        return
    loggers = [logging.getLogger(name) for name in ("distributed", "asyncio", "tornado")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels, strict=True):
            lg.setLevel(level)


def _failed(spec: RunSpec, reason: str, settings: RunSettings) -> dict:
    import math

    import numpy as np

    from app.studies.runner import STATISTICS

    stats = {name: 0 for name in STATISTICS} | {"final_time": math.nan, "wall_time_s": math.nan}
    return {
        "run": spec.run,
        "status": "failed",
        "reason": reason,
        "data": np.empty((0, len(settings.columns))),
        "stats": stats,
    }
