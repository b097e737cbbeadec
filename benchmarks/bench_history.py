"""History benchmark (not a test): what recording every reported State costs, and how long
showing a recorded State takes.

- Recording cost: the 50-link chain stepped headless to ``--until`` seconds with a report every
  1/60 s (a TimeStepper ``stepTo`` per report, as the studio's worker does), without and with
  ``Recorder.capture`` + ``History.append`` at each report (as the worker does). The two runs
  alternate, ``--repeats`` times each, and the medians are compared (the machine is shared, so
  one run alone says little); the time spent inside the recording calls themselves is also
  summed, which no other process inflates much. CPU time of this process
  (``time.process_time``).
- Showing a recorded State: ``restore`` of a record into the live State, then realizing
  Position and reading every body's pose (what the studio's worker does before it publishes),
  median and 95th percentile over all records after a warm-up (target < 50 ms).

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

from app.body_puller import ensure_pull_force  # noqa: E402
from app.document.builder import build  # noqa: E402
from app.document.examples import BUILDERS  # noqa: E402
from app.history import History, restore  # noqa: E402
from app.history.state_record import Recorder  # noqa: E402
from app.simulation.snapshot import body_poses  # noqa: E402
from engine import RungeKuttaMersonIntegrator, Stage, TimeStepper  # noqa: E402

REPORT_INTERVAL = 1.0 / 60.0


def run(until: float, record: bool) -> tuple[float, float, History]:
    """(CPU seconds of the run, CPU seconds inside the recording calls, the history) for the
    chain stepped to ``until`` with a report every 1/60 s."""
    built = build(BUILDERS["chain50"]())
    ensure_pull_force(built)  # laid out as in the studio, so that its session can show them
    integrator = RungeKuttaMersonIntegrator(built.system)
    integrator.setAccuracy(1e-4)
    stepper = TimeStepper(built.system, integrator)
    stepper.initialize(built.state)
    history = History()
    recorder = Recorder()
    n = round(until / REPORT_INTERVAL)
    inside = 0.0
    t0 = time.process_time()
    for k in range(1, n + 1):
        stepper.stepTo(k * REPORT_INTERVAL)
        if record:
            r0 = time.process_time()
            history.append(recorder.capture(stepper.getState()))
            inside += time.process_time() - r0
    return time.process_time() - t0, inside, history


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--until", type=float, default=5.0)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    run(0.1, True)  # compile and warm up
    plain, recorded, inside = [], [], []
    history = None
    for _ in range(args.repeats):
        plain.append(run(args.until, False)[0])
        seconds, spent, history = run(args.until, True)
        recorded.append(seconds)
        inside.append(spent)
    base, with_history = statistics.median(plain), statistics.median(recorded)
    spent = statistics.median(inside)
    print(f"chain50, {args.until:g} s simulated, a report every 1/60 s, median of {args.repeats}")
    print(f"  without recording  {base:8.3f} s CPU  (runs: {_list(plain)})")
    print(f"  with recording     {with_history:8.3f} s CPU  (runs: {_list(recorded)})")
    print(f"  recording cost     {100 * (with_history - base) / base:+8.2f} %  (target < 5 %)")
    print(
        f"  inside recording   {spent:8.4f} s CPU = {100 * spent / base:.2f} % of the run, "
        f"{1e6 * spent / len(history):.1f} us per State"
    )
    print(f"  history held       {len(history)} States, {history.nbytes / 1e6:.2f} MB")

    built = build(BUILDERS["chain50"]())
    ensure_pull_force(built)
    state = built.state
    times = []
    for k, record in enumerate([*list(history)[:5], *history]):
        t0 = time.perf_counter()
        restore(record, state)
        built.system.realize(state, Stage.Position)
        body_poses(built.matter, state)
        if k >= 5:  # the first five warm up (compiled kernels load on first use)
            times.append(time.perf_counter() - t0)
    times.sort()
    print(
        f"  show a recorded State: median {1e3 * statistics.median(times):.2f} ms, "
        f"95th percentile {1e3 * times[int(0.95 * (len(times) - 1))]:.2f} ms, "
        f"max {1e3 * times[-1]:.2f} ms  (target < 50 ms)"
    )
    print(
        "  show a recorded State in the studio's session (command to published snapshot, "
        "with the cache report):"
    )
    _session_show(history)


def _session_show(history: History) -> None:
    """Wall-clock time from ``show_recorded(t)`` to the worker's published snapshot of that
    State (restore, realize, body poses, stage info and cache report), as the timeline asks."""
    import threading

    from app.simulation.session import SimulationSession

    built = build(BUILDERS["chain50"]())
    shown = threading.Event()
    wanted = [None]

    def on_publish(snap) -> None:
        if wanted[0] is not None and snap.time == wanted[0]:
            shown.set()

    session = SimulationSession(built, on_publish=on_publish)
    session.start()
    try:
        session.load_history(list(history))
        times = []
        records = list(history)
        for k, record in enumerate(records[:5] + records[::2]):
            wanted[0] = record.t
            shown.clear()
            t0 = time.perf_counter()
            session.show_recorded(record.t)
            if not shown.wait(10.0):
                raise RuntimeError(f"no snapshot of t = {record.t}")
            if k >= 5:
                times.append(time.perf_counter() - t0)
    finally:
        session.stop()
    times.sort()
    print(
        f"    median {1e3 * statistics.median(times):.2f} ms, 95th percentile "
        f"{1e3 * times[int(0.95 * (len(times) - 1))]:.2f} ms, max {1e3 * times[-1]:.2f} ms "
        "(target < 50 ms)"
    )


def _list(values: list[float]) -> str:
    return " ".join(f"{v:.3f}" for v in values)


if __name__ == "__main__":
    main()
