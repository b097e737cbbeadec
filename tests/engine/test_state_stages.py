"""State stage bookkeeping: what each kind of change invalidates, the system-stage rule,
advancing one stage at a time, invalidateAll / invalidateAllCacheAtOrAbove, and the stage
and value version numbers."""

from __future__ import annotations

import numpy as np
import pytest

from engine.common.exceptions import (
    SimTKError,
    StageOutOfRangeError,
    StageTooLowError,
)
from engine.common.stage import ALL_STAGES, Stage
from engine.common.state import State
from tests.engine.framework_fixtures import (
    CountsSubsystem,
    HarmonicOscillator,
    advance_all,
    make_oscillator_system,
    realized,
)


@pytest.fixture
def osc_system():
    return make_oscillator_system(n=2)


def _setq(s, osc):
    s.setQ(np.array([0.3, 0.4]))


def _write_through_updq(s, osc):
    s.updQ()[0] += 0.01


def _set_time_via_handle(s, osc):
    s.updTime().value = 2.5


# (operation, stage afterwards) starting from a State realized through Report.
TRANSITIONS = [
    ("setTime", lambda s, o: s.setTime(0.5), Stage.Instance),
    ("updTime (no write)", lambda s, o: s.updTime(), Stage.Instance),
    ("updTime().value = 2.5", _set_time_via_handle, Stage.Instance),
    ("setQ", _setq, Stage.Time),
    ("updQ (no write)", lambda s, o: s.updQ(), Stage.Time),
    ("updQ()[0] += 0.01", _write_through_updq, Stage.Time),
    ("updQ(subsys) (no write)", lambda s, o: s.updQ(o.getMySubsystemIndex()), Stage.Time),
    ("Subsystem.updQ (no write)", lambda s, o: o.updQ(s), Stage.Time),
    ("setU", lambda s, o: s.setU([1.0, 2.0]), Stage.Position),
    ("updU (no write)", lambda s, o: s.updU(), Stage.Position),
    ("updU(subsys) (no write)", lambda s, o: s.updU(o.getMySubsystemIndex()), Stage.Position),
    ("setZ", lambda s, o: s.setZ([3.0]), Stage.Velocity),
    ("updZ (no write)", lambda s, o: s.updZ(), Stage.Velocity),
    ("updZ(subsys) (no write)", lambda s, o: s.updZ(o.getMySubsystemIndex()), Stage.Velocity),
    ("setY", lambda s, o: s.setY(np.arange(5.0)), Stage.Time),
    ("updY (no write)", lambda s, o: s.updY(), Stage.Time),
    (
        "setDiscreteVariable (invalidates Dynamics)",
        lambda s, o: o.setDiscreteVariable(s, o.dv_k, 9.0),
        Stage.Velocity,
    ),
    (
        "updDiscreteVariable (no write, invalidates Dynamics)",
        lambda s, o: o.updDiscreteVariable(s, o.dv_k),
        Stage.Velocity,
    ),
    (
        "setDiscreteVariable (invalidates Instance)",
        lambda s, o: o.setDiscreteVariable(s, o.dv_m, 2.0),
        Stage.Model,
    ),
    ("updUWeights", lambda s, o: s.updUWeights(), Stage.Acceleration),
    ("updZWeights", lambda s, o: s.updZWeights(), Stage.Acceleration),
    ("updQErrWeights", lambda s, o: s.updQErrWeights(), Stage.Time),
    ("updUErrWeights", lambda s, o: s.updUErrWeights(), Stage.Position),
    ("invalidateAll(Position)", lambda s, o: s.invalidateAll(Stage.Position), Stage.Time),
    ("invalidateAll(Report)", lambda s, o: s.invalidateAll(Stage.Report), Stage.Acceleration),
    (
        "invalidateAllCacheAtOrAbove(Dynamics)",
        lambda s, o: s.invalidateAllCacheAtOrAbove(Stage.Dynamics),
        Stage.Velocity,
    ),
    (
        "invalidateAllCacheAtOrAbove(Instance)",
        lambda s, o: s.invalidateAllCacheAtOrAbove(Stage.Instance),
        Stage.Model,
    ),
    # Neither reading, nor writable access to cache, nor the auto-update swap invalidates.
    ("getQ/getU/getZ/getY", lambda s, o: (s.getQ(), s.getU(), s.getZ(), s.getY()), Stage.Report),
    ("updQDot/updUDot", lambda s, o: (s.updQDot(), s.updUDot(), s.updYDot()), Stage.Report),
    ("updCacheEntry", lambda s, o: o.updCacheEntry(s, o.ce_q2), Stage.Report),
    (
        "markCacheValueNotRealized",
        lambda s, o: o.markCacheValueNotRealized(s, o.ce_q2),
        Stage.Report,
    ),
    ("autoUpdateDiscreteVariables", lambda s, o: s.autoUpdateDiscreteVariables(), Stage.Report),
]


