"""HuntCrossleyForce inside the fused one-call realization: its contact set's detection and
force law as a compiled force term (HUNT_CROSSLEY) give the stage-by-stage accelerations,
forces and energy, Simbody's early stop included; RungeKuttaMerson's compiled steps take the
Python loop's steps on a ball drop; a set the kernel cannot take stays stage by stage."""

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
    Body,
    ContactGeometry,
    Force,
    GeneralContactSubsystem,
    GeneralForceSubsystem,
    HuntCrossleyForce,
    Inertia,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    Rotation,
    SimbodyMatterSubsystem,
    Stage,
    Transform,
)
from tests.engine.test_compiled_merson_attempt import simulate_merson

#: the floor's frame: S's x axis along -Y, so the half space's outward normal is +Y
FLOOR = Transform(Rotation(-math.pi / 2, 2))


def _system():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.UniformGravity(forces, matter, (0, -9.81, 0))
    gcs = GeneralContactSubsystem(system)
    return system, matter, forces, gcs, gcs.createContactSet()


def _ball(matter, r: float, mass: float = 1.0):
    inertia = Inertia(0.4 * mass * r * r)
    return MobilizedBody.Free(matter.Ground(), Body.Rigid(MassProperties(mass, [0, 0, 0], inertia)))


def _pile(seed: int, nballs: int = 10):
    """Balls of mixed radii crowded over a floor and against a tilted wall and a sphere
    fixed on Ground, many touching each other, with random velocities and per-surface
    materials: ball 0 carries two spheres (never in contact with each other), ball 1 an
    ellipsoid too (in the sweep, never in contact here). Returns (system, gcs, set,
    element, state)."""
    rng = np.random.default_rng(seed)
    system, matter, forces, gcs, cs = _system()
    gcs.addBody(cs, matter.Ground(), ContactGeometry.HalfSpace(), FLOOR)
    wall = Transform(Rotation(math.pi + 0.1, 2), (-0.25, 0, 0))
    gcs.addBody(cs, matter.Ground(), ContactGeometry.HalfSpace(), wall)
    gcs.addBody(cs, matter.Ground(), ContactGeometry.Sphere(0.1), Transform((0.3, 0.05, 0)))
    balls = []
    for k in range(nballs):
        r = float(rng.uniform(0.05, 0.09))
        ball = _ball(matter, r)
        gcs.addBody(cs, ball, ContactGeometry.Sphere(r), Transform())
        if k == 0:
            gcs.addBody(cs, ball, ContactGeometry.Sphere(0.6 * r), Transform((0.5 * r, 0, 0)))
        if k == 1:
            gcs.addBody(cs, ball, ContactGeometry.Ellipsoid((r, 0.5 * r, 0.7 * r)), Transform())
        balls.append((ball, r))
    element = HuntCrossleyForce(forces, gcs, cs)
    for s in range(gcs.getNumBodies(cs)):
        element.setBodyParameters(
            s,
            float(10 ** rng.uniform(5, 7)),
            float(rng.uniform(0, 1.0)),
            float(rng.uniform(0.3, 0.9)),
            float(rng.uniform(0.1, 0.3)),
            float(rng.uniform(0, 0.1)),
        )
    element.setTransitionVelocity(0.05)
    state = system.realizeTopology()
    for ball, r in balls:
        p = [rng.uniform(-0.22, 0.3), rng.uniform(0.5 * r, 0.3), rng.uniform(-0.08, 0.08)]
        ball.setQToFitTransform(state, Transform(Rotation(rng.uniform(0, 3), 1), p))
        ball.setUToFitLinearVelocity(state, rng.normal(0, 0.5, 3))
        ball.setUToFitAngularVelocity(state, rng.normal(0, 3.0, 3))
    return system, gcs, cs, element, state


def _stage_by_stage(system, state):
    """``state`` realized to Acceleration without the fused realization."""
    fused = system._fused_realization
    system._fused_realization = None
    try:
        system.realize(state, Stage.Acceleration)
    finally:
        system._fused_realization = fused
    return state


