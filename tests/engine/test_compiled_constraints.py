"""The compiled constraints (engine/multibody/kernels/constraint_kernels.py) against the
constraints' Python methods: the same accelerations, multipliers and constraint errors on
the same States, redundant constraints included, with the JIT on and off."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import engine.multibody.fused_realization as fused_realization
import engine.multibody.matter.constraints as matter_constraints
from engine import (
    Body,
    Constraint,
    Force,
    GeneralForceSubsystem,
    Inertia,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    Rotation,
    SimbodyMatterSubsystem,
    Stage,
    Transform,
    UnitVec3,
    Vec3,
    YAxis,
)
from engine.multibody.constraints.compiled import compiled_constraints
from engine.multibody.kernels.constraint_kernels import least_squares

ROOT = Path(__file__).resolve().parents[2]


def _system():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.Gravity(forces, matter, -YAxis, 9.81)
    return system, matter


def _body(com=(0.1, -0.5, 0.05)):
    return Body.Rigid(MassProperties(1.3, Vec3(*com), Inertia(1.0, 0.8, 0.9)))


def model(kind: str, fused: bool = True):
    """A small constrained System and a State with generic q and u (the constraints need
    not be satisfied: the equations are compared, not the motion); ``fused`` False: the
    System realizes stage by stage."""
    system, matter = _system()
    if not fused:
        system._fused_realization = None
    g = matter.Ground()
    if kind in ("dp_rod", "dp_rod_twice"):
        b = _body((0, -0.5, 0))
        upper = MobilizedBody.Pin(g, Transform(), b, Transform())
        lower = MobilizedBody.Pin(upper, Transform(Vec3(0, -1, 0)), b, Transform())
        for _ in range(2 if kind == "dp_rod_twice" else 1):
            Constraint.Rod(upper, Vec3(0), lower, Vec3(0), 1.0)
    elif kind in ("fourbar_ball", "fourbar_ball_twice"):
        a = MobilizedBody.Pin(g, Transform(), _body(), Transform())
        b = MobilizedBody.Pin(a, Transform(Vec3(0, 1, 0)), _body(), Transform())
        c = MobilizedBody.Pin(g, Transform(Vec3(1, 0, 0)), _body(), Transform())
        for _ in range(2 if kind.endswith("twice") else 1):
            Constraint.Ball(b, Vec3(1, 0, 0), c, Vec3(0, 1, 0))
    elif kind == "branch_3d":
        # a Ball and a Rod between two branches: ancestor A is body a, not Ground
        a = MobilizedBody.Ball(g, Transform(), _body(), Transform())
        b = MobilizedBody.Ball(a, Transform(Vec3(0.3, -1, 0)), _body(), Transform())
        c = MobilizedBody.Pin(a, Transform(Vec3(-0.3, -1, 0.1)), _body(), Transform())
        Constraint.Ball(b, Vec3(0.1, -0.5, 0), c, Vec3(0.2, -0.4, 0.1))
        Constraint.Rod(b, Vec3(0, -1, 0), c, Vec3(0, -1, 0.2), 0.7)
    elif kind == "weld_loop":
        pins = [MobilizedBody.Pin(g, Transform(), _body(), Transform())]
        for _ in range(2):
            pins.append(
                MobilizedBody.Pin(pins[-1], Transform(Vec3(0, -1, 0)), _body(), Transform())
            )
        tip = MobilizedBody.Free(g, Transform(Vec3(0, -3, 0)), _body(), Transform())
        frame = Transform(Rotation(0.3, UnitVec3(1, 2, 3)), Vec3(0.1, -1, 0.05))
        Constraint.Weld(pins[-1], frame, tip, Transform(Vec3(0, 0.1, 0)))
    elif kind == "weld_over_weld":
        free = MobilizedBody.Free(g, Transform(Vec3(0, 1, 0)), _body(), Transform())
        for _ in range(2):
            Constraint.Weld(g, Transform(Vec3(0, 1, 0)), free, Transform())
    elif kind == "plane_and_angle":
        a = MobilizedBody.Ball(g, Transform(), _body(), Transform())
        b = MobilizedBody.Ball(a, Transform(Vec3(0, -1, 0)), _body(), Transform())
        Constraint.PointInPlane(g, UnitVec3(0.2, 1, 0.1), -1.6, b, Vec3(0.1, -0.8, 0.2))
        Constraint.ConstantAngle(a, UnitVec3(1, 0, 0), b, UnitVec3(0, 0.3, 1), 1.2)
    else:  # pragma: no cover
        raise ValueError(kind)
    state = system.realizeTopology()
    system.realizeModel(state)
    rng = np.random.default_rng(7)
    q = np.array(state.getQ())
    state.updQ()[:] = q + 0.3 * rng.standard_normal(q.shape)
    state.updU()[:] = rng.standard_normal(state.getNU())
    system.realize(state, Stage.Position)
    return system, matter, state


KINDS = [
    "dp_rod",
    "dp_rod_twice",
    "fourbar_ball",
    "fourbar_ball_twice",
    "branch_3d",
    "weld_loop",
    "weld_over_weld",
    "plane_and_angle",
]


def _python_path(monkeypatch):
    """Every constraint realized by its class's Python methods, stage by stage."""
    monkeypatch.setattr(matter_constraints, "compiled_constraints", lambda *args: None)
    monkeypatch.setattr(fused_realization, "compiled_constraints", lambda *args: None)


