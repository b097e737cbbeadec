"""The results table without a cluster: Parquet and CSV round trips (NaN samples of a failed
run, empty reasons), and resuming from a partial file a killed study left."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.studies.output import ResultWriter, read_table, run_frame, table_columns
from app.studies.parameters import RunSpec
from app.studies.runner import STATISTICS

SAMPLED = ("t", "q:link[0]", "u:link[0]")


def result(run: int, rows: int, status: str = "ok", reason: str = "") -> dict:
    data = np.array([[0.1 * k, 1.0 / 3.0 + k, -k * math.pi] for k in range(rows)])
    stats = {name: 7 for name in STATISTICS} | {"final_time": 0.1 * rows, "wall_time_s": 0.5}
    return {"run": run, "status": status, "reason": reason, "data": data, "stats": stats}


def frames():
    specs = [RunSpec(i, i, 0, {"link.mass": 1.0 + i}) for i in range(3)]
    results = [
        result(0, 3),
        result(1, 0, "failed", 'build: DocumentError: mass, "bad"'),
        result(2, 3),
    ]
    return [
        run_frame(s, r, ["link.mass"], [], SAMPLED) for s, r in zip(specs, results, strict=True)
    ]


COLUMNS = table_columns(["link.mass"], [], SAMPLED)


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_round_trip_keeps_types_nan_and_text(tmp_path, suffix):
    out = tmp_path / f"r{suffix}"
    writer = ResultWriter(out, COLUMNS, {"seed": 1})
    for f in reversed(frames()):
        writer.write(f)
    assert writer.close() == 3
    back = read_table(out)
    assert list(back.columns) == COLUMNS
    assert list(back["run"]) == [0, 0, 0, 1, 2, 2, 2]  # sorted by run and time index
    failed = back[back["run"] == 1].iloc[0]
    assert failed["status"] == "failed" and failed["reason"] == 'build: DocumentError: mass, "bad"'
    assert math.isnan(failed["t"]) and failed["rows"] == 1
    ok = back[back["run"] == 0]
    assert (ok["reason"] == "").all()
    assert ok["q:link[0]"].iloc[1] == 1.0 / 3.0 + 1 and ok["u:link[0]"].iloc[2] == -2 * math.pi
    assert back["run"].dtype == np.int64 and back["steps_taken"].dtype == np.int64


def test_resume_from_a_csv_partial_cut_short(tmp_path):
    out = tmp_path / "r.csv"
    partial = tmp_path / "r.csv.partial"
    f0, f1, f2 = frames()
    f0.iloc[:0].to_csv(partial, index=False)
    with open(partial, "a", encoding="utf-8") as fh:
        f0.to_csv(fh, index=False, header=False)
        f2.iloc[:2].to_csv(fh, index=False, header=False)  # run 2: 2 of its 3 rows
        fh.write("2,2,0,3.0,ok,,2,0.2")  # a line cut short by a kill
    writer = ResultWriter(out, COLUMNS, {}, resume=True)
    assert writer.done == {0}
    assert out.exists() and not partial.exists()  # run 0 is kept on disk at once
    writer.write(f1)
    writer.write(f2)
    assert writer.close() == 3
    assert list(read_table(out)["run"]) == [0, 0, 0, 1, 2, 2, 2]
