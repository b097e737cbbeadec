"""Headless cost per simulated second, window by window: ours against Simbody 3.7 Release.

An example model (default ``chain50``: 50 Ball mobilizers) run with RungeKuttaMerson at the
studio's accuracy (1e-3), a TimeStepper calling ``stepTo`` at every reporting interval
(1/60 s) from t = 0 to ``--until`` (16 s), by our engine and by Simbody 3.7's Release build
(``simbody_span_bench.cpp`` against ``build_simbody_release.sh``'s install, same masses,
inertias, frames, initial q and gravity). Printed per window of simulated time (``--window``,
1 s): CPU seconds per simulated second, integrator steps, attempts and realizations of each,
and the totals. A chain's steps per simulated second grow as it whips, so spans must match;
its motion is chaotic, so after a few seconds the two runs follow different (equally
accurate) trajectories and their step counts part.

Run: ``python benchmarks/bench_span.py [--example chain50] [--until 16] [--repeats 1]``.
CPU times are per-thread (ours) and per-process (Simbody, one thread), so other load on the
machine slows them only through shared caches and frequency.
"""

from __future__ import annotations

import argparse
import math
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.common import (  # noqa: E402
    GRAVITY,
    machine_line,
    release_simbody_program,
    run_simbody_program,
)


def simbody_lines(doc, accuracy: float, until: float, report: float, window: float, repeats: int):
    """The model file of ``simbody_span_bench.cpp`` for ``doc``: a tree of Pin/Ball/Free
    mobilizers with untransformed M frames and translated F frames, under gravity of
    magnitude ``GRAVITY`` along -y, nothing else (refused otherwise, so the two engines run
    the very same model)."""
    index = {"Ground": 0}
    lines = []
    for k, b in enumerate(doc.bodies, start=1):
        joint = b.mobilizer.lower()
        if joint not in ("pin", "ball", "free") or b.mobilizer_params:
            raise ValueError(f"{b.name}: {b.mobilizer} is not one the C++ program builds")
        if any(b.X_PF.rpy) or any(b.X_BM.p) or any(b.X_BM.rpy) or b.u is not None:
            raise ValueError(f"{b.name}: rotated or offset frames or an initial u")
        index[b.name] = k
        vals = [*b.X_PF.p, b.mass, *b.com, *b.inertia]
        lines.append(f"body {index[b.parent]} {joint} " + " ".join(repr(float(x)) for x in vals))
    forces = [(f.type, f.args) for f in doc.forces]
    if doc.constraints or forces != [("Gravity", {"down": (0.0, -1.0, 0.0), "magnitude": GRAVITY})]:
        raise ValueError(f"only gravity of {GRAVITY} along -y is written, the model has {forces}")
    q = [x for b in doc.bodies for x in b.q]
    nu = sum({"pin": 1, "ball": 3, "free": 6}[b.mobilizer.lower()] for b in doc.bodies)
    lines.append("q " + " ".join(repr(float(x)) for x in q))
    lines.append("u " + " ".join("0.0" for _ in range(nu)))
    lines.append(f"run {accuracy!r} {until!r} {report!r} {window!r} {repeats}")
    return lines


def run_simbody(doc, accuracy, until, report, window, repeats, notes) -> list[dict] | None:
    """Simbody Release's windows (dicts as ``run_ours``'s), or None (reason in ``notes``)."""
    exe = release_simbody_program("simbody_span_bench", notes)
    if exe is None:
        return None
    out = run_simbody_program(exe, simbody_lines(doc, accuracy, until, report, window, repeats))
    rows = []
    for line in out.splitlines():
        if line.startswith("window "):
            t0, t1, cpu, _wall, steps, attempts, reals = line.split()[1:]
            rows.append(
                {
                    "t0": float(t0),
                    "t1": float(t1),
                    "cpu": float(cpu),
                    "steps": int(steps),
                    "attempts": int(attempts),
                    "realizations": int(reals),
                }
            )
    return rows


