"""Studies on an in-process Dask cluster: results, failures, output files, interruption and
resume, and ``mbstudio sweep`` against that cluster's scheduler."""

from __future__ import annotations

import io
import math
import re
from pathlib import Path

import numpy as np
import pytest

from app.studies.output import NONDETERMINISTIC_COLUMNS, OutputError, read_metadata, read_table
from app.studies.study import SCHEDULER_OPTIONS, Study

ROOT = Path(__file__).resolve().parents[2]
PENDULUM = ROOT / "resources" / "examples" / "pendulum.mbs.json"
SETS = ["gravity.magnitude=9.81,20", "link.q0=0.5,1.0"]


@pytest.fixture(scope="module")
def client():
    """An in-process Dask cluster of one single-threaded worker."""
    from dask.distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=1,
            threads_per_worker=1,
            processes=False,
            protocol="tcp",
            host="127.0.0.1",
            dashboard_address=None,
            scheduler_kwargs=SCHEDULER_OPTIONS,
        ) as cluster,
        Client(cluster) as c,
    ):
        yield c


def deterministic(frame):
    return frame.drop(columns=list(NONDETERMINISTIC_COLUMNS))


def single_run(gravity: float, q0: float, until: float, dt: float) -> np.ndarray:
    """q of the pendulum simulated the way `mbstudio simulate` does, at t = 0, dt, ..."""
    from app.document import build
    from app.document.model_io import load
    from app.document.specs import replace
    from app.headless import make_stepper, sample_times

    doc = load(PENDULUM)
    data = doc.snapshot()
    data.bodies[0] = replace(data.bodies[0], q=(q0,))
    data.forces[0] = replace(data.forces[0], args={**data.forces[0].args, "magnitude": gravity})
    built = build(data)
    stepper = make_stepper(built, 1e-4)
    out = []
    for t in sample_times(until, dt):
        if t > stepper.getTime():
            stepper.stepTo(t)
        out.append(float(built.matter.getQ(stepper.getState())[0]))
    return np.array(out)


def test_sweep_of_the_pendulum(client):
    stream = io.StringIO()
    study = Study(PENDULUM, sets=SETS, until=0.5, dt=0.1, client=client, progress=stream)
    frame = study.run()
    assert len(study.runs) == 4 and study.failed == 0 and not study.interrupted
    assert len(frame) == 4 * 6
    assert list(frame["run"].unique()) == [0, 1, 2, 3]
    assert (frame["status"] == "ok").all() and (frame["reason"] == "").all()
    first = frame[frame["time_index"] == 0]
    assert list(first["param:gravity.magnitude"]) == [9.81, 9.81, 20.0, 20.0]
    assert list(first["param:link.q0"]) == [0.5, 1.0, 0.5, 1.0]
    assert np.array_equal(first["q:link[0]"], first["param:link.q0"])  # the set q0 is used
    for run, g, q0 in [(0, 9.81, 0.5), (3, 20.0, 1.0)]:
        rows = frame[frame["run"] == run]
        assert np.allclose(rows["t"], np.arange(6) * 0.1, rtol=0, atol=1e-12)
        # identical to a single run of the changed model outside the study
        assert np.array_equal(rows["q:link[0]"].to_numpy(), single_run(g, q0, 0.5, 0.1))
        energy = rows["total_energy"].to_numpy()
        assert np.ptp(energy) < 1e-4 * abs(energy).max()
        assert rows["steps_taken"].iloc[0] > 0 and rows["final_time"].iloc[0] == 0.5
        assert (rows["rows"] == 6).all()
    # stronger gravity swings it down faster from the same angle (both before the bottom at
    # t = 0.2 s: a quarter period is 0.41 s at 9.81 m/s^2 and 0.29 s at 20 m/s^2)
    mid = frame[frame["time_index"] == 2].set_index("run")
    assert 0 < mid.loc[2, "q:link[0]"] < mid.loc[0, "q:link[0]"] < 0.5
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("study [") and "0/4 runs" in lines[0]
    assert "4/4 runs" in lines[-1] and lines[-1].endswith("done")


def test_a_failing_run_is_recorded_and_the_study_goes_on(client):
    # the file's inertia is about the body origin: 1.5 kg with it is not physically possible
    study = Study(PENDULUM, sets=["link.mass=1,1.5,1.2"], until=0.2, dt=0.1, client=client)
    frame = study.run()
    assert study.failed == 1
    status = frame.groupby("run")["status"].first()
    assert list(status) == ["ok", "failed", "ok"]
    bad = frame[frame["run"] == 1]
    assert len(bad) == 1 and bad["rows"].iloc[0] == 1
    assert "build" in bad["reason"].iloc[0] and "inertia" in bad["reason"].iloc[0]
    assert math.isnan(bad["t"].iloc[0]) and math.isnan(bad["q:link[0]"].iloc[0])
    assert len(frame[frame["run"] == 2]) == 3


