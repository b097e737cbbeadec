"""SampleBuffer: a fixed-capacity ring buffer of plot samples (one row per sample time).

Columns are named once per model (``t``, ``q[i] body.k``, ``u[i] ...``, ``udot[i] ...``,
energies, constraint-error norms, Measures). The worker appends rows; readers ask for the rows
they have not seen yet by a running count, or for everything still held. A run that goes on
from an earlier moment (a recorded State shown again) drops the rows from that moment on
(``drop_from``), which changes ``epoch``: readers then read everything again. Thread-safe.
Qt-free.
"""

from __future__ import annotations

import threading

import numpy as np


class QuantityNames:
    """The plottable quantities of a buffer (every column but time): ``names``, each one's
    position (``index``) and lower-case form (``lower``, for the plot list's filter). A
    buffer makes them once, on the thread that makes it (the worker), so that showing a new
    model's 200,000 quantities does not index them on the GUI thread."""

    def __init__(self, names, previous: QuantityNames | None = None, kept=()) -> None:
        """``kept``: runs (position here, position in ``previous``, length) of names that
        are ``previous``'s very strings (a model's names made from the one before it:
        ``column_names``), whose lower-case forms are taken from ``previous``."""
        self.names = list(names)
        self.index = dict(zip(self.names, range(len(self.names)), strict=True))
        self.lower = _lower(self.names, previous, kept)


def _lower(names: list, previous: QuantityNames | None, kept) -> list:
    """The lower-case form of each of ``names``, those of the ``kept`` runs (see
    QuantityNames) taken from ``previous`` when the run's ends are its very strings."""
    if previous is None:
        return [n.lower() for n in names]
    old_names, old_lower = previous.names, previous.lower
    out: list = []
    done = 0
    for at, old_at, length in sorted(kept):
        if length <= 0 or at < done or at + length > len(names):
            continue
        last, old_last = at + length - 1, old_at + length - 1
        if old_last >= len(old_names) or not (
            names[at] is old_names[old_at] and names[last] is old_names[old_last]
        ):
            continue
        out += [n.lower() for n in names[done:at]]
        out += old_lower[old_at : old_last + 1]
        done = at + length
    out += [n.lower() for n in names[done:]]
    return out


class SampleBuffer:
    """Ring buffer of float rows with named columns (see module docstring)."""

    def __init__(
        self, columns: list[str], capacity: int = 20000, quantities: QuantityNames | None = None
    ) -> None:
        """``quantities``: the QuantityNames of ``columns[1:]``, if already made."""
        if capacity < 2:
            raise ValueError(f"a sample buffer needs room for at least 2 rows, got {capacity}")
        self.columns = list(columns)
        self.quantities = quantities or QuantityNames(self.columns[1:])
        self.capacity = int(capacity)
        # rows are read only once written (rows [oldest, count)): no fill needed
        self._data = np.empty((self.capacity, len(self.columns)))
        self._count = 0  # rows ever appended, less those dropped
        self._oldest = 0  # running index of the oldest row held
        self._lock = threading.Lock()
        #: Changes whenever rows are dropped: a reader's running count is then meaningless.
        self.epoch = 0

    def empty_like(self) -> SampleBuffer:
        """A new, empty buffer with these columns, capacity and quantity names."""
        out = SampleBuffer.__new__(SampleBuffer)
        out.columns = self.columns
        out.quantities = self.quantities
        out.capacity = self.capacity
        out._data = np.empty_like(self._data)
        out._count = out._oldest = out.epoch = 0
        out._lock = threading.Lock()
        return out

    def renamed(self, columns: list[str]) -> SampleBuffer:
        """A copy of this buffer (its rows) with the columns named ``columns`` (as many)."""
        if len(columns) != len(self.columns):
            raise ValueError(f"{len(self.columns)} column names needed, got {len(columns)}")
        out = SampleBuffer.__new__(SampleBuffer)
        out.columns = list(columns)
        out.quantities = QuantityNames(out.columns[1:])
        out.capacity = self.capacity
        out._lock = threading.Lock()
        with self._lock:
            out._data = self._data.copy()
            out._count, out._oldest, out.epoch = self._count, self._oldest, self.epoch
        return out

    def __len__(self) -> int:
        return self._count - self._oldest

    @property
    def total(self) -> int:
        """Number of rows ever appended (the running count readers use)."""
        return self._count

    def append(self, row: np.ndarray) -> None:
        row = np.asarray(row, dtype=np.float64)
        if row.shape != (len(self.columns),):
            raise ValueError(f"a sample row needs {len(self.columns)} values, got {row.shape}")
        with self._lock:
            self._data[self._count % self.capacity] = row
            self._count += 1
            self._oldest = max(self._oldest, self._count - self.capacity)

    def drop_from(self, t: float) -> int:
        """Drop the newest rows whose time is ``t`` or later; returns how many."""
        with self._lock:
            n = self._count
            while n > self._oldest and self._data[(n - 1) % self.capacity, 0] >= t:
                n -= 1
            dropped, self._count = self._count - n, n
            if dropped:
                self.epoch += 1
            return dropped

    def take_from(self, t: float, inclusive: bool = True) -> np.ndarray:
        """Remove and return the newest rows whose time is ``t`` or later (later only, if not
        ``inclusive``), oldest first."""
        with self._lock:
            n = self._count
            while n > self._oldest:
                row_t = self._data[(n - 1) % self.capacity, 0]
                if not (row_t >= t if inclusive else row_t > t):
                    break
                n -= 1
            rows = self._data[np.arange(n, self._count) % self.capacity].copy()
            if len(rows):
                self._count = n
                self.epoch += 1
            return rows

    def since(self, seen: int, columns: list[int] | None = None) -> tuple[np.ndarray, int]:
        """(rows appended after the first ``seen`` rows and still held, new running count);
        only the given column indices if ``columns`` is given."""
        width = len(self.columns) if columns is None else len(columns)
        with self._lock:
            count = self._count
            first = max(seen, self._oldest)
            if first >= count:
                return np.empty((0, width)), count
            idx = np.arange(first, count) % self.capacity
            if columns is None:
                return self._data[idx].copy(), count
            return self._data[np.ix_(idx, np.asarray(columns, dtype=np.intp))], count

    def all(self) -> np.ndarray:
        """Every row still held, oldest first."""
        return self.since(0)[0]

    def column(self, name: str) -> np.ndarray:
        return self.all()[:, self.columns.index(name)]

    def to_csv(self, path, columns: list[str] | None = None) -> None:
        """Write the held rows (optionally only ``columns``, always with ``t`` first)."""
        names = self.columns if columns is None else ["t", *[c for c in columns if c != "t"]]
        idx = [self.columns.index(c) for c in names]
        data = self.all()[:, idx]
        header = ",".join(f'"{c}"' if "," in c else c for c in names)
        np.savetxt(path, data, delimiter=",", header=header, comments="", fmt="%.17g")
