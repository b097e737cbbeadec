"""A study's results table: one row per sample of a run, written as Parquet or CSV.

Columns, in order (docs/studies.md describes them):

- ``run`` (int64), ``point`` (int64: index in the sweep's Cartesian product), ``replicate``
  (int64: Monte-Carlo sample of that point);
- ``param:PATH`` (float64): the value the run's model had for each ``--set``/``--perturb`` path;
  ``delta:PATH`` (float64): the perturbation draw that is part of it;
- ``status`` (string: ``ok`` or ``failed``), ``reason`` (string, empty when ok);
- ``time_index`` (int64: the sample's index, 0 at t = 0) and the sampled columns of
  ``app.studies.runner`` (``t``, ``q:BODY[i]``, ``u:BODY[i]``, energies, ``measure:NAME``);
- per-run statistics, repeated on every row of the run: ``steps_taken``, ``steps_attempted``,
  ``realizations``, ``error_test_failures``, ``projections`` (int64), ``final_time`` (s),
  ``wall_time_s`` (s; the only column that differs between repetitions of a study), and
  ``rows`` (int64: how many rows the run has; a run that failed before its first sample has one
  row of NaN samples).

While a study runs, finished runs go to ``OUT.partial`` (CSV: appended and flushed per run;
Parquet: one row group per run); closing the writer merges them with the runs already in
``OUT`` (``resume``), sorts by run and time index and replaces ``OUT`` atomically. A run whose
rows are incomplete (``rows`` disagrees) is not counted as done. Parquet files carry the study's
description as JSON in the schema metadata under ``mbstudio.study``.
"""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import numpy as np

from app.studies.parameters import RunSpec
from app.studies.runner import STATISTICS

METADATA_KEY = b"mbstudio.study"
ID_COLUMNS = ("run", "point", "replicate")
STAT_COLUMNS = (*STATISTICS, "final_time", "wall_time_s", "rows")
INT_COLUMNS = {*ID_COLUMNS, "time_index", *STATISTICS, "rows"}
#: columns that may differ between two executions of the same study
NONDETERMINISTIC_COLUMNS = ("wall_time_s",)


class OutputError(RuntimeError):
    """The output file cannot be written or resumed from (the message says why)."""


def table_columns(params: list[str], deltas: list[str], sampled: tuple[str, ...]) -> list[str]:
    return [
        *ID_COLUMNS,
        *(f"param:{p}" for p in params),
        *(f"delta:{p}" for p in deltas),
        "status",
        "reason",
        "time_index",
        *sampled,
        *STAT_COLUMNS,
    ]


def run_frame(spec: RunSpec, result: dict, params, deltas, sampled):
    """The rows of one finished run as a pandas DataFrame (columns as ``table_columns``)."""
    import pandas as pd

    data = result["data"]
    n = max(len(data), 1)
    if len(data) == 0:
        data = np.full((1, len(sampled)), np.nan)
    cols: dict = {
        "run": np.full(n, spec.run, np.int64),
        "point": np.full(n, spec.point, np.int64),
        "replicate": np.full(n, spec.replicate, np.int64),
    }
    for p in params:
        cols[f"param:{p}"] = np.full(n, spec.values[p], np.float64)
    for p in deltas:
        cols[f"delta:{p}"] = np.full(n, spec.deltas.get(p, 0.0), np.float64)
    cols["status"] = pd.array([result["status"]] * n, dtype="str")
    cols["reason"] = pd.array([result["reason"]] * n, dtype="str")
    cols["time_index"] = np.arange(n, dtype=np.int64)
    for j, name in enumerate(sampled):
        cols[name] = np.ascontiguousarray(data[:, j])
    stats = result["stats"]
    for name in STAT_COLUMNS:
        value = n if name == "rows" else stats[name]
        dtype = np.int64 if name in INT_COLUMNS else np.float64
        cols[name] = np.full(n, value, dtype)
    return pd.DataFrame(cols)


