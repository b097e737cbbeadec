"""PerSubsystemInfo: what one subsystem owns inside a State.

Holds the subsystem's name, version and current stage (with per-stage version
numbers), its allocation requests for the shared pools (q, u, z, constraint
errors, event triggers) with the stage at which each was made, its private
discrete variables and cache entries, and, once the System has advanced far
enough, where its partitions start in the global arrays.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.common.cache_entry import CacheEntryInfo, DiscreteVarInfo
from engine.common.stage import ALL_STAGES, Stage
from engine.common.state_books import LOCKSTEP, SHARED_VERSIONS, new_books
from engine.common.state_copy import copy_cache_entry, copy_discrete_variable

_POOLS = (
    "q_requests",
    "u_requests",
    "z_requests",
    "qerr_requests",
    "uerr_requests",
    "udoterr_requests",
)


@dataclass
class PoolRequest:
    """One allocation in a shared pool: initial values (or a count) and when it was made."""

    size: int
    allocation_stage: Stage
    initial: np.ndarray | None = None


class SharedStage:
    """What a State's subsystems share while the State keeps them in lockstep: a view of
    the State's books (``engine.common.state_books``), which compiled code keeps too.

    ``stage``: None, or the stage every subsystem is at (the System's stage) whatever
    their own records say (the books' ``LOCKSTEP`` slot); a State enters lockstep when one
    kernel realized every subsystem to the same stage, and invalidating all of them then
    touches only the books. ``versions``: the stage versions given to every subsystem at
    once while in lockstep (the books' ``SHARED_VERSIONS``, see
    ``PerSubsystemInfo.own_versions``). ``books``: the whole books array as a memoryview
    (item reads are Python ints)."""

    __slots__ = ("array", "books", "versions")

    def __init__(self, array: np.ndarray | None = None) -> None:
        self.array = new_books() if array is None else array
        self.books = memoryview(self.array)
        self.versions = self.books[SHARED_VERSIONS : SHARED_VERSIONS + 11]

    @property
    def stage(self) -> Stage | None:
        common = self.books[LOCKSTEP]
        return None if common < 0 else ALL_STAGES[common]

    @stage.setter
    def stage(self, stage: Stage | None) -> None:
        self.books[LOCKSTEP] = -1 if stage is None else int(stage)


@dataclass
class PerSubsystemInfo:
    """Everything one subsystem has in a State (see module docstring)."""

    name: str = ""
    version: str = ""
    #: this subsystem's own stage record (``stage`` is what counts: see SharedStage)
    own_stage: Stage = Stage.Empty
    #: the State's SharedStage (each State has its own)
    shared: SharedStage = field(default_factory=SharedStage)
    #: ``own_versions[k]``: the State's serial of the last invalidation, made outside
    #: lockstep, that backed this subsystem up from stage k or a stage below it (1 before
    #: any): backing up from stage j writes that serial, larger than any before, into
    #: every k >= j. The version of stage k is the larger of this and the SharedStage's
    #: (``stage_version``), so it changes whenever stage k is invalidated.
    own_versions: list[int] = field(default_factory=lambda: [1] * 11)
    q_requests: list[PoolRequest] = field(default_factory=list)
    u_requests: list[PoolRequest] = field(default_factory=list)
    z_requests: list[PoolRequest] = field(default_factory=list)
    qerr_requests: list[PoolRequest] = field(default_factory=list)
    uerr_requests: list[PoolRequest] = field(default_factory=list)
    udoterr_requests: list[PoolRequest] = field(default_factory=list)
    trigger_requests: list[list[PoolRequest]] = field(
        default_factory=lambda: [[] for _ in range(11)]
    )
    discrete: list[DiscreteVarInfo] = field(default_factory=list)
    cache: list[CacheEntryInfo] = field(default_factory=list)
    #: indices into ``cache`` of the entries that keep their value when t changes: declared
    #: prerequisites, earliest stage before Time, latest stage from Time on (finite)
    time_kept: list[int] = field(default_factory=list)
    # Partition starts in the global arrays (valid from Model / Instance).
    q_start: int = 0
    u_start: int = 0
    z_start: int = 0
    qerr_start: int = 0
    uerr_start: int = 0
    udoterr_start: int = 0
    trigger_starts: list[int] = field(default_factory=lambda: [0] * 11)

    @staticmethod
    def total(requests: list[PoolRequest]) -> int:
        """Number of slots in a list of pool requests."""
        return sum(r.size for r in requests)

    @property
    def nq(self) -> int:
        return self.total(self.q_requests)

    @property
    def nu(self) -> int:
        return self.total(self.u_requests)

    @property
    def nz(self) -> int:
        return self.total(self.z_requests)

    @property
    def nqerr(self) -> int:
        return self.total(self.qerr_requests)

    @property
    def nuerr(self) -> int:
        return self.total(self.uerr_requests)

    @property
    def nudoterr(self) -> int:
        return self.total(self.udoterr_requests)

    def ntriggers(self, stage: Stage) -> int:
        return self.total(self.trigger_requests[stage])

    @property
    def stage(self) -> Stage:
        """The stage this subsystem is realized to."""
        common = self.shared.books[LOCKSTEP]
        return self.own_stage if common < 0 else ALL_STAGES[common]

    @stage.setter
    def stage(self, stage: Stage) -> None:
        if self.shared.books[LOCKSTEP] >= 0:
            raise RuntimeError(
                "internal error: a subsystem's own stage was set while its State keeps the "
                "subsystems in lockstep (State._leave_lockstep first)"
            )
        self.own_stage = stage

    def stage_version(self, k: int) -> int:
        """The version of stage ``k`` (an int): it changes whenever stage k of this
        subsystem is invalidated (and may also change while stage k is not valid)."""
        own = self.own_versions[k]
        common = self.shared.versions[k]
        return own if own > common else common

    @property
    def stage_versions(self) -> list[int]:
        """``stage_version(k)`` for every stage (for display)."""
        return [self.stage_version(k) for k in range(11)]

    def forget_allocations_from(self, stage: Stage) -> None:
        """Drop everything allocated at ``stage`` or later (allocated while realizing it)."""
        for pool in (
            self.q_requests,
            self.u_requests,
            self.z_requests,
            self.qerr_requests,
            self.uerr_requests,
            self.udoterr_requests,
            *self.trigger_requests,
        ):
            pool[:] = [r for r in pool if r.allocation_stage < stage]
        self.discrete[:] = _prefix_before(self.discrete, stage)
        self.cache[:] = _prefix_before(self.cache, stage)
        n = len(self.cache)
        self.time_kept[:] = [i for i in self.time_kept if i < n]

    def copy(self) -> PerSubsystemInfo:
        """A deep copy of variables and bookkeeping; cache values are copied too. Pool
        allocation records (never changed once made) are shared; the lists holding them are
        the copy's own."""
        memo: dict = {}
        out = PerSubsystemInfo.__new__(PerSubsystemInfo)
        d = dict(self.__dict__)
        for pool in _POOLS:
            d[pool] = list(d[pool])
        d["own_versions"] = list(self.own_versions)
        d["trigger_requests"] = [list(r) for r in self.trigger_requests]
        d["trigger_starts"] = list(self.trigger_starts)
        d["time_kept"] = list(self.time_kept)
        d["discrete"] = [copy_discrete_variable(dv, memo) for dv in self.discrete]
        d["cache"] = [copy_cache_entry(ce, memo) for ce in self.cache]
        out.__dict__.update(d)
        return out


def _prefix_before(items: list, stage: Stage) -> list:
    """Items are allocated in nondecreasing stage order: keep those allocated before ``stage``."""
    kept = []
    for item in items:
        if item.allocation_stage >= stage:
            break
        kept.append(item)
    return kept
