"""The pivoted Cholesky factorization that solves the constraint kernels' large systems
(engine/multibody/kernels/pivoted_cholesky.py, issue 22: a step with hundreds of
constraints): the minimum-norm least-squares solution, as the pseudo-inverse and as the
Jacobi eigen-decomposition of the small systems give it on the redundant models of issue
21; also with the JIT disabled."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine import Stage
from engine.multibody.kernels.constraint_kernels import RCOND, least_squares
from engine.multibody.kernels.pivoted_cholesky import LARGE_M, psd_min_norm_solve
from tests.engine.test_compiled_constraints import model

ROOT = Path(__file__).resolve().parents[2]


def _solve(W, b, tol=RCOND):
    out = np.empty(W.shape[0])
    assert psd_min_norm_solve(W, b, out, np.empty(W.shape), tol, 0)
    return out


def _close(x, expected, tol=1e-12):
    np.testing.assert_allclose(x, expected, rtol=0, atol=tol * (1 + abs(expected).max()))


def _semidefinite(rng, m, rank):
    B = rng.standard_normal((m, rank))
    return B @ B.T


def test_the_solution_is_the_pseudo_inverses():
    rng = np.random.default_rng(11)
    for m, rank in ((1, 1), (1, 0), (5, 5), (5, 3), (20, 20), (20, 7), (40, 1)):
        W = _semidefinite(rng, m, rank)
        b = rng.standard_normal(m)
        _close(_solve(W, b), np.linalg.pinv(W, rcond=1e-12, hermitian=True) @ b, 1e-11)


def test_repeated_equations_share_their_load():
    rng = np.random.default_rng(12)
    W = _semidefinite(rng, 10, 10)
    twice = np.block([[W, W], [W, W]])  # every equation twice, as a duplicated Ball
    b = rng.standard_normal(10)
    out = _solve(twice, np.concatenate([b, b]))
    _close(out[:10], out[10:])
    _close(out[:10] + out[10:], np.linalg.solve(W, b), 1e-11)
    assert not _solve(np.zeros((3, 3)), np.ones(3)).any()  # nothing to keep: zero


@pytest.mark.parametrize(
    "kind", ["dp_rod", "dp_rod_twice", "fourbar_ball_twice", "weld_loop", "weld_over_weld"]
)
def test_the_multipliers_of_redundant_models_are_the_jacobi_solves(kind):
    """W = G M^-1 G^T of issue 21's redundant models (a Rod whose length cannot change,
    twice; a Ball closing a loop twice; a Weld over a Weld): the same minimum-norm
    multipliers as the eigen-decomposition the small systems use."""
    system, matter, state = model(kind)
    system.realize(state, Stage.Velocity)
    G = matter.calcG(state)
    W = G @ matter.calcMInv(state) @ G.T
    W = 0.5 * (W + W.T)
    rhs = np.random.default_rng(13).standard_normal(W.shape[0])
    jacobi = np.zeros(W.shape[0])
    least_squares(W, rhs, jacobi)
    _close(_solve(W, rhs), jacobi)


def test_least_squares_beyond_large_m_uses_it():
    rng = np.random.default_rng(14)
    m = LARGE_M + 8
    W = _semidefinite(rng, m, m - 5)
    rhs = rng.standard_normal(m)
    out = np.zeros(m)
    least_squares(W, rhs, out)
    _close(out, np.linalg.pinv(W, rcond=1e-12, hermitian=True) @ rhs, 1e-11)


_NOJIT_SCRIPT = """
import json, sys
import numpy as np
from engine.multibody.kernels.constraint_kernels import least_squares
from engine.multibody.kernels.constraint_projection import INTERRUPTED, min_norm_solve
from engine.multibody.kernels.interrupt_request import InterruptRequest
from engine.multibody.kernels.pivoted_cholesky import LARGE_M

rng = np.random.default_rng(15)
m = LARGE_M + 3
B = rng.standard_normal((m, m - 2))
W, b = B @ B.T, rng.standard_normal(m)
lam = np.zeros(m)
least_squares(W, b, lam)
A = rng.standard_normal((m, 2 * m))
x = np.zeros(2 * m)
assert min_norm_solve(A, b, x, 0) == 0
request = InterruptRequest()
request.set()  # read by ctypes with the JIT disabled
assert min_norm_solve(A, b, np.zeros(2 * m), request.address) == INTERRUPTED
json.dump({"W": W.tolist(), "b": b.tolist(), "lam": lam.tolist(), "A": A.tolist(),
           "x": x.tolist()}, sys.stdout)
"""


def test_the_kernels_run_as_python_with_the_jit_disabled():
    proc = subprocess.run(
        [sys.executable, "-c", _NOJIT_SCRIPT],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=dict(os.environ, NUMBA_DISABLE_JIT="1"),
        timeout=240,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = {k: np.array(v) for k, v in json.loads(proc.stdout).items()}
    _close(out["lam"], np.linalg.pinv(out["W"], rcond=1e-12, hermitian=True) @ out["b"], 1e-11)
    _close(out["x"], np.linalg.pinv(out["A"], rcond=1e-12) @ out["b"], 1e-11)