def _arrow_schema(columns: list[str], metadata: dict):
    import pyarrow as pa

    fields = []
    for name in columns:
        if name in INT_COLUMNS:
            fields.append(pa.field(name, pa.int64()))
        elif name in ("status", "reason"):
            fields.append(pa.field(name, pa.string()))
        else:
            fields.append(pa.field(name, pa.float64()))
    return pa.schema(fields, metadata={METADATA_KEY: json.dumps(metadata, sort_keys=True)})


def read_table(path, format: str | None = None):
    """A results file (a path, or CSV text in a StringIO) as a pandas DataFrame; ``format``
    ("csv" or "parquet") defaults to the file's suffix."""
    import pandas as pd

    if isinstance(path, io.StringIO):
        text, format = path.getvalue(), "csv"
    else:
        path = Path(path)
        format = format or ("csv" if path.suffix.lower() == ".csv" else "parquet")
    if format == "csv":
        if not isinstance(path, io.StringIO):
            text = path.read_text(encoding="utf-8")
        header = next(csv.reader(io.StringIO(text)), [])
        floats = [c for c in header if _dtype(c) == "float64"]
        # An empty field is NaN in a number column but an empty text in status and reason.
        return pd.read_csv(
            io.StringIO(text),
            dtype={c: _dtype(c) for c in header},
            keep_default_na=False,
            na_values={c: ["", "nan", "NaN"] for c in floats},
        )
    return pd.read_parquet(path)


def read_metadata(path: Path, format: str | None = None) -> dict | None:
    """The study description stored in a Parquet results file (None for CSV)."""
    if (format or ("csv" if Path(path).suffix.lower() == ".csv" else "parquet")) == "csv":
        return None
    import pyarrow.parquet as pq

    meta = pq.read_schema(path).metadata or {}
    raw = meta.get(METADATA_KEY)
    return json.loads(raw) if raw else None


def complete_runs(frame) -> set[int]:
    """Runs whose every row is present in ``frame``."""
    if frame is None or len(frame) == 0:
        return set()
    counts = frame.groupby("run").agg(n=("run", "size"), rows=("rows", "first"))
    return {int(r) for r in counts.index[counts["n"] == counts["rows"]]}


