"""Cache entries (earliest/latest, lazy, explicit marks, prerequisites, error messages) and
discrete variables (last update time, auto-update swap)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.common.cache_entry import CacheEntryKey, DiscreteVarKey
from engine.common.exceptions import (
    CacheEntryOutOfDateError,
    IndexOutOfRangeError,
    InvalidArgumentError,
    StageOutOfRangeError,
    StageTooLowError,
)
from engine.common.stage import Stage
from engine.common.state import State
from tests.engine.framework_fixtures import (
    RUNTIME_STAGES,
    advance_all,
    make_oscillator_system,
    realized,
)


def _bare(stage: Stage = Stage.Empty):
    """A bare State with one subsystem 'owner' holding one q, u and z."""
    s = State()
    i = s.addSubsystem("owner", "1")
    s.allocateQ(i, [0.0])
    s.allocateU(i, [0.0])
    s.allocateZ(i, [0.0])
    return s, i


def _readable(s, i, ce) -> bool:
    try:
        s.getCacheEntry(i, ce)
    except CacheEntryOutOfDateError:
        return False
    return True


# ------------------------------------------------------- earliest .. latest


@pytest.mark.parametrize(
    "earliest,latest",
    [
        (Stage.Position, Stage.Position),
        (Stage.Time, Stage.Dynamics),
        (Stage.Instance, Stage.Report),
    ],
)
def test_entry_validity_across_stages(earliest, latest):
    s, i = _bare()
    ce = s.allocateCacheEntry(i, earliest, latest, "value")
    advance_all(s, Stage.Model)
    for stage in RUNTIME_STAGES:
        advance_all(s, stage)
        # Valid at latest or later without any mark; not before unless marked.
        assert s.isCacheValueRealized(i, ce) == (stage >= latest)
        assert _readable(s, i, ce) == (stage >= latest)
    # Marked while between earliest and latest: valid from then on.
    s.invalidateAll(Stage.Instance)
    advance_all(s, earliest)
    if earliest < latest:
        assert not s.isCacheValueRealized(i, ce)
        s.markCacheValueRealized(i, ce)
        assert s.isCacheValueRealized(i, ce)
        assert s.getCacheEntry(i, ce) == "value"
        # Still valid as long as the earliest stage is not invalidated ...
        advance_all(s, latest)
        s.invalidateAll(latest)
        assert s.getSubsystemStage(i) == latest.prev()
        assert s.isCacheValueRealized(i, ce)
    # ... and stale once it is.
    s.invalidateAll(earliest)
    assert not s.isCacheValueRealized(i, ce)
    advance_all(s, earliest)
    assert s.isCacheValueRealized(i, ce) == (earliest == latest)


def test_mark_before_earliest_is_refused():
    s, i = _bare()
    ce = s.allocateCacheEntry(i, Stage.Velocity, Stage.Dynamics, 0)
    advance_all(s, Stage.Position)
    with pytest.raises(StageTooLowError) as info:
        s.markCacheValueRealized(i, ce)
    assert info.value.needed == Stage.Velocity and info.value.current == Stage.Position
    assert "cache entry 0" in str(info.value) and "'owner'" in str(info.value)
    advance_all(s, Stage.Velocity)
    assert not s.isCacheValueRealized(i, ce)  # the refused mark left nothing behind


def test_lazy_entry_valid_only_after_mark_and_stale_after_earliest_invalidated():
    s, i = _bare()
    lazy = s.allocateLazyCacheEntry(i, Stage.Position, 0.0, name="lazy thing")
    assert s.getCacheEntryInfo(CacheEntryKey(i, lazy)).isLazy()
    advance_all(s, Stage.Report)
    assert not s.isCacheValueRealized(i, lazy)  # no stage computes it
    s.setCacheEntryValue(i, lazy, 2.5)
    s.markCacheValueRealized(i, lazy)
    assert s.getCacheEntry(i, lazy) == 2.5
    s.invalidateAll(Stage.Velocity)  # above earliest: still valid
    assert s.isCacheValueRealized(i, lazy)
    s.setU([1.0])  # u is Velocity: still valid
    assert s.isCacheValueRealized(i, lazy)
    s.setQ([1.0])  # q invalidates Position, its earliest stage
    assert not s.isCacheValueRealized(i, lazy)
    advance_all(s, Stage.Report)
    assert not s.isCacheValueRealized(i, lazy)  # realizing does not revive it


def test_mark_not_realized():
    s, i = _bare()
    entry = s.allocateCacheEntry(i, Stage.Position, Stage.Dynamics, 0)
    lazy = s.allocateLazyCacheEntry(i, Stage.Position, 0)
    advance_all(s, Stage.Acceleration)
    s.markCacheValueRealized(i, lazy)
    for ce in (entry, lazy):
        assert s.isCacheValueRealized(i, ce)
        s.markCacheValueNotRealized(i, ce)
        assert not s.isCacheValueRealized(i, ce)
        assert not _readable(s, i, ce)
    assert s.getSystemStage() == Stage.Acceleration  # no stage was invalidated
    # Past its latest stage, the entry comes back once that stage is realized again ...
    s.invalidateAll(Stage.Dynamics)
    advance_all(s, Stage.Dynamics)
    assert s.isCacheValueRealized(i, entry)
    # ... or when it is marked realized again.
    s.markCacheValueNotRealized(i, entry)
    s.markCacheValueRealized(i, entry)
    assert s.isCacheValueRealized(i, entry)
    # Below its latest stage it simply needs a new mark or realization.
    s.invalidateAll(Stage.Velocity)
    s.markCacheValueRealized(i, entry)
    s.markCacheValueNotRealized(i, entry)
    assert not s.isCacheValueRealized(i, entry)
    advance_all(s, Stage.Dynamics)
    assert s.isCacheValueRealized(i, entry)


def test_upd_cache_entry_neither_validates_nor_invalidates():
    s, i = _bare()
    ce = s.allocateCacheEntry(i, Stage.Position, Stage.Velocity, [0])
    advance_all(s, Stage.Position)
    s.updCacheEntry(i, ce).append(1)
    assert not s.isCacheValueRealized(i, ce)
    advance_all(s, Stage.Velocity)
    s.updCacheEntry(i, ce).append(2)
    assert s.isCacheValueRealized(i, ce)
    assert s.getCacheEntry(i, ce) == [0, 1, 2]
    assert s.getSystemStage() == Stage.Velocity


def test_cache_entry_info():
    s, i = _bare()
    ce = s.allocateCacheEntry(i, Stage.Time, Stage.Acceleration, 0, name="info me")
    lazy = s.allocateLazyCacheEntry(i, Stage.Velocity, 0)
    key = CacheEntryKey(i, ce)
    assert s.hasCacheEntry(key) and not s.hasCacheEntry(CacheEntryKey(i, 5))
    assert not s.hasCacheEntry(CacheEntryKey(3, 0))
    info = s.getCacheEntryInfo(key)
    assert info.name == "info me"
    assert (info.getDependsOnStage(), info.getComputedByStage()) == (Stage.Time, Stage.Acceleration)
    assert info.getAllocationStage() == Stage.Topology and not info.isLazy()  # made at Empty
    assert info.key() == key
    assert s.getCacheEntryInfo(CacheEntryKey(i, lazy)).getComputedByStage() == Stage.Infinity
    assert s.getCacheEntryInfo(CacheEntryKey(i, lazy)).name == "cache entry 1"
    with pytest.raises(IndexOutOfRangeError, match="no cache entry 7"):
        s.getCacheEntryInfo(CacheEntryKey(i, 7))


# ------------------------------------------------------------- prerequisites


def _prereq_state():
    s, i = _bare()
    dv = s.allocateDiscreteVariable(i, Stage.Report, 0.0, name="knob")
    other = s.allocateDiscreteVariable(i, Stage.Report, 0.0, name="other knob")
    up = s.allocateLazyCacheEntry(i, Stage.Instance, 0.0, name="upstream")
    entries = {
        "q": s.allocateCacheEntryWithPrerequisites(
            i, Stage.Instance, Stage.Infinity, True, False, False, [], [], 0, name="needs q"
        ),
        "u": s.allocateCacheEntryWithPrerequisites(
            i, Stage.Instance, Stage.Infinity, False, True, False, [], [], 0, name="needs u"
        ),
        "z": s.allocateCacheEntryWithPrerequisites(
            i, Stage.Instance, Stage.Infinity, False, False, True, [], [], 0, name="needs z"
        ),
        "dv": s.allocateCacheEntryWithPrerequisites(
            i, Stage.Instance, Stage.Infinity, False, False, False, [(i, dv)], [], 0
        ),
        "ce": s.allocateCacheEntryWithPrerequisites(
            i, Stage.Time, Stage.Infinity, False, False, False, [], [CacheEntryKey(i, up)], 0
        ),
    }
    # A chain: downstream <- middle <- q.
    entries["chain"] = s.allocateCacheEntryWithPrerequisites(
        i, Stage.Instance, Stage.Infinity, False, False, False, [], [(i, entries["q"])], 0
    )
    advance_all(s, Stage.Acceleration)
    return s, i, dv, other, up, entries


PREREQ_CHANGES = {
    "setQ": (lambda s, i, dv, up: s.setQ([1.0]), {"q", "chain"}),
    "updQ": (lambda s, i, dv, up: s.updQ(), {"q", "chain"}),
    "setU": (lambda s, i, dv, up: s.setU([1.0]), {"u"}),
    "updY": (lambda s, i, dv, up: s.updY(), {"q", "u", "z", "chain"}),
    "setZ": (lambda s, i, dv, up: s.setZ([1.0]), {"z"}),
    "setDiscreteVariable": (lambda s, i, dv, up: s.setDiscreteVariable(i, dv, 1.0), {"dv"}),
    "updDiscreteVariable": (lambda s, i, dv, up: s.updDiscreteVariable(i, dv), {"dv"}),
    "upstream marked": (lambda s, i, dv, up: s.markCacheValueRealized(i, up), {"ce"}),
    "upstream not realized": (lambda s, i, dv, up: s.markCacheValueNotRealized(i, up), {"ce"}),
}


@pytest.mark.parametrize("change", PREREQ_CHANGES)
def test_prerequisite_change_makes_marked_values_stale(change):
    s, i, dv, other, up, entries = _prereq_state()
    op, affected = PREREQ_CHANGES[change]
    for ce in entries.values():
        s.markCacheValueRealized(i, ce)
    op(s, i, dv, up)
    for name, ce in entries.items():
        stale_by_stage = s.getSubsystemStage(i) < s.getCacheEntryInfo(CacheEntryKey(i, ce)).earliest
        expected = not (name in affected or stale_by_stage)
        assert s.isCacheValueRealized(i, ce) == expected, name


def test_unrelated_changes_leave_prerequisite_entries_valid():
    s, i, dv, other, up, entries = _prereq_state()
    for ce in entries.values():
        s.markCacheValueRealized(i, ce)
    s.setDiscreteVariable(i, other, 5.0)  # invalidates Report only; not a prerequisite
    s.updCacheEntry(i, up)  # writable access alone is not a change
    s.invalidateAll(Stage.Position)  # above every earliest stage
    assert all(s.isCacheValueRealized(i, ce) for ce in entries.values())


def test_prerequisite_change_propagates_through_unmarked_upstream():
    """The downstream entry depends on q through 'needs q', even if that one was never
    marked: a change of q must still make the downstream value stale."""
    s, i, dv, other, up, entries = _prereq_state()
    s.markCacheValueRealized(i, entries["chain"])
    assert not s.isCacheValueRealized(i, entries["q"])
    s.setQ([2.0])
    assert not s.isCacheValueRealized(i, entries["chain"])


def test_dependents_lists():
    s, i, dv, other, up, entries = _prereq_state()
    assert s.getQDependents() == [CacheEntryKey(i, entries["q"])]
    assert s.getUDependents() == [CacheEntryKey(i, entries["u"])]
    assert s.getZDependents() == [CacheEntryKey(i, entries["z"])]
    assert s.getDiscreteVarInfo(DiscreteVarKey(i, dv)).dependents == [
        CacheEntryKey(i, entries["dv"])
    ]
    assert s.getCacheEntryInfo(CacheEntryKey(i, up)).dependents == [CacheEntryKey(i, entries["ce"])]
    info = s.getCacheEntryInfo(CacheEntryKey(i, entries["ce"]))
    assert info.cache_prerequisites == (CacheEntryKey(i, up),)
    assert s.getCacheEntryInfo(CacheEntryKey(i, entries["q"])).depends_on_q


def test_bad_prerequisites_change_nothing():
    s, i = _bare()
    dv = s.allocateDiscreteVariable(i, Stage.Dynamics, 0)
    late = s.allocateLazyCacheEntry(i, Stage.Velocity, 0)
    n_entries = len(s.getPerSubsystemInfo(i).cache)
    with pytest.raises(IndexOutOfRangeError, match="no discrete variable 3"):
        s.allocateCacheEntryWithPrerequisites(
            i, Stage.Position, Stage.Infinity, True, True, True, [(i, dv), (i, 3)], [], 0
        )
    with pytest.raises(StageOutOfRangeError, match="earliest stage Velocity"):
        s.allocateCacheEntryWithPrerequisites(
            i, Stage.Position, Stage.Infinity, True, False, False, [(i, dv)], [(i, late)], 0
        )
    with pytest.raises(IndexOutOfRangeError, match="no cache entry 9"):
        s.allocateCacheEntryWithPrerequisites(
            i, Stage.Position, Stage.Infinity, False, False, False, [], [(i, 9)], 0
        )
    assert len(s.getPerSubsystemInfo(i).cache) == n_entries
    assert s.getQDependents() == [] and s.getUDependents() == [] and s.getZDependents() == []
    assert s.getDiscreteVarInfo(DiscreteVarKey(i, dv)).dependents == []


# ------------------------------------------------------------ error messages


def test_stale_entry_error_names_entry_owner_and_stages():
    system, osc = make_oscillator_system()
    s = realized(system, Stage.Velocity)
    with pytest.raises(CacheEntryOutOfDateError) as info:
        osc.getCacheEntry(s, osc.ce_summary)
    msg = str(info.value)
    assert "'summary'" in msg and "'oscillator'" in msg
    assert "Report" in msg and "Velocity" in msg
    assert "realize" in msg


def test_stale_entry_error_says_what_made_it_stale():
    system, osc = make_oscillator_system()
    s = realized(system, Stage.Acceleration)
    s.setQ([0.5, 0.5])
    with pytest.raises(CacheEntryOutOfDateError) as info:
        osc.getCacheEntry(s, osc.ce_q2)
    msg = str(info.value)
    assert "'sum q^2'" in msg and "'oscillator'" in msg
    assert "Position" in msg and "Time" in msg and "setQ" in msg


def test_stale_lazy_entry_error_names_current_stage():
    system, osc = make_oscillator_system()
    s = realized(system, Stage.Acceleration)
    with pytest.raises(CacheEntryOutOfDateError) as info:
        osc.getCacheEntry(s, osc.ce_energy)
    msg = str(info.value)
    assert "'total energy'" in msg and "'oscillator'" in msg
    assert "lazy" in msg and "Dynamics" in msg and "Acceleration" in msg
    s.setU([0.0, 1.0])
    with pytest.raises(CacheEntryOutOfDateError) as info:
        osc.getCacheEntry(s, osc.ce_energy)
    assert "cannot be computed before Dynamics" in str(info.value)
    assert "Position" in str(info.value)


def test_error_after_mark_not_realized_is_not_misleading():
    system, osc = make_oscillator_system()
    s = realized(system, Stage.Acceleration)
    osc.markCacheValueNotRealized(s, osc.ce_ke)
    with pytest.raises(CacheEntryOutOfDateError) as info:
        osc.getCacheEntry(s, osc.ce_ke)
    msg = str(info.value)
    assert "'kinetic energy'" in msg and "'oscillator'" in msg
    assert "marked not realized" in msg and "Acceleration" in msg and "Dynamics" in msg
    assert "only at" not in msg


def test_lazy_pattern_of_the_spec():
    system, osc = make_oscillator_system(n=1, q0=[2.0], u0=[3.0], k=4.0, m=1.0)
    s = realized(system, Stage.Velocity)
    assert osc.getKineticEnergy(s) == 4.5  # computed on request at Velocity and marked
    assert osc.isCacheValueRealized(s, osc.ce_ke)
    system.realize(s, Stage.Dynamics)
    assert osc.getTotalEnergy(s) == 4.5 + 0.5 * 4.0 * 4.0
    s.setU([1.0])
    assert not osc.isCacheValueRealized(s, osc.ce_ke)
    system.realize(s, Stage.Dynamics)
    assert osc.getTotalEnergy(s) == 0.5 + 8.0


# ------------------------------------------------------- discrete variables


def test_discrete_variable_values_and_last_update_time():
    s, i = _bare()
    dv = s.allocateDiscreteVariable(i, Stage.Velocity, {"gain": 1}, name="gains")
    advance_all(s, Stage.Time)
    assert s.getDiscreteVariable(i, dv) == {"gain": 1}
    s.setTime(2.5)
    s.updDiscreteVariable(i, dv)["gain"] = 2
    assert s.getDiscreteVarLastUpdateTime(i, dv) == 2.5
    assert s.getDiscreteVariable(i, dv) == {"gain": 2}
    s.setTime(4.0)
    assert s.getDiscreteVarLastUpdateTime(i, dv) == 2.5  # reading/time change do not count
    s.setDiscreteVariable(i, dv, {"gain": 3})
    assert s.getDiscreteVarLastUpdateTime(i, dv) == 4.0
    assert s.hasDiscreteVar(DiscreteVarKey(i, dv)) and not s.hasDiscreteVar(DiscreteVarKey(i, 1))
    assert s.getDiscreteVarInfo(DiscreteVarKey(i, dv)).getInvalidatedStage() == Stage.Velocity
    assert s.getDiscreteVarUpdateIndex(i, dv) is None


def _auto_state():
    s, i = _bare()
    dv = s.allocateAutoUpdateDiscreteVariable(i, Stage.Dynamics, 10, Stage.Time, name="counter")
    plain = s.allocateAutoUpdateDiscreteVariable(i, Stage.Report, "a", Stage.Position)
    advance_all(s, Stage.Acceleration)
    return s, i, dv, plain


def test_auto_update_entry_is_a_lazy_cache_entry():
    s, i, dv, plain = _auto_state()
    ce = s.getDiscreteVarUpdateIndex(i, dv)
    info = s.getCacheEntryInfo(CacheEntryKey(i, ce))
    assert info.isLazy() and info.getDependsOnStage() == Stage.Time
    assert info.value == 10  # a copy of the initial value
    assert not s.isDiscreteVarUpdateValueRealized(i, dv)
    with pytest.raises(CacheEntryOutOfDateError, match="counter"):
        s.getDiscreteVarUpdateValue(i, dv)

    s2, j = _bare()
    fixed = s2.allocateDiscreteVariable(j, Stage.Dynamics, 0, name="fixed")
    advance_all(s2, Stage.Acceleration)
    for op in (
        s2.isDiscreteVarUpdateValueRealized,
        s2.getDiscreteVarUpdateValue,
        s2.updDiscreteVarUpdateValue,
        s2.markDiscreteVarUpdateValueRealized,
    ):
        with pytest.raises(InvalidArgumentError, match="fixed is not an auto-update"):
            op(j, fixed)


def test_auto_update_swap_exactly_as_state_txt_says():
    s, i, dv, plain = _auto_state()
    s.setTime(1.25)
    advance_all(s, Stage.Acceleration)
    s.setCacheEntryValue(i, s.getDiscreteVarUpdateIndex(i, dv), 11)
    s.markDiscreteVarUpdateValueRealized(i, dv)
    assert s.getDiscreteVarUpdateValue(i, dv) == 11
    s.setCacheEntryValue(i, s.getDiscreteVarUpdateIndex(i, plain), "b")  # not marked
    versions = s.getSystemStageVersions()
    t_plain = s.getDiscreteVarLastUpdateTime(i, plain)

    s.autoUpdateDiscreteVariables()

    # Only the variable whose update value was realized is swapped ...
    assert s.getDiscreteVariable(i, dv) == 11
    assert s.updDiscreteVarUpdateValue(i, dv) == 10  # the old value went to the cache
    assert s.getDiscreteVariable(i, plain) == "a"
    # ... its update value is then not realized ...
    assert not s.isDiscreteVarUpdateValueRealized(i, dv)
    # ... no stage was invalidated ...
    assert s.getSystemStage() == Stage.Acceleration
    assert s.getLowestSystemStageDifference(versions) == Stage.Infinity
    # ... and the update time was recorded.
    assert s.getDiscreteVarLastUpdateTime(i, dv) == 1.25
    assert s.getDiscreteVarLastUpdateTime(i, plain) == t_plain
    # A second call swaps nothing.
    s.autoUpdateDiscreteVariables()
    assert s.getDiscreteVariable(i, dv) == 11


def test_explicit_change_invalidates_the_update_value_whatever_its_stage():
    s, i, dv, plain = _auto_state()
    s.markDiscreteVarUpdateValueRealized(i, dv)
    s.setDiscreteVariable(i, dv, 20)  # invalidates Dynamics; update depends on Time
    assert s.getSystemStage() == Stage.Velocity
    assert not s.isDiscreteVarUpdateValueRealized(i, dv)
    s.autoUpdateDiscreteVariables()
    assert s.getDiscreteVariable(i, dv) == 20


def test_update_value_goes_stale_with_its_depends_on_stage():
    s, i, dv, plain = _auto_state()
    s.markDiscreteVarUpdateValueRealized(i, dv)
    s.setQ([1.0])  # Position and above; the update value depends on Time
    assert s.isDiscreteVarUpdateValueRealized(i, dv)
    s.setTime(3.0)
    assert not s.isDiscreteVarUpdateValueRealized(i, dv)


def test_oscillator_step_count_auto_updates():
    system, osc = make_oscillator_system()
    s = realized(system, Stage.Acceleration)
    ix = osc.getMySubsystemIndex()
    assert s.isDiscreteVarUpdateValueRealized(ix, osc.dv_count)
    assert s.getDiscreteVarUpdateValue(ix, osc.dv_count) == 1
    s.setTime(0.5)
    system.realize(s, Stage.Acceleration)
    s.autoUpdateDiscreteVariables()
    assert osc.getDiscreteVariable(s, osc.dv_count) == 1
    assert s.getDiscreteVarLastUpdateTime(ix, osc.dv_count) == 0.5
    assert math.isclose(s.getTime(), 0.5)
    np.testing.assert_allclose(s.getUDot(), -4.0 * s.getQ())  # nothing was invalidated
