"""State layout: allocation rules and forgetting, the global y = [q, u, z] with contiguous
per-subsystem partitions, constraint-error / multiplier / event-trigger partitions, weights,
the stages derivative caches need, read-only views and bad input."""

from __future__ import annotations

import numpy as np
import pytest

from engine.common.exceptions import (
    IndexOutOfRangeError,
    InvalidArgumentError,
    SimTKError,
    StageOutOfRangeError,
    StageTooLowError,
    StateLayoutError,
)
from engine.common.stage import Stage
from engine.common.state import State
from engine.common.system import System
from tests.engine.framework_fixtures import (
    CountsSubsystem,
    advance_all,
    make_oscillator_system,
    realized,
)

# ------------------------------------------------------------ allocation rules


def _one_subsystem() -> tuple[State, int]:
    s = State()
    return s, s.addSubsystem("only", "1")


VARIABLE_ALLOCATIONS = {
    "allocateQ": lambda s, i: s.allocateQ(i, [1.0]),
    "allocateU": lambda s, i: s.allocateU(i, [1.0]),
    "allocateZ": lambda s, i: s.allocateZ(i, [1.0]),
    "allocateDiscreteVariable": lambda s, i: s.allocateDiscreteVariable(i, Stage.Dynamics, 1),
    "allocateAutoUpdateDiscreteVariable": lambda s, i: s.allocateAutoUpdateDiscreteVariable(
        i, Stage.Dynamics, 1, Stage.Velocity
    ),
}
CACHE_ALLOCATIONS = {
    "allocateQErr": lambda s, i: s.allocateQErr(i, 1),
    "allocateUErr": lambda s, i: s.allocateUErr(i, 1),
    "allocateUDotErr": lambda s, i: s.allocateUDotErr(i, 1),
    "allocateEventTrigger": lambda s, i: s.allocateEventTrigger(i, Stage.Position, 1),
    "allocateCacheEntry": lambda s, i: s.allocateCacheEntry(i, Stage.Position, 0.0),
    "allocateLazyCacheEntry": lambda s, i: s.allocateLazyCacheEntry(i, Stage.Position, 0.0),
    "allocateCacheEntryWithPrerequisites": lambda s, i: s.allocateCacheEntryWithPrerequisites(
        i, Stage.Position, Stage.Infinity, True, False, False, [], [], 0.0
    ),
}


@pytest.mark.parametrize("name", VARIABLE_ALLOCATIONS)
def test_variables_allocated_before_model_only(name):
    alloc = VARIABLE_ALLOCATIONS[name]
    for stage in (Stage.Empty, Stage.Topology):
        s, i = _one_subsystem()
        advance_all(s, stage)
        alloc(s, i)  # allowed
    s, i = _one_subsystem()
    advance_all(s, Stage.Model)
    before = s.toString()
    with pytest.raises(StateLayoutError) as info:
        alloc(s, i)
    assert "Model" in str(info.value) and "'only'" in str(info.value)
    assert s.toString() == before


@pytest.mark.parametrize("name", CACHE_ALLOCATIONS)
def test_cache_resources_allocated_before_instance_only(name):
    alloc = CACHE_ALLOCATIONS[name]
    for stage in (Stage.Empty, Stage.Topology, Stage.Model):
        s, i = _one_subsystem()
        s.allocateQ(i, [0.0])
        advance_all(s, stage)
        alloc(s, i)  # allowed
    s, i = _one_subsystem()
    advance_all(s, Stage.Instance)
    with pytest.raises(StateLayoutError, match="Instance"):
        alloc(s, i)


def test_model_stage_discrete_variable_only_during_construction():
    s, i = _one_subsystem()
    s.allocateDiscreteVariable(i, Stage.Model, "euler?")  # at Empty: fine
    advance_all(s, Stage.Topology)
    with pytest.raises(StateLayoutError, match="construction"):
        s.allocateDiscreteVariable(i, Stage.Model, "too late")
    s.allocateDiscreteVariable(i, Stage.Instance, 1.0)  # a later-stage variable is fine
    assert s.getPerSubsystemInfo(i).discrete[-1].value == 1.0
    assert len(s.getPerSubsystemInfo(i).discrete) == 2


