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

from app.simulation.name_search import NameSearch


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
        # (a model made from one whose names were searched: its search is made here, by the
        # worker, not at the plot list's next filter on the GUI thread)
        searched = previous is not None and previous._search is not None
        self._search: NameSearch | None = NameSearch(self.lower) if searched else None

    def matches(self, low: str) -> list[int]:
        """The positions of the names whose lower-case form contains ``low`` (lower case,
        not empty), through a NameSearch made at the first call."""
        if self._search is None:
            self._search = NameSearch(self.lower)
        return self._search.matches(low)

    def changed(self, changes: dict[int, str]) -> QuantityNames:
        """These names with those at the positions ``changes`` holds replaced by its names
        (the quantities of renamed bodies): every other name, its position and lower-case
        form are these very objects (copied as whole lists and a dict)."""
        out = QuantityNames.__new__(QuantityNames)
        names, lower, index = list(self.names), list(self.lower), self.index.copy()
        for at in changes:
            index.pop(names[at], None)
        for at, name in changes.items():
            names[at] = name
            lower[at] = name.lower()
            index[name] = at
        if len(index) != len(names):
            raise ValueError("the changed quantity names are not all different")
        out.names, out.lower, out.index = names, lower, index
        # (searched before: the new names' search is made here, by the worker)
        out._search = None if self._search is None else NameSearch(lower)
        return out


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


class _Rows:
    """The rows of a buffer: the ring array (capacity x columns), the running count of rows
    appended (less those dropped), the running index of the oldest row held, the epoch (see
    SampleBuffer) and the lock that guards them. Buffers of the same columns under other
    names (``SampleBuffer.renamed``) share one."""

    __slots__ = ("data", "count", "oldest", "epoch", "lock")

    def __init__(self, data: np.ndarray) -> None:
        self.data = data
        self.count = 0
        self.oldest = 0
        self.epoch = 0
        self.lock = threading.Lock()


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
        self._rows = _Rows(np.empty((self.capacity, len(self.columns))))

    @property
    def epoch(self) -> int:
        """Changes whenever rows are dropped: a reader's running count is then meaningless."""
        return self._rows.epoch

    def empty_like(self) -> SampleBuffer:
        """A new, empty buffer with these columns, capacity and quantity names."""
        out = SampleBuffer.__new__(SampleBuffer)
        out.columns = self.columns
        out.quantities = self.quantities
        out.capacity = self.capacity
        out._rows = _Rows(np.empty_like(self._rows.data))
        return out

    def renamed(self, columns: list[str], quantities: QuantityNames | None = None) -> SampleBuffer:
        """This buffer's rows under the column names ``columns`` (as many; ``quantities``:
        their QuantityNames, if made): the new buffer takes the rows over, not a copy, and
        this one reads and writes the same rows from then on (a reader still holding it
        sees what the new one holds)."""
        if len(columns) != len(self.columns):
            raise ValueError(f"{len(self.columns)} column names needed, got {len(columns)}")
        out = SampleBuffer.__new__(SampleBuffer)
        out.columns = list(columns)
        out.quantities = quantities or QuantityNames(out.columns[1:])
        out.capacity = self.capacity
        out._rows = self._rows
        return out

    def __len__(self) -> int:
        r = self._rows
        return r.count - r.oldest

    @property
    def total(self) -> int:
        """Number of rows ever appended (the running count readers use)."""
        return self._rows.count

    def append(self, row: np.ndarray) -> None:
        row = np.asarray(row, dtype=np.float64)
        if row.shape != (len(self.columns),):
            raise ValueError(f"a sample row needs {len(self.columns)} values, got {row.shape}")
        r = self._rows
        with r.lock:
            r.data[r.count % self.capacity] = row
            r.count += 1
            r.oldest = max(r.oldest, r.count - self.capacity)

    def drop_from(self, t: float) -> int:
        """Drop the newest rows whose time is ``t`` or later; returns how many."""
        r = self._rows
        with r.lock:
            n = r.count
            while n > r.oldest and r.data[(n - 1) % self.capacity, 0] >= t:
                n -= 1
            dropped, r.count = r.count - n, n
            if dropped:
                r.epoch += 1
            return dropped

    def take_from(self, t: float, inclusive: bool = True) -> np.ndarray:
        """Remove and return the newest rows whose time is ``t`` or later (later only, if not
        ``inclusive``), oldest first."""
        r = self._rows
        with r.lock:
            n = r.count
            while n > r.oldest:
                row_t = r.data[(n - 1) % self.capacity, 0]
                if not (row_t >= t if inclusive else row_t > t):
                    break
                n -= 1
            rows = r.data[np.arange(n, r.count) % self.capacity].copy()
            if len(rows):
                r.count = n
                r.epoch += 1
            return rows

    def since(self, seen: int, columns: list[int] | None = None) -> tuple[np.ndarray, int]:
        """(rows appended after the first ``seen`` rows and still held, new running count);
        only the given column indices if ``columns`` is given."""
        width = len(self.columns) if columns is None else len(columns)
        r = self._rows
        with r.lock:
            count = r.count
            first = max(seen, r.oldest)
            if first >= count:
                return np.empty((0, width)), count
            idx = np.arange(first, count) % self.capacity
            if columns is None:
                return r.data[idx].copy(), count
            return r.data[np.ix_(idx, np.asarray(columns, dtype=np.intp))], count

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
