"""A study's results table as an xarray Dataset: one labelled array per quantity.

``to_dataset(frame, metadata)`` turns the table of ``app.studies.output`` (one row per sample
of each run) into a ``xarray.Dataset`` with two dimensions:

- ``run``: the run index; coordinates ``point`` and ``replicate`` and, per run, ``status``,
  ``reason``, each ``param:PATH`` and ``delta:PATH`` and the statistics (``steps_taken``,
  ``steps_attempted``, ``realizations``, ``error_test_failures``, ``projections``,
  ``final_time``, ``wall_time_s``, ``rows``);
- ``time_index``: the sample index (0 at t = 0), with the coordinate ``time`` (s): the study's
  sample times (those of its longest run).

Every sampled column (``t``, ``q:BODY[i]``, ``u:BODY[i]``, the energies, ``measure:NAME``)
is a data variable over (run, time_index); a run that failed keeps its samples and is NaN
after them. The study's description (``Study.metadata``) goes into ``attrs`` (lists as JSON
text, so the Dataset can be written with ``to_netcdf``).
"""

from __future__ import annotations

import json

import numpy as np

from app.studies.output import ID_COLUMNS, STAT_COLUMNS

_UNITS = {
    "t": "s",
    "kinetic_energy": "J",
    "potential_energy": "J",
    "total_energy": "J",
    "final_time": "s",
    "wall_time_s": "s",
}


def to_dataset(frame, metadata: dict | None = None):
    """The results ``frame`` (a pandas DataFrame as ``Study.run`` returns or ``read_table``
    reads) as an ``xarray.Dataset`` (see the module docstring)."""
    import xarray as xr

    per_run = [
        c
        for c in frame.columns
        if c in ("point", "replicate", "status", "reason", *STAT_COLUMNS)
        or c.startswith(("param:", "delta:"))
    ]
    skip = {*ID_COLUMNS, "time_index", *per_run}
    sampled = [c for c in frame.columns if c not in skip]
    runs = np.unique(frame["run"].to_numpy()) if len(frame) else np.zeros(0, np.int64)
    n_time = int(frame["time_index"].max()) + 1 if len(frame) else 0
    row_of_run = np.searchsorted(runs, frame["run"].to_numpy())
    cols = frame["time_index"].to_numpy()
    first = frame.groupby("run", sort=True).first() if len(frame) else frame
    data_vars = {}
    for name in sampled:
        grid = np.full((len(runs), n_time), np.nan)
        grid[row_of_run, cols] = frame[name].to_numpy(dtype=np.float64)
        attrs = {"units": _UNITS[name]} if name in _UNITS else {}
        data_vars[name] = (("run", "time_index"), grid, attrs)
    coords: dict = {"run": runs, "time_index": np.arange(n_time, dtype=np.int64)}
    for name in per_run:
        values = first[name].to_numpy() if len(frame) else np.zeros(0)
        if name in ("status", "reason"):
            values = values.astype(str)
        attrs = {"units": _UNITS[name]} if name in _UNITS else {}
        coords[name] = ("run", values, attrs)
    if "t" in sampled and len(runs):
        t = data_vars["t"][1]
        longest = int(np.argmax(np.sum(np.isfinite(t), axis=1)))
        coords["time"] = ("time_index", t[longest], {"units": "s"})
    attrs = {}
    for key, value in (metadata or {}).items():
        attrs[key] = json.dumps(value) if isinstance(value, list | dict) else value
    return xr.Dataset(data_vars, coords=coords, attrs=attrs)
