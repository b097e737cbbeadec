"""The matter operators' per-call shortcuts (``_Operators`` in
engine.multibody.matter.stage_realization and the compiled entry points
``checked_operators.ENTRY``): each entry point computes what its numba dispatcher computes,
and a State the operators have already seen is still refused when it belongs to another
System or topology, when a stage it needs was invalidated, and is recomputed when an
Instance-stage change (a lock) or an explicit invalidation of the lazy inertias happened
since; with every shortcut taken the results equal those of a fresh copy of the State."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.common import build_ours, humanoid_links
from engine import (
    Body,
    InvalidArgumentError,
    MassProperties,
    MobilizedBody,
    Stage,
    StageTooLowError,
    State,
    TopologyMismatchError,
    Transform,
    UnitInertia,
    Vec3,
)
from engine.common.numba_internals import JIT_ENABLED
from engine.multibody.kernels import checked_operators

POSITION_OPERATORS = (
    "calcM",
    "multiplyByM",
    "multiplyByMInv",
    "calcSystemJacobian",
    "multiplyBySystemJacobian",
    "multiplyBySystemJacobianTranspose",
)
OPERATORS = (*POSITION_OPERATORS, "calcResidualForceIgnoringConstraints")


def _humanoid(seed: int = 5):
    system, matter = build_ours(humanoid_links())
    state = system.realizeTopology()
    rng = np.random.default_rng(seed)
    state.setQ(state.getQ() + 0.2 * rng.normal(size=state.getNQ()))
    state.setU(rng.normal(size=state.getNU()))
    system.realize(state, Stage.Acceleration)
    return system, matter, state, rng


def _inputs(matter, state, rng) -> dict:
    nu, nb = state.getNU(), matter.getNumBodies()
    v, F = rng.normal(size=nu), rng.normal(size=(nb, 2, 3))
    f, udot = rng.normal(size=nu), rng.normal(size=nu)
    return {
        "calcM": (),
        "multiplyByM": (v,),
        "multiplyByMInv": (v,),
        "calcSystemJacobian": (),
        "multiplyBySystemJacobian": (v,),
        "multiplyBySystemJacobianTranspose": (F,),
        "calcResidualForceIgnoringConstraints": (f, F, udot),
    }


def _call(matter, state, args: dict, names=OPERATORS) -> dict:
    return {name: getattr(matter, name)(state, *args[name]) for name in names}


def _fresh(system, state, stage: Stage) -> State:
    """A copy of ``state`` (which the operators have not seen) realized to ``stage``."""
    copy = State(state)
    system.realize(copy, stage)
    return copy


def _assert_same(got: dict, expected: dict) -> None:
    for name, value in expected.items():
        np.testing.assert_array_equal(got[name], value, err_msg=name)


def test_each_entry_point_computes_what_its_dispatcher_computes():
    system, matter, state, rng = _humanoid()
    matter.calcM(state)  # the State's kernel table
    ops = state._fast[matter]
    nu, nb = state.getNU(), matter.getNumBodies()
    v, F = rng.normal(size=nu), rng.normal(size=(nb, 2, 3))
    cbi = np.zeros((nb, 6, 6))
    # the operators' kernels take the table's shapes alone: their last row leads to the
    # addresses
    assert ops.s.shape == (ops.a.shape[0] + 1, 3)
    assert (ops.s[-1, 0], ops.s[-1, 1]) == (ops.a.ctypes.data, ops.a.shape[0])
    table = (ops.s,)
    calls = {  # name: (arguments before the output, output)
        "m_inverse_times": ((*table, True, v), np.empty(nu)),
        "m_times": ((*table, v), np.empty(nu)),
        "mass_matrix": ((*table, True, cbi), np.empty((nu, nu))),
        "jacobian": (table, np.empty((6 * nb, nu))),
        "jacobian_times": ((*table, v), np.empty((nb, 2, 3))),
        "jacobian_transpose_times": ((*table, F), np.empty(nu)),
        "residual": ((ops.a, ops.s, F, v, rng.normal(size=nu)), np.empty(nu)),
    }
    assert set(calls) == set(checked_operators.SIGNATURES)
    for name, (args, out) in calls.items():
        entry = checked_operators.entry(name)
        dispatcher = checked_operators._KERNELS[name]
        assert (entry is not dispatcher) == JIT_ENABLED, name
        expected = np.full_like(out, np.nan)
        assert dispatcher(*args, expected) == 0, name
        assert entry(*args, out) == 0, name
        np.testing.assert_array_equal(out, expected, err_msg=name)
        assert np.all(np.isfinite(out)), name
        # ENTRY's attribute: the entry point once called (at first, a loader of it)
        assert getattr(checked_operators.ENTRY, name)(*args, out) == 0, name
        assert getattr(checked_operators.ENTRY, name) is entry, name
        np.testing.assert_array_equal(out, expected, err_msg=name)
    with pytest.raises(AttributeError):
        checked_operators.ENTRY.no_such_kernel  # noqa: B018


def test_each_entry_point_refuses_an_input_it_cannot_read_before_reading_it():
    """An entry point's input argument (checked_float64_array) must be an ndarray of the
    kernel's number of dimensions and dtype np.dtype(np.float64): anything else is
    refused with TypeError and the output is left as it was; a strided, read-only or
    subclass array is read as it is."""
    system, matter, state, rng = _humanoid()
    matter.calcM(state)
    ops = state._fast[matter]
    nu, nb = state.getNU(), matter.getNumBodies()
    v, F = rng.normal(size=nu), rng.normal(size=(nb, 2, 3))
    vector_kernels = {
        "m_inverse_times": lambda x, out: (ops.s, True, x, out),
        "m_times": lambda x, out: (ops.s, x, out),
        "jacobian_times": lambda x, out: (ops.s, x, out),
    }
    outputs = {"m_inverse_times": (nu,), "m_times": (nu,), "jacobian_times": (nb, 2, 3)}
    refused_vectors = [
        v.astype(np.int64),
        v.astype(np.float32),
        v.astype(">f8"),
        v.astype(np.complex128),
        v.reshape(1, nu),
        np.ones((nu, 2, 3, 4, 5, 6)),  # more dimensions than the argument has room for
        np.array(1.0),
        v.tolist(),
        None,
        1.0,
    ]
    strided = np.repeat(v, 2)[::2]
    read_only = v.copy()
    read_only.flags.writeable = False
    for name, arguments in vector_kernels.items():
        entry = checked_operators.entry(name)
        expected = np.empty(outputs[name])
        assert entry(*arguments(v, expected)) == 0, name
        for wrong in refused_vectors:
            out = np.full(outputs[name], 7.0)
            with pytest.raises(TypeError, match="ndarray of 1 dimension"):
                entry(*arguments(wrong, out))
            assert np.all(out == 7.0), name
        for taken in (strided, read_only, np.ma.masked_array(v)):
            out = np.empty(outputs[name])
            assert entry(*arguments(taken, out)) == 0, name
            np.testing.assert_array_equal(out, expected, err_msg=name)
    entry = checked_operators.entry("jacobian_transpose_times")
    expected = np.empty(nu)
    assert entry(ops.s, F, expected) == 0
    for wrong in (F.astype(np.int64), F.astype(">f8"), F.reshape(nb, 6), F.reshape(nb, 2, 3, 1)):
        out = np.full(nu, 7.0)
        with pytest.raises(TypeError, match="ndarray of 3 dimension"):
            entry(ops.s, wrong, out)
        assert np.all(out == 7.0)
    out = np.empty(nu)
    assert entry(ops.s, np.repeat(F, 2, axis=2)[:, :, ::2], out) == 0
    np.testing.assert_array_equal(out, expected)


def test_a_seen_state_of_another_system_or_topology_is_refused_by_every_operator():
    system, matter, state, rng = _humanoid()
    args = _inputs(matter, state, rng)
    _call(matter, state, args)  # every shortcut of this State is set up
    other_system, other_matter, other_state, _ = _humanoid(seed=6)
    _call(other_matter, other_state, args)
    for name in OPERATORS:
        with pytest.raises(TopologyMismatchError, match="another System"):
            getattr(matter, name)(other_state, *args[name])
        with pytest.raises(InvalidArgumentError, match="needs a State"):
            getattr(matter, name)([1.0, 2.0], *args[name])
    # a new topology of the same System: the State seen before is refused
    MobilizedBody.Pin(
        matter.Ground(),
        Transform(Vec3(3, 0, 0)),
        Body.Rigid(MassProperties(1.0, Vec3(0), UnitInertia(1.0))),
        Transform(),
    )
    system.realizeTopology()
    for name in OPERATORS:
        with pytest.raises(TopologyMismatchError, match="earlier topology"):
            getattr(matter, name)(state, *args[name])


def test_a_topology_version_override_since_the_last_call_is_seen_by_every_operator():
    system, matter, state, rng = _humanoid()
    args = _inputs(matter, state, rng)
    expected = _call(matter, state, args)  # every shortcut of this State is set up
    version = system.getSystemTopologyCacheVersion()
    system.setSystemTopologyCacheVersion(version + 1)  # (advanced) a new topology key
    for name in OPERATORS:
        with pytest.raises(TopologyMismatchError):
            getattr(matter, name)(state, *args[name])
    state.setSystemTopologyStageVersion(version + 1)  # (advanced) marked compatible again
    _assert_same(_call(matter, state, args), expected)
    state.setSystemTopologyStageVersion(version)  # the State's own key changed this time
    for name in OPERATORS:
        with pytest.raises(TopologyMismatchError):
            getattr(matter, name)(state, *args[name])


def test_explicit_kinematics_made_stale_since_the_last_call_are_seen_by_every_operator():
    system, matter, state, rng = _humanoid()
    args = _inputs(matter, state, rng)
    expected = _call(matter, state, args)
    state.setU(state.getU())  # back to Position stage: Velocity kinematics done by hand
    matter.realizeVelocityKinematics(state)
    _assert_same(_call(matter, state, args), expected)
    matter.invalidateVelocityKinematics(state)  # a cache entry: no stage is invalidated
    position_only = {name: expected[name] for name in POSITION_OPERATORS}
    _assert_same(_call(matter, state, args, POSITION_OPERATORS), position_only)
    with pytest.raises(StageTooLowError, match="needs velocity kinematics"):
        matter.calcResidualForceIgnoringConstraints(state, *args[OPERATORS[-1]])
    state.setQ(state.getQ())  # back to Time stage: Position kinematics by hand too
    matter.realizePositionKinematics(state)
    matter.realizeVelocityKinematics(state)
    _assert_same(_call(matter, state, args), expected)
    matter.invalidatePositionKinematics(state)
    for name in OPERATORS:
        with pytest.raises(StageTooLowError, match="kinematics"):
            getattr(matter, name)(state, *args[name])


def test_an_invalidation_since_the_last_call_is_seen_by_every_operator():
    system, matter, state, rng = _humanoid()
    args = _inputs(matter, state, rng)
    _call(matter, state, args)
    state.setQ(state.getQ() + 0.05)  # back to Time stage
    for name in OPERATORS:
        with pytest.raises(StageTooLowError):
            getattr(matter, name)(state, *args[name])
    system.realize(state, Stage.Position)
    expected = _call(matter, _fresh(system, state, Stage.Position), args, POSITION_OPERATORS)
    _assert_same(_call(matter, state, args, POSITION_OPERATORS), expected)
    _assert_same(_call(matter, state, args, POSITION_OPERATORS), expected)  # (shortcut)
    with pytest.raises(StageTooLowError, match="velocity kinematics"):
        matter.calcResidualForceIgnoringConstraints(state, *args[OPERATORS[-1]])
    system.realize(state, Stage.Velocity)
    # a change of u leaves Position stage valid: the position operators are not refused
    state.setU(state.getU() * 0.5)
    _assert_same(_call(matter, state, args, POSITION_OPERATORS), expected)
    with pytest.raises(StageTooLowError, match="velocity kinematics"):
        matter.calcResidualForceIgnoringConstraints(state, *args[OPERATORS[-1]])
    system.realize(state, Stage.Velocity)
    _assert_same(
        _call(matter, state, args), _call(matter, _fresh(system, state, Stage.Velocity), args)
    )


def test_a_lock_made_after_a_call_changes_multiply_by_m_inv():
    system, matter, state, rng = _humanoid()
    args = _inputs(matter, state, rng)
    free = _call(matter, state, args)
    mobod = matter.getMobilizedBody(6)
    mobod.lock(state)  # an Instance-stage change
    system.realize(state, Stage.Velocity)
    locked = _call(matter, state, args)
    _assert_same(locked, _call(matter, _fresh(system, state, Stage.Velocity), args))
    first = mobod.getFirstUIndex(state)
    assert locked["multiplyByMInv"][first] == 0.0 != free["multiplyByMInv"][first]
    mobod.unlock(state)
    system.realize(state, Stage.Velocity)
    _assert_same(_call(matter, state, args), free)


def test_lazy_inertias_invalidated_explicitly_are_computed_again():
    system, matter, state, rng = _humanoid()
    state.setU(state.getU())
    system.realize(state, Stage.Velocity)  # (below Acceleration: no stage is invalidated)
    args = _inputs(matter, state, rng)
    expected = _call(matter, state, args)
    matter.invalidateArticulatedBodyInertias(state)
    matter.invalidateCompositeBodyInertias(state)
    assert not matter.isArticulatedBodyInertiasRealized(state)
    assert not matter.isCompositeBodyInertiasRealized(state)
    _assert_same(_call(matter, state, args), expected)
    assert matter.isArticulatedBodyInertiasRealized(state)
    assert matter.isCompositeBodyInertiasRealized(state)
