"""The one-call realization of Position..Acceleration (engine.multibody.fused_realization)
gives what the stage-by-stage path gives, records the stages the same way, and steps aside
whenever some stage work is not compiled.

The stage-by-stage reference is the same System with its fused realization switched off
(``system._fused_realization = None``), realizing a copy of the same State.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from engine import Constraint, Force, Measure, Stage
from tests.engine.test_matter_operator_oracles import DYNAMIC_TYPES, random_tree

RUNTIME = (Stage.Position, Stage.Velocity, Stage.Dynamics, Stage.Acceleration)


def _with_every_compiled_force(seed: int, nbodies: int = 10):
    """A random tree under every force element that has a compiled term."""
    system, matter, mobods, _, rng = random_tree(seed, DYNAMIC_TYPES, nbodies=nbodies)
    forces = system._force_subsystems[0]
    gravity = Force.Gravity(forces, matter, [0.1, -1.0, 0.2], 9.81)
    Force.UniformGravity(forces, matter, [0.5, 0.0, -1.0])
    pin, slider, screw = mobods[1:4]  # random_tree's first bodies take the types in order
    spring = Force.MobilityLinearSpring(forces, pin, 0, 7.0, 0.2)
    Force.MobilityLinearDamper(forces, slider, 0, 0.8)
    Force.MobilityConstantForce(forces, screw, 0, -1.5)
    Force.ConstantTorque(forces, mobods[3], [0.2, -0.1, 0.4])
    Force.ConstantForce(forces, mobods[4], [0.1, 0.2, -0.3], [1.0, -2.0, 0.5])
    Force.GlobalDamper(forces, matter, 0.3)
    state = system.realizeTopology()
    gravity.setBodyIsExcluded(state, mobods[2], True)
    return system, matter, mobods, state, rng, spring


def _randomize(system, matter, state, rng) -> None:
    state.setQ(rng.uniform(-0.8, 0.8, state.getNQ()))
    system.realize(state, Stage.Time)
    matter.normalizeQuaternions(state)
    state.setU(rng.uniform(-1.0, 1.0, state.getNU()))


def _outputs(system, matter, state) -> dict:
    nb = matter.getNumBodies()
    return {
        "qdot": np.array(state.getQDot()),
        "udot": np.array(state.getUDot()),
        "qdotdot": np.array(state.getQDotDot()),
        "qerr": np.array(state.getQErr()),
        "ke": matter.calcKineticEnergy(state),
        "pe": system.calcPotentialEnergy(state),
        "body_forces": system.getRigidBodyForces(state),
        "mobility_forces": system.getMobilityForces(state),
        "V_GB": np.array([matter.getMobilizedBody(b).getBodyVelocity(state) for b in range(nb)]),
        "A_GB": np.array(
            [matter.getMobilizedBody(b).getBodyAcceleration(state) for b in range(nb)]
        ),
        "X_GB": np.array(
            [matter.getMobilizedBody(b).getBodyTransform(state).p() for b in range(nb)]
        ),
    }


def _stage_by_stage(system, state, stage=Stage.Acceleration):
    fused = system._fused_realization
    system._fused_realization = None
    try:
        system.realize(state, stage)
    finally:
        system._fused_realization = fused


def _assert_same(a: dict, b: dict) -> None:
    for key, value in a.items():
        np.testing.assert_allclose(value, b[key], rtol=1e-13, atol=1e-13, err_msg=key)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_fused_realization_equals_stage_by_stage(seed):
    system, matter, _, state, rng, _ = _with_every_compiled_force(seed)
    _randomize(system, matter, state, rng)
    assert system._fused_realization.whyNotFused(state) == ""
    reference = state.copy()
    counts_before = [system.getNumRealizationsOfThisStage(s) for s in RUNTIME]
    system.realize(state, Stage.Acceleration)
    counts = [system.getNumRealizationsOfThisStage(s) for s in RUNTIME]
    assert [c - b for c, b in zip(counts, counts_before, strict=True)] == [1, 1, 1, 1]
    _stage_by_stage(system, reference)
    _assert_same(_outputs(system, matter, state), _outputs(system, matter, reference))

    # after a change of u only (Velocity..Acceleration; the articulated inertias are kept)
    u = rng.uniform(-2.0, 2.0, state.getNU())
    state.setU(u)
    reference.setU(u)
    system.realize(state, Stage.Acceleration)
    _stage_by_stage(system, reference)
    _assert_same(_outputs(system, matter, state), _outputs(system, matter, reference))


def test_fused_realization_records_stages_like_stage_by_stage():
    system, matter, _, state, rng, _ = _with_every_compiled_force(5)
    _randomize(system, matter, state, rng)
    system.realize(state, Stage.Dynamics)  # Position..Dynamics in one call
    assert state.getSystemStage() == Stage.Dynamics
    assert all(
        state.getSubsystemStage(i) == Stage.Dynamics for i in range(system.getNumSubsystems())
    )
    system.realize(state, Stage.Report)  # Acceleration fused, then Report stage by stage
    assert state.getSystemStage() == Stage.Report
    reference = state.copy()
    reference.setU(state.getU())
    _stage_by_stage(system, reference, Stage.Report)
    _assert_same(_outputs(system, matter, state), _outputs(system, matter, reference))


def _subsystem_stages(state) -> list:
    return [state.getSubsystemStage(i) for i in range(state.getNumSubsystems())]


def test_subsystems_in_lockstep_read_and_invalidate_like_separate_ones():
    system, matter, _, state, rng, spring = _with_every_compiled_force(8)
    _randomize(system, matter, state, rng)
    system.realize(state, Stage.Acceleration)
    assert state._shared.stage == Stage.Acceleration  # one kernel realized them all
    n = state.getNumSubsystems()
    # The twin realizes stage by stage: its subsystems keep their own stage records.
    twin = state.copy()
    assert twin._shared.stage is None
    assert _subsystem_stages(twin) == [Stage.Instance] * n
    _stage_by_stage(system, twin)
    versions = [state.getPerSubsystemInfo(i).stage_versions for i in range(n)]
    twin_versions = [twin.getPerSubsystemInfo(i).stage_versions for i in range(n)]
    for edit in (
        lambda s: s.setU(np.asarray(s.getU()) * 0.9),
        lambda s: spring.setStiffness(s, 9.0),
        lambda s: s.invalidateAll(Stage.Report),
    ):
        edit(state)
        edit(twin)
        assert state.getSystemStage() == twin.getSystemStage()
        assert _subsystem_stages(state) == _subsystem_stages(twin)
        for i in range(n):  # the same stages changed version
            now = state.getPerSubsystemInfo(i).stage_versions
            twin_now = twin.getPerSubsystemInfo(i).stage_versions
            for k in range(twin.getSubsystemStage(i) + 1):
                assert (now[k] != versions[i][k]) == (twin_now[k] != twin_versions[i][k])
        system.realize(state, Stage.Acceleration)
        _stage_by_stage(system, twin)
        np.testing.assert_allclose(state.getUDot(), twin.getUDot(), rtol=1e-13, atol=1e-13)
        versions = [state.getPerSubsystemInfo(i).stage_versions for i in range(n)]
        twin_versions = [twin.getPerSubsystemInfo(i).stage_versions for i in range(n)]
    # A subsystem advancing on its own ends the lockstep; the stages stay what they were.
    state.invalidateAll(Stage.Position)
    assert state._shared.stage == Stage.Time
    state.advanceSubsystemToStage(0, Stage.Position)
    assert state._shared.stage is None
    assert _subsystem_stages(state) == [Stage.Position] + [Stage.Time] * (n - 1)
    with pytest.raises(Exception, match="only advance one stage"):
        state.advanceSubsystemToStage(1, Stage.Velocity)
    system.realize(state, Stage.Acceleration)  # stage by stage (not all at Time)
    assert state._shared.stage is None
    assert _subsystem_stages(state) == [Stage.Acceleration] * n


def test_a_parameter_change_is_seen_by_the_next_fused_realization():
    system, matter, _, state, rng, spring = _with_every_compiled_force(6)
    _randomize(system, matter, state, rng)
    system.realize(state, Stage.Acceleration)
    before = np.array(state.getUDot())
    spring.setStiffness(state, 70.0)  # invalidates Dynamics
    system.realize(state, Stage.Acceleration)
    reference = state.copy()
    reference.setU(state.getU())
    _stage_by_stage(system, reference)
    assert not np.allclose(state.getUDot(), before)
    np.testing.assert_allclose(state.getUDot(), reference.getUDot(), rtol=1e-13, atol=1e-13)


def test_a_copy_realizes_its_own_arrays():
    system, matter, _, state, rng, _ = _with_every_compiled_force(7)
    _randomize(system, matter, state, rng)
    system.realize(state, Stage.Acceleration)
    copy = state.copy()
    system.realize(copy, Stage.Acceleration)
    udot = np.array(copy.getUDot())
    np.testing.assert_array_equal(udot, state.getUDot())
    assert state._shared.stage == copy._shared.stage == Stage.Acceleration  # lockstep
    state.setQ(np.asarray(state.getQ()) + 0.1)  # the original backs up, not the copy
    n = state.getNumSubsystems()
    assert _subsystem_stages(state) == [Stage.Time] * n
    assert _subsystem_stages(copy) == [Stage.Acceleration] * n  # both were in lockstep
    system.realize(state, Stage.Acceleration)
    np.testing.assert_array_equal(copy.getUDot(), udot)  # the copy was not written
    copy.setU(np.asarray(copy.getU()) * 0.5)
    system.realize(copy, Stage.Acceleration)
    reference = copy.copy()
    reference.setU(copy.getU())
    _stage_by_stage(system, reference)
    np.testing.assert_allclose(copy.getUDot(), reference.getUDot(), rtol=1e-13, atol=1e-13)


def test_work_that_is_not_compiled_is_realized_stage_by_stage():
    system, matter, mobods, state, rng, _ = _with_every_compiled_force(8)
    fused = system._fused_realization
    # (a Rod, Ball, Weld... has a compiled form: docs/compiled-constraints.md)
    rod = Constraint.ConstantSpeed(mobods[1], 0.5)
    state = system.realizeTopology()
    system.realize(state, Stage.Instance)
    assert fused.whyNotFused(state) == (
        "constraints without a compiled form are enabled (constraint 0, a ConstantSpeed: its "
        "type has no compiled form)"
    )
    rod.disable(state)  # a discrete-variable change: the plan is made again
    system.realize(state, Stage.Instance)
    assert fused.whyNotFused(state) == ""

    class Push:
        def calcForce(self, state, bodyForces, particleForces, mobilityForces):
            mobilityForces[0] += 1.0

        def calcPotentialEnergy(self, state):
            return 0.0

    Force.Custom(system._force_subsystems[0], Push())
    state = system.realizeTopology()
    system.realize(state, Stage.Instance)
    assert "compiled force term" in fused.whyNotFused(state)
    _randomize(system, matter, state, rng)
    system.realize(state, Stage.Acceleration)  # still right, stage by stage
    reference = state.copy()
    reference.setU(state.getU())
    _stage_by_stage(system, reference)
    np.testing.assert_array_equal(state.getUDot(), reference.getUDot())


def test_measures_with_stage_work_keep_the_stage_by_stage_path():
    system, matter, _, state, rng, _ = _with_every_compiled_force(9)
    ds = system.getDefaultSubsystem()
    # Measures that compute their values when asked leave the fused realization alone
    time, wave = Measure.Time(ds), Measure.Sinusoid(ds, 2.0, 3.0)
    total = Measure.Plus(ds, time, wave)
    state = system.realizeTopology()
    system.realize(state, Stage.Instance)
    assert system.whyNotFused(state) == ""
    _randomize(system, matter, state, rng)
    state.setTime(0.25)
    system.realize(state, Stage.Acceleration)
    reference = state.copy()
    reference.setU(state.getU())
    _stage_by_stage(system, reference)
    np.testing.assert_array_equal(state.getUDot(), reference.getUDot())
    assert total.getValue(state) == 0.25 + 2.0 * np.sin(3.0 * 0.25)
    # one that tracks its operand at Acceleration stage does not
    Measure.Maximum(ds, wave)
    state = system.realizeTopology()
    system.realize(state, Stage.Instance)
    assert system.whyNotFused(state) == "a Measure.Maximum does work at Acceleration stage"


_NOJIT_SCRIPT = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    from engine import Stage
    from tests.engine.test_fused_realization import _randomize, _with_every_compiled_force
    system, matter, _, state, rng, _ = _with_every_compiled_force(11, nbodies=5)
    _randomize(system, matter, state, rng)
    system.realize(state, Stage.Acceleration)
    fused = system._fused_realization.whyNotFused(state) == ""
    json.dump({"fused": fused, "udot": np.asarray(state.getUDot()).tolist()}, sys.stdout)
    """
)


