"""Recording files: a model and its recorded States in one numpy ``.npz`` archive.

Layout (format version 3; version 2 is version 3 without plot samples, event marks and branch
models, version 1 also without branches; both are still read), every member a plain array (no
pickles):

- ``format``: the string ``"mbstudio-recording"``; ``version``: int, 3;
- ``model``: the model document as JSON text;
- ``t`` (n,), ``q`` (n, nq), ``u`` (n, nu), ``z`` (n, nz), ``stage`` (n,): one row per record;
- ``discrete_keys`` (m, 2) int: subsystem and index of each discrete variable;
  ``discrete_names`` (m,) str; ``discrete_<k>`` (n,) str: variable k's
  values as ``value_codec`` text;
- ``bookmark_times`` (b,), ``bookmark_names`` (b,) str;
- ``branch_names``, ``branch_notes`` (k,) str and ``branch_fork_times`` (k,): the futures the
  run left (see ``history.Branch``); branch i's States are ``branch<i>_t``, ``branch<i>_q``,
  ``branch<i>_u``, ``branch<i>_z``, ``branch<i>_stage`` and ``branch<i>_discrete_<k>``, laid out
  as the current line's;
- ``sample_columns`` (c,) str: the names of the plotted quantities (``t`` first, see
  ``app.simulation.samples``); ``samples`` (s, c): the current line's plot samples, one row per
  sample time; ``branch<i>_samples`` (s_i, c): branch i's (no rows if none were kept);
- ``event_times`` (e,), ``event_kinds``, ``event_texts`` (e,) str: the event marks of the
  current line (``event_log.EventMark``); ``branch<i>_event_times`` ... the same for branch i;
- ``branch_models`` (k,) str: the model JSON text branch i was run with, or "" if it is the
  file's model (a branch left by a parameter edit has its own);
- ``line_name`` (optional; "Main line" if absent): the name of the current line (the branch
  last switched to, see ``history.History.current_name``).

Event trigger values are not saved: they are cache values, realized again when needed.
A file that is not such an archive, is truncated, or has another version is refused with
``RecordingFileError`` naming what is wrong.
"""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from app.history.event_log import EventMark
from app.history.history import Branch, History
from app.history.state_record import StateRecord
from app.history.value_codec import ValueCodecError, decode

FORMAT_NAME = "mbstudio-recording"
FORMAT_VERSION = 3
READABLE_VERSIONS = (1, 2, 3)


class RecordingFileError(ValueError):
    """A recording file cannot be read or written."""


@dataclass
class Recording:
    """What a recording file holds: the model (JSON text), the records, the bookmarks, the
    branches (a branch's ``model`` is its model's JSON text, or None for the file's model),
    the plot samples (``sample_columns`` and ``samples`` rows, None if the file has none) and
    the event marks; ``line_name``: the name of the current line."""

    model_json: str
    records: list[StateRecord]
    bookmarks: list[tuple[float, str]] = field(default_factory=list)
    branches: list[Branch] = field(default_factory=list)
    sample_columns: list[str] = field(default_factory=list)
    samples: np.ndarray | None = None
    events: list[EventMark] = field(default_factory=list)
    line_name: str = "Main line"


def _stack(rows: list[np.ndarray], width: int) -> np.ndarray:
    return np.array(rows, dtype=np.float64).reshape(len(rows), width)


def _record_arrays(prefix: str, records: list[StateRecord], first: StateRecord) -> dict:
    layout = [(s, i, n) for s, i, n, _ in first.discrete]
    for r in records:
        if [(s, i, n) for s, i, n, _ in r.discrete] != layout or r.q.size != first.q.size:
            raise RecordingFileError("the records do not all belong to the same model")
    arrays = {
        f"{prefix}t": np.array([r.t for r in records], dtype=np.float64),
        f"{prefix}q": _stack([r.q for r in records], first.q.size),
        f"{prefix}u": _stack([r.u for r in records], first.u.size),
        f"{prefix}z": _stack([r.z for r in records], first.z.size),
        f"{prefix}stage": np.array([r.stage for r in records], dtype=np.int64),
    }
    for k in range(len(layout)):
        arrays[f"{prefix}discrete_{k}"] = np.array([r.discrete[k][3] for r in records], dtype=str)
    return arrays


def _event_arrays(prefix: str, events) -> dict:
    events = list(events or ())
    return {
        f"{prefix}event_times": np.array([m.t for m in events], dtype=np.float64),
        f"{prefix}event_kinds": np.array([m.kind for m in events], dtype=str),
        f"{prefix}event_texts": np.array([m.text for m in events], dtype=str),
    }


def _sample_rows(rows, width: int) -> np.ndarray:
    if rows is None or width == 0:
        return np.zeros((0, width))
    rows = np.asarray(rows, dtype=np.float64)
    if rows.ndim != 2 or rows.shape[1] != width:
        raise RecordingFileError("the plot samples do not match their column names")
    return rows