@pytest.mark.parametrize(
    "op,expected", [(t[1], t[2]) for t in TRANSITIONS], ids=[t[0] for t in TRANSITIONS]
)
def test_stage_after_each_kind_of_change(osc_system, op, expected):
    system, osc = osc_system
    s = realized(system, Stage.Report)
    op(s, osc)
    assert s.getSystemStage() == expected
    for i in range(s.getNumSubsystems()):
        assert s.getSubsystemStage(i) == expected


def test_change_below_the_invalidated_stage_leaves_stage_alone(osc_system):
    system, osc = osc_system
    s = realized(system, Stage.Time)
    s.setU([1.0, 1.0])  # invalidates Velocity; the State is only at Time
    s.setZ([1.0])
    osc.setDiscreteVariable(s, osc.dv_k, 1.0)
    assert s.getSystemStage() == Stage.Time
    s.setQ([0.0, 0.0])
    assert s.getSystemStage() == Stage.Time


def test_time_and_values_really_change(osc_system):
    system, osc = osc_system
    s = realized(system, Stage.Acceleration)
    s.updTime().value = 3.0
    assert s.getTime() == 3.0
    s.updQ()[1] = 7.0
    s.updU(osc.getMySubsystemIndex())[0] = 8.0
    s.updZ()[0] = 9.0
    np.testing.assert_array_equal(s.getY(), [0.1, 7.0, 8.0, 0.0, 9.0])


def test_updtime_rejects_non_finite(osc_system):
    system, _ = osc_system
    s = realized(system, Stage.Time)
    handle = s.updTime()
    with pytest.raises(SimTKError, match="finite"):
        handle.value = float("nan")
    assert s.getTime() == 0.0


# ------------------------------------------------------------- system stage rule
def _bare_two_subsystems():
    s = State()
    a = s.addSubsystem("A", "1")
    b = s.addSubsystem("B", "2")
    s.allocateQ(a, [1.0, 2.0])
    s.allocateU(a, [3.0, 4.0])
    s.allocateZ(b, [5.0])
    return s, a, b


def test_advance_subsystem_one_stage_at_a_time():
    s, a, b = _bare_two_subsystems()
    s.advanceSubsystemToStage(a, Stage.Topology)
    with pytest.raises(StageOutOfRangeError, match="one stage at a time"):
        s.advanceSubsystemToStage(a, Stage.Instance)
    with pytest.raises(StageOutOfRangeError):
        s.advanceSubsystemToStage(a, Stage.Topology)  # already there
    assert s.getSubsystemStage(a) == Stage.Topology
    s.advanceSubsystemToStage(a, Stage.Model)
    assert s.getSubsystemStage(a) == Stage.Model
    assert s.getSubsystemStage(b) == Stage.Empty


def test_system_stage_never_above_lowest_subsystem_stage():
    s, a, b = _bare_two_subsystems()
    s.advanceSubsystemToStage(a, Stage.Topology)
    s.advanceSubsystemToStage(a, Stage.Model)
    # A is ahead, B lags: the system cannot advance and stays at Empty.
    assert s.getSystemStage() == Stage.Empty
    with pytest.raises(StageOutOfRangeError, match="'B'"):
        s.advanceSystemToStage(Stage.Topology)
    assert s.getSystemStage() == Stage.Empty
    s.advanceSubsystemToStage(b, Stage.Topology)
    s.advanceSystemToStage(Stage.Topology)
    assert s.getSystemStage() == Stage.Topology
    with pytest.raises(StageOutOfRangeError, match="only at Topology"):
        s.advanceSystemToStage(Stage.Model)
    # The system also advances only one stage at a time.
    s.advanceSubsystemToStage(b, Stage.Model)
    for i in (a, b):
        s.advanceSubsystemToStage(i, Stage.Instance)
    with pytest.raises(StageOutOfRangeError, match="only advance to Model"):
        s.advanceSystemToStage(Stage.Instance)
    assert s.getSystemStage() == Stage.Topology
    assert s.getSystemStage() <= min(s.getSubsystemStage(a), s.getSubsystemStage(b))


