"""The headless commands' progress display: redrawn in place on a terminal, plain lines
at every 10% elsewhere (logs, pipes, CI)."""

from __future__ import annotations

import io

from app.headless import Progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_log_gets_one_plain_line_per_tenth_and_one_at_the_end():
    log = io.StringIO()
    progress = Progress("simulating", 10.0, stream=log)
    for k in range(1001):
        progress.update(k * 0.01)
    progress.finish(10.0)
    text = log.getvalue()
    assert "\r" not in text
    lines = text.splitlines()
    percents = [int(line.split("]")[1].split("%")[0]) for line in lines]
    assert percents == [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]
    assert all(line.startswith("simulating [") for line in lines)
    assert text.endswith("\n")


def test_a_log_line_is_not_repeated_by_finish():
    log = io.StringIO()
    progress = Progress("rendering", 2.0, stream=log)
    progress.update(1.0)
    progress.finish(1.4)  # stopped early: the last value is still shown
    assert [line.split("]")[1].split("%")[0].strip() for line in log.getvalue().splitlines()] == [
        "50",
        "70",
    ]


def test_a_terminal_line_is_redrawn_in_place():
    term = _Terminal()
    progress = Progress("simulating", 1.0, stream=term)
    progress.update(0.0)
    progress.update(0.5, force=True)
    progress.finish(1.0)
    text = term.getvalue()
    assert text.count("\r") == 3
    assert text.count("\n") == 1 and text.endswith(" s)\n")
    assert text.split("\r")[-1].startswith("simulating [" + "#" * 30 + "] 100%  t = 1 s")
