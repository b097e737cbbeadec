"""System: subsystems, realizeTopology / realizeModel / realize, hook calls, counters,
topology changes, hints."""

from __future__ import annotations

import numpy as np
import pytest

from engine.common.default_system_subsystem import DefaultSystemSubsystem
from engine.common.exceptions import (
    IndexOutOfRangeError,
    InvalidArgumentError,
    SimTKError,
    StageTooLowError,
    TopologyMismatchError,
)
from engine.common.stage import Stage
from engine.common.state import State
from engine.common.subsystem import Subsystem
from engine.common.system import System
from engine.math.coordinate_axis import CoordinateDirection, XAxis, YAxis, ZAxis
from tests.engine.framework_fixtures import (
    HOOK_STAGES,
    RUNTIME_STAGES,
    HarmonicOscillator,
    RecordingSubsystem,
    Ticker,
    realized,
)


def _recording_system(n: int = 2):
    system = System("recorder", "2.0")
    log: list = []
    subs = [RecordingSubsystem(f"R{k}", log) for k in range(n)]
    for sub in subs:
        system.adoptSubsystem(sub)
    return system, subs, log


# ------------------------------------------------------------- subsystems


def test_default_system_subsystem_is_index_zero():
    system = System("named", "1.2")
    assert (system.getName(), system.getVersion()) == ("named", "1.2")
    assert system.getNumSubsystems() == 1
    default = system.getDefaultSubsystem()
    assert isinstance(default, DefaultSystemSubsystem)
    assert system.getSubsystem(0) is default and system.updDefaultSubsystem() is default
    assert default.getMySubsystemIndex() == 0 and default.getSystem() is system
    assert default.getName() == "DefaultSystemSubsystem"
    s = system.realizeTopology()
    assert s.getSubsystemName(0) == "DefaultSystemSubsystem"


def test_adopt_subsystem():
    system = System()
    a, b = Subsystem("a"), Subsystem("b")
    assert not a.isInSystem()
    with pytest.raises(SimTKError, match="'a' has not been added"):
        a.getMySubsystemIndex()
    with pytest.raises(SimTKError, match="'a' has not been added"):
        a.getSystem()
    assert system.adoptSubsystem(a) == 1
    assert system.adoptSubsystem(b) == 2
    assert a.isInSystem() and a.isInSameSystem(b) and a.getSystem() is system
    assert system.getSubsystem(2) is b and system.updSubsystem(1) is a
    assert system.getNumSubsystems() == 3
    with pytest.raises(SimTKError, match="only once"):
        System().adoptSubsystem(a)
    with pytest.raises(InvalidArgumentError, match="Subsystem"):
        system.adoptSubsystem("not a subsystem")
    with pytest.raises(IndexOutOfRangeError, match="no subsystem 3"):
        system.getSubsystem(3)
    assert system.getNumSubsystems() == 3
    s = system.realizeTopology()
    assert [s.getSubsystemName(i) for i in range(3)] == ["DefaultSystemSubsystem", "a", "b"]
    assert a.getStage(s) == Stage.Model
    assert system.isSameSystem(system) and not system.isSameSystem(System())


# --------------------------------------------------------------- topology


def test_realize_topology_returns_a_copy_at_model():
    system = System()
    osc = HarmonicOscillator(n=2)
    system.adoptSubsystem(osc)
    with pytest.raises(SimTKError, match="realizeTopology"):
        system.getDefaultState()
    assert not system.systemTopologyHasBeenRealized()
    s = system.realizeTopology()
    assert system.systemTopologyHasBeenRealized()
    default = system.getDefaultState()
    assert s is not default and system.updDefaultState() is default
    assert s.getSystemStage() == Stage.Model == default.getSystemStage()
    assert s.getSystemTopologyStageVersion() == system.getSystemTopologyCacheVersion()
    # Modifying the returned State does not modify the default State.
    s.setQ([5.0, 6.0])
    osc.setDiscreteVariable(s, osc.dv_k, 1.0)
    system.realize(s, Stage.Acceleration)
    np.testing.assert_array_equal(default.getQ(), osc.q_init)
    assert osc.getDiscreteVariable(default, osc.dv_k) == 4.0
    assert default.getSystemStage() == Stage.Model
    # Calling it again does no new work and returns another fresh copy.
    n_topology = system.getNumRealizationsOfThisStage(Stage.Topology)
    s2 = system.realizeTopology()
    assert system.getNumRealizationsOfThisStage(Stage.Topology) == n_topology
    assert s2 is not s
    np.testing.assert_array_equal(s2.getQ(), osc.q_init)