def test_allocation_stage_is_remembered():
    s, i = _one_subsystem()
    dv0 = s.allocateDiscreteVariable(i, Stage.Dynamics, 0)
    ce0 = s.allocateCacheEntry(i, Stage.Position, 0)
    advance_all(s, Stage.Topology)
    dv1 = s.allocateDiscreteVariable(i, Stage.Dynamics, 1)
    ce1 = s.allocateCacheEntry(i, Stage.Position, 1)
    advance_all(s, Stage.Model)
    ce2 = s.allocateCacheEntry(i, Stage.Position, 2)
    # As Simbody's: the stage being realized (the subsystem's stage's next) when allocated.
    assert s.getDiscreteVarAllocationStage(i, dv0) == Stage.Topology
    assert s.getDiscreteVarAllocationStage(i, dv1) == Stage.Model
    assert s.getCacheEntryAllocationStage(i, ce0) == Stage.Topology
    assert s.getCacheEntryAllocationStage(i, ce1) == Stage.Model
    assert s.getCacheEntryAllocationStage(i, ce2) == Stage.Instance
    assert s.getDiscreteVarInvalidatesStage(i, dv1) == Stage.Dynamics


def test_allocations_are_forgotten_when_backed_up_to_their_stage():
    s, i = _one_subsystem()
    s.allocateQ(i, [1.0])
    s.allocateDiscreteVariable(i, Stage.Dynamics, "topology var")
    s.allocateCacheEntry(i, Stage.Position, "topology entry")
    advance_all(s, Stage.Topology)
    s.allocateQ(i, [2.0, 3.0])  # made while realizing Model
    s.allocateDiscreteVariable(i, Stage.Dynamics, "model var")
    s.allocateCacheEntry(i, Stage.Position, "model entry")
    advance_all(s, Stage.Model)
    s.allocateQErr(i, 2)  # made while realizing Instance
    s.allocateEventTrigger(i, Stage.Time, 3)
    s.allocateCacheEntry(i, Stage.Position, "instance entry")
    advance_all(s, Stage.Position)
    assert (s.getNQ(), s.getNQErr(), s.getNEventTriggers()) == (3, 2, 3)
    info = s.getPerSubsystemInfo(i)

    s.invalidateAll(Stage.Time)  # back to Instance: nothing forgotten
    assert len(info.cache) == 3
    s.invalidateAll(Stage.Instance)  # back to Model: the Instance-time allocations go
    assert [ce.value for ce in info.cache] == ["topology entry", "model entry"]
    advance_all(s, Stage.Instance)
    assert (s.getNQErr(), s.getNEventTriggers()) == (0, 0)
    s.invalidateAll(Stage.Model)  # back to Topology: the Model-time allocations go
    assert [ce.value for ce in info.cache] == ["topology entry"]
    assert [dv.value for dv in info.discrete] == ["topology var"]
    advance_all(s, Stage.Model)
    np.testing.assert_array_equal(s.getQ(), [1.0])
    s.invalidateAll(Stage.Topology)  # back to Empty: everything goes
    assert (len(info.cache), len(info.discrete), info.nq) == (0, 0, 0)


def test_forgotten_cache_entries_leave_no_dependents_behind():
    s, i = _one_subsystem()
    s.allocateQ(i, [1.0])
    dv = s.allocateDiscreteVariable(i, Stage.Dynamics, 0)
    up = s.allocateLazyCacheEntry(i, Stage.Instance, 0)
    advance_all(s, Stage.Topology)
    s.allocateCacheEntryWithPrerequisites(
        i, Stage.Position, Stage.Infinity, True, True, True, [(i, dv)], [(i, up)], 0
    )
    assert len(s.getQDependents()) == 1
    advance_all(s, Stage.Model)
    s.invalidateAll(Stage.Model)
    assert s.getQDependents() == [] and s.getUDependents() == [] and s.getZDependents() == []
    assert s.getDiscreteVarInfo(_dk(i, dv)).dependents == []
    assert s.getCacheEntryInfo(_ck(i, up)).dependents == []


def _dk(i, j):
    from engine.common.cache_entry import DiscreteVarKey

    return DiscreteVarKey(i, j)


def _ck(i, j):
    from engine.common.cache_entry import CacheEntryKey

    return CacheEntryKey(i, j)


