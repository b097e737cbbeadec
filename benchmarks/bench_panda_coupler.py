"""The Panda example's mimic finger (a CoordinateCoupler with a Function.Linear): one
realization to Acceleration with the coupler compiled (the fused call), with every
constraint on its class's Python methods (stage by stage) and with the coupler disabled
(the unconstrained fused call), interleaved.

Run: ``.venv/bin/python benchmarks/bench_panda_coupler.py [--runs 20] [--calls 200]``

``--simulate ARGS...`` instead runs ``mbstudio simulate ARGS`` (time it from the shell),
with ``--python-constraints`` on the Python constraint path: the realization the Panda had
before its coupler had a compiled form. Not a test.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import engine.multibody.fused_realization as fused_realization  # noqa: E402
import engine.multibody.matter.constraints as matter_constraints  # noqa: E402
from app.document import model_io  # noqa: E402
from app.document.builder import build  # noqa: E402
from benchmarks.common import machine_line  # noqa: E402
from engine import Stage  # noqa: E402

PANDA = ROOT / "resources/examples/robots/panda/panda.mbs.json"


def python_constraints() -> None:
    """Every constraint realized by its class's Python methods, stage by stage."""
    matter_constraints.compiled_constraints = lambda *args: None
    fused_realization.compiled_constraints = lambda *args: None


def _panda(coupled: bool = True):
    built = build(model_io.load(PANDA))
    system, state = built.system, built.state
    if not coupled:
        built.matter.getConstraint(0).disable(state)
    rng = np.random.default_rng(5)
    state.updQ()[:] = np.asarray(state.getQ()) + 0.1 * rng.standard_normal(state.getNQ())
    state.updU()[:] = rng.standard_normal(state.getNU())
    system.realize(state, Stage.Acceleration)
    return system, state


def _microseconds_per_realization(system, state, calls: int) -> float:
    q = np.array(state.getQ())
    start = time.perf_counter()
    for _ in range(calls):
        state.updQ()[:] = q  # invalidates Position and above
        system.realize(state, Stage.Acceleration)
    return (time.perf_counter() - start) / calls * 1e6


def realization(runs: int, calls: int) -> None:
    compiled = _panda()
    free = _panda(coupled=False)
    print(f"compiled: whyNotFused = {compiled[0]._fused_realization.whyNotFused(compiled[1])!r}")
    saved = matter_constraints.compiled_constraints, fused_realization.compiled_constraints
    python_constraints()
    python = _panda()
    print(f"python:   whyNotFused = {python[0]._fused_realization.whyNotFused(python[1])!r}")
    times = {"compiled": [], "python": [], "no coupler": []}
    for _ in range(runs):
        for name, (system, state) in (
            ("compiled", compiled),
            ("python", python),
            ("no coupler", free),
        ):
            on = saved if name != "python" else (lambda *args: None,) * 2
            matter_constraints.compiled_constraints, fused_realization.compiled_constraints = on
            times[name].append(_microseconds_per_realization(system, state, calls))
    for name, t in times.items():
        print(
            f"{name:10s} realize to Acceleration: median {np.median(t):7.1f} us "
            f"(min {min(t):.1f}, max {max(t):.1f}; {runs} runs of {calls})"
        )
    ratio = np.median(times["python"]) / np.median(times["compiled"])
    print(f"ratio python / compiled: {ratio:.1f}")
    print(machine_line())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--python-constraints", action="store_true")
    parser.add_argument("--simulate", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.simulate is not None:
        if args.python_constraints:
            python_constraints()
        from app.cli import main as cli_main

        sys.exit(cli_main(["simulate", *args.simulate]))
    realization(args.runs, args.calls)


if __name__ == "__main__":
    main()