def test_a_run_whose_initial_state_is_not_finite_is_recorded_as_a_build_failure(client):
    """u0 = 1e200 rad/s gives a non-finite initial State, which the builder refuses: the run
    is recorded as failed with the builder's reason and no samples; u0 = 2 (filled in from
    the file's default u, then set) runs."""
    study = Study(PENDULUM, sets=["link.u0=2,1e200"], until=0.3, dt=0.1, client=client)
    frame = study.run()
    ok, bad = frame[frame["run"] == 0], frame[frame["run"] == 1]
    assert (ok["status"] == "ok").all() and ok["u:link[0]"].iloc[0] == 2.0
    assert list(bad["status"]) == ["failed"] and math.isnan(bad["t"].iloc[0])
    assert bad["reason"].iloc[0].startswith("build: BuildError")
    assert "not finite" in bad["reason"].iloc[0]


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_output_interrupt_and_resume(client, tmp_path, suffix):
    out = tmp_path / f"study{suffix}"
    full = Study(PENDULUM, sets=SETS, until=0.3, dt=0.1, client=client).run()

    seen = []

    def stop_after_two(spec, result):
        seen.append(spec.run)
        if len(seen) == 2:
            raise KeyboardInterrupt  # what Ctrl-C raises in the main thread

    first = Study(
        PENDULUM, sets=SETS, until=0.3, dt=0.1, client=client, out=out, on_result=stop_after_two
    )
    partial = first.run()
    assert first.interrupted and first.completed == 2
    assert sorted(partial["run"].unique()) == sorted(seen) and out.exists()
    assert not out.with_name(out.name + ".partial").exists()

    with pytest.raises(OutputError, match="--resume"):
        Study(PENDULUM, sets=SETS, until=0.3, dt=0.1, client=client, out=out).run()
    if suffix == ".parquet":
        with pytest.raises(OutputError, match="another study"):
            Study(PENDULUM, sets=SETS, until=0.4, dt=0.1, client=client, out=out, resume=True).run()
    else:
        with pytest.raises(OutputError, match="other parameter values"):
            Study(
                PENDULUM, sets=["gravity.magnitude=1,2", SETS[1]], until=0.3, dt=0.1,
                client=client, out=out, resume=True,
            ).run()  # fmt: skip

    ran = []
    second = Study(
        PENDULUM,
        sets=SETS,
        until=0.3,
        dt=0.1,
        client=client,
        out=out,
        resume=True,
        on_result=lambda spec, result: ran.append(spec.run),
    )
    resumed = second.run()
    assert second.skipped == 2 and sorted(ran + seen) == [0, 1, 2, 3]
    assert deterministic(resumed).equals(deterministic(full))
    on_disk = read_table(out)
    assert deterministic(on_disk).equals(deterministic(full))
    assert on_disk["run"].dtype == np.int64 and on_disk["t"].dtype == np.float64
    if suffix == ".parquet":
        meta = read_metadata(out)
        assert meta["sets"][0] == "gravity.magnitude=9.81,20.0" and meta["runs"] == 4
        assert meta["model_sha256"] == second.model_sha256


def test_sweep_command_on_an_existing_scheduler(client, tmp_path, capsys):
    from app.cli import main

    address = client.scheduler.address
    out = tmp_path / "mc.csv"
    args = [
        "sweep",
        str(PENDULUM),
        "--set",
        "gravity.magnitude=9,10",
        "--samples",
        "3",
        "--perturb",
        "link.q0~normal(0,1e-3)",
        "--seed",
        "5",
        "--until",
        "0.2",
        "--dt",
        "0.1",
        "--out",
        str(out),
        "--scheduler",
        address,
    ]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "seed 5" in err and "6 runs on tcp://" in err and f"6 runs in {out}" in err
    frame = read_table(out)
    assert len(frame) == 6 * 3 and (frame["status"] == "ok").all()
    first = frame[frame["time_index"] == 0]
    assert list(first["point"]) == [0, 0, 0, 1, 1, 1] and list(first["replicate"]) == [0, 1, 2] * 2
    assert np.allclose(first["q:link[0]"], 1.0471975511965976 + first["delta:link.q0"], atol=0)
    assert 0 < first["delta:link.q0"].abs().max() < 5e-3

    # the same study again (same seed) gives the same numbers
    again = tmp_path / "again.csv"
    assert main([*args[:-4], "--out", str(again), "--scheduler", address]) == 0
    assert deterministic(read_table(again)).equals(deterministic(frame))

    # a second run of the command without --resume refuses to overwrite
    assert main(args) == 2
    assert "exists: pass --resume" in capsys.readouterr().err
    assert main([*args, "--resume"]) == 0
    assert "(6 were already there)" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--set", "nobody.mass=1,2"], "no body or named element 'nobody'"),
        (["--set", "link.mass=1:2"], "START:STOP:COUNT"),
        (["--samples", "3"], "--samples needs at least one --perturb"),
        (["--perturb", "link.q0~normal(0,1)"], "--perturb needs --samples"),
        (["--set", "link.mass=1", "--out", "x.txt"], "must end in .parquet or .csv"),
        (["--scheduler", "tcp://127.0.0.1:9"], "cannot reach the Dask scheduler tcp://127.0.0.1:9"),
    ],
)
def test_sweep_command_usage_errors(tmp_path, capsys, extra, words):
    import dask
    import distributed  # noqa: F401  (loads its configuration defaults before they change)

    from app.cli import main

    args = ["sweep", str(PENDULUM), "--until", "1", "--out", str(tmp_path / "s.parquet")]
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        assert main([*args, *extra]) == 2
    assert words in capsys.readouterr().err
    assert not (tmp_path / "s.parquet").exists()


def test_engine_does_not_import_dask():
    """Studies live in the app layer: the engine imports none of their libraries."""
    pattern = re.compile(r"^\s*(?:import|from)\s+(dask|distributed|pandas|pyarrow)\b", re.M)
    for path in (ROOT / "engine").rglob("*.py"):
        assert not pattern.search(path.read_text(encoding="utf-8")), path
