"""Simbody State usage (issue 21): isConsistent compares the per-stage distribution of
event triggers, and CacheEntryInfo / DiscreteVarInfo report their dependents."""

from __future__ import annotations

from engine.common.cache_entry import CacheEntryKey, DiscreteVarKey
from engine.common.stage import Stage
from engine.common.state import State


def _advance(s: State, stage: Stage) -> None:
    while s.getSystemStage() < stage:
        nxt = s.getSystemStage().next()
        for i in range(s.getNumSubsystems()):
            s.advanceSubsystemToStage(i, nxt)
        s.advanceSystemToStage(nxt)


def _with_triggers(stages) -> State:
    s = State()
    s.setNumSubsystems(1)
    s.initializeSubsystem(0, "sub", "1")
    s.allocateQ(0, [0.0])
    _advance(s, Stage.Model)
    for stage, n in stages:
        s.allocateEventTrigger(0, stage, n)
    _advance(s, Stage.Instance)
    return s


def test_is_consistent_compares_triggers_stage_by_stage():
    a = _with_triggers([(Stage.Position, 2), (Stage.Velocity, 1)])
    same = _with_triggers([(Stage.Position, 2), (Stage.Velocity, 1)])
    moved = _with_triggers([(Stage.Position, 1), (Stage.Velocity, 2)])  # 3 triggers too
    assert a.getNEventTriggers() == moved.getNEventTriggers() == 3
    assert a.isConsistent(same) and same.isConsistent(a)
    assert not a.isConsistent(moved) and not moved.isConsistent(a)
    assert a.isConsistent(a.copy())


def test_cache_and_discrete_infos_list_their_dependents():
    s = State()
    s.setNumSubsystems(1)
    s.initializeSubsystem(0, "sub", "1")
    dv = s.allocateDiscreteVariable(0, Stage.Dynamics, 1.0)
    _advance(s, Stage.Topology)
    a = s.allocateCacheEntry(0, Stage.Topology, Stage.Infinity, 0.0, name="A")
    b = s.allocateCacheEntryWithPrerequisites(
        0, Stage.Topology, Stage.Infinity, False, False, False, [(0, dv)], [(0, a)], 0.0
    )
    c = s.allocateCacheEntryWithPrerequisites(
        0, Stage.Topology, Stage.Infinity, False, False, False, [], [(0, a), (0, b)], 0.0
    )
    info = s.getCacheEntryInfo
    assert info(CacheEntryKey(0, a)).getDependents() == (CacheEntryKey(0, b), CacheEntryKey(0, c))
    assert info(CacheEntryKey(0, b)).getDependents() == (CacheEntryKey(0, c),)
    assert info(CacheEntryKey(0, c)).getDependents() == ()
    assert s.getDiscreteVarInfo(DiscreteVarKey(0, dv)).getDependents() == (CacheEntryKey(0, b),)
    # the listed dependents are the ones that go stale
    for ix in (a, b, c):
        s.markCacheValueRealized(0, ix)
    s.setDiscreteVariable(0, dv, 2.0)
    assert s.isCacheValueRealized(0, a)
    assert not s.isCacheValueRealized(0, b) and not s.isCacheValueRealized(0, c)


def test_entries_made_while_realizing_topology_are_allocated_at_topology():
    """Simbody's allocation stage is the stage being realized: the matter subsystem's cache
    entries made in realizeTopology report Topology, those made in realizeModel Model, and
    backing up to Topology forgets the Model ones only."""
    from engine import MultibodySystem, SimbodyMatterSubsystem

    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    state = system.realizeTopology()  # (realized through Model, as Simbody's)
    ix = matter.getMySubsystemIndex()
    stages = [info.getAllocationStage() for info in state.getPerSubsystemInfo(ix).cache]
    assert set(stages) == {Stage.Topology, Stage.Model}
    assert stages == sorted(stages)
    n_topology = stages.count(Stage.Topology)
    state.invalidateAll(Stage.Model)
    kept = state.getPerSubsystemInfo(ix).cache
    assert [i.getAllocationStage() for i in kept] == [Stage.Topology] * n_topology
    system.realizeModel(state)
    again = [i.getAllocationStage() for i in state.getPerSubsystemInfo(ix).cache]
    assert again == stages