def test_bad_allocation_input_changes_nothing():
    s, i = _one_subsystem()
    with pytest.raises(InvalidArgumentError, match="finite"):
        s.allocateQ(i, [1.0, np.nan])
    with pytest.raises(InvalidArgumentError, match=">= 0"):
        s.allocateQErr(i, -1)
    with pytest.raises(InvalidArgumentError, match=">= 0"):
        s.allocateEventTrigger(i, Stage.Position, -2)
    with pytest.raises(IndexOutOfRangeError, match="no subsystem 3"):
        s.allocateU(3, [1.0])
    with pytest.raises(StageOutOfRangeError, match="between Model and Report"):
        s.allocateDiscreteVariable(i, Stage.Topology, 0)
    with pytest.raises(StageOutOfRangeError, match="later than\\s+Time"):
        s.allocateAutoUpdateDiscreteVariable(i, Stage.Time, 0, Stage.Position)
    with pytest.raises(StageOutOfRangeError, match="before earliest"):
        s.allocateCacheEntry(i, Stage.Velocity, Stage.Position, 0)
    with pytest.raises(InvalidArgumentError, match="allocateCacheEntry takes"):
        s.allocateCacheEntry(i, Stage.Velocity)
    info = s.getPerSubsystemInfo(i)
    assert (info.nq, info.nqerr, len(info.discrete), len(info.cache)) == (0, 0, 0, 0)
    assert info.ntriggers(Stage.Position) == 0


def test_add_subsystem_only_while_empty():
    s, i = _one_subsystem()
    advance_all(s, Stage.Topology)
    with pytest.raises(StateLayoutError, match="Empty"):
        s.addSubsystem("late", "1")
    assert s.getNumSubsystems() == 1


def test_subsystem_names_versions_and_slots():
    s = State()
    s.setNumSubsystems(3)
    s.initializeSubsystem(1, "matter", "3.7")
    assert s.getNumSubsystems() == 3
    assert (s.getSubsystemName(1), s.getSubsystemVersion(1)) == ("matter", "3.7")
    assert s.getSubsystemStage(2) == Stage.Empty
    with pytest.raises(IndexOutOfRangeError, match="indices 0..2"):
        s.getSubsystemName(3)
    with pytest.raises(InvalidArgumentError):
        s.setNumSubsystems(-1)


# ------------------------------------------------------------- global layout


@pytest.fixture
def three_subsystems():
    """DefaultSystemSubsystem (nothing) + three subsystems with distinct counts."""
    system = System("layout")
    subs = [
        CountsSubsystem("A", nq=2, nu=1, nz=0, nqerr=1, nuerr=0, nudoterr=2, tag=1,
                        triggers={Stage.Position: 2, Stage.Acceleration: 1}),
        CountsSubsystem("B", nq=0, nu=0, nz=2, nqerr=0, nuerr=2, nudoterr=0, tag=2,
                        triggers={Stage.Time: 1}),
        CountsSubsystem("C", nq=3, nu=3, nz=1, nqerr=2, nuerr=1, nudoterr=1, tag=3,
                        triggers={Stage.Position: 1, Stage.Time: 2}),
    ]  # fmt: skip
    for sub in subs:
        system.adoptSubsystem(sub)
    return system, subs


