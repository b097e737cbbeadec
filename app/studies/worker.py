"""What runs on a Dask worker: the study's model, warmed once, and the task that runs one run.

``StudyPlugin`` is registered on the client; Dask installs it on every worker, including workers
that join (or restart) later. Its ``setup`` keeps the study's model dict in this module (keyed
by the study's key) and calls ``runner.warm_up`` so numba's kernels are compiled or loaded from
the on-disk cache before the first task. Tasks then name the model by key, so the model travels
once per worker as document data, not with every task.
"""

from __future__ import annotations

from distributed.diagnostics.plugin import WorkerPlugin

from app.studies.parameters import RunSpec
from app.studies.runner import RunSettings, run_one, warm_up

#: study key -> model dict (the "model" object of the document, parameters not yet applied)
_MODELS: dict[str, dict] = {}


class StudyPlugin(WorkerPlugin):
    """Ships one study's model to each worker and warms the worker's numba kernels on it."""

    def __init__(self, key: str, model: dict, settings: RunSettings) -> None:
        self.key = key
        self.model = model
        self.settings = settings

    def setup(self, worker) -> None:
        _MODELS[self.key] = self.model
        warm_up(self.model, self.settings)

    def teardown(self, worker) -> None:
        _MODELS.pop(self.key, None)


def run_task(key: str, spec: RunSpec, settings: RunSettings) -> dict:
    """One run of the study ``key`` on this worker (see ``runner.run_one``)."""
    try:
        model = _MODELS[key]
    except KeyError:
        raise RuntimeError(f"no model for study {key} on this worker") from None
    return run_one(model, spec, settings)


def dask_setup(worker) -> None:
    """Dask preload hook (``LocalCluster(preload=["app.studies.worker"])``) for the worker
    processes of a cluster the study owns.

    The process ignores SIGINT, so a Ctrl-C in the terminal, which signals the whole process
    group, reaches only the study's process; that process stops the study and shuts the workers
    down. Its ``distributed`` loggers print only critical records: everything a run has to say
    travels back with the run's result, and what a worker logs while the study shuts the
    cluster down (a heartbeat that finds the scheduler gone, with its traceback) would only
    land in the user's terminal under the study's own message."""
    import logging
    import signal
    import threading

    logging.getLogger("distributed").setLevel(logging.CRITICAL)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