def _assert_same(system, fast, slow) -> None:
    scale = max(1.0, float(np.max(np.abs(slow.getUDot()))))
    np.testing.assert_allclose(fast.getUDot(), slow.getUDot(), rtol=0, atol=1e-12 * scale)
    forces, forces2 = system.getRigidBodyForces(fast), system.getRigidBodyForces(slow)
    fscale = max(1.0, float(np.max(np.abs(forces2))))
    np.testing.assert_allclose(forces, forces2, rtol=0, atol=1e-12 * fscale)
    assert system.calcPotentialEnergy(fast) == pytest.approx(
        system.calcPotentialEnergy(slow), rel=1e-12, abs=1e-15
    )


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_pile_realizes_in_one_call_with_the_stage_by_stage_forces(seed):
    system, gcs, cs, element, state = _pile(seed)
    slow = state.copy()
    system.realize(state, Stage.Acceleration)
    assert system.whyNotFused(state) == ""
    _stage_by_stage(system, slow)
    _assert_same(system, state, slow)
    contacts = gcs.getContacts(state, cs)
    pairs = [(int(c.getSurface1()), int(c.getSurface2())) for c in contacts]
    assert pairs == [
        (int(c.getSurface1()), int(c.getSurface2())) for c in gcs.getContacts(slow, cs)
    ]
    assert len(pairs) >= 4
    assert (3, 4) not in pairs  # the two spheres of ball 0


def test_the_kept_sweep_order_follows_the_balls_as_they_move():
    """One State realized again after each of several moves (small ones, then one that
    turns the pile so the sweep axis changes): the kernel sorts from the order it kept
    and still matches stage by stage."""
    system, gcs, cs, _, state = _pile(7, nballs=14)
    rng = np.random.default_rng(70)
    for step in range(6):
        q = state.getQ().copy()
        if step == 4:  # swap x and z of every ball: the spread moves to the other axis
            for b in range(1, system.getMatterSubsystem().getNumBodies()):
                q[7 * b - 3], q[7 * b - 1] = 0.3 * q[7 * b - 1], 2.0 * q[7 * b - 3]
        else:
            q += rng.normal(0, 0.005, q.shape)
        state.setQ(q)
        slow = state.copy()
        system.realize(state, Stage.Acceleration)
        assert system.whyNotFused(state) == ""
        _stage_by_stage(system, slow)
        _assert_same(system, state, slow)
        assert len(gcs.getContacts(state, cs)) >= 3


def _contact_rows(contacts) -> list:
    return [
        (int(c.getSurface1()), int(c.getSurface2()), *c.getLocation(), *c.getNormal(),
         c.getEffectiveRadius(), c.getDepth())
        for c in contacts
    ]  # fmt: skip


