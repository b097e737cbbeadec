"""The matter operators' one-call fast path (engine.multibody.kernels.checked_operators):
each operator agrees with the dense matrices, computes the lazy composite and articulated
inertias when q changed (and only then), works at Instance stage with position kinematics
realized explicitly, refuses non-finite input before anything changes, and gives the same
numbers when numba runs pure Python."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from benchmarks.common import build_ours, humanoid_links
from engine import InvalidArgumentError, Stage, StageTooLowError


def _humanoid(seed: int = 3):
    system, matter = build_ours(humanoid_links())
    state = system.realizeTopology()
    rng = np.random.default_rng(seed)
    state.setQ(state.getQ() + 0.2 * rng.normal(size=state.getNQ()))
    state.setU(rng.normal(size=state.getNU()))
    return system, matter, state, rng


def _dense_jacobian(matter, state) -> np.ndarray:
    nu = state.getNU()
    return np.column_stack(
        [matter.multiplyBySystemJacobian(state, e).reshape(-1) for e in np.eye(nu)]
    )


def test_operators_agree_with_the_dense_matrices():
    system, matter, state, rng = _humanoid()
    system.realize(state, Stage.Position)
    nu, nb = state.getNU(), matter.getNumBodies()
    M = matter.calcM(state)
    np.testing.assert_allclose(M, M.T, atol=1e-13)
    assert np.all(np.linalg.eigvalsh(M) > 0)
    v = rng.normal(size=nu)
    np.testing.assert_allclose(matter.multiplyByM(state, v), M @ v, atol=1e-12)
    np.testing.assert_allclose(matter.multiplyByMInv(state, M @ v), v, atol=1e-10)
    J = matter.calcSystemJacobian(state)
    assert J.shape == (6 * nb, nu)
    np.testing.assert_allclose(_dense_jacobian(matter, state), J, atol=1e-14)
    F = rng.normal(size=(nb, 2, 3))
    np.testing.assert_allclose(
        matter.multiplyBySystemJacobianTranspose(state, F), J.T @ F.reshape(-1), atol=1e-12
    )
    # (nb, 6) body forces are accepted as Simbody's Vector_<SpatialVec>; lists too
    np.testing.assert_allclose(
        matter.multiplyBySystemJacobianTranspose(state, F.reshape(nb, 6).tolist()),
        J.T @ F.reshape(-1),
        atol=1e-12,
    )
    # inverse dynamics at the realized udot: the State's own applied forces
    system.realize(state, Stage.Acceleration)
    body_forces, mobility_forces = system.getAppliedForces(state)
    tau = matter.calcResidualForceIgnoringConstraints(
        state, mobility_forces, body_forces, state.getUDot()
    )
    np.testing.assert_allclose(tau, 0.0, atol=1e-9)


def test_a_change_of_q_recomputes_the_lazy_inertias_once():
    system, matter, state, rng = _humanoid()
    system.realize(state, Stage.Position)
    M0 = matter.calcM(state)
    assert matter.isCompositeBodyInertiasRealized(state)
    v = rng.normal(size=state.getNU())
    x0 = matter.multiplyByMInv(state, v)
    assert matter.isArticulatedBodyInertiasRealized(state)
    np.testing.assert_allclose(M0 @ x0, v, atol=1e-10)
    state.setQ(state.getQ() + 0.3)
    assert not matter.isCompositeBodyInertiasRealized(state)
    assert not matter.isArticulatedBodyInertiasRealized(state)
    system.realize(state, Stage.Position)
    M1 = matter.calcM(state)
    assert np.abs(M1 - M0).max() > 1e-3  # a new configuration, a new mass matrix
    assert matter.isCompositeBodyInertiasRealized(state)
    x1 = matter.multiplyByMInv(state, v)
    assert matter.isArticulatedBodyInertiasRealized(state)
    np.testing.assert_allclose(M1 @ x1, v, atol=1e-10)
    # the realized inertias are those of this q: the same answers on a fresh copy
    fresh = state.copy()
    system.realize(fresh, Stage.Position)
    np.testing.assert_array_equal(matter.calcM(fresh), M1)
    np.testing.assert_array_equal(matter.multiplyByMInv(fresh, v), x1)


def test_explicit_position_kinematics_suffice_and_instance_stage_does_not():
    system, matter, state, rng = _humanoid()
    system.realize(state, Stage.Instance)
    v = rng.normal(size=state.getNU())
    F = rng.normal(size=(matter.getNumBodies(), 2, 3))
    calls = {
        "calcM": lambda: matter.calcM(state),
        "multiplyByM": lambda: matter.multiplyByM(state, v),
        "multiplyByMInv": lambda: matter.multiplyByMInv(state, v),
        "calcSystemJacobian": lambda: matter.calcSystemJacobian(state),
        "multiplyBySystemJacobian": lambda: matter.multiplyBySystemJacobian(state, v),
        "multiplyBySystemJacobianTranspose": lambda: matter.multiplyBySystemJacobianTranspose(
            state, F
        ),
    }
    for name, call in calls.items():
        with pytest.raises(StageTooLowError, match=f"{name} needs position kinematics"):
            call()
    with pytest.raises(StageTooLowError, match="needs velocity kinematics"):
        matter.calcResidualForceIgnoringConstraints(state, [], [], v)
    matter.realizePositionKinematics(state)
    assert state.getSubsystemStage(matter.getMySubsystemIndex()) == Stage.Instance
    at_instance = {name: call() for name, call in calls.items()}
    system.realize(state, Stage.Position)
    for name, call in calls.items():
        np.testing.assert_array_equal(call(), at_instance[name], err_msg=name)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_input_is_refused_before_anything_changes(bad):
    system, matter, state, rng = _humanoid()
    system.realize(state, Stage.Position)
    nu, nb = state.getNU(), matter.getNumBodies()
    v = rng.normal(size=nu)
    v[5] = bad
    F = rng.normal(size=(nb, 2, 3))
    F[3, 1, 2] = bad
    with pytest.raises(InvalidArgumentError, match="multiplyByMInv: v: values must be finite"):
        matter.multiplyByMInv(state, v)
    assert not matter.isArticulatedBodyInertiasRealized(state)  # refused before computing
    with pytest.raises(InvalidArgumentError, match="multiplyByM: a: values must be finite"):
        matter.multiplyByM(state, v)
    with pytest.raises(InvalidArgumentError, match="multiplyBySystemJacobian: u: values"):
        matter.multiplyBySystemJacobian(state, v)
    with pytest.raises(InvalidArgumentError, match="Transpose: F: values must be finite"):
        matter.multiplyBySystemJacobianTranspose(state, F)
    for operator in (matter.multiplyByM, matter.multiplyByMInv, matter.multiplyBySystemJacobian):
        for wrong in (np.ones(nu + 1), np.ones(nu - 1), np.ones((nu, 1))):
            with pytest.raises(InvalidArgumentError, match="expected a vector of length"):
                operator(state, wrong)
    for wrong in (np.ones((nb - 1, 2, 3)), np.ones((nb + 1, 2, 3)), np.ones((nb, 2, 2))):
        with pytest.raises(InvalidArgumentError, match="expected body forces of shape"):
            matter.multiplyBySystemJacobianTranspose(state, wrong)
    assert state.getSubsystemStage(matter.getMySubsystemIndex()) == Stage.Position
    ok = rng.normal(size=nu)
    np.testing.assert_allclose(
        matter.multiplyByM(state, matter.multiplyByMInv(state, ok)), ok, atol=1e-10
    )


_NOJIT_SCRIPT = """
import json, sys
import numpy as np
from tests.engine.test_operator_fast_path import _humanoid, _results
from engine import Stage
system, matter, state, rng = _humanoid()
system.realize(state, Stage.Velocity)
print(json.dumps({k: np.asarray(x).tolist() for k, x in _results(matter, state, rng).items()}))
"""


def _results(matter, state, rng) -> dict:
    nu, nb = state.getNU(), matter.getNumBodies()
    v = rng.normal(size=nu)
    F = rng.normal(size=(nb, 2, 3))
    return {
        "minv": matter.multiplyByMInv(state, v),
        "m": matter.multiplyByM(state, v),
        "M": matter.calcM(state),
        "J": matter.calcSystemJacobian(state),
        "Ju": matter.multiplyBySystemJacobian(state, v),
        "JtF": matter.multiplyBySystemJacobianTranspose(state, F),
        "residual": matter.calcResidualForceIgnoringConstraints(state, v, F, v[::-1]),
    }


def test_the_same_numbers_when_numba_runs_pure_python():
    system, matter, state, rng = _humanoid()
    system.realize(state, Stage.Velocity)
    expected = _results(matter, state, rng)
    repo = Path(__file__).resolve().parents[2]
    proc = subprocess.run(
        [sys.executable, "-c", _NOJIT_SCRIPT],
        capture_output=True,
        text=True,
        cwd=repo,
        env=dict(os.environ, NUMBA_DISABLE_JIT="1"),
        timeout=240,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    for name, value in expected.items():
        np.testing.assert_allclose(np.array(got[name]), value, rtol=0, atol=1e-13, err_msg=name)


def test_inputs_of_another_dtype_layout_or_array_type_give_the_converted_results():
    """The operators pass their input to the compiled entry point as given; whatever it
    refuses (another dtype or byte order, another number of dimensions, not an ndarray) is
    converted first and gives the result of its float64 conversion; what it takes (strided,
    read-only, an ndarray subclass) gives the same result as a plain copy."""
    system, matter, state, rng = _humanoid()
    system.realize(state, Stage.Position)
    nu, nb = state.getNU(), matter.getNumBodies()
    v = np.round(10 * rng.normal(size=nu))  # integral: exact in every dtype below
    F = np.round(10 * rng.normal(size=(nb, 2, 3)))
    strided_v = np.repeat(v, 2)[::2]
    read_only_v = v.copy()
    read_only_v.flags.writeable = False
    vectors = [
        v.astype(np.int64),
        v.astype(np.float32),
        v.astype(">f8"),
        v.tolist(),
        tuple(v),
        strided_v,
        read_only_v,
        np.ma.masked_array(v),
        v.reshape(1, nu)[0],
    ]
    strided_F = np.repeat(F, 2, axis=2)[:, :, ::2]
    forces = [F.astype(np.int64), F.astype(">f8"), F.reshape(nb, 6), F.tolist(), strided_F]
    for name in ("multiplyByM", "multiplyByMInv", "multiplyBySystemJacobian"):
        operator = getattr(matter, name)
        expected = operator(state, v.copy())
        for given in vectors:
            got = operator(state, given)
            assert type(got) is np.ndarray and got.dtype == np.float64, name
            np.testing.assert_array_equal(got, expected, err_msg=f"{name} {type(given)}")
    expected = matter.multiplyBySystemJacobianTranspose(state, F.copy())
    for given in forces:
        got = matter.multiplyBySystemJacobianTranspose(state, given)
        np.testing.assert_array_equal(got, expected, err_msg=str(np.shape(given)))
    for operator in (matter.multiplyByM, matter.multiplyByMInv, matter.multiplyBySystemJacobian):
        for wrong in (v.reshape(1, 1, nu), np.float64(1.0), np.array(1.0), None):
            with pytest.raises(InvalidArgumentError):
                operator(state, wrong)
    for wrong in (F[0], F[:, 0], np.float64(1.0), None):
        with pytest.raises(InvalidArgumentError):
            matter.multiplyBySystemJacobianTranspose(state, wrong)