def test_realize_default_state_returns_the_default_state_itself():
    """``realizeDefaultState`` realizes the topology once, as ``realizeTopology`` does, and
    hands out the default State itself: what is set in it is what later ``realizeTopology``
    copies hold."""
    system = System()
    osc = HarmonicOscillator(n=2)
    system.adoptSubsystem(osc)
    default = system.realizeDefaultState()
    assert default is system.getDefaultState()
    assert default.getSystemStage() == Stage.Model
    assert system.getNumRealizationsOfThisStage(Stage.Topology) == 1
    assert system.realizeDefaultState() is default
    default.setQ([5.0, 6.0])
    system.realize(default, Stage.Acceleration)
    copy = system.realizeTopology()
    assert copy is not default and system.getNumRealizationsOfThisStage(Stage.Topology) == 1
    np.testing.assert_array_equal(copy.getQ(), [5.0, 6.0])
    assert copy.getSystemStage() == Stage.Instance  # (a copy is valid through Instance)
    copy.setQ([1.0, 2.0])
    np.testing.assert_array_equal(default.getQ(), [5.0, 6.0])


def test_state_from_before_a_topology_change_is_refused():
    system = System("changing")
    osc = HarmonicOscillator()
    system.adoptSubsystem(osc)
    old = system.realizeTopology()
    system.realize(old, Stage.Position)
    version = system.getSystemTopologyCacheVersion()

    system.adoptSubsystem(HarmonicOscillator(name="second"))
    assert not system.systemTopologyHasBeenRealized()
    with pytest.raises(SimTKError, match="realizeTopology"):
        system.realize(old, Stage.Velocity)
    with pytest.raises(SimTKError):
        system.getDefaultState()
    new = system.realizeTopology()
    assert system.getSystemTopologyCacheVersion() > version
    for call in (
        lambda: system.realize(old, Stage.Velocity),
        lambda: system.realizeModel(old),
        lambda: system.project(old),
        lambda: system.prescribe(old),
        lambda: system.multiplyByN(old, old.getU()),
        lambda: system.calcEventTriggerInfo(old),
        lambda: system.handleEvents(old, 3, []),
    ):
        with pytest.raises(TopologyMismatchError) as info:
            call()
        assert "'changing'" in str(info.value) and "realizeTopology" in str(info.value)
    assert old.getSystemStage() == Stage.Position  # refused, untouched
    system.realize(new, Stage.Acceleration)
    assert new.getNumSubsystems() == 3

    # Adding an event handler is a topology change too.
    system.addEventHandler(Ticker(1.0))
    newer = system.realizeTopology()
    with pytest.raises(TopologyMismatchError):
        system.realize(new, Stage.Report)
    system.realize(newer, Stage.Report)


def test_invalidate_system_topology_cache_and_version_override():
    system = System()
    s = system.realizeTopology()
    v = system.getSystemTopologyCacheVersion()
    system.invalidateSystemTopologyCache()
    assert not system.systemTopologyHasBeenRealized()
    system.realizeTopology()
    assert system.getSystemTopologyCacheVersion() == v + 1
    with pytest.raises(TopologyMismatchError):
        system.realize(s, Stage.Time)
    s.setSystemTopologyStageVersion(v + 1)  # (advanced) force compatibility
    system.realize(s, Stage.Time)
    assert s.getSystemStage() == Stage.Time


# --------------------------------------------------------------- realize


