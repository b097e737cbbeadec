"""Ensemble throughput: double pendulums advanced together by ``engine.EnsembleIntegrator``
against the same runs one after another in one process.

Run: ``.venv/bin/python benchmarks/bench_ensemble.py [--members 1000] [--until 10]
[--accuracy 1e-6] [--report 0.01] [--baseline-members 10] [--rounds 3] [--threads 1]
[--per-time]``

Members: the double pendulum of ``resources/examples/double_pendulum.mbs.json``, its lower
angle 1e-6 rad apart from member to member (a chaotic ensemble). Each is integrated to
``--until`` s by Runge-Kutta-Merson at ``--accuracy`` and read (q and u) every ``--report``
s (0: only at the end).

* one after another: for each member a ``RungeKuttaMersonIntegrator`` and ``TimeStepper``,
  initialized on its State and stepped to every report time, as a study's run does. Each
  round times ``--baseline-members`` members (the next ones each round; a run costs about
  the same whichever member it is);
* ensemble: ``EnsembleIntegrator`` over all members, ``advanceThrough`` all report times
  (each member through all of them in one pass; with ``--per-time``, one ``advanceTo`` per
  report time for all members instead), set-up included.

Robust to a loaded machine: each run is timed by the process's CPU time
(``time.process_time``: what other processes take is not counted; with ``--threads`` > 1
it sums the threads) as well as by the wall clock; the two kinds of run alternate in
``--rounds`` rounds (their order swapped every round), and the figures are medians over
the rounds. Printed per round and as medians: member-steps per second (steps taken by all
members over the time) of each and their ratio. Both take the same steps (the ensemble's
are the single runs' bit for bit; checked on every timed member).
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


def timed(fn, *args):
    """(result, process CPU s, wall s) of ``fn(*args)``."""
    cpu, wall = time.process_time(), time.perf_counter()
    out = fn(*args)
    return out, time.process_time() - cpu, time.perf_counter() - wall


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=1000)
    parser.add_argument("--until", type=float, default=10.0)
    parser.add_argument("--accuracy", type=float, default=1e-6)
    parser.add_argument("--report", type=float, default=0.01, help="report interval (s); 0: end")
    parser.add_argument(
        "--baseline-members", type=int, default=10, help="members run one after another per round"
    )
    parser.add_argument("--rounds", type=int, default=3)
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
    print(machine_line())
    print(
        f"{args.members} double pendulums, {args.until} s, accuracy {args.accuracy:g}, "
        f"reports every {args.report or args.until} s ({len(times)}), threads {args.threads}, "
        f"{'advanceTo per time' if args.per_time else 'advanceThrough'}, {args.rounds} rounds "
        f"({nb} members one after another per round)"
    )
    rows = []  # per round: (base cpu/member, base wall/member, ens cpu/member, ens wall/member)
    for r in range(args.rounds):
        first = (r * nb) % args.members
        picked = [(first + k) % args.members for k in range(nb)]

        base = (one_after_another, system, [states[k] for k in picked], times, args.accuracy)
        ens = (ensemble_run, system, states, times, args.accuracy, args.threads, args.per_time)
        if r % 2 == 0:  # alternate the order, so neither run always follows the other
            (b_steps, b_final), b_cpu, b_wall = timed(*base)
            (e_steps, e_final), e_cpu, e_wall = timed(*ens)
        else:
            (e_steps, e_final), e_cpu, e_wall = timed(*ens)
            (b_steps, b_final), b_cpu, b_wall = timed(*base)
        assert np.array_equal(e_final[picked], b_final), "the ensemble took other steps"
        # member-steps per CPU second; the members take different numbers of steps, so the
        # ratio is of rates (member-steps/s), not of times per member
        rows.append((b_steps / b_cpu, b_steps / b_wall, e_steps / e_cpu, e_steps / e_wall))
        print(
            f"round {r + 1}: one after another {b_cpu / nb * 1e3:7.1f} ms CPU/member "
            f"({b_wall / nb * 1e3:7.1f} wall), ensemble {e_cpu / args.members * 1e3:6.1f} ms "
            f"CPU/member ({e_wall / args.members * 1e3:6.1f} wall); ratio CPU "
            f"{rows[-1][2] / rows[-1][0]:.2f}x, wall {rows[-1][3] / rows[-1][1]:.2f}x"
        )
    rates = np.array(rows)
    med = np.median(rates, axis=0)
    ratios_cpu = rates[:, 2] / rates[:, 0]
    print(
        f"median member-steps per CPU s: one after another {med[0]:10.0f}, ensemble "
        f"{med[2]:10.0f}; ratio of medians {med[2] / med[0]:.2f}x (rounds "
        f"{ratios_cpu.min():.2f}-{ratios_cpu.max():.2f}x)"
    )
    print(
        f"median member-steps per wall s: one after another {med[1]:10.0f}, ensemble "
        f"{med[3]:10.0f}; ratio of medians {med[3] / med[1]:.2f}x"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
