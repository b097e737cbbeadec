"""Studies on Dask clusters of separate processes: the local cluster ``mbstudio sweep`` starts
(with Ctrl-C and ``--resume``), and a scheduler and workers started as their own processes, one
of which is killed mid-study. Results must equal an in-process study bit for bit."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.studies.output import NONDETERMINISTIC_COLUMNS, read_table
from app.studies.study import SCHEDULER_OPTIONS, Study

ROOT = Path(__file__).resolve().parents[2]
DOUBLE = ROOT / "resources" / "examples" / "double_pendulum.mbs.json"
SETS = ["gravity.magnitude=9:10:2", "lower.q0=0.1:0.6:5"]  # 10 runs
UNTIL, DT = 1.0, 0.1
# The Ctrl-C test's study: 40 runs of 4 s, so that after the first progress line past three
# runs the rest keep two workers busy for seconds and the interrupt always lands mid-study.
SETS_LONG = ["gravity.magnitude=9:10:2", "lower.q0=0.1:0.6:20"]
UNTIL_LONG = 4.0

pytestmark = pytest.mark.slow


def deterministic(frame):
    return frame.drop(columns=list(NONDETERMINISTIC_COLUMNS))


@pytest.fixture(scope="module")
def reference():
    """The study's results from an in-process cluster of one worker."""
    from dask.distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=1,
            threads_per_worker=1,
            processes=False,
            dashboard_address=None,
            scheduler_kwargs=SCHEDULER_OPTIONS,
        ) as cluster,
        Client(cluster) as client,
    ):
        return Study(DOUBLE, sets=SETS, until=UNTIL, dt=DT, client=client).run()


