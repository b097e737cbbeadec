"""Study throughput on Dask: the same sweep of the four-bar with 1 and with 2 local workers.

Run: ``.venv/bin/python benchmarks/bench_studies.py [--runs 200] [--until 5] [--dt 0.01]
[--workers 1,2]``

The study sweeps the crank's initial rate ``crank.u0`` over ``--runs`` values from 3 to 5 rad/s
(``resources/examples/four_bar.mbs.json``), each run simulated to ``--until`` s with samples
every ``--dt`` s (Runge-Kutta-Merson, accuracy 1e-4), on a ``LocalCluster`` of N single-threaded
worker processes that the study starts and stops (``Study(workers=N)``), results kept in memory.

Printed per worker count: the total wall time (cluster start-up, numba warm-up on each worker,
the runs, shut-down); the steady throughput in runs per second, measured from the first
result to the last (so start-up is left out); and the ratio of each to the 1-worker figures.
The results of every worker count are also checked to be bit-identical to the first one's
(every column but ``wall_time_s``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import machine_line  # noqa: E402

FOUR_BAR = ROOT / "resources" / "examples" / "four_bar.mbs.json"


def run_once(workers: int, runs: int, until: float, dt: float):
    from app.studies import Study
    from app.studies.output import NONDETERMINISTIC_COLUMNS

    stamps: list[float] = []
    start = time.perf_counter()
    study = Study(
        FOUR_BAR,
        sets=[f"crank.u0=3:5:{runs}"],
        until=until,
        dt=dt,
        workers=workers,
        on_result=lambda spec, result: stamps.append(time.perf_counter()),
    )
    frame = study.run()
    total = time.perf_counter() - start
    steady = (len(stamps) - 1) / (stamps[-1] - stamps[0]) if len(stamps) > 1 else float("nan")
    assert study.failed == 0, f"{study.failed} runs failed"
    return total, steady, frame.drop(columns=list(NONDETERMINISTIC_COLUMNS))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--until", type=float, default=5.0)
    parser.add_argument("--dt", type=float, default=0.01)
    parser.add_argument("--workers", default="1,2", help="comma-separated worker counts")
    args = parser.parse_args(argv)
    counts = [int(w) for w in args.workers.split(",")]
    print(machine_line())
    print(f"four-bar, {args.runs} runs of {args.until} s, samples every {args.dt} s")
    print(f"{'workers':>7} {'total s':>9} {'runs/s total':>13} {'runs/s steady':>14} {'ratio':>12}")
    base = None
    for n in counts:
        total, steady, frame = run_once(n, args.runs, args.until, args.dt)
        if base is None:
            base = (total, steady, frame)
            identical = "(reference)"
        else:
            identical = "identical" if frame.equals(base[2]) else "DIFFERENT"
        ratio_total = base[0] / total
        ratio_steady = steady / base[1]
        print(
            f"{n:>7} {total:>9.1f} {args.runs / total:>13.3f} {steady:>14.3f} "
            f"{ratio_total:>5.2f}/{ratio_steady:<5.2f}  results {identical}"
        )
    print("ratio = throughput / 1-worker throughput: total / steady")
    return 0


if __name__ == "__main__":
    sys.exit(main())