def test_global_y_layout_and_partitions(three_subsystems):
    system, (a, b, c) = three_subsystems
    s = realized(system, Stage.Model)
    nq, nu, nz = 5, 4, 3
    assert (s.getNQ(), s.getNU(), s.getNZ(), s.getNY()) == (nq, nu, nz, nq + nu + nz)
    assert (s.getQStart(), s.getUStart(), s.getZStart()) == (0, nq, nq + nu)
    ia, ib, ic = (x.getMySubsystemIndex() for x in (a, b, c))
    # Per-subsystem partitions are contiguous and in subsystem order.
    assert [s.getQStart(i) for i in (0, ia, ib, ic)] == [0, 0, 2, 2]
    assert [s.getNQ(i) for i in (0, ia, ib, ic)] == [0, 2, 0, 3]
    assert [s.getUStart(i) for i in (0, ia, ib, ic)] == [0, 0, 1, 1]
    assert [s.getZStart(i) for i in (0, ia, ib, ic)] == [0, 0, 0, 2]
    # y = [q, u, z], each pool holding the subsystems' initial values in order.
    q = np.concatenate([a.initialQ(), c.initialQ()])
    u = np.concatenate([a.initialU(), c.initialU()])
    z = np.concatenate([b.initialZ(), c.initialZ()])
    np.testing.assert_array_equal(s.getY(), np.concatenate([q, u, z]))
    np.testing.assert_array_equal(s.getQ(), q)
    np.testing.assert_array_equal(s.getU(), u)
    np.testing.assert_array_equal(s.getZ(), z)
    for sub in (a, b, c):
        np.testing.assert_array_equal(sub.getQ(s), sub.initialQ())
        np.testing.assert_array_equal(sub.getU(s), sub.initialU())
        np.testing.assert_array_equal(sub.getZ(s), sub.initialZ())
        assert (sub.getQStart(s), sub.getNQ(s)) == (s.getQStart(sub.getMySubsystemIndex()), sub.nq)
        assert sub.getNU(s) == sub.nu and sub.getNZ(s) == sub.nz
        assert sub.getUStart(s) == s.getUStart(sub.getMySubsystemIndex())
        assert sub.getZStart(s) == s.getZStart(sub.getMySubsystemIndex())
    # Subsystem views and the global vectors are the same storage.
    c.updU(s)[1] = 42.0
    assert s.getU()[a.nu + 1] == 42.0 and s.getY()[nq + a.nu + 1] == 42.0
    b.updZ(s)[0] = -1.0
    assert s.getZ()[0] == -1.0


def test_constraint_error_and_multiplier_partitions(three_subsystems):
    system, (a, b, c) = three_subsystems
    s = realized(system, Stage.Instance)
    ia, ib, ic = (x.getMySubsystemIndex() for x in (a, b, c))
    assert (s.getNQErr(), s.getNUErr(), s.getNUDotErr(), s.getNMultipliers()) == (3, 3, 3, 3)
    assert s.getNYErr() == 6
    assert (s.getQErrStart(), s.getUErrStart()) == (0, 3)
    assert [s.getQErrStart(i) for i in (ia, ib, ic)] == [0, 1, 1]
    assert [s.getNQErr(i) for i in (ia, ib, ic)] == [1, 0, 2]
    assert [s.getUErrStart(i) for i in (ia, ib, ic)] == [0, 0, 2]
    assert [s.getNUErr(i) for i in (ia, ib, ic)] == [0, 2, 1]
    assert [s.getUDotErrStart(i) for i in (ia, ib, ic)] == [0, 2, 2]
    assert [s.getMultipliersStart(i) for i in (ia, ib, ic)] == [0, 2, 2]
    assert [s.getNMultipliers(i) for i in (ia, ib, ic)] == [2, 0, 1]
    # Subsystem views write into the right slots of the global arrays.
    s.updQErr(ic)[:] = [7.0, 8.0]
    s.updUErr(ib)[:] = [5.0, 6.0]
    s.updMultipliers(ia)[:] = [1.0, 2.0]
    s.updUDotErr(ic)[0] = 9.0
    system.realize(s, Stage.Acceleration)
    np.testing.assert_array_equal(s.getQErr(), [0.0, 7.0, 8.0])
    np.testing.assert_array_equal(s.getUErr(), [5.0, 6.0, 0.0])
    np.testing.assert_array_equal(s.getYErr(), [0.0, 7.0, 8.0, 5.0, 6.0, 0.0])
    np.testing.assert_array_equal(s.getMultipliers(), [1.0, 2.0, 0.0])
    np.testing.assert_array_equal(s.getUDotErr(), [0.0, 0.0, 9.0])
    np.testing.assert_array_equal(s.getQErr(ic), [7.0, 8.0])
    np.testing.assert_array_equal(s.getMultipliers(ia), [1.0, 2.0])