def test_realize_calls_each_hook_once_per_stage_in_order():
    system, (r0, r1), log = _recording_system()
    s = system.realizeTopology()
    assert log == [
        (name, stage, stage.prev())
        for stage in (Stage.Topology, Stage.Model)
        for name in ("R0", "R1")
    ]
    log.clear()
    system.realize(s, Stage.Position)
    expected = [(n, g, g.prev()) for g in RUNTIME_STAGES[:3] for n in ("R0", "R1")]
    assert log == expected
    log.clear()
    system.realize(s, Stage.Position)  # already there: no hook runs
    system.realize(s, Stage.Time)
    assert log == []
    s.setU([])  # invalidates Velocity, which is not valid: still nothing to do
    system.realize(s, Stage.Position)
    assert log == []
    system.realize(s, Stage.Report)
    assert log == [(n, g, g.prev()) for g in RUNTIME_STAGES[3:] for n in ("R0", "R1")]
    log.clear()
    s.setTime(1.0)  # back to Instance
    system.realize(s, Stage.Velocity)
    assert log == [(n, g, g.prev()) for g in RUNTIME_STAGES[1:4] for n in ("R0", "R1")]


def test_realize_follows_the_systems_subsystem_order():
    class Reversed(System):
        def getSubsystemRealizationOrder(self, stage):
            n = self.getNumSubsystems()
            return range(n - 1, -1, -1) if stage == Stage.Acceleration else range(n)

    system, log = Reversed(), []
    for k in range(3):
        system.adoptSubsystem(RecordingSubsystem(f"R{k}", log))
    s = system.realizeTopology()
    system.realize(s, Stage.Acceleration)
    at_acc = [name for name, stage, _ in log if stage == Stage.Acceleration]
    at_dyn = [name for name, stage, _ in log if stage == Stage.Dynamics]
    assert at_acc == ["R2", "R1", "R0"] and at_dyn == ["R0", "R1", "R2"]


def test_realize_skips_subsystems_already_at_the_stage():
    system, (r0, r1), log = _recording_system()
    s = realized(system, Stage.Time)
    log.clear()
    s.advanceSubsystemToStage(r0.getMySubsystemIndex(), Stage.Position)
    system.realize(s, Stage.Position)
    assert log == [("R1", Stage.Position, Stage.Time)]
    assert s.getSystemStage() == Stage.Position


def test_realize_below_model_says_to_call_realize_model():
    system, subs, log = _recording_system(1)
    s = system.realizeTopology()
    s.invalidateAll(Stage.Model)
    assert s.getSystemStage() == Stage.Topology
    with pytest.raises(StageTooLowError) as info:
        system.realize(s, Stage.Time)
    assert "realizeModel" in str(info.value) and "Topology" in str(info.value)
    assert info.value.needed == Stage.Model and info.value.current == Stage.Topology
    log.clear()
    system.realizeModel(s)
    assert log == [("R0", Stage.Model, Stage.Topology)]
    system.realizeModel(s)  # already at Model: nothing
    assert len(log) == 1
    system.realize(s, Stage.Time)
    assert s.getSystemStage() == Stage.Time


def test_realize_model_reallocates_model_stage_allocations():
    system = System()
    osc = HarmonicOscillator()
    system.adoptSubsystem(osc)
    s = realized(system, Stage.Instance)
    assert s.getNQErr() == 1  # allocated by the Model hook
    s.invalidateAll(Stage.Model)
    system.realizeModel(s)
    system.realize(s, Stage.Instance)
    assert s.getNQErr() == 1 and s.getNUErr() == 1


def test_realize_refuses_stage_above_report_and_non_states():
    system, subs, log = _recording_system(1)
    s = realized(system, Stage.Time)
    with pytest.raises(InvalidArgumentError, match="Report"):
        system.realize(s, Stage.Infinity)
    assert s.getSystemStage() == Stage.Time
    with pytest.raises(InvalidArgumentError, match="State"):
        system.realize("state", Stage.Time)
    system.realize(s)  # default: Report
    assert s.getSystemStage() == Stage.Report


def test_hooks_see_a_usable_state():
    system = System()
    osc = HarmonicOscillator(n=3, q0=[1.0, 2.0, 3.0], k=2.0)
    system.adoptSubsystem(osc)
    s = realized(system, Stage.Report)
    assert osc.getCacheEntry(s, osc.ce_q2) == 14.0
    assert osc.getCacheEntry(s, osc.ce_inv_mass) == 1.0
    assert osc.getCacheEntry(s, osc.ce_summary).startswith("t=0")
    np.testing.assert_allclose(s.getUDot(), [-2.0, -4.0, -6.0])


