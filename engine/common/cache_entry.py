"""CacheEntryInfo: one entry of a subsystem's realization cache in a State.

An entry may be computed from stage ``earliest`` on and is guaranteed computed
once its subsystem reaches stage ``latest`` (``Stage.Infinity`` for a lazy entry,
which is only valid after ``markCacheValueRealized``). Prerequisites (q, u, z,
discrete variables, other cache entries) additionally invalidate an explicitly
marked value when they change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.common.stage import Stage


@dataclass(frozen=True)
class CacheEntryKey:
    """Identifies a cache entry: (owner subsystem index, cache entry index)."""

    subsystem: int
    index: int


@dataclass(frozen=True)
class DiscreteVarKey:
    """Identifies a discrete variable: (owner subsystem index, variable index)."""

    subsystem: int
    index: int


@dataclass
class CacheEntryInfo:
    """Bookkeeping and value of one cache entry (see module docstring)."""

    subsystem: int
    index: int
    name: str
    earliest: Stage
    latest: Stage
    allocation_stage: Stage
    value: Any
    depends_on_q: bool = False
    depends_on_u: bool = False
    depends_on_z: bool = False
    discrete_prerequisites: tuple[DiscreteVarKey, ...] = ()
    cache_prerequisites: tuple[CacheEntryKey, ...] = ()
    #: Version of the owner subsystem's ``earliest`` stage when last marked realized,
    #: or None if not marked since the last change of a prerequisite.
    realized_version: int | None = None
    #: Version of the ``latest`` stage when explicitly marked not realized while at or
    #: past ``latest``; the entry stays stale until that stage is realized again.
    not_realized_mark: int | None = None
    #: Entries that named this one as a prerequisite.
    dependents: list[CacheEntryKey] = field(default_factory=list)
    #: What last made an explicitly marked value stale (for people reading the cache).
    last_invalidated_by: str = ""

    def isLazy(self) -> bool:
        """True if no realize() stage computes this entry automatically."""
        return self.latest == Stage.Infinity

    def getDependsOnStage(self) -> Stage:
        return self.earliest

    def getComputedByStage(self) -> Stage:
        return self.latest

    def getAllocationStage(self) -> Stage:
        return self.allocation_stage

    def key(self) -> CacheEntryKey:
        return CacheEntryKey(self.subsystem, self.index)

    def getDependents(self) -> tuple[CacheEntryKey, ...]:
        """The cache entries that named this one as a prerequisite (a new value of this
        entry makes them stale)."""
        return tuple(self.dependents)


@dataclass
class DiscreteVarInfo:
    """Bookkeeping and value of one discrete state variable."""

    subsystem: int
    index: int
    name: str
    invalidates: Stage
    allocation_stage: Stage
    value: Any
    last_update_time: float = float("nan")
    #: Cache entry index of the update value, for auto-update variables.
    auto_update_entry: int | None = None
    #: An auto-update variable whose update value its owner realizes when asked for it
    #: rather than at every step (an integrator need not stop at each step to swap it).
    updated_on_request: bool = False
    #: Cache entries that named this variable as a prerequisite.
    dependents: list[CacheEntryKey] = field(default_factory=list)

    def getAllocationStage(self) -> Stage:
        return self.allocation_stage

    def getInvalidatedStage(self) -> Stage:
        return self.invalidates

    def getDependents(self) -> tuple[CacheEntryKey, ...]:
        """The cache entries that named this variable as a prerequisite (a change of its
        value makes them stale)."""
        return tuple(self.dependents)

    def getAutoUpdateEntry(self) -> int | None:
        return self.auto_update_entry