@pytest.fixture(scope="module")
def long_reference():
    """The Ctrl-C test's study from an in-process cluster of one worker."""
    from dask.distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=1,
            threads_per_worker=1,
            processes=False,
            dashboard_address=None,
            scheduler_kwargs=SCHEDULER_OPTIONS,
        ) as cluster,
        Client(cluster) as client,
    ):
        return Study(DOUBLE, sets=SETS_LONG, until=UNTIL_LONG, dt=DT, client=client).run()


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def test_a_study_worker_process_prints_no_shutdown_noise():
    """A worker process of a study-owned cluster (after the preload hook ``dask_setup``) prints
    nothing for the errors Dask logs while the study shuts the cluster down, such as a heartbeat
    that finds the scheduler gone; a critical record still reaches stderr."""
    script = (
        "import logging, distributed\n"
        "from app.studies.worker import dask_setup\n"
        "dask_setup(None)\n"
        "log = logging.getLogger('distributed.worker')\n"
        "try:\n"
        "    raise OSError('Stream is closed')\n"
        "except OSError:\n"
        "    log.exception('Failed to communicate with scheduler during heartbeat.')\n"
        "log.critical('critical record')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=_env(), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "heartbeat" not in done.stderr and "Traceback" not in done.stderr
    assert "critical record" in done.stderr


def test_local_cluster_of_two_processes_ctrl_c_and_resume(tmp_path, long_reference):
    """`mbstudio sweep --workers 2` in its own session gets SIGINT on its whole process group
    (what Ctrl-C in a terminal does) after a few runs: it exits 130 without tracebacks and
    keeps the finished runs, which equal the in-process ones; --resume completes the study."""
    out = tmp_path / "study.parquet"
    cmd = [sys.executable, "-m", "app", "sweep", str(DOUBLE), "--until", str(UNTIL_LONG)]
    cmd += ["--dt", str(DT), "--out", str(out), "--workers", "2"]
    for s in SETS_LONG:
        cmd += ["--set", s]
    proc = subprocess.Popen(
        cmd,
        cwd=ROOT,
        env=_env(),
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    lines = []
    try:
        for line in proc.stderr:
            lines.append(line)
            done = re.search(r" (\d+)/40 runs", line)  # printed every 10 % of the runs
            if done and int(done.group(1)) >= 3:
                os.killpg(proc.pid, signal.SIGINT)
                break
        lines += proc.stderr.readlines()
        rc = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    err = "".join(lines)
    assert rc == 130, err
    assert "Traceback" not in err and "interrupted:" in err and "--resume" in err
    kept = read_table(out)
    runs = sorted(kept["run"].unique())
    assert 3 <= len(runs) < 40
    expected = long_reference[long_reference["run"].isin(runs)].reset_index(drop=True)
    assert deterministic(kept).equals(deterministic(expected))

    # the rest, on an in-process cluster: the whole table equals the reference
    from dask.distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=1, processes=False, dashboard_address=None, scheduler_kwargs=SCHEDULER_OPTIONS
        ) as cluster,
        Client(cluster) as client,
    ):
        study = Study(
            DOUBLE, sets=SETS_LONG, until=UNTIL_LONG, dt=DT, client=client, out=out, resume=True
        )
        frame = study.run()
    assert study.skipped == len(runs)
    assert deterministic(frame).equals(deterministic(long_reference))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_scheduler_and_workers_as_processes_survive_a_killed_worker(reference):
    """`dask scheduler` and two `dask worker --no-nanny` processes on 127.0.0.1; after the
    first result the worker that is running a task is killed (SIGKILL). Dask reruns its task
    on the other worker and the study's results equal the in-process ones."""
    from dask.distributed import Client

    dask_cli = [sys.executable, "-m", "dask"]
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    procs = [
        subprocess.Popen(
            [*dask_cli, "scheduler", "--host", "127.0.0.1", "--port", str(port)]
            + ["--no-dashboard"],
            cwd=ROOT,
            env=_env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    ]
    try:
        for _ in range(2):
            procs.append(
                subprocess.Popen(
                    [*dask_cli, "worker", address, "--nthreads", "1", "--no-nanny"]
                    + ["--no-dashboard", "--host", "127.0.0.1"],
                    cwd=ROOT,
                    env=_env(),
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        client = Client(address, timeout="30s")
        try:
            client.wait_for_workers(2, timeout=60)
            pids = client.run(os.getpid)
            killed = []

            def kill_a_busy_worker(spec, result):
                if killed:
                    return
                deadline = time.monotonic() + 10
                while time.monotonic() < deadline:
                    busy = [w for w, keys in client.processing().items() if keys]
                    if busy:
                        os.kill(pids[busy[0]], signal.SIGKILL)
                        killed.append(busy[0])
                        return
                    time.sleep(0.01)

            study = Study(
                DOUBLE, sets=SETS, until=UNTIL, dt=DT, client=client, on_result=kill_a_busy_worker
            )
            frame = study.run()
            assert killed, "no worker was busy after the first result"
            assert killed[0] not in client.scheduler_info()["workers"]
            assert study.failed == 0 and study.completed == 10
            assert deterministic(frame).equals(deterministic(reference))
        finally:
            client.close()
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait(timeout=30)


def test_local_cluster_of_two_processes_survives_a_killed_worker(reference):
    """A LocalCluster of two worker processes (each under its nanny, as `mbstudio sweep`
    starts them); after the first result the process of a worker that is running a task is
    killed (SIGKILL). Its task is retried elsewhere, the study completes with every run and
    the results equal the in-process ones."""
    from dask.distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            scheduler_kwargs=SCHEDULER_OPTIONS,
        ) as cluster,
        Client(cluster) as client,
    ):
        pids = client.run(os.getpid)
        killed = []

        def kill_a_busy_worker(spec, result):
            if killed:
                return
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                busy = [w for w, keys in client.processing().items() if keys]
                if busy:
                    os.kill(pids[busy[0]], signal.SIGKILL)
                    killed.append(pids[busy[0]])
                    return
                time.sleep(0.01)

        study = Study(
            DOUBLE, sets=SETS, until=UNTIL, dt=DT, client=client, on_result=kill_a_busy_worker
        )
        frame = study.run()
        assert killed, "no worker was busy after the first result"
        assert killed[0] not in client.run(os.getpid).values()  # that process is gone
        assert study.failed == 0 and study.completed == 10 and not study.interrupted
        assert sorted(frame["run"].unique()) == list(range(10))
        assert deterministic(frame).equals(deterministic(reference))


def test_a_study_owned_cluster_beside_a_server_on_port_8787_warns_nothing(reference):
    """A study that starts its own LocalCluster while another program (here a listening socket,
    in practice another Dask cluster) holds Dask's default port 8787 runs without the "Port 8787
    is already in use" warning: the scheduler's HTTP server takes a free local port."""
    import warnings

    holder = socket.socket()
    try:
        holder.bind(("127.0.0.1", 8787))
        holder.listen()
    except OSError:
        holder.close()  # something else already holds it, which is the same situation
        holder = None
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            study = Study(DOUBLE, sets=SETS, until=UNTIL, dt=DT, workers=1)
            frame = study.run()
    finally:
        if holder is not None:
            holder.close()
    assert study.completed == 10 and study.failed == 0
    assert deterministic(frame).equals(deterministic(reference))
    port_warnings = [w for w in caught if "8787" in str(w.message)]
    assert port_warnings == []