# -------------------------------------------------------------- counters


def test_num_realizations_count_stages_actually_computed():
    system, subs, log = _recording_system(1)
    s = system.realizeTopology()
    assert system.getNumRealizationsOfThisStage(Stage.Topology) == 1
    assert system.getNumRealizationsOfThisStage(Stage.Model) == 1
    system.realize(s, Stage.Velocity)
    system.realize(s, Stage.Velocity)
    s.setQ([])
    system.realize(s, Stage.Dynamics)
    counts = [system.getNumRealizationsOfThisStage(g) for g in RUNTIME_STAGES]
    assert counts == [1, 1, 2, 2, 1, 0, 0]
    assert system.getNumRealizationsOfThisStage(Stage.Empty) == 0
    system.resetAllCountersToZero()
    assert all(system.getNumRealizationsOfThisStage(g) == 0 for g in HOOK_STAGES)
    assert system.getNumRealizeCalls() == 0


def test_num_realize_calls_counts_every_call():
    # System.txt: "the total number of calls to realizeTopology(), realizeModel(), or
    # realize(), regardless of whether these routines actually did anything". Simbody 3.7's
    # reference data (stages.json `counters`) shows 0 throughout because of a bug in Simbody
    # 3.7 (the counter is never incremented); we follow the documented behaviour.
    system, subs, log = _recording_system(1)
    s = system.realizeTopology()
    assert system.getNumRealizeCalls() == 1
    system.realizeTopology()  # nothing to do, still a call
    system.realizeModel(s)  # already at Model
    system.realize(s, Stage.Instance)
    system.realize(s, Stage.Instance)
    system.realize(s, Stage.Time)
    assert system.getNumRealizeCalls() == 6
    # A refused call is still a call.
    with pytest.raises(InvalidArgumentError):
        system.realize(s, Stage.Infinity)
    assert system.getNumRealizeCalls() == 7


# ------------------------------------------------------------------ hints


def test_hints_and_their_defaults():
    system = System()
    assert system.getUpDirection() == CoordinateDirection(YAxis, 1)
    assert system.getUseUniformBackground() is False
    assert system.getDefaultTimeScale() == 0.1
    assert system.getDefaultLengthScale() == 1.0
    assert system.hasTimeAdvancedEvents() is False
    # Setters chain and accept any signed axis.
    assert system.setUpDirection(ZAxis) is system
    assert system.getUpDirection() == CoordinateDirection(ZAxis, 1)
    system.setUpDirection(-ZAxis)
    assert system.getUpDirection() == CoordinateDirection(ZAxis, -1)
    system.setUpDirection(-XAxis)
    np.testing.assert_array_equal(system.getUpDirection().asVec3(), [-1.0, 0.0, 0.0])
    system.setUpDirection(CoordinateDirection(YAxis, -1))
    assert system.getUpDirection().getDirection() == -1
    assert system.setUseUniformBackground(True).getUseUniformBackground() is True
    assert system.setDefaultTimeScale(10.0).getDefaultTimeScale() == 10.0
    assert system.setDefaultLengthScale(0.01).getDefaultLengthScale() == 0.01
    system.setHasTimeAdvancedEvents(True)
    assert system.hasTimeAdvancedEvents() is True


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), float("inf")])
def test_hints_refuse_non_positive_scales(bad):
    system = System()
    with pytest.raises(InvalidArgumentError, match="time scale"):
        system.setDefaultTimeScale(bad)
    with pytest.raises(InvalidArgumentError, match="length scale"):
        system.setDefaultLengthScale(bad)
    assert system.getDefaultTimeScale() == 0.1 and system.getDefaultLengthScale() == 1.0


def test_up_direction_refuses_non_directions():
    system = System()
    for bad in ("Y", [0, 1, 0], 1):
        with pytest.raises(InvalidArgumentError, match="direction"):
            system.setUpDirection(bad)
    assert system.getUpDirection() == CoordinateDirection(YAxis, 1)


def test_state_made_by_hand_for_a_system():
    """A State whose topology version was never set does not belong to the System."""
    system = System()
    system.realizeTopology()
    with pytest.raises(TopologyMismatchError):
        system.realize(State(), Stage.Time)
