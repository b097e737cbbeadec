"""Studies run as one ensemble in this process (``Study(ensemble=True)``, the batched
``engine.EnsembleIntegrator``) give the Dask path's table, and study results as an xarray
Dataset."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.studies.runner import STATISTICS
from app.studies.study import SCHEDULER_OPTIONS, Study, StudyError

ROOT = Path(__file__).resolve().parents[2]
DOUBLE = ROOT / "resources" / "examples" / "double_pendulum.mbs.json"
FOUR_BAR = ROOT / "resources" / "examples" / "four_bar.mbs.json"
SETS = ["gravity.magnitude=9,10", "lower.u0=0,1,1e200"]  # the 1e200 runs fail to build
UNTIL, DT = 0.3, 0.1


@pytest.fixture(scope="module")
def client():
    from dask.distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=1,
            threads_per_worker=1,
            processes=False,
            dashboard_address=None,
            scheduler_kwargs=SCHEDULER_OPTIONS,
        ) as cluster,
        Client(cluster) as c,
    ):
        yield c


def test_ensemble_study_equals_the_dask_study(client):
    progress = []
    ensemble = Study(
        DOUBLE, sets=SETS, until=UNTIL, dt=DT, ensemble=True, on_progress=progress.append
    )
    frame = ensemble.run()
    dask = Study(DOUBLE, sets=SETS, until=UNTIL, dt=DT, client=client).run()
    assert ensemble.completed == 6 and ensemble.failed == 2
    assert list(frame.columns) == list(dask.columns)
    assert list(frame["run"]) == list(dask["run"]) and list(frame["status"]) == list(dask["status"])
    failed = frame[frame["status"] == "failed"]
    assert set(failed["run"]) == {2, 5} and failed["reason"].str.startswith("build: ").all()
    ok = frame["status"] == "ok"
    sampled = [c for c in frame.columns if c == "t" or c.startswith(("q:", "u:")) or "energy" in c]
    # the same steps to the same sample times: the samples are bit-identical
    assert frame.loc[ok, sampled].equals(dask.loc[ok, sampled])
    for name in ("steps_taken", "steps_attempted", "error_test_failures", "final_time"):
        assert frame.loc[ok, name].equals(dask.loc[ok, name]), name
    assert (frame.loc[ok, "steps_taken"] > 0).all()
    assert progress and progress[-1] == 1.0 and progress == sorted(progress)
    assert set(STATISTICS) <= set(frame.columns)


def test_ensemble_refuses_a_constrained_model_with_the_reason():
    study = Study(FOUR_BAR, sets=["crank.u0=3,4"], until=0.1, dt=0.1, ensemble=True)
    with pytest.raises(StudyError, match="constraints"):
        study.run()


def test_results_as_an_xarray_dataset():
    study = Study(DOUBLE, sets=SETS, until=UNTIL, dt=DT, ensemble=True)
    ds = study.run(as_="xarray")
    frame = study.run()  # the same study again, as a DataFrame
    assert dict(ds.sizes) == {"run": 6, "time_index": 4}
    assert list(ds["run"].values) == [0, 1, 2, 3, 4, 5]
    assert np.allclose(ds["time"].values, [0.0, 0.1, 0.2, 0.3], rtol=0, atol=1e-12)
    assert list(ds["status"].values) == ["ok", "ok", "failed", "ok", "ok", "failed"]
    assert list(ds["param:gravity.magnitude"].values) == [9, 9, 9, 10, 10, 10]
    q = ds["q:lower[0]"]
    assert q.dims == ("run", "time_index")
    rows = frame[frame["run"] == 4]
    assert np.array_equal(q.sel(run=4).values, rows["q:lower[0]"].to_numpy())
    assert np.isnan(q.sel(run=2).values).all()  # failed before its first sample
    assert ds["kinetic_energy"].attrs["units"] == "J"
    assert ds.attrs["seed"] == study.seed and "lower.u0" in ds.attrs["sets"]
    # per-run quantities are indexed by run only
    assert ds["steps_taken"].dims == ("run",)
    with pytest.raises(StudyError, match="as_"):
        study.run(as_="numpy")


def test_sweep_command_with_ensemble(tmp_path, capsys):
    """`mbstudio sweep --ensemble` writes the same table as the Python API."""
    from app.cli import main
    from app.studies.output import NONDETERMINISTIC_COLUMNS, read_table

    out = tmp_path / "chaos.parquet"
    args = ["sweep", str(DOUBLE), "--set", "lower.q0=0.5:0.5001:4", "--until", "0.2"]
    args += ["--dt", "0.1", "--accuracy", "1e-6", "--out", str(out), "--ensemble"]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "4 runs on this process as one ensemble" in err and "4 runs in" in err
    frame = read_table(out)
    expected = Study(
        DOUBLE, sets=["lower.q0=0.5:0.5001:4"], until=0.2, dt=0.1, accuracy=1e-6, ensemble=True
    ).run()
    drop = list(NONDETERMINISTIC_COLUMNS)
    assert frame.drop(columns=drop).equals(expected.drop(columns=drop))


def test_sweep_command_with_ensemble_shows_progress_while_it_runs(tmp_path, capsys, monkeypatch):
    """The progress line of `mbstudio sweep --ensemble` advances while the members advance
    (as the batched integrator reports the members it has done), before any run is
    recorded."""
    from app.cli import main
    from engine.integrators.ensemble import ensemble_integrator

    monkeypatch.setattr(ensemble_integrator, "PROGRESS_INTERVAL", 0.0)  # after every member
    out = tmp_path / "chaos.csv"
    args = ["sweep", str(DOUBLE), "--set", "lower.q0=0.5:0.5001:5", "--until", "0.2"]
    args += ["--dt", "0.2", "--out", str(out), "--ensemble"]
    assert main(args) == 0
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("study [")]
    during = [ln for ln in lines if " 0/5 runs, " in ln]
    # reported as the members (a block of one per thread) reach the end
    percents = [int(ln.split(" 0/5 runs, ")[1].split("%")[0]) for ln in during]
    assert percents == sorted(percents) and percents[-1] == 100
    assert len([p for p in percents if 0 < p < 100]) >= 2
    first = during[0]
    assert "ETA" in first and "#" * round(30 * percents[0] / 100) + "-" in first
    assert lines[-1].startswith("study [" + "#" * 30 + "] 5/5 runs")


def test_a_set_cancel_event_stops_an_ensemble_as_it_advances():
    """The cancel event, set once the members advance, stops the study at the next block of
    members: interrupted, nothing recorded, long before the members would have finished."""
    import threading
    import time

    from app.studies.ensemble import ADVANCE_SHARE, BUILD_SHARE

    cancel = threading.Event()
    seen = []

    def progress(fraction):
        seen.append(fraction)
        if fraction > BUILD_SHARE:  # the members advance
            cancel.set()

    study = Study(
        DOUBLE, sets={"lower.q0": [0.1 + 1e-6 * k for k in range(40)]}, until=60.0, dt=0.1,
        ensemble=True, workers=1, on_progress=progress, cancel=cancel,
    )  # fmt: skip
    start = time.process_time()
    frame = study.run()
    assert study.interrupted and len(frame) == 0 and study.completed == 0
    assert all(f <= BUILD_SHARE for f in seen[:-1])
    assert BUILD_SHARE < seen[-1] < BUILD_SHARE + ADVANCE_SHARE / 2
    assert time.process_time() - start < 3.0  # 40 members for 60 s take several times that


def test_a_set_cancel_event_stops_a_dask_study_between_runs(client):
    """On Dask the study looks at the event while runs compute: set after the first result,
    it cancels the rest and keeps what finished."""
    import threading

    cancel = threading.Event()
    study = Study(
        DOUBLE, sets={"lower.q0": [0.1 * k for k in range(30)]}, until=1.0, dt=0.1,
        client=client, on_result=lambda spec, result: cancel.set(), cancel=cancel,
    )  # fmt: skip
    frame = study.run()
    assert study.interrupted and 1 <= study.completed < 30
    assert frame["run"].nunique() == study.completed


def test_a_study_stopped_before_any_run_writes_nothing_and_says_so(tmp_path, capsys, monkeypatch):
    """Cancelled before its first run, a study with an output returns an empty table and
    leaves no file; Ctrl-C while ``mbstudio sweep`` starts exits 130 with a message, not a
    traceback."""
    import threading

    from app.cli import main
    from app.studies.command import EXIT_INTERRUPTED

    cancel = threading.Event()
    cancel.set()
    out = tmp_path / "stopped.parquet"
    study = Study(DOUBLE, sets=SETS, until=UNTIL, dt=DT, ensemble=True, out=out, cancel=cancel)
    frame = study.run()
    assert study.interrupted and len(frame) == 0 and not out.exists()

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    args = ["sweep", str(DOUBLE), "--set", "lower.q0=0.1,0.2", "--until", "1", "--out", str(out)]
    with monkeypatch.context() as patch:  # Ctrl-C while the members advance
        patch.setattr("app.studies.ensemble.run_ensemble", interrupted)
        assert main([*args, "--ensemble"]) == EXIT_INTERRUPTED
    err = capsys.readouterr().err
    assert "interrupted before any run finished; nothing was written" in err
    assert "Traceback" not in err and not out.exists()
    monkeypatch.setattr("app.studies.study.Study", interrupted)  # Ctrl-C while it starts
    assert main(args) == EXIT_INTERRUPTED
    err = capsys.readouterr().err
    assert "interrupted before the study started" in err and "Traceback" not in err
    assert not out.exists()
