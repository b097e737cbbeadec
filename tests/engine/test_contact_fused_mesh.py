"""HalfSpace-TriangleMesh and Sphere-TriangleMesh contact (ElasticFoundation) inside the fused
one-call realization (``engine.contact.kernels.mesh_contact_kernel``): such models realize
in one call with the stage-by-stage accelerations and dissipated power, and take
RungeKuttaMerson's compiled steps, which equal the Python loop's. Mesh-mesh pairs:
test_contact_fused_mesh_mesh.py."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import trimesh

from engine import (
    Body,
    CompliantContactSubsystem,
    ContactGeometry,
    ContactMaterial,
    ContactSurface,
    ContactTrackerSubsystem,
    Force,
    GeneralForceSubsystem,
    Inertia,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    Rotation,
    RungeKuttaMersonIntegrator,
    SimbodyMatterSubsystem,
    Stage,
    TimeStepper,
    Transform,
    TriangleMeshContact,
)
from engine.contact.generators import DoNothing

ROOT = Path(__file__).resolve().parents[2]
HARD = ContactMaterial(2e6, 0.4, 0.7, 0.5, 0.05)
SOFT = ContactMaterial(5e5, 0.2, 0.3, 0.2, 0.0)
FLOOR = Transform(Rotation(-math.pi / 2, 2))  # half space y < 0, outward normal +y


def _cube(half: float, subdivisions: int = 1) -> ContactGeometry.TriangleMesh:
    box = trimesh.creation.box(extents=(2 * half, 2 * half, 2 * half))
    for _ in range(subdivisions):
        box = box.subdivide()
    return ContactGeometry.TriangleMesh(box)


def _ball(radius: float) -> ContactGeometry.TriangleMesh:
    return ContactGeometry.TriangleMesh(trimesh.creation.icosphere(2, radius))


def _scene(fused: bool, seed: int, track: bool = False, meshes: int = 1):
    """Ground carries a floor (half space, normal +y) and a Sphere of radius 0.1 at
    (0.6, 0.3, 0); free bodies at random poses and velocities: a mesh cube and a mesh
    icosphere pressed into the floor, a mesh cube pressed onto the ground Sphere, and a free
    Sphere pressed onto the first cube; the meshes share a clique. ``meshes`` 2 gives the
    icosphere a second mesh surface, in no clique, that may touch the cubes (mesh-mesh
    pairs). ``fused`` False realizes stage by stage."""
    rng = np.random.default_rng(seed)
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.UniformGravity(forces, matter, (0, -9.81, 0))
    ground = matter.Ground().updBody()
    ground.addContactSurface(FLOOR, ContactSurface(ContactGeometry.HalfSpace(), HARD))
    ground.addContactSurface(
        Transform((0.6, 0.3, 0.0)), ContactSurface(ContactGeometry.Sphere(0.1), SOFT)
    )
    shapes = (_cube(0.08, 2), _ball(0.07), _cube(0.06), ContactGeometry.Sphere(0.05))
    meshes_apart = ContactSurface.createNewContactClique()
    bodies = []
    for k, shape in enumerate(shapes):
        body = Body.Rigid(MassProperties(1.0 + 0.3 * k, (0, 0, 0), Inertia(0.01, 0.02, 0.015)))
        mobod = MobilizedBody.Free(matter.Ground(), Transform(), body, Transform())
        surface = ContactSurface(shape, HARD if k % 2 else SOFT)
        if k < 3:  # no two meshes touch
            surface.joinClique(meshes_apart)
        mobod.updBody().addContactSurface(
            Transform(Rotation(float(rng.uniform(0, 3)), 1), rng.uniform(-0.01, 0.01, 3)),
            surface,
        )
        if meshes == 2 and k == 1:
            mobod.updBody().addContactSurface(
                Transform((0.0, 0.0, 0.0)), ContactSurface(_cube(0.03, 0), HARD)
            )
        bodies.append(mobod)
    tracker = ContactTrackerSubsystem(system)
    ccs = CompliantContactSubsystem(system, tracker)
    ccs.setTransitionVelocity(0.05)
    ccs.setTrackDissipatedEnergy(track)
    if not fused:
        system._fused_realization = None
    state = system.realizeTopology()
    tilt = (1.0, 0.5, 0.3)
    cube = np.array((0.0, 0.07 + rng.uniform(0, 0.01), 0.0))
    places = (cube, (0.3, 0.06, 0.1), (0.6, 0.45, 0.0), cube + (0.0, 0.12, 0.0))
    for mobod, p in zip(bodies, places, strict=True):
        mobod.setQToFitTranslation(state, p)
        mobod.setQToFitRotation(state, Rotation(float(rng.uniform(-0.2, 0.2)), tilt))
        mobod.setUToFitLinearVelocity(state, rng.uniform(-0.5, 0.5, 3))
        mobod.setUToFitAngularVelocity(state, rng.uniform(-3.0, 3.0, 3))
    return system, tracker, ccs, state


def _contacts(tracker, state):
    return [
        (int(c.getSurface1()), int(c.getSurface2()), int(c.getCondition()))
        for c in tracker.getActiveContacts(state)
    ]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_mesh_pairs_in_one_call_with_the_stage_by_stage_accelerations(seed):
    """Mesh cubes and an icosphere on the floor, a mesh cube on a Sphere, a Sphere on a
    mesh cube, at random poses and velocities: realized in one call (whyNotFused ""), with
    the stage-by-stage udot (1e-12 of its largest entry) and dissipated power, the same
    contacts, forces and energy."""
    system, tracker, ccs, state = _scene(True, seed, track=True)
    system.realize(state, Stage.Acceleration)
    assert system.whyNotFused(state) == ""
    other, tracker2, ccs2, state2 = _scene(False, seed, track=True)
    other.realize(state2, Stage.Acceleration)
    scale = np.max(np.abs(state2.getUDot()))
    np.testing.assert_allclose(state.getUDot(), state2.getUDot(), rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(state.getZDot(), state2.getZDot(), rtol=1e-12)
    pairs = _contacts(tracker, state)
    assert pairs == _contacts(tracker2, state2)
    meshes = [c for c in tracker.getActiveContacts(state) if TriangleMeshContact.isInstance(c)]
    assert len(meshes) == 4  # cube-floor, icosphere-floor, sphere-cube, sphere-cube
    assert ccs.getNumContactForces(state) == ccs2.getNumContactForces(state2)
    assert ccs.calcPotentialEnergy(state) == pytest.approx(ccs2.calcPotentialEnergy(state2))
    for k in range(ccs.getNumContactForces(state)):
        f, f2 = ccs.getContactForce(state, k), ccs2.getContactForce(state2, k)
        np.testing.assert_allclose(f.getForceOnSurface2(), f2.getForceOnSurface2(), atol=1e-9)
    # the mesh forces are a real part of udot: without them the bodies fall freely
    assert state.getZDot()[0] > 0.0


def test_a_scene_where_two_meshes_may_touch_is_fused_with_the_same_accelerations():
    """The scene with a second mesh on the icosphere's body that may touch the cubes
    (mesh-mesh pairs, ``mesh_mesh_kernel``): one call, the stage-by-stage udot."""
    system, tracker, _, state = _scene(True, 1, meshes=2)
    system.realize(state, Stage.Acceleration)
    assert system.whyNotFused(state) == ""
    assert tracker._mesh_mesh_pairs.shape[0] == 2
    other, _, _, state2 = _scene(False, 1, meshes=2)
    other.realize(state2, Stage.Acceleration)
    scale = np.max(np.abs(state2.getUDot()))
    np.testing.assert_allclose(state.getUDot(), state2.getUDot(), rtol=0, atol=1e-12 * scale)


def test_a_replaced_mesh_generator_keeps_the_model_stage_by_stage():
    system, _, ccs, _ = _scene(True, 1)
    ccs.adoptForceGenerator(type("Quiet", (DoNothing,), {"CONTACT_TYPE": TriangleMeshContact})())
    state = system.realizeTopology()
    system.realize(state, Stage.Acceleration)
    assert "ElasticFoundation" in system.whyNotFused(state)


def _drop(python_steps: bool):
    """A mesh cube dropped from 2 cm, tilted and sliding, onto the floor; dissipated energy
    tracked. Returns (stepper, integrator, tracker)."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.UniformGravity(forces, matter, (0, -9.81, 0))
    matter.Ground().updBody().addContactSurface(
        FLOOR, ContactSurface(ContactGeometry.HalfSpace(), HARD)
    )
    body = Body.Rigid(MassProperties(1.0, (0, 0, 0), Inertia(0.004, 0.006, 0.005)))
    mobod = MobilizedBody.Free(matter.Ground(), Transform(), body, Transform())
    mobod.updBody().addContactSurface(Transform(), ContactSurface(_cube(0.05), SOFT))
    tracker = ContactTrackerSubsystem(system)
    ccs = CompliantContactSubsystem(system, tracker)
    ccs.setTrackDissipatedEnergy(True)
    state = system.realizeTopology()
    mobod.setQToFitTranslation(state, (0.01, 0.05 * math.sqrt(2) + 0.02, 0.005))
    mobod.setQToFitRotation(state, Rotation(0.3, (1.0, 0.2, 0.5)))
    mobod.setUToFitLinearVelocity(state, (0.1, 0.0, -0.05))
    mobod.setUToFitAngularVelocity(state, (0.5, 1.0, 0.0))
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(1e-3)
    if python_steps:
        integ._takeCompiledSteps = lambda *args: 0  # every step in Python, one kernel call each
    stepper = TimeStepper(system, integ)
    stepper.initialize(state)
    return stepper, integ, tracker