def _model_text(model, model_json: str) -> str:
    """JSON text of a branch's model if it is not the file's (""otherwise)."""
    if model is None:
        return ""
    if not isinstance(model, str):
        data = getattr(model, "data", None)
        if data is None:
            return ""
        from app.document.model_io import dumps

        model = dumps(data)
    return "" if model == model_json else model


def save_recording(
    path,
    model_json: str,
    history: History | list[StateRecord],
    bookmarks=(),
    branches=None,
    samples: tuple[list[str], np.ndarray] | None = None,
    events=(),
    line_name: str | None = None,
) -> None:
    """Write a recording atomically (a temporary file renamed over ``path``). ``branches``:
    the futures left behind (default: those of ``history`` if it is a History), with their
    plot samples, event marks and models; ``samples``: (column names, rows) of the current
    line's plot samples; ``events``: its event marks; ``line_name``: the current line's name
    (default: that of ``history`` if it is a History, else "Main line")."""
    records = list(history)
    if not records:
        raise RecordingFileError("there is nothing to save: the recording holds no State")
    if branches is None:
        branches = history.branches if isinstance(history, History) else []
    branches = [b for b in branches if b.records]
    if line_name is None:
        line_name = history.current_name if isinstance(history, History) else "Main line"
    first = records[0]
    layout = [(s, i, n) for s, i, n, _ in first.discrete]
    columns, rows = samples if samples is not None else ([], None)
    columns = [str(c) for c in columns]
    arrays = {
        "format": np.array(FORMAT_NAME),
        "version": np.array(FORMAT_VERSION),
        "model": np.array(model_json),
        **_record_arrays("", records, first),
        "discrete_keys": np.array([(s, i) for s, i, _ in layout], dtype=np.int64).reshape(-1, 2),
        "discrete_names": np.array([n for *_, n in layout], dtype=str),
        "bookmark_times": np.array([t for t, _ in bookmarks], dtype=np.float64),
        "bookmark_names": np.array([n for _, n in bookmarks], dtype=str),
        "branch_names": np.array([b.name for b in branches], dtype=str),
        "branch_notes": np.array([b.note for b in branches], dtype=str),
        "branch_fork_times": np.array([b.fork_time for b in branches], dtype=np.float64),
        "branch_models": np.array([_model_text(b.model, model_json) for b in branches], dtype=str),
        "sample_columns": np.array(columns, dtype=str),
        "samples": _sample_rows(rows, len(columns)),
        **_event_arrays("", events),
        "line_name": np.array(str(line_name)),
    }
    for i, branch in enumerate(branches):
        arrays.update(_record_arrays(f"branch{i}_", branch.records, first))
        branch_rows = branch.samples
        if branch_rows is None or np.shape(branch_rows)[1:] != (len(columns),):
            branch_rows = None  # none kept, or of other columns: the branch has no curves
        arrays[f"branch{i}_samples"] = _sample_rows(branch_rows, len(columns))
        arrays.update(_event_arrays(f"branch{i}_", branch.events))
    target = Path(path)
    if not target.parent.is_dir():
        raise RecordingFileError(f"cannot save the recording: no directory {target.parent}")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez_compressed(f, **arrays)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _member(data, name: str, path) -> np.ndarray:
    if name not in data.files:
        raise RecordingFileError(f"{path}: not a complete mbstudio recording (no '{name}')")
    return data[name]


def _read_members(data, path) -> tuple:
    try:
        if str(_member(data, "format", path)) != FORMAT_NAME:
            raise RecordingFileError(f"{path}: not an mbstudio recording")
        version = int(_member(data, "version", path))
        if version not in READABLE_VERSIONS:
            raise RecordingFileError(
                f"{path}: recording format version {version}; this mbstudio reads "
                f"version {FORMAT_VERSION}"
            )
        model_json = str(_member(data, "model", path))
        json.loads(model_json)
        keys = _member(data, "discrete_keys", path)
        names = _member(data, "discrete_names", path)
        line = _line_members(data, "", len(keys), path)
        marks = zip(
            _member(data, "bookmark_times", path).tolist(),
            _member(data, "bookmark_names", path).tolist(),
            strict=True,
        )
        bookmarks = [(float(bt), str(bn)) for bt, bn in marks]
        branches = []
        columns, samples, events = [], None, []
        line_name = str(data["line_name"]) if "line_name" in data.files else "Main line"
        if version >= 3:
            columns = [str(c) for c in _member(data, "sample_columns", path).tolist()]
            samples = _samples_member(data, "samples", len(columns), path)
            events = _event_members(data, "", path)
        if version >= 2:
            names_ = _member(data, "branch_names", path).tolist()
            models = (
                _member(data, "branch_models", path).tolist()
                if version >= 3
                else [""] * len(names_)
            )
            heads = zip(
                names_,
                _member(data, "branch_notes", path).tolist(),
                _member(data, "branch_fork_times", path).tolist(),
                models,
                strict=True,
            )
            for i, (name, note, fork, model) in enumerate(heads):
                branch_line = _line_members(data, f"branch{i}_", len(keys), path)
                extra = (None, [])
                if version >= 3:
                    extra = (
                        _samples_member(data, f"branch{i}_samples", len(columns), path),
                        _event_members(data, f"branch{i}_", path),
                    )
                model = str(model) or None
                if model is not None:
                    json.loads(model)
                branches.append((str(name), str(note), float(fork), branch_line, model, extra))
    except RecordingFileError:
        raise
    except (OSError, ValueError, zipfile.BadZipFile, EOFError, KeyError) as exc:
        raise RecordingFileError(f"{path}: damaged or truncated recording ({exc})") from exc
    plots = (columns, samples, events, line_name)
    return line, keys, names, model_json, bookmarks, branches, plots


