"""``mbstudio diff RECORDING --at T1 --at T2``: what differs between two moments of a
recording, as a table, largest difference first: state variables, quantities derived from
them (body poses and velocities in Ground, energies, constraint errors) and cache entries."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from app.cli import PROG, register_command

EXIT_USAGE = 2


def configure_diff(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("recording", type=Path, metavar="RECORDING", help="recording file (.npz)")
    parser.add_argument(
        "--at",
        type=float,
        action="append",
        required=True,
        metavar="T",
        help="a time in seconds (give it twice); the nearest recorded State is used",
    )
    parser.add_argument(
        "--limit", type=int, default=0, metavar="N", help="print at most N rows (default all)"
    )
    parser.add_argument(
        "--group",
        default=None,
        metavar="NAME",
        help='only rows of this group: "state", "derived" or a subsystem\'s name',
    )


def _rows(recording, a, b):
    """The full comparison through the recorded model, or the variables alone (with a note
    on stderr) when the model cannot be built."""
    from app.document.builder import build
    from app.document.model_io import loads
    from app.headless import csv_header
    from app.history import diff_records
    from app.history.state_compare import compare_states

    try:
        built = build(loads(recording.model_json).data)
        header = csv_header(built)
    except Exception as exc:  # noqa: BLE001 - the variables can still be compared
        print(
            f"{PROG} diff: the recorded model cannot be built ({exc}); comparing the "
            "variables only",
            file=sys.stderr,
        )
        return diff_records(a, b)
    q_labels = [c for c in header if c.startswith("q:")]
    u_labels = [c for c in header if c.startswith("u:")]
    from app.body_puller import ensure_pull_force
    from app.history.state_record import RecordError

    try:
        return compare_states(built, built.state, a, b, q_labels, u_labels)
    except RecordError:
        # Recorded in the studio, whose models carry the mouse's pull force.
        ensure_pull_force(built)
    try:
        return compare_states(built, built.state, a, b, q_labels, u_labels)
    except RecordError as exc:
        print(
            f"{PROG} diff: the recorded States do not fit the recorded model ({exc}); "
            "comparing the variables only",
            file=sys.stderr,
        )
        return diff_records(a, b)


def _cell(value) -> str:
    return repr(value) if isinstance(value, float) else str(value)


def run_diff(args: argparse.Namespace) -> int:
    from app.history import RecordingFileError, load_recording

    if len(args.at) != 2 or not all(math.isfinite(t) for t in args.at):
        print(f"{PROG} diff: give --at exactly twice, with finite times", file=sys.stderr)
        return EXIT_USAGE
    try:
        recording = load_recording(args.recording)
    except RecordingFileError as exc:
        print(f"{PROG} diff: {exc}", file=sys.stderr)
        return EXIT_USAGE
    from app.history import History

    history = History()
    for record in recording.records:
        history.append(record)
    a, b = (history.at(t) for t in args.at)
    rows = _rows(recording, a, b)
    if args.group is not None:
        rows = [r for r in rows if r.group == args.group]
    if args.limit > 0:
        rows = rows[: args.limit]
    table = [("quantity", "group", f"at t={a.t!r}", f"at t={b.t!r}", "difference")]
    for r in rows:
        d = "" if r.difference is None else repr(r.difference)
        table.append((r.name, r.group, _cell(r.value_a), _cell(r.value_b), d))
    widths = [max(len(row[k]) for row in table) for k in range(5)]
    for row in table:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    if len(table) == 1:
        print("(nothing differs)")
    return 0


def configure_replay(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("recording", type=Path, metavar="RECORDING", help="recording file (.npz)")
    parser.add_argument(
        "--screenshot",
        type=Path,
        default=None,
        metavar="FILE.png",
        help="save a screenshot of the window shortly after it opens, then quit",
    )


def run_replay(args: argparse.Namespace) -> int:
    from app.cli import run_studio

    if args.recording.suffix != ".npz":
        print(f"{PROG} replay: {args.recording} is not a recording (.npz)", file=sys.stderr)
        return EXIT_USAGE
    return run_studio(
        argparse.Namespace(model=args.recording, reset_layout=False, screenshot=args.screenshot)
    )


register_command(
    "replay",
    "open the studio on a recording (its model and every recorded State)",
    configure_replay,
    run_replay,
)
register_command(
    "diff",
    "print the state variables that differ between two times of a recording",
    configure_diff,
    run_diff,
)