class ResultWriter:
    """Streams finished runs to ``OUT.partial``; ``close`` merges and replaces ``OUT``.

    ``columns`` and ``metadata`` describe the study; with ``resume`` the runs already complete
    in ``OUT`` (and in a ``OUT.partial`` a previous, interrupted study left) are kept
    (``done``) after checking they belong to the same study."""

    def __init__(self, path, columns: list[str], metadata: dict, resume: bool = False) -> None:
        self.path = Path(path)
        self.format = "csv" if self.path.suffix.lower() == ".csv" else "parquet"
        if self.path.suffix.lower() not in (".csv", ".parquet", ".pq"):
            raise OutputError(f"--out must end in .parquet or .csv, got {self.path}")
        self.columns = columns
        self.metadata = metadata
        self.partial = self.path.with_name(self.path.name + ".partial")
        self._previous = []
        self.done: set[int] = set()
        if self.path.exists() and not resume:
            raise OutputError(
                f"{self.path} exists: pass --resume to continue that study, or choose another --out"
            )
        if resume:
            for source in (self.path, self.partial):
                frame = self._read_previous(source)
                if frame is not None:
                    keep = complete_runs(frame) - self.done
                    self._previous.append(frame[frame["run"].isin(keep)])
                    self.done |= keep
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._schema = _arrow_schema(columns, metadata)
        if self.partial.exists():
            if self._previous:  # keep the leftover's runs on disk before starting over
                self._replace_out(self._previous)
            self.partial.unlink()
        self._pq_writer = None
        self._csv = None
        self.written = 0

    def _read_previous(self, source: Path):
        if not source.exists():
            return None
        try:
            if self.format == "csv":
                frame = _read_csv_complete_lines(source)
            else:
                meta = read_metadata(source, "parquet")
                if meta is not None and _study_identity(meta) != _study_identity(self.metadata):
                    raise OutputError(
                        f"{source} holds another study (a different model, settings or "
                        "parameters); choose another --out"
                    )
                frame = read_table(source, "parquet")
        except OutputError:
            raise
        except Exception as exc:
            if source == self.partial:
                return None  # an unreadable leftover (the study was killed): its runs rerun
            raise OutputError(f"cannot resume from {source}: {exc}") from exc
        if frame is None:
            return None
        if list(frame.columns) != self.columns:
            raise OutputError(
                f"{source} has other columns than this study (another model or parameters); "
                "choose another --out"
            )
        return frame

    def check_plan(self, specs: dict[int, RunSpec], params: list[str]) -> None:
        """Refuse to resume when a kept run's parameter values differ from the plan's."""
        for frame in self._previous:
            firsts = frame.groupby("run").first()
            for run, row in firsts.iterrows():
                spec = specs.get(int(run))
                if spec is None or any(row[f"param:{p}"] != spec.values[p] for p in params):
                    raise OutputError(
                        f"{self.path}: run {run} was made with other parameter values than this "
                        "study plans; choose another --out"
                    )

    def write(self, frame) -> None:
        """Append one run's rows (a DataFrame from ``run_frame``) and flush them to disk."""
        if self.format == "csv":
            if self._csv is None:
                self._csv = open(self.partial, "w", newline="", encoding="utf-8")  # noqa: SIM115
                frame.iloc[:0].to_csv(self._csv, index=False)
            frame.to_csv(self._csv, index=False, header=False)
            self._csv.flush()
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            if self._pq_writer is None:
                self._pq_writer = pq.ParquetWriter(self.partial, self._schema)
            table = pa.Table.from_pandas(frame, schema=self._schema, preserve_index=False)
            self._pq_writer.write_table(table)
        self.written += 1

    def close(self) -> int:
        """Merge the kept and the new runs into ``OUT`` (sorted, atomic replace); returns the
        number of runs in it."""
        frames = list(self._previous)
        if self._csv is not None:
            self._csv.close()
            self._csv = None
        if self._pq_writer is not None:
            self._pq_writer.close()
            self._pq_writer = None
        if self.partial.exists():
            frames.append(read_table(self.partial, self.format))
        if not frames and not self.path.exists():
            return 0  # nothing ran (e.g. no cluster): no file that a rerun would refuse
        count = self._replace_out(frames)
        if self.partial.exists():
            self.partial.unlink()
        return count

    def _replace_out(self, frames: list) -> int:
        import pandas as pd

        if frames:
            frame = pd.concat([f for f in frames if len(f)] or frames[:1], ignore_index=True)
        else:
            frame = pd.DataFrame({c: pd.Series(dtype=_dtype(c)) for c in self.columns})
        frame = frame.sort_values(["run", "time_index"], kind="stable", ignore_index=True)
        tmp = self.path.with_name(f".{self.path.name}.tmp")
        if self.format == "csv":
            frame.to_csv(tmp, index=False)
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            pq.write_table(
                pa.Table.from_pandas(frame, schema=self._schema, preserve_index=False), tmp
            )
        os.replace(tmp, self.path)
        return int(frame["run"].nunique())


def _read_csv_complete_lines(path: Path):
    """A CSV results file without a last line cut short (a study killed mid-write), or None
    when it holds no header."""
    text = path.read_text(encoding="utf-8")
    if not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]
    if not text:
        return None
    return read_table(io.StringIO(text), "csv")


def _dtype(column: str):
    if column in INT_COLUMNS:
        return "int64"
    if column in ("status", "reason"):
        return "str"
    return "float64"


def _study_identity(metadata: dict) -> dict:
    """The parts of a study description that must agree to resume (not e.g. workers)."""
    keys = ("model_sha256", "until", "dt", "accuracy", "sets", "perturb", "samples", "seed")
    return {k: metadata.get(k) for k in keys}
