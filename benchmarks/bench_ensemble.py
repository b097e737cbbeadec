"""Ensemble throughput: double pendulums advanced together by ``engine.EnsembleIntegrator``
against the same runs one after another in one process.

Run: ``.venv/bin/python benchmarks/bench_ensemble.py [--members 1000] [--until 10]
[--accuracy 1e-6] [--report 0.01] [--baseline-members 20] [--threads 1] [--per-time]``

Members: the double pendulum of ``resources/examples/double_pendulum.mbs.json``, its lower
angle 1e-6 rad apart from member to member (a chaotic ensemble). Each is integrated to
``--until`` s by Runge-Kutta-Merson at ``--accuracy`` and read (q and u) every ``--report``
s (0: only at the end).

* one after another: for each member a ``RungeKuttaMersonIntegrator`` and ``TimeStepper``,
  initialized on its State and stepped to every report time, as a study's run does. Timed on
  the first ``--baseline-members`` members (a run takes the same time whichever member it
  is), and scaled to ``--members``;
* ensemble: ``EnsembleIntegrator`` over all members, ``advanceThrough`` all report times
  (each member through all of them in one pass; with ``--per-time``, one ``advanceTo`` per
  report time for all members instead), set-up included.

Printed: member-steps per second (steps taken by all members over the wall time) of each,
the time per member and the ratio. Both take the same steps (the ensemble's are the single
runs' bit for bit; checked on the timed baseline members).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import machine_line  # noqa: E402

DOUBLE = ROOT / "resources" / "examples" / "double_pendulum.mbs.json"


def members(n: int):
    from app.document.model_io import load
    from app.studies.runner import build_model

    built = build_model(load(DOUBLE).data.to_dict())
    base = built.state
    states = []
    for k in range(n):
        s = base.copy()
        q = np.array(base.getQ())
        q[1] += 1e-6 * k
        s.setQ(q)
        states.append(s)
    return built.system, states


def one_after_another(system, states, times, accuracy):
    from engine import RungeKuttaMersonIntegrator, TimeStepper

    steps, finals = 0, []
    for state in states:
        integ = RungeKuttaMersonIntegrator(system)
        integ.setAccuracy(accuracy)
        stepper = TimeStepper(system, integ)
        stepper.initialize(state)
        for t in times:
            stepper.stepTo(t)
            s = stepper.getState()
            s.getQ().copy(), s.getU().copy()
        steps += integ.getNumStepsTaken()
        finals.append(np.array(integ.getAdvancedState().getY()))
    return steps, np.array(finals)


def ensemble_run(system, states, times, accuracy, threads, per_time=False):
    from engine import EnsembleIntegrator

    ensemble = EnsembleIntegrator(system, states, accuracy=accuracy, threads=threads)
    if per_time:
        for t in times:
            ensemble.advanceTo(t)
    else:
        ensemble.advanceThrough(times)
    assert (ensemble.getStatus() == 0).all()
    return int(ensemble.getNumStepsTaken().sum()), ensemble.getAdvancedY()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=1000)
    parser.add_argument("--until", type=float, default=10.0)
    parser.add_argument("--accuracy", type=float, default=1e-6)
    parser.add_argument("--report", type=float, default=0.01, help="report interval (s); 0: end")
    parser.add_argument("--baseline-members", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument(
        "--per-time", action="store_true", help="ensemble: one advanceTo per report time"
    )
    args = parser.parse_args(argv)
    if args.report > 0:
        n = int(round(args.until / args.report))
        times = [args.report * k for k in range(1, n + 1)]
    else:
        times = [args.until]
    system, states = members(args.members)
    # warm the kernels (numba's cache) on one short run of each kind
    one_after_another(system, states[:1], [0.01], args.accuracy)
    ensemble_run(system, states[:2], [0.01], args.accuracy, args.threads, args.per_time)

    nb = min(args.baseline_members, args.members)
    start = time.perf_counter()
    base_steps, base_final = one_after_another(system, states[:nb], times, args.accuracy)
    base_wall = time.perf_counter() - start
    start = time.perf_counter()
    ens_steps, ens_final = ensemble_run(
        system, states, times, args.accuracy, args.threads, args.per_time
    )
    ens_wall = time.perf_counter() - start
    assert np.array_equal(ens_final[:nb], base_final), "the ensemble took other steps"

    base_rate = base_steps / base_wall
    ens_rate = ens_steps / ens_wall
    print(machine_line())
    print(
        f"{args.members} double pendulums, {args.until} s, accuracy {args.accuracy:g}, "
        f"reports every {args.report or args.until} s ({len(times)}), threads {args.threads}, "
        f"{'advanceTo per time' if args.per_time else 'advanceThrough'}"
    )
    print(
        f"one after another ({nb} timed): {base_wall / nb * 1e3:8.2f} ms/member, "
        f"{base_rate:12.0f} member-steps/s, {args.members} members ~ "
        f"{base_wall / nb * args.members:.1f} s"
    )
    print(
        f"ensemble ({args.members}):       {ens_wall / args.members * 1e3:8.2f} ms/member, "
        f"{ens_rate:12.0f} member-steps/s, {ens_wall:.1f} s"
    )
    print(f"ratio (ensemble / one after another, member-steps/s): {ens_rate / base_rate:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
