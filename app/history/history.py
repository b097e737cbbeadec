"""History: a bounded, time-ordered list of StateRecords with a memory budget, and the
branches a run left behind when it went on from an earlier moment.

Records are appended in time order. A record earlier than the newest one starts a new
future: the records from its time on are kept as a ``Branch`` (the old future, named "Branch
N"), and ``switch(i)`` brings a branch back, keeping the future it replaces as a branch in
turn, under the name (and note) of the line it was: switching back and forth keeps the
names, "Main line" and "Branch 1" stay what they are.
Each branch keeps the model it was run with (``model``, whatever the caller sets as the
history's ``model``: the session keeps its BuiltModel there), so that a future run before a
parameter edit comes back with the parameters it had.
Once the memory passes the budget, the oldest branch goes first, then the oldest records.
The budget counts the records only: a branch's model (a whole built System: ~140 KiB for the
double pendulum, ~700 KiB for a 50-body chain) is not in it, so the branches keep at most
``MAX_BRANCH_MODELS`` models other than the current line's; past that, the oldest branches go
first too.
``seconds_held`` is the span of simulated time the current line covers.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from app.history.state_record import StateRecord

DEFAULT_BUDGET_BYTES = 512 * 1024 * 1024
#: Most models besides the current line's that the branches keep (see the module docstring).
MAX_BRANCH_MODELS = 8
# Python object overhead per record beyond its arrays' data (measured order of magnitude).
_RECORD_OVERHEAD_BYTES = 600


def _record_bytes(record: StateRecord) -> int:
    return record.nbytes + _RECORD_OVERHEAD_BYTES


@dataclass
class Branch:
    """A future the run left: the records from ``fork_time`` on, when it went on from there
    in another way. ``name`` is what the user sees ("Branch 1", ...)."""

    name: str
    fork_time: float
    records: list[StateRecord] = field(default_factory=list)
    #: Why the run left this future, for the user ("before the edit"), or "".
    note: str = ""
    #: The plot samples of this future (rows of the session's sample columns), if kept.
    samples: object = None
    #: The model this future was run with (the history's ``model`` when it was left).
    model: object = None
    #: The event marks (event_log.EventMark) of this future, oldest first.
    events: list = field(default_factory=list)
    #: The failure marks (time, message) of this future.
    failures: list = field(default_factory=list)
    #: The moment the run went on from in another way (an edit's time; the records start
    #: after it), when known.
    left_at: float | None = None

    @property
    def nbytes(self) -> int:
        return sum(_record_bytes(r) for r in self.records)

    @property
    def end_time(self) -> float:
        return self.records[-1].t if self.records else self.fork_time


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
        #: Futures left behind, oldest first (see the module docstring).
        self.branches: list[Branch] = []
        self._branches_made = 0
        #: The branch the latest append, switch or fork_at made (the caller may reset it).
        self.last_kept: Branch | None = None
        #: Name of the current line: "Main line", or the branch last switched to, and its note.
        self.current_name = "Main line"
        self.current_note = ""
        #: The model the current line runs (kept with each branch the line leaves).
        self.model: object = None

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
        self.branches.clear()
        self._branches_made = 0
        self.current_name = "Main line"
        self.current_note = ""

    def _cut_from(self, t: float) -> list[StateRecord]:
        """Remove and return the current line's records at time ``t`` or later."""
        cut = []
        while len(self) and self._times[-1] >= t:
            cut.append(self._records.pop())
            self._times.pop()
        cut.reverse()
        return cut

    def _keep_branch(
        self,
        fork_time: float,
        records: list[StateRecord],
        note: str = "",
        name: str = "",
        left_at: float | None = None,
    ) -> None:
        if records:
            if not name:
                self._branches_made += 1
                name = f"Branch {self._branches_made}"
            branch = Branch(name, fork_time, records, note, model=self.model, left_at=left_at)
            self.branches.append(branch)
            self.last_kept = self.branches[-1]
            self._limit_branch_models()

    def _limit_branch_models(self) -> None:
        """Drop the oldest branches while the branches keep more than MAX_BRANCH_MODELS
        models other than the current line's."""
        while True:
            models = {
                id(b.model)
                for b in self.branches
                if b.model is not None and b.model is not self.model
            }
            if len(models) <= MAX_BRANCH_MODELS:
                return
            self._bytes -= self.branches.pop(0).nbytes

    def fork_at(self, t: float, note: str = "") -> None:
        """The run goes on from time ``t`` in another way (after an edit of the model): the
        records later than ``t`` become a branch (with ``note``), and the record at ``t``
        itself is dropped (the run records that moment again)."""
        cut = self._cut_from(t)
        self._bytes -= sum(_record_bytes(r) for r in cut if r.t <= t)
        later = [r for r in cut if r.t > t]
        if later:  # the branch holds the records from its first time on
            self._keep_branch(later[0].t, later, note, left_at=t)

    def adopt_branches(self, branches: list[Branch]) -> None:
        """Keep ``branches`` (of this history's model, e.g. read from a recording file) as
        futures left behind, after the ones held."""
        for branch in branches:
            if branch.model is None:
                branch.model = self.model
            self.branches.append(branch)
            self._bytes += branch.nbytes
            number = branch.name.removeprefix("Branch ")
            if number.isdigit():
                self._branches_made = max(self._branches_made, int(number))

    def switch(self, index: int) -> Branch:
        """Make branch ``index`` the current line's future from its fork time on; the future
        it replaces becomes a branch, and the branch's model becomes the current line's.
        Returns the branch that was brought back."""
        if not 0 <= index < len(self.branches):
            raise IndexError(f"no branch {index} (there are {len(self.branches)})")
        branch = self.branches.pop(index)
        cut = self._cut_from(branch.fork_time)
        self._keep_branch(
            branch.fork_time, cut, self.current_note, self.current_name, branch.left_at
        )
        self.current_name, self.current_note = branch.name, branch.note
        if branch.model is not None:
            self.model = branch.model
            self._limit_branch_models()
        for record in branch.records:
            self._records.append(record)
            self._times.append(record.t)
        return branch

    def _drop_oldest(self) -> None:
        self._bytes -= _record_bytes(self._records[self._head])
        self._head += 1
        if self._head * 2 > len(self._records):
            del self._records[: self._head]
            del self._times[: self._head]
            self._head = 0

    def append(self, record: StateRecord) -> None:
        """Add a record to the current line; the records at or after its time, if any,
        become a branch (a run that went back in time starts a new future)."""
        self._keep_branch(record.t, self._cut_from(record.t))
        self._records.append(record)
        self._times.append(record.t)
        self._bytes += _record_bytes(record)
        while self._bytes > self.budget_bytes and (self.branches or len(self) > 1):
            if self.branches:
                self._bytes -= self.branches.pop(0).nbytes
            else:
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
