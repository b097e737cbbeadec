"""Prerequisite invalidation through chains of cache entries: every explicitly marked entry
reachable from a changed variable goes stale, each recording what made it stale (the
variable's setter for direct dependents, "'<entry>' going stale" for entries reached
through another entry), also after the dependency graph grows (the State keeps each walk
until an allocation changes the graph) and in a copy."""

from __future__ import annotations

from engine.common.cache_entry import CacheEntryKey
from engine.common.stage import Stage
from engine.common.state import State


def _advance(s: State, stage: Stage) -> None:
    while s.getSystemStage() < stage:
        nxt = s.getSystemStage().next()
        s.advanceSubsystemToStage(0, nxt)
        s.advanceSystemToStage(nxt)


def _info(s: State, index: int):
    return s.getCacheEntryInfo(CacheEntryKey(0, index))


def test_chain_of_prerequisites_goes_stale_with_causes():
    s = State()
    s.setNumSubsystems(1)
    s.initializeSubsystem(0, "sub", "1")
    _advance(s, Stage.Topology)
    s.allocateQ(0, [0.0])
    a = s.allocateCacheEntryWithPrerequisites(
        0, Stage.Model, Stage.Infinity, True, False, False, [], [], 0.0, name="A"
    )
    b = s.allocateCacheEntryWithPrerequisites(
        0, Stage.Model, Stage.Infinity, False, False, False, [], [(0, a)], 0.0, name="B"
    )
    c = s.allocateCacheEntryWithPrerequisites(
        0, Stage.Model, Stage.Infinity, True, False, False, [], [(0, a)], 0.0, name="C"
    )
    _advance(s, Stage.Model)
    for ix in (a, b, c):
        s.markCacheValueRealized(0, ix)
    assert all(s.isCacheValueRealized(0, ix) for ix in (a, b, c))
    s.setQ([1.0])
    assert not any(s.isCacheValueRealized(0, ix) for ix in (a, b, c))
    assert _info(s, a).last_invalidated_by == "setQ"
    assert _info(s, c).last_invalidated_by == "setQ"  # a direct dependent of q
    assert _info(s, b).last_invalidated_by == "'A' going stale"
    # a new value of A makes its dependents stale
    s.markCacheValueRealized(0, b)
    s.markCacheValueRealized(0, a)
    assert not s.isCacheValueRealized(0, b)
    assert _info(s, b).last_invalidated_by == "a new value of 'A'"
    copy = State(s)
    _advance(copy, Stage.Model)
    copy.markCacheValueRealized(0, c)
    copy.setQ([3.0])
    assert _info(copy, c).last_invalidated_by == "setQ"
    assert _info(s, c).last_invalidated_by == "a new value of 'A'"  # the source's own


def test_walks_follow_a_growing_dependency_graph():
    s = State()
    s.setNumSubsystems(1)
    s.initializeSubsystem(0, "sub", "1")
    _advance(s, Stage.Topology)
    a = s.allocateCacheEntry(0, Stage.Topology, Stage.Infinity, 0.0, name="A")
    b = s.allocateCacheEntryWithPrerequisites(
        0, Stage.Topology, Stage.Infinity, False, False, False, [], [(0, a)], 0.0, name="B"
    )
    s.markCacheValueRealized(0, b)
    s.markCacheValueRealized(0, a)  # walks A's dependents: B
    assert not s.isCacheValueRealized(0, b)
    c = s.allocateCacheEntryWithPrerequisites(
        0, Stage.Topology, Stage.Infinity, False, False, False, [], [(0, b)], 0.0, name="C"
    )
    d = s.allocateCacheEntryWithPrerequisites(
        0, Stage.Topology, Stage.Infinity, False, False, False, [], [(0, a)], 0.0, name="D"
    )
    for ix in (b, c, d):
        s.markCacheValueRealized(0, ix)
    s.markCacheValueRealized(0, a)  # now B, C (through B) and D
    assert not any(s.isCacheValueRealized(0, ix) for ix in (b, c, d))
    assert _info(s, b).last_invalidated_by == "a new value of 'A'"
    assert _info(s, d).last_invalidated_by == "a new value of 'A'"
    assert _info(s, c).last_invalidated_by == "'B' going stale"


def test_a_repeated_setter_call_leaves_its_dependents_stale_and_sees_new_values():
    """setU after setU with no cache entry changed in between skips the walk (it would
    change nothing); any entry made current in between, another setter, or a grown
    dependency graph makes the next call walk again."""
    s = State()
    s.setNumSubsystems(1)
    s.initializeSubsystem(0, "sub", "1")
    _advance(s, Stage.Topology)
    s.allocateQ(0, [0.0])
    s.allocateU(0, [0.0])
    a = s.allocateCacheEntryWithPrerequisites(
        0, Stage.Model, Stage.Infinity, False, True, False, [], [], 0.0, name="A"
    )
    b = s.allocateCacheEntryWithPrerequisites(
        0, Stage.Model, Stage.Infinity, False, False, False, [], [(0, a)], 0.0, name="B"
    )
    q_only = s.allocateCacheEntryWithPrerequisites(
        0, Stage.Model, Stage.Infinity, True, False, False, [], [], 0.0, name="Q"
    )
    _advance(s, Stage.Model)
    for ix in (a, b, q_only):
        s.markCacheValueRealized(0, ix)
    s.setU([1.0])
    s.setU([2.0])  # nothing changed since the last setU: the walk is skipped
    assert not s.isCacheValueRealized(0, a) and not s.isCacheValueRealized(0, b)
    assert _info(s, a).last_invalidated_by == "setU"
    assert _info(s, b).last_invalidated_by == "'A' going stale"
    assert s.isCacheValueRealized(0, q_only)  # u is not its prerequisite
    for _ in range(2):  # made current in between: the next setU makes it stale again
        s.markCacheValueRealized(0, b)
        s.setU([3.0])
        assert not s.isCacheValueRealized(0, b)
        assert _info(s, b).last_invalidated_by == "'A' going stale"
    s.markCacheValueRealized(0, a)  # (B goes stale with "a new value of 'A'")
    s.setU([4.0])
    assert not s.isCacheValueRealized(0, a)
    s.setQ([1.0])  # another setter walks its own dependents
    assert not s.isCacheValueRealized(0, q_only)
    assert _info(s, q_only).last_invalidated_by == "setQ"
    s.markCacheValueRealized(0, q_only)
    s.setQ([1.0])
    assert not s.isCacheValueRealized(0, q_only)
    # a copy starts with no record of its own: its setU walks
    copy = State(s)
    _advance(copy, Stage.Model)
    copy.markCacheValueRealized(0, a)
    copy.setU([5.0])
    assert not copy.isCacheValueRealized(0, a)
    assert _info(copy, a).last_invalidated_by == "setU"