def _samples_member(data, name: str, width: int, path) -> np.ndarray | None:
    rows = _member(data, name, path)
    if rows.ndim != 2 or rows.shape[1] != width or rows.dtype.kind != "f":
        raise RecordingFileError(f"{path}: damaged recording (plot samples of the wrong shape)")
    return np.array(rows, dtype=np.float64) if len(rows) else None


def _event_members(data, prefix: str, path) -> list[EventMark]:
    marks = zip(
        _member(data, f"{prefix}event_times", path).tolist(),
        _member(data, f"{prefix}event_kinds", path).tolist(),
        _member(data, f"{prefix}event_texts", path).tolist(),
        strict=True,
    )
    return [EventMark(float(t), str(kind), str(text)) for t, kind, text in marks]


def _line_members(data, prefix: str, n_discrete: int, path) -> tuple:
    t = _member(data, f"{prefix}t", path)
    q, u, z = (_member(data, f"{prefix}{k}", path) for k in ("q", "u", "z"))
    stage = _member(data, f"{prefix}stage", path)
    values = [_member(data, f"{prefix}discrete_{k}", path) for k in range(n_discrete)]
    return t, q, u, z, stage, values


def load_recording(path) -> Recording:
    """Read a recording file; refuse anything that is not a complete recording of a version
    this mbstudio reads."""
    try:
        f = open(path, "rb")  # noqa: SIM115 - closed below whatever numpy does
    except FileNotFoundError as exc:
        raise RecordingFileError(f"{path}: no such file") from exc
    except OSError as exc:
        raise RecordingFileError(f"{path}: cannot be read ({exc})") from exc
    with f:
        try:
            data = np.load(f, allow_pickle=False)
        except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
            raise RecordingFileError(f"{path}: not an mbstudio recording ({exc})") from exc
        if not isinstance(data, np.lib.npyio.NpzFile):
            raise RecordingFileError(f"{path}: not an mbstudio recording (a bare numpy array)")
        with data:
            arrays = _read_members(data, path)
    line, keys, names, model_json, bookmarks, branch_lines, plots = arrays
    if len(names) != len(keys):
        raise RecordingFileError(f"{path}: damaged recording (inconsistent array sizes)")
    records = _records(line, keys, names, path)
    branches = [
        Branch(
            name,
            fork,
            _records(branch_line, keys, names, path),
            note,
            samples=samples,
            model=model,
            events=events,
        )
        for name, note, fork, branch_line, model, (samples, events) in branch_lines
    ]
    columns, samples, events, line_name = plots
    return Recording(
        model_json, records, bookmarks, branches, columns, samples, events, line_name or "Main line"
    )


def _records(line, keys, names, path) -> list[StateRecord]:
    t, q, u, z, stage, values = line
    n = t.shape[0]
    shapes_ok = t.ndim == 1 and all(a.shape[:1] == (n,) for a in (q, u, z, stage, *values))
    if not shapes_ok or not np.all(np.isfinite(t)):
        raise RecordingFileError(f"{path}: damaged recording (inconsistent array sizes)")
    for a in (q, u, z):
        if a.dtype.kind != "f" or not np.all(np.isfinite(a)):
            raise RecordingFileError(f"{path}: damaged recording (non-finite values)")
    for text in {str(x) for column in values for x in column.tolist()}:
        try:
            decode(text)
        except ValueCodecError as exc:
            raise RecordingFileError(f"{path}: damaged recording ({exc})") from exc
    records = []
    for k in range(n):
        discrete = tuple(
            (int(keys[j][0]), int(keys[j][1]), str(names[j]), str(values[j][k]))
            for j in range(len(keys))
        )
        records.append(
            StateRecord(
                t=float(t[k]),
                q=_readonly(q[k]),
                u=_readonly(u[k]),
                z=_readonly(z[k]),
                discrete=discrete,
                triggers=_readonly(np.zeros(0)),
                stage=int(stage[k]),
            )
        )
    return records


def _readonly(a) -> np.ndarray:
    array = np.array(a, dtype=np.float64, copy=True)
    array.flags.writeable = False
    return array