def test_event_triggers_grouped_by_stage_then_subsystem(three_subsystems):
    system, (a, b, c) = three_subsystems
    s = realized(system, Stage.Instance)
    ia, ib, ic = (x.getMySubsystemIndex() for x in (a, b, c))
    assert s.getNEventTriggers() == 7
    counts = {g: s.getNEventTriggersByStage(g) for g in Stage}
    assert counts[Stage.Time] == 3 and counts[Stage.Position] == 3
    assert counts[Stage.Acceleration] == 1 and sum(counts.values()) == 7
    # Stage-major: all Time triggers, then all Position, then Acceleration.
    assert s.getEventTriggerStartByStage(Stage.Time) == 0
    assert s.getEventTriggerStartByStage(Stage.Position) == 3
    assert s.getEventTriggerStartByStage(Stage.Acceleration) == 6
    # Within a stage, subsystem order; the per-subsystem start is within the stage.
    assert s.getEventTriggerStartByStage(ib, Stage.Time) == 0
    assert s.getEventTriggerStartByStage(ic, Stage.Time) == 1
    assert s.getEventTriggerStartByStage(ia, Stage.Position) == 0
    assert s.getEventTriggerStartByStage(ic, Stage.Position) == 2
    assert s.getNEventTriggersByStage(ic, Stage.Time) == 2
    assert s.getNEventTriggersByStage(ia, Stage.Time) == 0
    s.updEventTriggersByStage(ic, Stage.Position)[0] = 3.5
    s.updEventTriggersByStage(ib, Stage.Time)[0] = 1.5
    system.realize(s, Stage.Position)
    np.testing.assert_array_equal(s.getEventTriggersByStage(Stage.Position), [0.0, 0.0, 3.5])
    np.testing.assert_array_equal(s.getEventTriggersByStage(ic, Stage.Position), [3.5])
    np.testing.assert_array_equal(s.getEventTriggers()[:4], [1.5, 0.0, 0.0, 0.0])
    with pytest.raises(StageTooLowError, match="Acceleration"):
        s.getEventTriggersByStage(Stage.Acceleration)


def test_dimensions_need_model_and_instance():
    system = System()
    system.adoptSubsystem(CountsSubsystem("A", nq=1))
    s = system.realizeTopology()
    s.invalidateAll(Stage.Model)
    for getter in (s.getNQ, s.getNY, s.getQStart, s.getY, s.getZWeights):
        with pytest.raises(StageTooLowError, match="Model") as info:
            getter()
        # realize() cannot bring a State to Model stage: the message says what can.
        assert "call system.realizeModel(state)" in str(info.value)
    with pytest.raises(StageTooLowError, match="made by system.realizeTopology"):
        State().getTime()
    s = system.realizeTopology()
    assert s.getNQ() == 1
    for getter in (s.getNQErr, s.getNYErr, s.getUErrStart, s.getNEventTriggers, s.getQErrWeights):
        with pytest.raises(StageTooLowError, match="Instance"):
            getter()


# ------------------------------------------------------------------- weights


