"""Recording files: a model and its recorded States in one numpy ``.npz`` archive.

Layout (format version 1), every member a plain array (no pickles):

- ``format``: the string ``"mbstudio-recording"``; ``version``: int, 1;
- ``model``: the model document as JSON text;
- ``t`` (n,), ``q`` (n, nq), ``u`` (n, nu), ``z`` (n, nz), ``stage`` (n,): one row per record;
- ``discrete_keys`` (m, 2) int: subsystem and index of each discrete variable;
  ``discrete_names`` (m,) str; ``discrete_<k>`` (n,) str: variable k's
  values as ``value_codec`` text;
- ``bookmark_times`` (b,), ``bookmark_names`` (b,) str.

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

from app.history.history import History
from app.history.state_record import StateRecord
from app.history.value_codec import ValueCodecError, decode

FORMAT_NAME = "mbstudio-recording"
FORMAT_VERSION = 1


class RecordingFileError(ValueError):
    """A recording file cannot be read or written."""


@dataclass
class Recording:
    """What a recording file holds: the model (JSON text), the records, the bookmarks."""

    model_json: str
    records: list[StateRecord]
    bookmarks: list[tuple[float, str]] = field(default_factory=list)


def _stack(rows: list[np.ndarray], width: int) -> np.ndarray:
    return np.array(rows, dtype=np.float64).reshape(len(rows), width)


def save_recording(
    path, model_json: str, history: History | list[StateRecord], bookmarks=()
) -> None:
    """Write a recording atomically (a temporary file renamed over ``path``)."""
    records = list(history)
    if not records:
        raise RecordingFileError("there is nothing to save: the recording holds no State")
    first = records[0]
    layout = [(s, i, n) for s, i, n, _ in first.discrete]
    for r in records:
        if [(s, i, n) for s, i, n, _ in r.discrete] != layout or r.q.size != first.q.size:
            raise RecordingFileError("the records do not all belong to the same model")
    arrays = {
        "format": np.array(FORMAT_NAME),
        "version": np.array(FORMAT_VERSION),
        "model": np.array(model_json),
        "t": np.array([r.t for r in records], dtype=np.float64),
        "q": _stack([r.q for r in records], first.q.size),
        "u": _stack([r.u for r in records], first.u.size),
        "z": _stack([r.z for r in records], first.z.size),
        "stage": np.array([r.stage for r in records], dtype=np.int64),
        "discrete_keys": np.array([(s, i) for s, i, _ in layout], dtype=np.int64).reshape(-1, 2),
        "discrete_names": np.array([n for *_, n in layout], dtype=str),
        "bookmark_times": np.array([t for t, _ in bookmarks], dtype=np.float64),
        "bookmark_names": np.array([n for _, n in bookmarks], dtype=str),
    }
    for k in range(len(layout)):
        arrays[f"discrete_{k}"] = np.array([r.discrete[k][3] for r in records], dtype=str)
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
        if version != FORMAT_VERSION:
            raise RecordingFileError(
                f"{path}: recording format version {version}; this mbstudio reads "
                f"version {FORMAT_VERSION}"
            )
        model_json = str(_member(data, "model", path))
        json.loads(model_json)
        t = _member(data, "t", path)
        q, u, z = (_member(data, k, path) for k in ("q", "u", "z"))
        stage = _member(data, "stage", path)
        keys = _member(data, "discrete_keys", path)
        names = _member(data, "discrete_names", path)
        values = [_member(data, f"discrete_{k}", path) for k in range(len(keys))]
        marks = zip(
            _member(data, "bookmark_times", path).tolist(),
            _member(data, "bookmark_names", path).tolist(),
            strict=True,
        )
        bookmarks = [(float(bt), str(bn)) for bt, bn in marks]
    except RecordingFileError:
        raise
    except (OSError, ValueError, zipfile.BadZipFile, EOFError, KeyError) as exc:
        raise RecordingFileError(f"{path}: damaged or truncated recording ({exc})") from exc
    return t, q, u, z, stage, keys, names, values, model_json, bookmarks


def load_recording(path) -> Recording:
    """Read a recording file; refuse anything that is not a complete version-1 recording."""
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
    t, q, u, z, stage, keys, names, values, model_json, bookmarks = arrays
    n = t.shape[0]
    shapes_ok = t.ndim == 1 and all(a.shape[:1] == (n,) for a in (q, u, z, stage, *values))
    if not shapes_ok or len(names) != len(keys) or not np.all(np.isfinite(t)):
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
    return Recording(model_json=model_json, records=records, bookmarks=bookmarks)


def _readonly(a) -> np.ndarray:
    array = np.array(a, dtype=np.float64, copy=True)
    array.flags.writeable = False
    return array
