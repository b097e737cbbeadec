"""Copying a State (deep copy of variables, copy valid through Instance, own lock),
isConsistent, clear, and the toString / cacheToString dumps."""

from __future__ import annotations

import copy
import threading

import numpy as np
import pytest

from engine.common.exceptions import StageTooLowError
from engine.common.stage import Stage
from engine.common.state import State
from engine.common.system import System
from tests.engine.framework_fixtures import (
    CountsSubsystem,
    HarmonicOscillator,
    make_oscillator_system,
    realized,
)


@pytest.fixture
def osc_system():
    return make_oscillator_system(n=2, q0=[0.5, 0.25], u0=[1.0, -1.0])


@pytest.mark.parametrize("how", ["State(s)", "s.copy()", "copy.copy", "copy.deepcopy"])
def test_copy_is_deep_in_both_directions(osc_system, how):
    system, osc = osc_system
    ix = osc.getMySubsystemIndex()
    s = realized(system, Stage.Acceleration)
    osc.setDiscreteVariable(s, osc.dv_k, np.array([4.0]))
    s.setTime(0.75)
    system.realize(s, Stage.Acceleration)
    c = {
        "State(s)": State,
        "s.copy()": State.copy,
        "copy.copy": copy.copy,
        "copy.deepcopy": copy.deepcopy,
    }[how](s)
    assert isinstance(c, State) and c is not s
    np.testing.assert_array_equal(c.getY(), s.getY())
    assert c.getTime() == 0.75
    # Changing the copy does not change the original ...
    c.updQ()[0] = 100.0
    c.setU([7.0, 7.0])
    c.setZ([8.0])
    c.updDiscreteVariable(ix, osc.dv_k)[0] = 99.0
    c.setTime(5.0)
    np.testing.assert_array_equal(s.getQ(), [0.5, 0.25])
    np.testing.assert_array_equal(s.getU(), [1.0, -1.0])
    assert s.getZ()[0] == 0.0 and s.getTime() == 0.75
    np.testing.assert_array_equal(osc.getDiscreteVariable(s, osc.dv_k), [4.0])
    assert s.getSystemStage() == Stage.Acceleration
    # ... and vice versa.
    s.setQ([-1.0, -2.0])
    s.updUWeights()[0] = 3.0
    np.testing.assert_array_equal(c.getQ(), [100.0, 0.25])
    assert c.getUWeights()[0] == 1.0


def test_copy_is_at_min_of_stage_and_instance(osc_system):
    system, _ = osc_system
    for stage in (Stage.Model, Stage.Instance, Stage.Time, Stage.Report):
        s = realized(system, stage)
        c = State(s)
        assert c.getSystemStage() == min(stage, Stage.Instance)
        assert all(
            c.getSubsystemStage(i) == min(stage, Stage.Instance)
            for i in range(c.getNumSubsystems())
        )
        assert s.getSystemStage() == stage  # the source is untouched
    # A copy of a State at Model keeps its variables but has no Instance resources yet.
    c = State(realized(system, Stage.Model))
    np.testing.assert_array_equal(c.getQ(), [0.5, 0.25])
    with pytest.raises(StageTooLowError):
        c.getNQErr()


def test_copy_keeps_instance_cache_and_drops_later_cache(osc_system):
    system, osc = osc_system
    s = realized(system, Stage.Report)
    c = State(s)
    assert osc.getCacheEntry(c, osc.ce_inv_mass) == 1.0  # Instance stage survives
    assert not osc.isCacheValueRealized(c, osc.ce_q2)
    assert not osc.isCacheValueRealized(c, osc.ce_summary)
    system.realize(c, Stage.Report)
    assert osc.isCacheValueRealized(c, osc.ce_summary)


def test_explicit_marks_do_not_survive_into_a_copy(osc_system):
    system, osc = osc_system
    ix = osc.getMySubsystemIndex()
    s = realized(system, Stage.Dynamics)
    osc.getTotalEnergy(s)  # lazy entry marked in the source
    assert osc.isCacheValueRealized(s, osc.ce_energy)
    c = State(s)
    c.setQ([3.0, 3.0])
    system.realize(c, Stage.Dynamics)
    # The copy was realized from changed q; the source's mark must not make it look current.
    assert not c.isCacheValueRealized(ix, osc.ce_energy)
    assert osc.getTotalEnergy(c) != osc.getTotalEnergy(s)
    # Nor does the copy's stage history look like the source's.
    assert c.getLowestSystemStageDifference(s.getSystemStageVersions()) <= Stage.Time


def test_copy_has_its_own_lock(osc_system):
    system, _ = osc_system
    s = realized(system, Stage.Time)
    c = State(s)
    lock = s.getStateLock()
    assert lock is s.getStateLock()
    assert c.getStateLock() is not lock
    assert isinstance(lock, type(threading.RLock()))
    with lock, lock:  # re-entrant
        pass


def test_is_consistent():
    def build(n_osc, extra_nq=0):
        system = System()
        system.adoptSubsystem(HarmonicOscillator(n=n_osc))
        if extra_nq:
            system.adoptSubsystem(CountsSubsystem("extra", nq=extra_nq))
        return realized(system, Stage.Instance)

    a, b = build(2), build(2)
    assert a.isConsistent(b) and b.isConsistent(a)
    assert a.isConsistent(State(a))
    assert not a.isConsistent(build(3))  # different nq, nu
    assert not a.isConsistent(build(2, extra_nq=1))  # different subsystem count and nq
    system, _ = make_oscillator_system()
    with pytest.raises(StageTooLowError, match="Instance"):
        a.isConsistent(system.realizeTopology())


def test_clear_restores_default_constructed_state(osc_system):
    system, _ = osc_system
    s = realized(system, Stage.Acceleration)
    lock = s.getStateLock()
    s.clear()
    fresh = State()
    assert s.getNumSubsystems() == 0 == fresh.getNumSubsystems()
    assert s.getSystemStage() == Stage.Empty
    assert s.getSystemStageVersions() == fresh.getSystemStageVersions()
    assert s.toString() == fresh.toString()
    assert s.getStateLock() is lock
    with pytest.raises(StageTooLowError):
        s.getQ()


def test_to_string_mentions_subsystems_and_values(osc_system):
    system, osc = osc_system
    s = realized(system, Stage.Position)
    s.setTime(1.5)
    osc.setDiscreteVariable(s, osc.dv_k, 6.25)
    text = s.toString()
    for piece in ("DefaultSystemSubsystem", "'oscillator'", "1.5", "0.5", "0.25", "-1.",
                  "stiffness", "6.25", "mass", "step count"):  # fmt: skip
        assert piece in text, piece
    assert "system stage Instance" in text


def test_cache_to_string_mentions_entries_and_validity(osc_system):
    system, osc = osc_system
    s = realized(system, Stage.Position)
    text = s.cacheToString()
    lines = {
        line.split("]")[1].split("(")[0].strip(): line for line in text.splitlines() if "]" in line
    }
    for name in ("inverse mass", "sum q^2", "kinetic energy", "total energy", "summary"):
        assert name in lines, name
    assert "valid" in lines["sum q^2"] and "stale" not in lines["sum q^2"]
    assert "stale" in lines["summary"] and "stale" in lines["total energy"]
    assert "lazy" in lines["total energy"]
    assert "'oscillator'" in text and "DefaultSystemSubsystem" in text
    system.realize(s, Stage.Report)
    assert "stale" not in s.cacheToString().split("summary")[1].splitlines()[0]


def test_repr_is_short(osc_system):
    system, _ = osc_system
    assert repr(realized(system, Stage.Time)) == "<State stage=Time subsystems=2>"