def _grid(n: int):
    """n x n balls of radius 0.05 on a square grid in the floor, neighbours overlapping:
    the centres spread equally along x and z (the sweep axis is a tie)."""
    system, matter, forces, gcs, cs = _system()
    gcs.addBody(cs, matter.Ground(), ContactGeometry.HalfSpace(), FLOOR)
    balls = []
    for _ in range(n * n):
        ball = _ball(matter, 0.05)
        gcs.addBody(cs, ball, ContactGeometry.Sphere(0.05), Transform())
        balls.append(ball)
    HuntCrossleyForce(forces, gcs, cs)
    state = system.realizeTopology()
    for k, ball in enumerate(balls):
        ball.setQToFitTranslation(state, [0.099 * (k % n), 0.049, 0.099 * (k // n)])
    return system, gcs, cs, state


@pytest.mark.parametrize("case", ["pile 1", "pile 2", "pile 6", "grid"])
def test_kernel_detection_is_the_python_sweep(case):
    """The detection kernel reports what GeneralContactSubsystem's Python sweep (kept for
    sets with a mesh) reports: the same contacts in the same order, the same numbers."""
    if case == "grid":
        system, gcs, cs, state = _grid(4)
    else:
        system, gcs, cs, _, state = _pile(int(case.split()[1]), nballs=14)
    system.realize(state, Stage.Position)
    found = _contact_rows(gcs.getContacts(state, cs))
    python = gcs._find_contacts_python(state, cs)
    assert len(found) >= 5
    assert [r[:2] for r in found] == [r[:2] for r in _contact_rows(python)]
    np.testing.assert_allclose(
        np.array(found)[:, 2:], np.array(_contact_rows(python))[:, 2:], rtol=1e-14, atol=1e-15
    )


def test_the_walk_stops_at_the_first_contact_pulling_apart():
    """Three balls in the floor, the middle one pulled up faster than 2/(3c): it and the
    ball after it get no force, the first one does, in the kernel as stage by stage."""
    system, matter, forces, gcs, cs = _system()
    gcs.addBody(cs, matter.Ground(), ContactGeometry.HalfSpace(), FLOOR)
    balls = []
    for _ in range(3):
        ball = _ball(matter, 0.1)
        gcs.addBody(cs, ball, ContactGeometry.Sphere(0.1), Transform())
        balls.append(ball)
    element = HuntCrossleyForce(forces, gcs, cs)
    for s in range(4):
        element.setBodyParameters(s, 1e6, 0.5, 0.5, 0.3, 0.0)
    state = system.realizeTopology()
    for k, ball in enumerate(balls):
        ball.setQToFitTranslation(state, [0.5 * k, 0.099, 0])
        ball.setUToFitLinearVelocity(state, [0.1, 2.0 if k == 1 else -0.1, 0])
    slow = state.copy()
    system.realize(state, Stage.Acceleration)
    assert system.whyNotFused(state) == ""
    _stage_by_stage(system, slow)
    _assert_same(system, state, slow)
    forces_G = system.getRigidBodyForces(state)
    assert np.any(forces_G[1, 1] != 0.0)
    gravity = np.array([0.0, -9.81, 0.0])
    np.testing.assert_array_equal(forces_G[2, 1], gravity)
    np.testing.assert_array_equal(forces_G[3, 1], gravity)


def _drop():
    """A ball dropped with spin and a sideways speed onto the floor, bouncing and
    sliding (HuntCrossleyForce with dissipation and friction)."""
    system, matter, forces, gcs, cs = _system()
    gcs.addBody(cs, matter.Ground(), ContactGeometry.HalfSpace(), FLOOR)
    ball = _ball(matter, 0.1)
    gcs.addBody(cs, ball, ContactGeometry.Sphere(0.1), Transform())
    element = HuntCrossleyForce(forces, gcs, cs)
    element.setBodyParameters(0, 1e7, 0.5, 0.8, 0.5, 0.02)
    element.setBodyParameters(1, 1e6, 0.3, 0.6, 0.4, 0.0)
    state = system.realizeTopology()
    ball.setQToFitTranslation(state, [0, 0.25, 0])
    ball.setUToFitLinearVelocity(state, [0.5, 0, 0.1])
    ball.setUToFitAngularVelocity(state, [0, 1.0, 3.0])
    return system, state


def test_compiled_merson_steps_follow_the_python_loop_on_a_ball_drop():
    system, state = _drop()
    system.realize(state, Stage.Acceleration)
    assert system.whyNotFused(state) == ""
    fast, fast_state, _ = simulate_merson(system, state, "steps", tfinal=0.35, accuracy=1e-5)
    slow, slow_state, _ = simulate_merson(system, state, "python", tfinal=0.35, accuracy=1e-5)
    assert fast.compiledStepsTaken > 0.9 * fast.getNumStepsTaken()
    assert fast.getNumStepsTaken() == slow.getNumStepsTaken() > 20
    assert fast.getNumStepsAttempted() == slow.getNumStepsAttempted()
    np.testing.assert_allclose(fast_state.getQ(), slow_state.getQ(), rtol=0, atol=1e-10)
    np.testing.assert_allclose(fast_state.getU(), slow_state.getU(), rtol=0, atol=1e-10)
    assert fast_state.getQ()[4] > 0.09  # it bounced and is above the floor


def test_a_set_with_a_mesh_realizes_in_one_call():
    """A TriangleMesh in the set is one more finite shape of the sweep (its contacts are
    ElasticFoundationForce's): the point contacts, their order and forces are the
    stage-by-stage ones, where the set's contacts are found in Python."""
    system, matter, forces, gcs, cs = _system()
    gcs.addBody(cs, matter.Ground(), ContactGeometry.HalfSpace(), FLOOR)
    ball, other = _ball(matter, 0.1), _ball(matter, 0.05)
    v = [(0, 0, 0), (0.1, 0, 0), (0, 0.1, 0), (0, 0, 0.1)]
    mesh = ContactGeometry.TriangleMesh(v, [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3])
    gcs.addBody(cs, ball, mesh, Transform((-0.05, -0.12, 0)))
    gcs.addBody(cs, ball, ContactGeometry.Sphere(0.1), Transform())
    gcs.addBody(cs, other, ContactGeometry.Sphere(0.05), Transform())
    element = HuntCrossleyForce(forces, gcs, cs)
    for s in range(4):
        element.setBodyParameters(s, 1e6, 0.5, 0.5, 0.3, 0.0)
    state = system.realizeTopology()
    ball.setQToFitTranslation(state, [0, 0.099, 0])
    ball.setUToFitLinearVelocity(state, [0.3, -0.1, 0])
    other.setQToFitTranslation(state, [0.14, 0.049, 0])
    other.setUToFitAngularVelocity(state, [0, 0, 2.0])
    slow = state.copy()
    system.realize(state, Stage.Acceleration)
    assert system.whyNotFused(state) == ""
    _assert_same(system, state, _stage_by_stage(system, slow))
    pairs = [(int(c.getSurface1()), int(c.getSurface2())) for c in gcs.getContacts(state, cs)]
    assert {(0, 2), (0, 3), (2, 3)} <= set(pairs)  # the floor under both balls, ball on ball
    assert (0, 1) in pairs  # the mesh dips into the floor (not HuntCrossleyForce's)


_NOJIT_SCRIPT = """
import json, sys
import numpy as np
from engine import Stage
from tests.engine.test_hunt_crossley_fused import _pile, _stage_by_stage
system, gcs, cs, element, state = _pile(5, nballs=4)
slow = state.copy()
system.realize(state, Stage.Acceleration)
fused = system.whyNotFused(state) == ""
_stage_by_stage(system, slow)
from tests.engine.test_elastic_foundation_fused import _cube_case
cube_system, cube_state = _cube_case()
cube_slow = cube_state.copy()
cube_system.realize(cube_state, Stage.Acceleration)
cube_fused = cube_system.whyNotFused(cube_state) == ""
_stage_by_stage(cube_system, cube_slow)
from tests.engine.test_elastic_foundation_fused import _cubes_case
cubes_system, cubes_state = _cubes_case()
cubes_system.realize(cubes_state, Stage.Acceleration)
cubes_fused = cubes_system.whyNotFused(cubes_state) == ""
json.dump({"fused": fused, "udot": np.asarray(state.getUDot()).tolist(),
           "cubes_fused": cubes_fused,
           "cubes_udot": np.asarray(cubes_state.getUDot()).tolist(),
           "slow": np.asarray(slow.getUDot()).tolist(),
           "contacts": len(gcs.getContacts(state, cs)),
           "cube_fused": cube_fused, "cube_udot": np.asarray(cube_state.getUDot()).tolist(),
           "cube_slow": np.asarray(cube_slow.getUDot()).tolist()}, sys.stdout)
"""


@pytest.mark.slow
def test_the_kernels_run_as_python_with_the_jit_off():
    """HUNT_CROSSLEY's and ELASTIC_FOUNDATION's kernels (its mesh-mesh springs too) with
    NUMBA_DISABLE_JIT=1 give the compiled kernels' accelerations."""
    system, gcs, cs, _, state = _pile(5, nballs=4)
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
    assert result["fused"] and result["contacts"] == len(gcs.getContacts(state, cs)) >= 1
    np.testing.assert_allclose(result["udot"], state.getUDot(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(result["slow"], state.getUDot(), rtol=1e-12, atol=1e-11)
    # ElasticFoundationForce's kernel (a mesh cube on a floor) as Python too
    from tests.engine.test_elastic_foundation_fused import _cube_case

    cube_system, cube_state = _cube_case()
    cube_system.realize(cube_state, Stage.Acceleration)
    udot = cube_state.getUDot()
    assert result["cube_fused"]
    np.testing.assert_allclose(result["cube_udot"], udot, rtol=0, atol=1e-12 * np.abs(udot).max())
    np.testing.assert_allclose(result["cube_slow"], udot, rtol=0, atol=1e-12 * np.abs(udot).max())
    # and its mesh-mesh springs (two mesh cubes with springs, deep)
    from tests.engine.test_elastic_foundation_fused import _cubes_case

    cubes_system, cubes_state = _cubes_case()
    cubes_system.realize(cubes_state, Stage.Acceleration)
    udot = cubes_state.getUDot()
    assert result["cubes_fused"]
    np.testing.assert_allclose(result["cubes_udot"], udot, rtol=0, atol=1e-12 * np.abs(udot).max())


def test_reference_model_fused_gives_simbodys_udot():
    """contact.json's HuntCrossleyForce samples (Simbody 3.7): realized in the one kernel
    call, udot matches Simbody's to 1e-9 and the stage-by-stage path to 1e-12."""
    from tests.engine.contact_hc_models import build_contact_model
    from tests.engine.reference_data import load_reference, model_by_name, reference_available

    if not reference_available("contact"):
        pytest.skip("shared/reference/contact.json not present")
    case = model_by_name(load_reference("contact"), "hunt_crossley")
    built = build_contact_model(case["model"])
    system = built.system
    for sample in case["samples"]:
        state = built.new_state(sample["state"])
        slow = state.copy()
        system.realize(state, Stage.Acceleration)
        assert system.whyNotFused(state) == ""
        expected = np.asarray(sample["outputs"]["udot"])
        scale = max(1.0, float(np.max(np.abs(expected))))
        np.testing.assert_allclose(state.getUDot(), expected, rtol=1e-9, atol=1e-9 * scale)
        _assert_same(system, state, _stage_by_stage(system, slow))
