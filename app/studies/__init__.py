"""Studies: parameter sweeps and Monte-Carlo runs of a model on Dask (``mbstudio sweep``).

- parameters.py: ``--set``/``--perturb`` parsing, paths into the model document, the run plan;
- runner.py: one run from a model dict (build, simulate, sample) — what a worker executes;
- worker.py: the Dask worker plugin (model shipping, numba warm-up) and task;
- output.py: the results table (Parquet or CSV) with resume;
- study.py: ``Study``, the Python API; command.py: ``mbstudio sweep``.

Importing this package is light: Dask, pandas and the engine are imported when a study runs.
"""

from __future__ import annotations

__all__ = ["Study", "StudyError"]


def __getattr__(name: str):
    if name in __all__:
        from app.studies import study

        return getattr(study, name)
    raise AttributeError(name)