def test_dropped_mesh_cube_compiled_steps_equal_the_python_loop():
    """0.3 s of a mesh cube landing on the floor: the compiled Merson steps apply and take
    the Python loop's steps (same counts, q, u, z within 1e-10); the cube does land (a
    contact, energy dissipated)."""
    runs = []
    for python_steps in (False, True):
        stepper, integ, tracker = _drop(python_steps)
        if not python_steps:
            assert integ.whyNotCompiledSteps() == ""
        touched = 0
        for t in np.linspace(0.03, 0.3, 10):
            stepper.stepTo(float(t))
            touched += tracker.getActiveContacts(stepper.getState()).getNumContacts()
        state = stepper.getState()
        assert stepper.getSystem().whyNotFused(state) == ""
        runs.append((state.getY().copy(), integ.getNumStepsTaken(), integ.getNumStepsAttempted()))
        assert touched >= 3
    (y, steps, attempts), (y2, steps2, attempts2) = runs
    assert (steps, attempts) == (steps2, attempts2) and steps > 20
    np.testing.assert_allclose(y, y2, rtol=0, atol=1e-10)
    assert y[-1] > 0.0  # the dissipated energy


_NOJIT_SCRIPT = """
import json
from engine import Stage
from tests.engine.test_contact_fused_mesh import _scene
udots, why = [], None
for fused in (True, False):
    system, tracker, ccs, state = _scene(fused, 2, meshes=2)
    system.realize(state, Stage.Acceleration)
    udots.append(state.getUDot().tolist())
    why = system.whyNotFused(state) if why is None else why
print(json.dumps({"why": why, "udot": udots}))
"""


def test_the_mesh_kernel_runs_as_python_with_the_jit_disabled():
    """With NUMBA_DISABLE_JIT=1 the same kernels run as Python: the fused realization of the
    scene (with its mesh-mesh pairs) gives the stage-by-stage udot."""
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
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["why"] == ""
    fused, staged = (np.array(u) for u in out["udot"])
    scale = np.max(np.abs(staged))
    np.testing.assert_allclose(fused, staged, rtol=0, atol=1e-12 * scale)
