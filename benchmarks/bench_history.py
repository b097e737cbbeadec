"""History benchmark (not a test): what recording every reported State costs, and how long
showing a recorded State takes.

- Recording cost: the 50-link chain stepped headless to ``--until`` seconds with a report every
  1/60 s (a TimeStepper ``stepTo`` per report, as the studio's worker does), once without and
  once with ``Recorder.capture`` + ``History.append`` at each report (as the worker does);
  printed as the extra fraction of the run's time (target < 5 %). CPU time of this process
  (``time.process_time``), so other processes on the machine do not inflate it.
- Showing a recorded State: ``restore`` of a record into the live State, then realizing
  Position and reading every body's pose (what the studio's worker does before it publishes),
  median over all records (target < 50 ms).

Run: ``python benchmarks/bench_history.py [--until 5] [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.document.builder import build  # noqa: E402
from app.document.examples import BUILDERS  # noqa: E402
from app.history import History, restore  # noqa: E402
from app.history.state_record import Recorder  # noqa: E402
from app.simulation.snapshot import body_poses  # noqa: E402
from engine import RungeKuttaMersonIntegrator, Stage, TimeStepper  # noqa: E402

REPORT_INTERVAL = 1.0 / 60.0


def run(until: float, record: bool) -> tuple[float, History]:
    """CPU seconds to step the chain to ``until`` with a report every 1/60 s."""
    built = build(BUILDERS["chain50"]())
    integrator = RungeKuttaMersonIntegrator(built.system)
    integrator.setAccuracy(1e-4)
    stepper = TimeStepper(built.system, integrator)
    stepper.initialize(built.state)
    history = History()
    recorder = Recorder()
    n = round(until / REPORT_INTERVAL)
    t0 = time.process_time()
    for k in range(1, n + 1):
        stepper.stepTo(k * REPORT_INTERVAL)
        if record:
            history.append(recorder.capture(stepper.getState()))
    return time.process_time() - t0, history


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--until", type=float, default=5.0)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    run(0.1, True)  # compile and warm up
    plain, recorded = [], []
    history = None
    for _ in range(args.repeats):
        plain.append(run(args.until, False)[0])
        seconds, history = run(args.until, True)
        recorded.append(seconds)
    base, with_history = min(plain), min(recorded)
    print(f"chain50, {args.until:g} s simulated, a report every 1/60 s, best of {args.repeats}")
    print(f"  without recording  {base:8.3f} s CPU")
    print(f"  with recording     {with_history:8.3f} s CPU")
    print(f"  recording cost     {100 * (with_history - base) / base:+8.2f} %  (target < 5 %)")
    print(f"  history held       {len(history)} States, {history.nbytes / 1e6:.2f} MB")

    built = build(BUILDERS["chain50"]())
    state = built.state
    times = []
    for record in history:
        t0 = time.perf_counter()
        restore(record, state)
        built.system.realize(state, Stage.Position)
        body_poses(built.matter, state)
        times.append(time.perf_counter() - t0)
    print(
        f"  show a recorded State: median {1e3 * statistics.median(times):.2f} ms, "
        f"max {1e3 * max(times):.2f} ms  (target < 50 ms)"
    )


if __name__ == "__main__":
    main()
