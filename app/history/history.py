"""History: a bounded, time-ordered list of StateRecords with a memory budget.

Records are appended in time order; once their memory passes the budget the oldest are
dropped first. ``seconds_held`` is the span of simulated time the history covers.
"""

from __future__ import annotations

import bisect

from app.history.state_record import StateRecord

DEFAULT_BUDGET_BYTES = 512 * 1024 * 1024
# Python object overhead per record beyond its arrays' data (measured order of magnitude).
_RECORD_OVERHEAD_BYTES = 600


class History:
    """Recorded States in time order, within ``budget_bytes`` of memory."""

    def __init__(self, budget_bytes: int = DEFAULT_BUDGET_BYTES) -> None:
        if budget_bytes <= 0:
            raise ValueError(f"the history's memory budget must be positive, got {budget_bytes}")
        self.budget_bytes = int(budget_bytes)
        # Records and their times, oldest first, from index ``_head`` on (dropping the
        # oldest advances ``_head``; the lists are compacted when half of them is dropped).
        self._records: list[StateRecord] = []
        self._times: list[float] = []
        self._head = 0
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._records) - self._head

    def __getitem__(self, i: int) -> StateRecord:
        n = len(self)
        if not -n <= i < n:
            raise IndexError(f"history index {i} out of range (it holds {n} records)")
        return self._records[self._head + i % n]

    @property
    def nbytes(self) -> int:
        """Memory held by the records, in bytes (estimate including per-record overhead)."""
        return self._bytes

    @property
    def seconds_held(self) -> float:
        """Simulated time between the oldest and the newest record, in seconds."""
        return self._times[-1] - self._times[self._head] if len(self) else 0.0

    def clear(self) -> None:
        self._records.clear()
        self._times.clear()
        self._head = 0
        self._bytes = 0

    def _drop_oldest(self) -> None:
        self._bytes -= self._records[self._head].nbytes + _RECORD_OVERHEAD_BYTES
        self._head += 1
        if self._head * 2 > len(self._records):
            del self._records[: self._head]
            del self._times[: self._head]
            self._head = 0

    def append(self, record: StateRecord) -> None:
        """Add a record later than every held one; records at or after its time are dropped
        first (a run that went back in time replaces what followed)."""
        while len(self) and self._times[-1] >= record.t:
            self._bytes -= self._records.pop().nbytes + _RECORD_OVERHEAD_BYTES
            self._times.pop()
        self._records.append(record)
        self._times.append(record.t)
        self._bytes += record.nbytes + _RECORD_OVERHEAD_BYTES
        while self._bytes > self.budget_bytes and len(self) > 1:
            self._drop_oldest()

    def index_at(self, t: float) -> int:
        """Index of the record nearest to time ``t`` (the earlier one on a tie)."""
        if not len(self):
            raise IndexError("the history is empty")
        times, head = self._times, self._head
        i = bisect.bisect_left(times, t, lo=head)
        if i == head:
            return 0
        if i == len(times):
            return i - 1 - head
        return (i - 1 if t - times[i - 1] <= times[i] - t else i) - head

    def at(self, t: float) -> StateRecord:
        """The record nearest to time ``t``."""
        return self._records[self._head + self.index_at(t)]