def run_ours(doc, accuracy, until, report, window) -> list[dict]:
    """Our engine's windows: t0, t1, thread CPU seconds, steps, attempts, realizations."""
    from app.document import build
    from app.simulation.integrators import make_integrator
    from engine import TimeStepper

    built = build(doc)
    integ = make_integrator("RungeKuttaMerson", built.system, accuracy)
    stepper = TimeStepper(built.system, integ)
    stepper.initialize(built.state)
    n_reports = round(until / report)
    per_window = max(1, round(window / report))
    rows = []
    for k0 in range(0, n_reports, per_window):
        counts0 = (
            integ.getNumStepsTaken(),
            integ.getNumStepsAttempted(),
            integ.getNumRealizations(),
        )
        t0, cpu0 = stepper.getTime(), time.thread_time()
        for k in range(k0 + 1, min(n_reports, k0 + per_window) + 1):
            stepper.stepTo(k * report)
        cpu = time.thread_time() - cpu0
        rows.append(
            {
                "t0": t0,
                "t1": stepper.getTime(),
                "cpu": cpu,
                "steps": integ.getNumStepsTaken() - counts0[0],
                "attempts": integ.getNumStepsAttempted() - counts0[1],
                "realizations": integ.getNumRealizations() - counts0[2],
            }
        )
    return rows


def per_sim_second(rows: list[dict]) -> dict:
    """Totals of ``rows`` per simulated second."""
    sim = rows[-1]["t1"] - rows[0]["t0"]
    out = {k: sum(r[k] for r in rows) / sim for k in ("cpu", "steps", "attempts", "realizations")}
    out["span"] = (rows[0]["t0"], rows[-1]["t1"])
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--example", default="chain50")
    parser.add_argument("--accuracy", type=float, default=1e-3)
    parser.add_argument("--until", type=float, default=16.0)
    parser.add_argument("--report", type=float, default=1.0 / 60.0)
    parser.add_argument("--window", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=1, help="Simbody runs (least CPU kept)")
    parser.add_argument("--engines", default="ours,simbody_rel")
    args = parser.parse_args()
    from app.document import model_io
    from app.document.examples import example_path

    doc = model_io.load(example_path(args.example))
    engines = args.engines.split(",")
    notes: list[str] = []
    print(machine_line())
    runs: dict[str, list[dict]] = {}
    a = (args.accuracy, args.until, args.report, args.window)
    if "simbody_rel" in engines:
        rows = run_simbody(doc, *a, args.repeats, notes)
        if rows:
            runs["simbody_rel"] = rows
    if "ours" in engines:
        run_ours(doc, args.accuracy, 2 * args.report, args.report, args.window)  # load kernels
        runs["ours"] = run_ours(doc, *a)
    for note in notes:
        print(note)
    names = list(runs)
    print(
        f"{args.example}, RungeKuttaMerson accuracy {args.accuracy:g}, stepTo every "
        f"{args.report:.6g} s; per window: CPU s per simulated s, steps / attempts / "
        "realizations per simulated s"
    )
    print("| t | " + " | ".join(f"{n} CPU s/s | {n} steps/att/real" for n in names) + " |")
    print("|---|" + "---|---|" * len(names))
    for i in range(min(len(r) for r in runs.values())):
        cells = []
        for n in names:
            r = runs[n][i]
            sim = r["t1"] - r["t0"]
            cells.append(f"{r['cpu'] / sim:.4f}")
            counts = (r["steps"], r["attempts"], r["realizations"])
            cells.append(" / ".join(f"{c / sim:.0f}" for c in counts))
        r0 = runs[names[0]][i]
        print(f"| {r0['t0']:.0f}..{r0['t1']:.0f} | " + " | ".join(cells) + " |")
    for lo, hi in ((0.0, args.until), (1.0, 7.0), (4.0, args.until)):
        parts = []
        for n in names:
            rows = [r for r in runs[n] if r["t0"] >= lo - 1e-9 and r["t1"] <= hi + 1e-9]
            if not rows:
                continue
            s = per_sim_second(rows)
            parts.append(
                f"{n}: {s['cpu']:.4f} CPU s/s ({1 / s['cpu'] if s['cpu'] else math.inf:.1f}x "
                f"real time on one core), {s['steps']:.0f} steps, {s['attempts']:.0f} attempts, "
                f"{s['realizations']:.0f} realizations per s"
            )
        print(f"t = {lo:g}..{hi:g}: " + "; ".join(parts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
