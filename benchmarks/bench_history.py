"""History benchmark (not a test): what recording every reported State costs, and how long
showing a recorded State takes.

- Recording cost, end to end: the studio's ``SimulationSession`` runs the 50-link chain (its
  worker thread, default integrator and accuracy, a report every 1/60 s, every report sampled,
  recorded and published as a snapshot with the body poses and the cache report every 0.1 s,
  as the studio does) to ``--until`` simulated seconds, with recording and with the worker's
  ``_record`` replaced by a no-op. Cost = CPU seconds of the whole process
  (``time.process_time``: all its threads, not what other processes take) per simulated
  second. The two kinds of run alternate, ``--repeats`` times each, and the medians are
  compared; the worker's thread CPU time inside ``_record`` (``time.thread_time``) is summed
  too, which load hardly inflates.
- Recording cost, stepping alone: the 50-link chain stepped headless to ``--until`` seconds
  with a report every 1/60 s (a TimeStepper ``stepTo`` per report, as the studio's worker
  does), without and with
  ``Recorder.capture`` + ``History.append`` at each report (as the worker does). The two runs
  alternate, ``--repeats`` times each, and the medians are compared (the machine is shared, so
  one run alone says little); the time spent inside the recording calls themselves is also
  summed, which no other process inflates much. CPU time of this process
  (``time.process_time``).
- Showing a recorded State: ``restore`` of a record into the live State, then realizing
  Position and reading every body's pose (what the studio's worker does before it publishes),
  median and 95th percentile over all records after a warm-up (target < 50 ms).

Run: ``python benchmarks/bench_history.py [--until 3] [--repeats 5]``.
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
from app.simulation.session import Pacing, Settings, SimulationSession  # noqa: E402
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


def run_session(until: float, record: bool) -> tuple[float, float, float, int]:
    """(process CPU seconds per simulated second, the worker's CPU seconds inside ``_record``
    per simulated second, simulated seconds run, records held) for the studio's session
    running the chain to ``until``, every report sampled (and recorded if ``record``)."""
    import threading

    built = build(BUILDERS["chain50"]())
    settings = Settings(pacing=Pacing.SAMPLED, report_interval=REPORT_INTERVAL)
    reached = threading.Event()
    session = None

    def on_publish(snap) -> None:  # the worker's thread: take the frame at once, like a reader
        if session is not None:
            session.latest()
            if snap.time >= until - 1e-9 or snap.error:
                reached.set()

    session = SimulationSession(built, settings=settings, on_publish=on_publish)
    inside = [0.0]
    original = session._record

    def timed_record(state, left_samples=None) -> None:
        t0 = time.thread_time()
        if record:
            original(state, left_samples)
        inside[0] += time.thread_time() - t0

    session._record = timed_record
    session.start()
    try:
        c0 = time.process_time()
        session.play()
        if not reached.wait(600.0):
            raise RuntimeError("the session did not reach the end time")
        cpu = time.process_time() - c0
        t = session.latest().time
        session.pause()
    finally:
        session.stop()
    if session.latest().error:
        raise RuntimeError(session.latest().error)
    return cpu / t, inside[0] / t, t, len(session.history)


def session_cost(until: float, repeats: int) -> None:
    run_session(0.1, True)  # compile and warm up
    plain, recorded, inside = [], [], []
    held = 0
    for _ in range(repeats):
        plain.append(run_session(until, False)[0])
        cpu, spent, _t, held = run_session(until, True)
        recorded.append(cpu)
        inside.append(spent)
    base, with_history = statistics.median(plain), statistics.median(recorded)
    spent = statistics.median(inside)
    print(
        f"chain50 in the studio's session, {until:g} s simulated, every 1/60 s report sampled "
        f"and published, median of {repeats} alternating runs (process CPU s per simulated s)"
    )
    print(f"  without recording  {base:8.4f}  (runs: {_list(plain, 4)})")
    print(f"  with recording     {with_history:8.4f}  (runs: {_list(recorded, 4)})")
    print(f"  recording cost     {100 * (with_history - base) / base:+8.2f} %  (target < 5 %)")
    print(
        f"  inside _record     {spent:8.5f} = {100 * spent / base:.2f} % of the run, "
        f"{1e6 * spent * REPORT_INTERVAL:.1f} us per State ({held} States held)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--until", type=float, default=3.0)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    session_cost(args.until, args.repeats)
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
    print(
        f"chain50 stepped alone, {args.until:g} s simulated, a report every 1/60 s, "
        f"median of {args.repeats}"
    )
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


def _list(values: list[float], digits: int = 3) -> str:
    return " ".join(f"{v:.{digits}f}" for v in values)


if __name__ == "__main__":
    main()
