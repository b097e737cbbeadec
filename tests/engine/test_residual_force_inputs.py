"""calcResidualForceIgnoringConstraints: the compiled call with its inputs checked in the
kernel (``engine.multibody.kernels.checked_residual``) against independent operators, for
every accepted form of its inputs, and its refusals of non-finite and misshapen input.

The oracle is linearity: residual(f, F, udot) - residual(0, 0, 0) = M udot - f - J^T F,
with M from calcM and J from calcSystemJacobian (separate kernels)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from engine import Stage
from engine.common.exceptions import InvalidArgumentError
from tests.engine.close import assert_close
from tests.engine.test_random_trees import TREES, Tree


def _inputs(tree: Tree):
    rng = tree.rng
    f = rng.normal(size=tree.nu)
    F = rng.normal(size=(tree.nb, 2, 3))
    udot = rng.normal(size=tree.nu)
    return f, F, udot


@pytest.mark.parametrize("params", TREES[:4], ids=lambda p: f"seed{p[0]}")
def test_residual_is_m_udot_minus_applied_forces_plus_bias(params):
    tree = Tree(*params)
    s = tree.random_state(Stage.Velocity)
    matter = tree.matter
    f, F, udot = _inputs(tree)
    bias = matter.calcResidualForceIgnoringConstraints(
        s, np.zeros(tree.nu), np.zeros((tree.nb, 2, 3)), np.zeros(tree.nu)
    )
    tau = matter.calcResidualForceIgnoringConstraints(s, f, F, udot)
    M = matter.calcM(s)
    J = matter.calcSystemJacobian(s)  # rows [w; v] per body
    expected = M @ udot - f - J.T @ F.reshape(-1) + bias
    assert_close(tau, expected, "residual vs M udot - f - J^T F + bias", tol=1e-11)
    # the bias (the residual at zero udot and zero applied force) is the Coriolis and
    # gyroscopic part, nonzero at the random velocities
    assert np.linalg.norm(bias) > 0.0


def test_every_accepted_input_form_gives_the_same_residual():
    tree = Tree(*TREES[1])
    s = tree.random_state(Stage.Velocity)
    matter = tree.matter
    f, F, udot = _inputs(tree)
    tau = matter.calcResidualForceIgnoringConstraints(s, f, F, udot)
    wide_f, wide_udot = np.zeros(2 * tree.nu), np.zeros(3 * tree.nu)
    wide_f[::2], wide_udot[::3] = f, udot
    wide_F = np.zeros((tree.nb, 2, 6))
    wide_F[:, :, ::2] = F
    forms = {
        "(nb, 6) body forces": (f, F.reshape(tree.nb, 6), udot),
        "lists": (f.tolist(), F.tolist(), udot.tolist()),
        "strided views": (wide_f[::2], wide_F[:, :, ::2], wide_udot[::3]),
        "Fortran-ordered body forces": (f, np.asfortranarray(F), udot),
    }
    for name, (fi, Fi, ui) in forms.items():
        got = matter.calcResidualForceIgnoringConstraints(s, fi, Fi, ui)
        np.testing.assert_array_equal(got, tau, err_msg=name)
    # the inputs are read, never written
    np.testing.assert_array_equal(wide_F[:, :, ::2], F)
    # float32 input is converted (the same values rounded to float32)
    got32 = matter.calcResidualForceIgnoringConstraints(
        s, f.astype(np.float32), F.astype(np.float32), udot.astype(np.float32)
    )
    expected32 = matter.calcResidualForceIgnoringConstraints(
        s,
        f.astype(np.float32).astype(float),
        F.astype(np.float32).astype(float),
        udot.astype(np.float32).astype(float),
    )
    np.testing.assert_array_equal(got32, expected32)


@pytest.mark.parametrize("which", ["appliedMobilityForces", "appliedBodyForces", "knownUdot"])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_input_is_refused_by_name(which, bad):
    tree = Tree(*TREES[0])
    s = tree.random_state(Stage.Velocity)
    matter = tree.matter
    f, F, udot = _inputs(tree)
    before = matter.calcResidualForceIgnoringConstraints(s, f, F, udot)
    args = {
        "appliedMobilityForces": f.copy(),
        "appliedBodyForces": F.copy(),
        "knownUdot": udot.copy(),
    }
    target = args[which]
    target.reshape(-1)[-1] = bad
    with pytest.raises(InvalidArgumentError, match=f"{which}: values must be finite"):
        matter.calcResidualForceIgnoringConstraints(
            s, args["appliedMobilityForces"], args["appliedBodyForces"], args["knownUdot"]
        )
    assert s.getSystemStage() == Stage.Velocity
    after = matter.calcResidualForceIgnoringConstraints(s, f, F, udot)
    np.testing.assert_array_equal(after, before)


def test_misshapen_input_is_refused_with_the_expected_shape():
    tree = Tree(*TREES[0])
    s = tree.random_state(Stage.Velocity)
    matter = tree.matter
    f, F, udot = _inputs(tree)
    nb, nu = tree.nb, tree.nu
    with pytest.raises(
        InvalidArgumentError, match=f"appliedMobilityForces: expected a vector of length {nu}"
    ):
        matter.calcResidualForceIgnoringConstraints(s, f[:-1], F, udot)
    with pytest.raises(InvalidArgumentError, match=f"knownUdot: expected a vector of length {nu}"):
        matter.calcResidualForceIgnoringConstraints(s, f, F, np.zeros((nu, 1)))
    with pytest.raises(
        InvalidArgumentError,
        match=rf"appliedBodyForces: expected body forces of shape \({nb}, 2, 3\)",
    ):
        matter.calcResidualForceIgnoringConstraints(s, f, F[:-1], udot)
    with pytest.raises(InvalidArgumentError, match="appliedBodyForces"):
        matter.calcResidualForceIgnoringConstraints(s, f, np.zeros((nb, 7)), udot)


_NOJIT_SCRIPT = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    from engine import Stage
    from engine.common.exceptions import InvalidArgumentError
    from tests.engine.test_random_trees import TREES, Tree
    tree = Tree(*TREES[0])
    s = tree.random_state(Stage.Velocity)
    f, F, udot = (np.array(x) for x in json.load(sys.stdin))
    tau = tree.matter.calcResidualForceIgnoringConstraints(s, f, F, udot)
    F[1, 0, 0] = np.nan
    try:
        tree.matter.calcResidualForceIgnoringConstraints(s, f, F, udot)
        refused = ""
    except InvalidArgumentError as exc:
        refused = str(exc)
    json.dump({"tau": tau.tolist(), "refused": refused}, sys.stdout)
    """
)


@pytest.mark.slow
def test_pure_python_path_gives_the_compiled_residual():
    tree = Tree(*TREES[0])
    s = tree.random_state(Stage.Velocity)
    f, F, udot = _inputs(tree)
    expected = tree.matter.calcResidualForceIgnoringConstraints(s, f, F, udot)
    repo = Path(__file__).resolve().parents[2]
    proc = subprocess.run(
        [sys.executable, "-c", _NOJIT_SCRIPT],
        input=json.dumps([f.tolist(), F.tolist(), udot.tolist()]),
        capture_output=True,
        text=True,
        cwd=repo,
        env=dict(os.environ, NUMBA_DISABLE_JIT="1"),
        timeout=240,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert_close(np.array(result["tau"]), expected, "no-JIT residual", tol=1e-13)
    assert result["refused"] == (
        "calcResidualForceIgnoringConstraints: appliedBodyForces: values must be finite "
        "(no NaN or infinity)"
    )
