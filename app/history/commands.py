"""``mbstudio diff RECORDING --at T1 --at T2``: the variables that differ between two moments
of a recording, as a table, largest difference first."""

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


def _labels(model_json: str) -> tuple[list[str] | None, list[str] | None]:
    """Coordinate names of the recorded model ("q:body[i]"), or None if it cannot be built."""
    from app.document.builder import build
    from app.document.model_io import loads
    from app.headless import csv_header

    try:
        header = csv_header(build(loads(model_json).data))
    except Exception:  # noqa: BLE001 - the names are a convenience; the diff works without
        return None, None
    return [c for c in header if c.startswith("q:")], [c for c in header if c.startswith("u:")]


def _cell(value) -> str:
    return repr(value) if isinstance(value, float) else str(value)


def run_diff(args: argparse.Namespace) -> int:
    from app.history import RecordingFileError, diff_records, load_recording

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
    q_labels, u_labels = _labels(recording.model_json)
    rows = diff_records(a, b, q_labels, u_labels)
    if args.limit > 0:
        rows = rows[: args.limit]
    table = [("variable", f"at t={a.t!r}", f"at t={b.t!r}", "difference")]
    for r in rows:
        d = r.difference
        table.append((r.name, _cell(r.value_a), _cell(r.value_b), "" if d is None else repr(d)))
    widths = [max(len(row[k]) for row in table) for k in range(4)]
    for row in table:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    if len(table) == 1:
        print("(no variable differs)")
    return 0


register_command(
    "diff",
    "print the state variables that differ between two times of a recording",
    configure_diff,
    run_diff,
)
