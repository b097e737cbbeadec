"""``mbstudio sweep``: a parameter sweep or Monte-Carlo study of a model on Dask.

::

    mbstudio sweep MODEL --set upper.mass=1:5:9 --set lower.q0=0.1,0.2 --until 10 \\
        [--dt 0.01] --out study.parquet [--workers N | --scheduler tcp://host:8786]
    mbstudio sweep MODEL --samples 100 --perturb lower.q0~normal(0,1e-6) --seed 1 \\
        --until 10 --out chaos.parquet

See ``app.studies.study`` and docs/studies.md. Exit codes: 0 all runs ok, 1 some runs failed
(recorded in the output), 2 usage or setup error, 130 interrupted (finished runs kept; rerun
with ``--resume``).
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
from pathlib import Path

from app.cli import PROG, positive_float, register_command

EXIT_OK, EXIT_RUNS_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def _positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text}")
    return v


def configure_sweep(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = (
        "PATH names a number in the model document: BODY.FIELD (upper.mass, lower.q0,\n"
        "upper.com[1], lower.X_PF.p[1]), ELEMENT.ARG (gravity.magnitude) or a JSON path\n"
        "(hints.time_scale). VALUES: a:b:n (n values from a to b), v1,v2,... or v.\n"
        "DIST: normal(MEAN,STD) or uniform(LOW,HIGH), added to the value.\n\n"
        "Without --scheduler a local Dask cluster (one process per core, or --workers) is\n"
        "started and stopped. To use a cluster: `dask scheduler` on one machine, then\n"
        "`dask worker tcp://HOST:8786 --nthreads 1` on each (with mbstudio installed), and\n"
        "pass --scheduler tcp://HOST:8786. Results: docs/studies.md."
    )
    parser.add_argument("model", type=Path, metavar="MODEL", help="model file (.mbs.json)")
    parser.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="PATH=VALUES",
        help="sweep a parameter (repeat: the runs are the Cartesian product)",
    )
    parser.add_argument(
        "--perturb",
        action="append",
        default=[],
        metavar="PATH~DIST",
        help="add a random draw to a parameter in every run (repeatable)",
    )
    parser.add_argument(
        "--samples",
        type=_positive_int,
        default=None,
        metavar="N",
        help="Monte-Carlo runs per sweep point (default 1; needs --perturb)",
    )
    parser.add_argument(
        "--seed", type=int, default=None, help="random seed of --perturb (default: random, printed)"
    )
    parser.add_argument(
        "--until", type=positive_float, required=True, metavar="T", help="final time (s)"
    )
    parser.add_argument(
        "--dt", type=positive_float, default=0.01, help="sample interval in s (default 0.01)"
    )
    parser.add_argument(
        "--accuracy", type=positive_float, default=1e-4, help="integrator accuracy (default 1e-4)"
    )
    parser.add_argument(
        "--out",
        type=Path,
        required=True,
        metavar="FILE",
        help="results table: .parquet (pyarrow) or .csv",
    )
    parser.add_argument(
        "--resume", action="store_true", help="keep the runs already in --out and run the rest"
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--workers",
        type=_positive_int,
        default=None,
        metavar="N",
        help="local worker processes (default: one per core)",
    )
    where.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="an existing Dask scheduler, e.g. tcp://host:8786",
    )
    where.add_argument(
        "--ensemble",
        action="store_true",
        help="advance all runs together in this process with the batched ensemble integrator "
        "(tree models without constraints; see docs/ensembles.md)",
    )


def _error(message: str) -> None:
    print(f"{PROG} sweep: {message}", file=sys.stderr)


def run_sweep(args: argparse.Namespace) -> int:
    """``mbstudio sweep``; Ctrl-C while it starts (imports, the model's build) exits with a
    message and writes nothing, and once the study runs keeps what finished."""
    try:
        return _run_sweep(args)
    except KeyboardInterrupt:
        _error("interrupted before the study started; nothing was written")
        return EXIT_INTERRUPTED


@contextlib.contextmanager
def _ctrl_c_cancels(study):
    """While the study's runs are computed, Ctrl-C (SIGINT) sets the study's ``cancel``
    event, which it sees within ``CANCEL_POLL`` s and stops cleanly (a KeyboardInterrupt
    raised inside a Dask call leaves its client and cluster half closed); before that, and
    at a second Ctrl-C, it interrupts as usual."""

    def on_sigint(signum, frame):
        if study.watching_cancel and not study.cancel.is_set():
            study.cancel.set()
            return
        raise KeyboardInterrupt

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _run_sweep(args: argparse.Namespace) -> int:
    from app.document.model_io import ModelFileError
    from app.studies.output import OutputError
    from app.studies.parameters import ParameterError
    from app.studies.study import Study, StudyError

    if args.samples is not None and not args.perturb:
        _error("--samples needs at least one --perturb (the runs would all be the same)")
        return EXIT_USAGE
    if args.perturb and args.samples is None:
        _error("--perturb needs --samples N (how many Monte-Carlo runs)")
        return EXIT_USAGE
    cancel = threading.Event()
    try:
        study = Study(
            args.model,
            sets=args.sets,
            perturb=args.perturb,
            samples=args.samples or 1,
            seed=args.seed,
            until=args.until,
            dt=args.dt,
            accuracy=args.accuracy,
            out=args.out,
            resume=args.resume,
            workers=args.workers,
            scheduler=args.scheduler,
            progress=sys.stderr,
            ensemble=args.ensemble,
            cancel=cancel,
        )
    except ModelFileError as exc:
        _error(f"cannot open {exc.path}: {exc.field}: {exc.message}")
        return EXIT_USAGE
    except (ParameterError, StudyError) as exc:
        _error(str(exc))
        return EXIT_USAGE
    except Exception as exc:  # the base model does not build
        _error(f"cannot build {args.model}: {exc}")
        return EXIT_USAGE
    if study.perturbations:
        print(f"{PROG} sweep: seed {study.seed}", file=sys.stderr)
    where = args.scheduler or f"{args.workers or 'one per core'} local worker(s)"
    if args.ensemble:
        where = "this process as one ensemble"
    print(f"{PROG} sweep: {len(study.runs)} runs on {where}", file=sys.stderr)
    try:
        with _ctrl_c_cancels(study):
            study.run()
    except (OutputError, StudyError) as exc:
        _error(str(exc))
        return EXIT_USAGE
    kept = study.skipped + study.completed
    if study.interrupted:
        if kept == 0:
            _error("interrupted before any run finished; nothing was written")
            return EXIT_INTERRUPTED
        _error(
            f"interrupted: {kept} of {len(study.runs)} runs kept in {args.out}; "
            "rerun the same command with --resume to finish"
        )
        return EXIT_INTERRUPTED
    summary = f"{PROG} sweep: {kept} runs in {args.out}"
    if study.skipped:
        summary += f" ({study.skipped} were already there)"
    if study.failed:
        summary += f"; {study.failed} failed (see the status and reason columns)"
    print(summary, file=sys.stderr)
    return EXIT_RUNS_FAILED if study.failed else EXIT_OK


register_command(
    "sweep",
    "run a parameter sweep or Monte-Carlo study on Dask, writing Parquet or CSV",
    configure_sweep,
    run_sweep,
)