def test_invalidation_backs_up_every_subsystem_and_the_system():
    s, a, b = _bare_two_subsystems()
    advance_all(s, Stage.Velocity)
    s.advanceSubsystemToStage(a, Stage.Dynamics)  # A alone is ahead
    s.invalidateAll(Stage.Dynamics)
    assert s.getSubsystemStage(a) == Stage.Velocity
    assert s.getSubsystemStage(b) == Stage.Velocity
    assert s.getSystemStage() == Stage.Velocity
    s.invalidateAll(Stage.Position)
    assert [s.getSubsystemStage(i) for i in (a, b)] == [Stage.Time, Stage.Time]
    assert s.getSystemStage() == Stage.Time
    # Invalidating a stage that is not valid does nothing.
    s.invalidateAll(Stage.Report)
    assert s.getSystemStage() == Stage.Time


def test_invalidate_all_cache_refuses_below_instance():
    s, a, b = _bare_two_subsystems()
    advance_all(s, Stage.Position)
    for stage in (Stage.Model, Stage.Topology, Stage.Empty):
        with pytest.raises(StageOutOfRangeError, match="Instance"):
            s.invalidateAllCacheAtOrAbove(stage)
        assert s.getSystemStage() == Stage.Position
    with pytest.raises(StageOutOfRangeError, match="Empty"):
        s.invalidateAll(Stage.Empty)
    s.invalidateAllCacheAtOrAbove(Stage.Instance)
    assert s.getSystemStage() == Stage.Model
    # The variables survive cache invalidation.
    np.testing.assert_array_equal(s.getQ(), [1.0, 2.0])


def test_invalidate_all_model_discards_variables():
    s, a, b = _bare_two_subsystems()
    advance_all(s, Stage.Time)
    s.setQ([9.0, 9.0])
    s.invalidateAll(Stage.Model)
    assert s.getSystemStage() == Stage.Topology
    with pytest.raises(StageTooLowError, match="Model"):
        s.getQ()
    advance_all(s, Stage.Model)
    np.testing.assert_array_equal(s.getQ(), [1.0, 2.0])  # back to the initial values


def test_stage_arguments_are_checked():
    s, a, b = _bare_two_subsystems()
    with pytest.raises(StageOutOfRangeError):
        s.invalidateAll(42)
    with pytest.raises(StageOutOfRangeError):
        s.advanceSubsystemToStage(a, "Topology")
    assert s.getSubsystemStage(a) == Stage.Empty


# ----------------------------------------------------------------- versions
def test_stage_versions_report_what_changed(osc_system):
    system, osc = osc_system
    s = realized(system, Stage.Acceleration)
    before = s.getSystemStageVersions()
    assert len(before) == Stage.Acceleration + 1
    assert all(v >= 1 for v in before)
    # Nothing changed, even after realizing again.
    system.realize(s, Stage.Acceleration)
    assert s.getLowestSystemStageDifference(before) == Stage.Infinity
    # u changed and the State was realized again: Velocity is the lowest difference.
    s.setU([0.5, 0.5])
    system.realize(s, Stage.Acceleration)
    after = s.getSystemStageVersions()
    assert after[: Stage.Velocity] == before[: Stage.Velocity]
    assert all(after[g] > before[g] for g in range(Stage.Velocity, Stage.Acceleration + 1))
    assert s.getLowestSystemStageDifference(before) == Stage.Velocity
    # A time change is seen at Time.
    s.setTime(1.0)
    system.realize(s, Stage.Acceleration)
    assert s.getLowestSystemStageDifference(after) == Stage.Time


