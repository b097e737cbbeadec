"""The progress line of a study on a stream (stderr): runs done of total, failures, ETA.

On a terminal one line is redrawn in place at most ~10 times a second; elsewhere (a log, a pipe)
a plain line is printed at every 10% and at the end, so logs stay readable.

A study whose runs all finish together (an ensemble, ``Study(ensemble=True)``) reports the
fraction of its work done in between (``advance``, the fraction of members that have finished
their integration):
the bar, a percentage and the ETA then follow that fraction while the run count stays 0.
"""

from __future__ import annotations

import sys
import time


def _duration(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}h{m:02d}m{s:02d}s" if h else (f"{m}m{s:02d}s" if m else f"{s}s")


class StudyProgress:
    """Shows ``done`` of ``total`` runs (``skipped`` of them were already in the output)."""

    def __init__(self, total: int, skipped: int = 0, stream=None, label: str = "study") -> None:
        self.total = total
        self.skipped = skipped
        self.stream = sys.stderr if stream is None else stream
        self.label = label
        isatty = getattr(self.stream, "isatty", None)
        self.interactive = bool(isatty and isatty())
        self._start = time.monotonic()
        self._last = 0.0
        self._shown_decile = -1
        self.done = skipped
        self.failed = 0
        self._first: float | None = None  # when the first run of this session finished
        self._printed: tuple[int, int, int] | None = None
        #: the fraction of the work done, given by ``advance`` (None: runs done / total)
        self.work: float | None = None

    def line(self) -> str:
        fraction = 1.0 if self.total == 0 else self.done / self.total
        if self.work is not None and fraction < 1.0:
            fraction = max(fraction, self.work)
        width = 30
        filled = int(round(fraction * width))
        bar = "#" * filled + "-" * (width - filled)
        elapsed = time.monotonic() - self._start
        new = self.done - self.skipped
        remaining = self.total - self.done
        if remaining == 0:
            eta = "done"
        elif self.work is not None and 0 < self.work < 1 and new == 0:
            eta = f"ETA {_duration(elapsed * (1 - self.work) / self.work)}"
        elif new >= 2 and self._first is not None:
            # the rate since the first result: worker start-up and warm-up are not repeated
            rate = (new - 1) / max(time.monotonic() - self._first, 1e-9)
            eta = f"ETA {_duration(remaining / rate)}"
        else:
            eta = "ETA --"
        failed = f", {self.failed} failed" if self.failed else ""
        if self.work is not None and remaining:
            failed += f", {100 * fraction:.0f}%"
        return (
            f"{self.label} [{bar}] {self.done}/{self.total} runs{failed}  "
            f"{_duration(elapsed)} elapsed, {eta}"
        )

    def update(self, done: int, failed: int, force: bool = False) -> None:
        now = time.monotonic()
        if self._first is None and done > self.done:
            self._first = now
        self.done, self.failed = done, failed
        if self.interactive:
            if not force and now - self._last < 0.1 and done < self.total:
                return
            self.stream.write("\r" + self.line())
        else:
            fraction = 1.0 if self.total == 0 else done / self.total
            if self.work is not None and fraction < 1.0:
                fraction = max(fraction, self.work)
            decile = int(10 * fraction)
            if not force and decile == self._shown_decile:
                return
            self._shown_decile = decile
            if (done, failed, decile) == self._printed:
                return
            self._printed = (done, failed, decile)
            self.stream.write(self.line() + "\n")
        self._last = now
        self.stream.flush()

    def advance(self, work: float) -> None:
        """The fraction (0..1) of the study's work done before its runs finish."""
        self.work = min(1.0, max(0.0, float(work)))
        self.update(self.done, self.failed)

    def finish(self) -> None:
        self.update(self.done, self.failed, force=True)
        if self.interactive:
            self.stream.write("\n")
            self.stream.flush()