def _realized(system, state):
    system.realize(state, Stage.Acceleration)
    return {
        "udot": np.array(state.getUDot()),
        "qdotdot": np.array(state.getQDotDot()),
        "lambda": np.array(state.getMultipliers()),
        "udotErr": np.array(state.getUDotErr()),
        "qErr": np.array(state.getQErr()),
        "uErr": np.array(state.getUErr()),
    }


@pytest.mark.parametrize("fused", [True, False])
@pytest.mark.parametrize("kind", KINDS)
def test_compiled_and_python_paths_agree(kind, fused, monkeypatch):
    system, matter, state = model(kind, fused)
    info = matter._instance_info(state)
    assert compiled_constraints(matter, state, info) is not None  # the compiled path runs
    compiled = _realized(system, state)
    A_compiled = np.array(
        [
            matter.getMobilizedBody(b).getBodyAcceleration(state)
            for b in range(1, matter.getNumBodies())
        ]
    )
    _python_path(monkeypatch)
    system2, matter2, state2 = model(kind)
    assert "compiled form" in system2._fused_realization.whyNotFused(state2)
    python = _realized(system2, state2)
    A_python = np.array(
        [
            matter2.getMobilizedBody(b).getBodyAcceleration(state2)
            for b in range(1, matter2.getNumBodies())
        ]
    )
    scale = 1.0 + np.max(np.abs(python["udot"]))
    for name in ("udot", "qdotdot", "udotErr"):
        np.testing.assert_allclose(compiled[name], python[name], rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(
        compiled["lambda"],
        python["lambda"],
        rtol=0,
        atol=1e-12 * (1 + np.abs(python["lambda"]).max()),
    )
    np.testing.assert_allclose(compiled["qErr"], python["qErr"], rtol=0, atol=1e-14)
    np.testing.assert_allclose(compiled["uErr"], python["uErr"], rtol=0, atol=1e-13)
    np.testing.assert_allclose(A_compiled, A_python, rtol=0, atol=1e-12 * scale)


def test_constrained_models_are_realized_in_the_fused_call():
    system, matter, state = model("weld_loop")
    fused = system._fused_realization
    assert fused.whyNotFused(state) == ""
    fused_runs = sum(system._num_stage_runs)
    system.realize(state, Stage.Acceleration)
    assert sum(system._num_stage_runs) == fused_runs + 1  # one kernel call did the stages
    assert abs(np.asarray(state.getUDotErr())).max() < 1e-9
    # the unconstrained derivative kernels step aside; the constrained stepping kernel
    # (merson_compiled.constrained_steps) evaluates and projects such a State
    assert "constraints" in fused.whyNoCompiledDerivatives(state)
    assert fused.compiledConstrainedDerivatives(state) is not None
    # a Constraint type without a compiled form keeps the stage-by-stage path
    system2, matter2 = _system()
    a = MobilizedBody.Pin(matter2.Ground(), Transform(), _body(), Transform())
    b = MobilizedBody.Pin(a, Transform(Vec3(0, -1, 0)), _body(), Transform())
    Constraint.ConstantSpeed(b, 0.5)
    state2 = system2.realizeTopology()
    system2.realize(state2, Stage.Acceleration)
    assert "compiled form" in system2._fused_realization.whyNotFused(state2)


_NOJIT_SCRIPT = """
import json, sys
import numpy as np
import engine.multibody.fused_realization as fused_realization
import engine.multibody.fused_realization as fused_realization
import engine.multibody.matter.constraints as matter_constraints
from engine import Stage
from tests.engine.test_compiled_constraints import model

out = {}
for path in ("compiled", "python"):
    if path == "python":
        matter_constraints.compiled_constraints = lambda *args: None
        fused_realization.compiled_constraints = lambda *args: None
    system, matter, state = model("fourbar_ball_twice")
    system.realize(state, Stage.Acceleration)
    out[path] = [np.asarray(state.getUDot()).tolist(), np.asarray(state.getMultipliers()).tolist()]
json.dump(out, sys.stdout)
"""


def test_the_kernels_run_as_python_with_the_jit_disabled():
    system, matter, state = model("fourbar_ball_twice")
    system.realize(state, Stage.Acceleration)
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
    for path in ("compiled", "python"):
        udot, lam = out[path]
        np.testing.assert_allclose(udot, state.getUDot(), rtol=0, atol=1e-12)
        np.testing.assert_allclose(lam, state.getMultipliers(), rtol=0, atol=1e-12)
    # the duplicated Ball shares its load: the two copies' multipliers are equal
    lam = np.asarray(state.getMultipliers())
    np.testing.assert_allclose(lam[:3], lam[3:], rtol=0, atol=1e-12)


def test_least_squares_gives_the_minimum_norm_multipliers_of_a_rank_deficient_w():
    rng = np.random.default_rng(3)
    for m, rank in ((1, 1), (1, 0), (3, 2), (6, 6), (6, 3), (9, 5)):
        B = rng.standard_normal((m, rank))
        W = B @ B.T
        rhs = rng.standard_normal(m)
        out = np.zeros(m)
        least_squares(W, rhs, out)
        expected = np.linalg.pinv(W, rcond=1e-12) @ rhs
        np.testing.assert_allclose(out, expected, rtol=0, atol=1e-12 * (1 + abs(expected).max()))
    out = np.zeros(2)  # the same equation twice: the load is shared
    least_squares(np.array([[2.0, 2.0], [2.0, 2.0]]), np.array([1.0, 1.0]), out)
    np.testing.assert_allclose(out, [0.25, 0.25], rtol=0, atol=1e-15)