def test_lowest_difference_when_realized_less_or_further(osc_system):
    system, _ = osc_system
    s = realized(system, Stage.Dynamics)
    at_dynamics = s.getSystemStageVersions()
    # Realized further with nothing changed: stages only valid now do not count.
    system.realize(s, Stage.Report)
    assert s.getLowestSystemStageDifference(at_dynamics) == Stage.Infinity
    # Realized less far than before (lower versions all match): first unrealized stage.
    at_report = s.getSystemStageVersions()
    s.invalidateAll(Stage.Velocity)
    assert s.getLowestSystemStageDifference(at_report) == Stage.Velocity
    assert s.getLowestSystemStageDifference(s.getSystemStageVersions()) == Stage.Infinity


def test_topology_stage_version_matches_system(osc_system):
    system, _ = osc_system
    s = system.realizeTopology()
    assert s.getSystemTopologyStageVersion() == system.getSystemTopologyCacheVersion()


def test_value_versions_increment_on_set_and_upd(osc_system):
    system, osc = osc_system
    s = realized(system, Stage.Model)
    q0, u0, z0 = s.getQValueVersion(), s.getUValueVersion(), s.getZValueVersion()
    assert min(q0, u0, z0) >= 1  # allocated
    s.setQ([1.0, 1.0])
    assert (s.getQValueVersion(), s.getUValueVersion(), s.getZValueVersion()) == (q0 + 1, u0, z0)
    s.updQ()
    assert s.getQValueVersion() == q0 + 2
    s.setU([1.0, 1.0])
    s.updU()
    assert s.getUValueVersion() == u0 + 2
    s.setZ([1.0])
    s.updZ()
    assert s.getZValueVersion() == z0 + 2
    s.updY()
    assert (s.getQValueVersion(), s.getUValueVersion(), s.getZValueVersion()) == (
        q0 + 3,
        u0 + 3,
        z0 + 3,
    )
    # Reading does not count.
    s.getQ(), s.getY()
    assert s.getQValueVersion() == q0 + 3


def test_last_invalidation_cause_is_recorded(osc_system):
    system, _ = osc_system
    s = realized(system, Stage.Acceleration)
    s.setU([0.0, 1.0])
    assert "setU" in s.getLastInvalidationCause(Stage.Velocity)
    assert s.getLastInvalidationCause(Stage.Time) == ""


def test_counts_subsystem_in_several_subsystems_realize_together():
    from engine.common.system import System

    system = System()
    log: list = []
    for k in range(3):
        system.adoptSubsystem(CountsSubsystem(f"S{k}", nq=k, nu=k, tag=k, log=log))
    system.adoptSubsystem(HarmonicOscillator(log=log))
    s = realized(system, Stage.Velocity)
    assert s.getSystemStage() == Stage.Velocity
    assert {s.getSubsystemStage(i) for i in range(s.getNumSubsystems())} == {Stage.Velocity}
    assert ALL_STAGES[s.getSystemStage()] is Stage.Velocity


def test_subsystem_stage_versions_change_with_each_invalidated_stage(osc_system):
    system, _ = osc_system
    s = realized(system, Stage.Acceleration)
    subs = [s.getPerSubsystemInfo(i) for i in range(s.getNumSubsystems())]
    before = [info.stage_versions for info in subs]
    s.setU([0.5, 0.5])  # backs every subsystem up from Velocity
    after = [info.stage_versions for info in subs]
    for old, new in zip(before, after, strict=True):
        assert new[: Stage.Velocity] == old[: Stage.Velocity]
        assert all(new[g] != old[g] for g in range(Stage.Velocity, Stage.Acceleration + 1))
    # Realizing again changes no version; a Dynamics invalidation leaves Velocity's.
    system.realize(s, Stage.Acceleration)
    assert [info.stage_versions for info in subs] == after
    s.invalidateAll(Stage.Dynamics)
    again = [info.stage_versions for info in subs]
    for old, new in zip(after, again, strict=True):
        assert new[: Stage.Dynamics] == old[: Stage.Dynamics]
        assert new[Stage.Dynamics] != old[Stage.Dynamics]