@pytest.mark.slow
def test_pure_python_fused_realization_gives_the_compiled_accelerations():
    system, matter, _, state, rng, _ = _with_every_compiled_force(11, nbodies=5)
    _randomize(system, matter, state, rng)
    system.realize(state, Stage.Acceleration)
    proc = subprocess.run(
        [sys.executable, "-c", _NOJIT_SCRIPT],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
        env=dict(os.environ, NUMBA_DISABLE_JIT="1"),
        timeout=240,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["fused"]  # the one-call path ran, as numpy views of the table
    np.testing.assert_allclose(result["udot"], state.getUDot(), rtol=1e-12, atol=1e-12)


def _books(state) -> tuple:
    """Everything a State's stage bookkeeping shows: stages, which stage versions are set
    (per subsystem and the System's, as numbers), and which cache entries are current."""
    n = state.getNumSubsystems()
    infos = [state.getPerSubsystemInfo(i) for i in range(n)]
    return (
        state.getSystemStage(),
        tuple(info.stage for info in infos),
        tuple(tuple(info.stage_versions) for info in infos),
        tuple(state.getSystemStageVersions()),
        tuple(state.isCacheValueRealized(i, ce.index) for i in range(n) for ce in infos[i].cache),
    )


def _same_changes(before_a, after_a, before_b, after_b) -> None:
    """The same stages changed version in both States (between their before and after),
    counting only the stages that were valid before."""
    for sub in range(len(before_a[1])):
        valid = before_a[1][sub] + 1
        changed_a = [after_a[2][sub][k] != before_a[2][sub][k] for k in range(valid)]
        changed_b = [after_b[2][sub][k] != before_b[2][sub][k] for k in range(valid)]
        assert changed_a == changed_b, f"subsystem {sub}"
    valid = min(len(before_a[3]), len(after_a[3]))
    changed_a = [after_a[3][k] != before_a[3][k] for k in range(valid)]
    changed_b = [after_b[3][k] != before_b[3][k] for k in range(valid)]
    assert changed_a == changed_b, "System"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_edits_keep_the_same_books_as_stage_by_stage(seed):
    """A State realized by the one-call path and its twin realized stage by stage go
    through the same random edits, realizations, lazy realizations and copies: after
    each, their stages, the stages whose versions changed, the cache entries that are
    current and the accelerations are the same."""
    system, matter, _, fused, rng, spring = _with_every_compiled_force(20 + seed)
    _randomize(system, matter, fused, rng)
    fused, twin = fused.copy(), fused.copy()  # both at Instance stage
    nq, nu = fused.getNQ(), fused.getNU()
    stages = [Stage.Time, *RUNTIME, Stage.Report]
    edits = [
        lambda s, r: s.setU(r.uniform(-1.0, 1.0, nu)),
        lambda s, r: s.setQ(np.asarray(s.getQ()) + r.uniform(-0.01, 0.01, nq)),
        lambda s, r: s.setTime(r.uniform(0.0, 1.0)),
        lambda s, r: spring.setStiffness(s, r.uniform(1.0, 9.0)),
        lambda s, r: s.invalidateAll(stages[r.integers(len(stages))]),
        lambda s, r: s.updU()[0:1].fill(r.uniform(-1.0, 1.0)),
    ]
    op_rng = np.random.default_rng(seed)
    for _ in range(60):
        before = (_books(fused), _books(twin))
        action = op_rng.integers(4)
        if action == 0:  # an edit, the same numbers in both
            edit = edits[op_rng.integers(len(edits))]
            draw = int(op_rng.integers(1 << 30))
            edit(fused, np.random.default_rng(draw))
            edit(twin, np.random.default_rng(draw))
        elif action == 1:  # realize to a random stage
            stage = stages[op_rng.integers(len(stages))]
            system.realize(fused, stage)
            _stage_by_stage(system, twin, stage)
        elif action == 2 and fused.getSystemStage() >= Stage.Position:  # lazy
            matter.realizeArticulatedBodyInertias(fused)
            matter.realizeArticulatedBodyInertias(twin)
            if fused.getSystemStage() >= Stage.Velocity:
                matter.realizeVelocityKinematics(fused)
                matter.realizeVelocityKinematics(twin)
        elif action == 3:  # copies
            fused, twin = fused.copy(), twin.copy()
            before = (_books(fused), _books(twin))
        after = (_books(fused), _books(twin))
        assert after[0][:2] == after[1][:2]  # stages
        assert after[0][4] == after[1][4]  # current cache entries
        _same_changes(before[0], after[0], before[1], after[1])
        if fused.getSystemStage() >= Stage.Acceleration:
            np.testing.assert_allclose(fused.getUDot(), twin.getUDot(), rtol=1e-12, atol=1e-12)


def test_fused_realization_follows_the_articulated_inertias_entry_marked_elsewhere():
    """The fused realization keeps its answer to whether the articulated inertias are
    current only while no cache entry is edited: marked stale by hand they are
    recomputed, computed and marked realized by multiplyByMInv they are not, and the
    accelerations equal the stage-by-stage path's."""
    system, matter, _, state, rng, _ = _with_every_compiled_force(11)
    _randomize(system, matter, state, rng)
    fused = system._fused_realization
    system.realize(state, Stage.Acceleration)
    plan = fused._current_plan(state)
    seen: list[bool] = []
    kernel = plan.fn

    def spy(first, last, with_inertias, *args):
        seen.append(with_inertias)
        return kernel(first, last, with_inertias, *args)

    plan.fn = spy
    entry = plan.ctx.abi_entry
    sx = matter.getMySubsystemIndex()
    state.markCacheValueNotRealized(sx, entry.index)
    state.setU(rng.uniform(-1.0, 1.0, state.getNU()))
    system.realize(state, Stage.Acceleration)
    state.setU(rng.uniform(-1.0, 1.0, state.getNU()))
    system.realize(state, Stage.Acceleration)
    assert seen == [True, False]
    state.setQ(state.getQ() + 0.03)
    system.realize(state, Stage.Position)
    assert not state.isCacheValueRealized(sx, entry.index)
    matter.multiplyByMInv(state, np.ones(state.getNU()))  # computes and marks them
    assert state.isCacheValueRealized(sx, entry.index)
    reference = state.copy()
    seen.clear()
    system.realize(state, Stage.Acceleration)
    assert seen == [False]
    _stage_by_stage(system, reference)
    _assert_same(_outputs(system, matter, state), _outputs(system, matter, reference))


def test_fused_realization_recomputes_articulated_inertias_exactly_when_q_changed():
    """realize reads the matter subsystem's stage versions itself (own records and the
    lockstep's shared ones) to decide whether the kernel recomputes the articulated
    inertias: after setQ it must, after setU it must not, and a State whose subsystems
    keep their own records (a copy) is judged by those."""
    system, matter, _, state, rng, _ = _with_every_compiled_force(9)
    _randomize(system, matter, state, rng)
    fused = system._fused_realization
    system.realize(state, Stage.Acceleration)
    plan = fused._current_plan(state)
    seen: list[bool] = []
    kernel = plan.fn

    def spy(first, last, with_inertias, *args):
        seen.append(with_inertias)
        return kernel(first, last, with_inertias, *args)

    plan.fn = spy
    state.setU(rng.uniform(-1.0, 1.0, state.getNU()))
    system.realize(state, Stage.Acceleration)
    state.setQ(state.getQ() + 0.05)
    system.realize(state, Stage.Acceleration)
    state.setU(rng.uniform(-1.0, 1.0, state.getNU()))
    system.realize(state, Stage.Acceleration)
    assert seen == [False, True, False]

    # a copy's subsystems keep their own stage records (not in lockstep) when its q changes
    twin = state.copy()
    twin.setQ(twin.getQ() - 0.1)
    reference = twin.copy()
    system.realize(twin, Stage.Acceleration)
    _stage_by_stage(system, reference)
    _assert_same(_outputs(system, matter, twin), _outputs(system, matter, reference))
    twin.setU(rng.uniform(-1.0, 1.0, twin.getNU()))
    reference.setU(twin.getU())
    system.realize(twin, Stage.Acceleration)
    _stage_by_stage(system, reference)
    _assert_same(_outputs(system, matter, twin), _outputs(system, matter, reference))


def test_the_plan_is_made_again_exactly_when_a_discrete_variable_or_instance_changes():
    """The plan stays while only q, u and t change; a discrete variable's change (a
    force parameter, invalidating Dynamics only) or Instance stage invalidated makes it
    again, and the accelerations still equal the stage-by-stage path's."""
    system, matter, _, state, rng, spring = _with_every_compiled_force(7)
    _randomize(system, matter, state, rng)
    system.realize(state, Stage.Acceleration)
    fused = system._fused_realization
    plan = fused._current_plan(state)
    state.setTime(0.5)
    state.setQ(state.getQ() + 0.01)
    state.setU(rng.uniform(-1.0, 1.0, state.getNU()))
    system.realize(state, Stage.Acceleration)
    assert fused._current_plan(state) is plan
    spring.setStiffness(state, 70.0)
    remade = fused._current_plan(state)
    assert remade is not plan
    system.realize(state, Stage.Acceleration)
    assert fused._current_plan(state) is remade
    state.invalidateAll(Stage.Instance)
    system.realize(state, Stage.Acceleration)
    assert fused._current_plan(state) is not remade
    reference = state.copy()
    _stage_by_stage(system, reference)
    _assert_same(_outputs(system, matter, state), _outputs(system, matter, reference))
