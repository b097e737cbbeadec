"""Compiled Runge-Kutta-Merson steps of constrained models (issue 21: "a redundant
constraint breaks a run", its cost): the compiled projection
(engine/multibody/kernels/constraint_projection.py) against the Python projection
(matter.projection) on perturbed States, and the compiled stepping kernel
(merson_compiled/constrained_steps.py) against the integrator's Python loop: the same
steps, the same trajectory; with the JIT on and off."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine import (
    Constraint,
    MobilizedBody,
    ProjectOptions,
    RungeKuttaMersonIntegrator,
    Stage,
    TimeStepper,
    Transform,
    Vec3,
)
from engine.multibody.constraints.compiled import compiled_constraints
from engine.multibody.kernels.constraint_projection import (
    CHANGED,
    INFO_SIZE,
    IRREGULAR,
    OK,
    min_norm_solve,
    project_q,
    project_u,
)
from engine.multibody.kernels.pivoted_cholesky import LARGE_M
from tests.engine.test_compiled_constraints import _body, _system, model

ROOT = Path(__file__).resolve().parents[2]

#: the issue's models: a redundant Rod, a four-bar closed by one Ball and by two, a chain
#: closed by a Weld to a Free body, a Weld over a Weld
KINDS = ["dp_rod", "fourbar_ball", "fourbar_ball_twice", "weld_loop", "weld_over_weld"]


def _compiled_projection(system, state, tol, est_q, est_u):
    """projectQ then projectU of ``state`` (realized through Position) by the kernels, at
    constraint tolerance ``tol``, the estimates projected in place; the statuses."""
    matter = system._matter
    sx = matter.getMySubsystemIndex()
    plan = system._fused_realization._current_plan(state)
    euler, a, s = plan.args
    cc = compiled_constraints(matter, state, matter._instance_info(state))
    m = cc.m
    tp = np.array(state.getQErrWeights(sx)[:m])
    tpv = np.array(state.getUErrWeights(sx)[:m])
    wu = np.array(state.getUWeights(sx))
    wq = matter._q_weights(state)
    info = np.zeros(INFO_SIZE)
    P = np.zeros((m, state.getNU()))  # project_q leaves the Jacobian at its q for project_u
    args = (euler, a, s, cc.ci, cc.cf, m)
    sq = project_q(
        *args, cc.info.qerr, tp, wq, tol, 0.1 * tol, math.inf, False, False, est_q, info, P, 0
    )
    state._note_q_change("updQ")
    system.realize(state, Stage.Velocity)  # (the velocity errors, uerr, at the new q)
    su = project_u(*args, cc.uerr, tpv, wu, tol, 0.1 * tol, False, False, est_u, info, P, 0)
    state._note_u_change("updU")
    system.realize(state, Stage.Velocity)
    return sq, su, info[CHANGED]


def _python_projection(system, state, tol, est_q, est_u):
    options = ProjectOptions(tol)
    system.projectQ(state, est_q, options)
    system.realize(state, Stage.Velocity)
    system.projectU(state, est_u, options)


@pytest.mark.parametrize("kind", KINDS)
def test_the_compiled_projection_is_the_python_projection(kind):
    for trial in range(3):
        states, estimates = [], []
        for path in ("compiled", "python"):
            system, matter, state = model(kind)
            # a State near the constraint manifold: projected, then perturbed a little
            system.project(state, 1e-12)
            r = np.random.default_rng(100 + trial)
            state.updQ()[:] = np.array(state.getQ()) + 1e-3 * r.standard_normal(state.getNQ())
            state.updU()[:] = np.array(state.getU()) + 1e-2 * r.standard_normal(state.getNU())
            system.realize(state, Stage.Position)
            est_q = 1e-4 * r.standard_normal(state.getNQ())
            est_u = 1e-4 * r.standard_normal(state.getNU())
            if path == "compiled":
                sq, su, _ = _compiled_projection(system, state, 1e-8, est_q, est_u)
                assert (sq, su) == (OK, OK)
            else:
                _python_projection(system, state, 1e-8, est_q, est_u)
            states.append(state)
            estimates.append((est_q, est_u))
        (c, p), (ec, ep) = states, estimates
        np.testing.assert_allclose(c.getQ(), p.getQ(), rtol=0, atol=1e-12)
        np.testing.assert_allclose(c.getU(), p.getU(), rtol=0, atol=1e-12)
        for x, y in zip(ec, ep, strict=True):
            np.testing.assert_allclose(x, y, rtol=0, atol=1e-12 * (1 + abs(y).max()))
        assert np.abs(p.getQErr()).max() < 1e-8
        assert np.abs(c.getUErr()).max() < 1e-8


def test_min_norm_solve_is_the_pseudo_inverse():
    rng = np.random.default_rng(5)
    cases = ((1, 2, 1), (1, 3, 0), (3, 3, 2), (6, 9, 6), (6, 6, 3), (12, 7, 5))
    # beyond LARGE_M rows: the Gram matrix's pivoted Cholesky factorization
    large = ((LARGE_M + 1, 40, LARGE_M + 1), (30, 60, 30), (40, 90, 25), (36, 20, 20))
    for m, n, rank in cases + large:
        A = rng.standard_normal((m, rank)) @ rng.standard_normal((rank, n))
        b = rng.standard_normal(m)
        x = np.empty(n)
        assert min_norm_solve(A, b, x, 0) == OK
        expected = np.linalg.pinv(A, rcond=1e-12) @ b
        tol = 1e-12 if m <= LARGE_M else 1e-10  # the Gram matrix squares the condition
        np.testing.assert_allclose(x, expected, rtol=0, atol=tol * (1 + abs(expected).max()))
    x = np.empty(2)  # a row of rounding noise is a row: SVD keeps it, so does this
    assert min_norm_solve(np.array([[1e-17, 2e-17]]), np.array([1e-17]), x, 0) == OK
    np.testing.assert_allclose(x, [0.2, 0.4], rtol=1e-12)
    assert min_norm_solve(np.array([[np.nan, 1.0]]), np.array([1.0]), x, 0) == IRREGULAR


def bench_model(kind: str):
    """The models of benchmarks/bench_constraints.py, with a State to start from."""
    from benchmarks.bench_constraints import MODELS

    if kind in MODELS:
        return MODELS[kind]()
    system, matter = _system()
    g = matter.Ground()
    if kind == "fourbar_ball_twice":
        a = MobilizedBody.Pin(g, Transform(), _body((0, 0.5, 0)), Transform())
        b = MobilizedBody.Pin(a, Transform(Vec3(0, 1, 0)), _body((0.5, 0, 0)), Transform())
        c = MobilizedBody.Pin(g, Transform(Vec3(1, 0, 0)), _body((0, 0.5, 0)), Transform())
        for _ in range(2):
            Constraint.Ball(b, Vec3(1, 0, 0), c, Vec3(0, 1, 0))
        state = system.realizeTopology()
        a.setOneU(state, 0, 1.0)
        b.setOneU(state, 0, -1.0)
        c.setOneU(state, 0, 1.0)
        return system, state
    # weld_over_weld: a Free body held twice to Ground, with a velocity to take away
    free = MobilizedBody.Free(g, Transform(Vec3(0, 1, 0)), _body(), Transform())
    for _ in range(2):
        Constraint.Weld(g, Transform(Vec3(0, 1, 0)), free, Transform())
    state = system.realizeTopology()
    free.setUToFitLinearVelocity(state, Vec3(0.1, 0.2, 0))
    return system, state


def _run(kind, t_final, accuracy, compiled: bool):
    system, state = bench_model(kind)
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(accuracy)
    if not compiled:  # the Python loop: one step at a time through the State
        integ._takeCompiledSteps = lambda *args: 0
    ts = TimeStepper(system, integ)
    ts.initialize(state)
    why = integ.whyNotCompiledSteps()
    ts.stepTo(t_final)
    final = ts.getState()
    system.realize(final, Stage.Velocity)
    return final, integ, why


@pytest.mark.parametrize(
    ("kind", "t_final"),
    [
        ("dp_rod", 1.0),
        ("fourbar_ball", 1.0),
        ("fourbar_ball_twice", 1.0),
        ("weld_chain", 0.5),
        ("weld_over_weld", 1.0),
    ],
)
def test_compiled_steps_are_the_python_loop(kind, t_final):
    c, ci, why = _run(kind, t_final, 1e-5, compiled=True)
    assert why == ""  # the compiled stepping kernel took the steps
    p, pi, _ = _run(kind, t_final, 1e-5, compiled=False)
    assert ci.getNumStepsTaken() == pi.getNumStepsTaken()
    assert ci.getNumStepsAttempted() == pi.getNumStepsAttempted()
    assert ci.getNumRealizations() == pi.getNumRealizations()
    assert ci.getNumQProjections() == pi.getNumQProjections()
    assert ci.getNumUProjections() == pi.getNumUProjections()
    assert c.getTime() == p.getTime()
    np.testing.assert_allclose(c.getQ(), p.getQ(), rtol=0, atol=1e-10)
    np.testing.assert_allclose(c.getU(), p.getU(), rtol=0, atol=1e-10)
    np.testing.assert_allclose(c.getQErr(), p.getQErr(), rtol=0, atol=1e-10)
    assert np.abs(c.getQErr()).max() < 1e-5


_NOJIT_SCRIPT = """
import json, sys
import numpy as np
import engine.integrators.runge_kutta_merson as rkm
import engine.multibody.fused_realization as fused_realization
from engine.integrators.merson_compiled.run_record import RUN_DTYPE
from tests.engine.test_compiled_constrained_steps import _run

# the kernels run as Python: let the integrator call them, with a record whose fields
# Python can set as attributes
fused_realization._JIT = True
rkm.new_run_records = lambda n: np.zeros(n, dtype=RUN_DTYPE).view(np.recarray)
final, integ, why = _run("dp_rod", 0.05, 1e-5, compiled=True)
json.dump({"why": why, "steps": integ.getNumStepsTaken(), "q": list(final.getQ()),
           "u": list(final.getU())}, sys.stdout)
"""


def test_the_constrained_steps_run_as_python_with_the_jit_disabled():
    p, pi, _ = _run("dp_rod", 0.05, 1e-5, compiled=False)
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
    out = json.loads(proc.stdout)
    assert out["why"] == ""
    assert out["steps"] == pi.getNumStepsTaken()
    np.testing.assert_allclose(out["q"], p.getQ(), rtol=0, atol=1e-10)
    np.testing.assert_allclose(out["u"], p.getU(), rtol=0, atol=1e-10)