def test_weights_are_ones_at_allocation(three_subsystems):
    system, (a, b, c) = three_subsystems
    s = realized(system, Stage.Instance)
    np.testing.assert_array_equal(s.getUWeights(), np.ones(4))
    np.testing.assert_array_equal(s.getZWeights(), np.ones(3))
    np.testing.assert_array_equal(s.getQErrWeights(), np.ones(3))
    np.testing.assert_array_equal(s.getUErrWeights(), np.ones(3))
    ic = c.getMySubsystemIndex()
    s.updUWeights(ic)[:] = [2.0, 3.0, 4.0]
    s.updQErrWeights(ic)[1] = 5.0
    s.updZWeights(b.getMySubsystemIndex())[0] = 6.0
    s.updUErrWeights(b.getMySubsystemIndex())[1] = 7.0
    system.realize(s, Stage.Instance)
    np.testing.assert_array_equal(s.getUWeights(), [1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(s.getUWeights(ic), [2.0, 3.0, 4.0])
    np.testing.assert_array_equal(s.getQErrWeights(ic), [1.0, 5.0])
    np.testing.assert_array_equal(s.getZWeights(), [6.0, 1.0, 1.0])
    np.testing.assert_array_equal(s.getUErrWeights(), [1.0, 7.0, 1.0])


# ------------------------------------------------- derivative and error caches

CACHE_READS = [
    ("getQDot", Stage.Velocity),
    ("getUDot", Stage.Acceleration),
    ("getZDot", Stage.Acceleration),
    ("getQDotDot", Stage.Acceleration),
    ("getYDot", Stage.Acceleration),
    ("getQErr", Stage.Position),
    ("getUErr", Stage.Velocity),
    ("getYErr", Stage.Velocity),
    ("getUDotErr", Stage.Acceleration),
    ("getMultipliers", Stage.Acceleration),
]


@pytest.mark.parametrize("name,needed", CACHE_READS, ids=[c[0] for c in CACHE_READS])
def test_derivative_caches_readable_only_from_their_stage(name, needed):
    system, osc = make_oscillator_system()
    s = realized(system, needed.prev())
    with pytest.raises(StageTooLowError) as info:
        getattr(s, name)()
    assert info.value.needed == needed and info.value.current == needed.prev()
    assert needed.getName() in str(info.value) and name in str(info.value)
    if name not in ("getYDot", "getYErr"):
        with pytest.raises(StageTooLowError, match=needed.getName()):
            getattr(s, name)(osc.getMySubsystemIndex())
    system.realize(s, needed)
    getattr(s, name)()
    if name not in ("getYDot", "getYErr"):
        getattr(s, name)(osc.getMySubsystemIndex())


def test_derivative_values_come_from_the_realize_hooks():
    system, osc = make_oscillator_system(n=2, q0=[0.5, -0.25], u0=[1.0, 2.0], k=4.0, m=2.0)
    s = realized(system, Stage.Acceleration)
    np.testing.assert_array_equal(s.getQDot(), [1.0, 2.0])
    np.testing.assert_allclose(s.getUDot(), [-1.0, 0.5])
    np.testing.assert_allclose(s.getQDotDot(), [-1.0, 0.5])
    np.testing.assert_allclose(s.getZDot(), [0.5 * 2.0 * 5.0])
    np.testing.assert_allclose(s.getYDot(), [1.0, 2.0, -1.0, 0.5, 5.0])
    np.testing.assert_allclose(s.getQErr(), [0.5])


# ------------------------------------------------------------ read-only views

READERS = [
    "getY", "getQ", "getU", "getZ", "getUWeights", "getZWeights", "getQErrWeights",
    "getUErrWeights", "getQDot", "getUDot", "getZDot", "getQDotDot", "getYDot", "getYErr",
    "getQErr", "getUErr", "getUDotErr", "getMultipliers", "getEventTriggers",
]  # fmt: skip


@pytest.mark.parametrize("name", READERS)
def test_read_accessors_return_read_only_views(name):
    system, osc = make_oscillator_system()
    s = realized(system, Stage.Report)
    before = s.toString()
    view = getattr(s, name)()
    assert isinstance(view, np.ndarray) and not view.flags.writeable
    if view.size:
        with pytest.raises(ValueError, match="read-only"):
            view[0] = 123.0
        with pytest.raises(ValueError, match="read-only"):
            view += 1.0
    assert s.getSystemStage() == Stage.Report
    assert s.toString() == before


@pytest.mark.parametrize("name", ["getQ", "getU", "getZ", "getUWeights", "getQErr", "getQDot"])
def test_per_subsystem_read_accessors_are_read_only(name):
    system, osc = make_oscillator_system()
    s = realized(system, Stage.Report)
    view = getattr(s, name)(osc.getMySubsystemIndex())
    assert view.size and not view.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        view[0] = 1.0


def test_discrete_and_cache_array_values_are_read_only():
    s, i = _one_subsystem()
    dv = s.allocateDiscreteVariable(i, Stage.Dynamics, np.array([1.0, 2.0]))
    ce = s.allocateCacheEntry(i, Stage.Instance, np.array([3.0]))
    advance_all(s, Stage.Instance)
    with pytest.raises(ValueError, match="read-only"):
        s.getDiscreteVariable(i, dv)[0] = 9.0
    with pytest.raises(ValueError, match="read-only"):
        s.getCacheEntry(i, ce)[0] = 9.0
    np.testing.assert_array_equal(s.getDiscreteVariable(i, dv), [1.0, 2.0])
    np.testing.assert_array_equal(s.getCacheEntry(i, ce), [3.0])


# ------------------------------------------------------------------- bad input

BAD_WRITES = [
    ("setQ wrong length", lambda s, i: s.setQ([1.0]), InvalidArgumentError, "length 2"),
    ("setQ NaN", lambda s, i: s.setQ([1.0, np.nan]), InvalidArgumentError, "element 1 is nan"),
    ("setU inf", lambda s, i: s.setU([np.inf, 0.0]), InvalidArgumentError, "finite"),
    ("setU array, last NaN", lambda s, i: s.setU(np.array([0.5, np.nan])), InvalidArgumentError,
     "element 1 is nan"),
    ("setQ strided array", lambda s, i: s.setQ(np.array([0.5, 9.0, -np.inf])[::2]),
     InvalidArgumentError, "element 1 is -inf"),
    ("setY array, first inf", lambda s, i: s.setY(np.array([np.inf, 1, 2, 3, 4.0])),
     InvalidArgumentError, "element 0 is inf"),
    ("setZ 2-d", lambda s, i: s.setZ([[1.0]]), InvalidArgumentError, "length 1"),
    ("setY short", lambda s, i: s.setY(np.zeros(4)), InvalidArgumentError, "length 5"),
    ("setTime NaN", lambda s, i: s.setTime(np.nan), InvalidArgumentError, "finite"),
    ("updQ bad subsystem", lambda s, i: s.updQ(7), IndexOutOfRangeError, "no subsystem 7"),
    ("updU bad subsystem", lambda s, i: s.updU(-1), IndexOutOfRangeError, "no subsystem -1"),
    ("updZ bad subsystem", lambda s, i: s.updZ(9), IndexOutOfRangeError, "no subsystem 9"),
    ("updUWeights bad", lambda s, i: s.updUWeights(9), IndexOutOfRangeError, "no subsystem"),
    ("updZWeights bad", lambda s, i: s.updZWeights(9), IndexOutOfRangeError, "no subsystem"),
    ("updQErrWeights bad", lambda s, i: s.updQErrWeights(9), IndexOutOfRangeError, "no subsystem"),
    ("updUErrWeights bad", lambda s, i: s.updUErrWeights(9), IndexOutOfRangeError, "no subsystem"),
    ("getQ bad subsystem", lambda s, i: s.getQ(5), IndexOutOfRangeError, "2 subsystem"),
    ("subsystem index type", lambda s, i: s.getNQ("one"), IndexOutOfRangeError, "must be an int"),
    (
        "setDiscreteVariable bad index",
        lambda s, i: s.setDiscreteVariable(i, 99, 1.0),
        IndexOutOfRangeError,
        "no discrete variable 99",
    ),
    (
        "updDiscreteVariable bad subsystem",
        lambda s, i: s.updDiscreteVariable(4, 0),
        IndexOutOfRangeError,
        "no subsystem 4",
    ),
    ("getCacheEntry unknown", lambda s, i: s.getCacheEntry(i, 99), IndexOutOfRangeError,
     "no cache entry 99"),
    ("markCacheValueRealized unknown", lambda s, i: s.markCacheValueRealized(i, 50),
     IndexOutOfRangeError, "no cache entry 50"),
    ("markCacheValueNotRealized unknown", lambda s, i: s.markCacheValueNotRealized(i, 50),
     IndexOutOfRangeError, "no cache entry 50"),
]  # fmt: skip


@pytest.mark.parametrize(
    "op,error,text", [b[1:] for b in BAD_WRITES], ids=[b[0] for b in BAD_WRITES]
)
def test_bad_input_raises_typed_error_and_changes_nothing(op, error, text):
    system, osc = make_oscillator_system()
    s = realized(system, Stage.Report)
    i = osc.getMySubsystemIndex()
    before = (s.toString(), s.cacheToString(), s.getSystemStageVersions())
    with pytest.raises(error) as info:
        op(s, i)
    assert isinstance(info.value, SimTKError)
    assert text in str(info.value)
    assert s.getSystemStage() == Stage.Report
    assert (s.toString(), s.cacheToString(), s.getSystemStageVersions()) == before


def test_errors_are_also_python_builtins():
    s, i = _one_subsystem()
    with pytest.raises(IndexError):
        s.getSubsystemName(2)
    with pytest.raises(ValueError):
        s.allocateQ(i, [np.nan])
    with pytest.raises(RuntimeError):
        s.getTime()


def test_setters_copy_read_only_and_strided_arrays():
    system, _ = make_oscillator_system()
    s = realized(system, Stage.Report)
    other = s.copy()
    other.setU(np.array([0.25, -0.5]))
    s.setU(other.getU())  # a read-only view of another State's u
    np.testing.assert_array_equal(s.getU(), [0.25, -0.5])
    assert s.getSystemStage() == Stage.Position
    s.setQ(np.array([1.5, 9.0, -2.0, 9.0])[::2])  # strided: the checked copy
    np.testing.assert_array_equal(s.getQ(), [1.5, -2.0])
    assert s.getSystemStage() == Stage.Time
