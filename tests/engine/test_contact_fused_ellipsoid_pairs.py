"""Sphere-Ellipsoid and Ellipsoid-Ellipsoid contact (Simbody's ConvexImplicitPair) inside the
fused one-call realization (``engine.contact.kernels.implicit_pair_kernel``): the kernel
finds the contacts the Python tracker finds, with the same geometry; models with such pairs
realize in one call with the stage-by-stage accelerations and take RungeKuttaMerson's
compiled steps, which equal the Python loop's."""

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
    CompliantContactSubsystem,
    ContactGeometry,
    ContactMaterial,
    ContactSurface,
    ContactTrackerSubsystem,
    EllipticalPointContact,
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
)
from engine.contact.generators import DoNothing
from engine.contact.implicit_pair_tracker import convex_implicit_pair
from engine.contact.kernels.implicit_pair_kernel import (
    DIRECTIONS,
    implicit_pair_force,
    implicit_pair_geometry,
)

ROOT = Path(__file__).resolve().parents[2]
SPHERE, ELLIPSOID = 1, 2
HARD = ContactMaterial(2e6, 0.4, 0.7, 0.5, 0.05)
SOFT = ContactMaterial(5e5, 0.2, 0.3, 0.2, 0.0)


def _random_rotation(rng) -> np.ndarray:
    q = rng.standard_normal(4)
    w, x, y, z = q / np.linalg.norm(q)
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
        ]
    )


@pytest.mark.parametrize("kind1", [SPHERE, ELLIPSOID])
def test_kernel_geometry_equals_the_python_tracker_at_random_poses(kind1):
    """300 random Sphere-Ellipsoid or Ellipsoid-Ellipsoid pairs, elongated ones included:
    the kernel finds a contact exactly where the Python tracker does, with the same depth,
    halfway point, normal and principal curvatures (1e-12), and its HertzElliptical body
    forces are those of the Python generator."""
    rng = np.random.default_rng(17 + kind1)
    found = 0
    for _ in range(300):
        if kind1 == SPHERE:
            shape1 = ContactGeometry.Sphere(float(rng.uniform(0.02, 0.2)))
        else:
            shape1 = ContactGeometry.Ellipsoid(rng.uniform(0.01, 0.3, 3))
        shape2 = ContactGeometry.Ellipsoid(rng.uniform(0.01, 0.3, 3))
        R = np.array([_random_rotation(rng), _random_rotation(rng)])
        p = np.array([rng.uniform(-0.1, 0.1, 3), rng.uniform(-0.2, 0.2, 3)])
        kind = np.array([kind1, ELLIPSOID], dtype=np.int64)
        size = np.array([shape1.sizes(), shape2.sizes()])
        contact = convex_implicit_pair(0, 1, R[0], p[0], R[1], p[1], shape1, shape2)
        ok, depth, o0, o1, o2, n0, n1, n2, kmax, kmin = implicit_pair_geometry(
            0, 1, R, p, kind, size, DIRECTIONS
        )
        assert ok == (contact is not None)
        if contact is None:
            continue
        found += 1
        scale = float(np.max(np.abs(contact.getCurvatures())))
        assert depth == pytest.approx(contact.getDepth(), rel=1e-12, abs=1e-14)
        np.testing.assert_allclose((o0, o1, o2), contact.getOriginInGround(), rtol=0, atol=1e-12)
        np.testing.assert_allclose((n0, n1, n2), contact.getNormalInGround(), rtol=0, atol=1e-12)
        np.testing.assert_allclose(
            (kmax, kmin), contact.getCurvatures(), rtol=0, atol=1e-12 * scale
        )
    assert found > 100


def test_kernel_force_equals_the_hertz_elliptical_generator():
    """One Ellipsoid-Ellipsoid contact with moving bodies: ``implicit_pair_force`` adds to
    each body the force and moment the stage-by-stage path applies, and returns its
    dissipated power."""
    from engine.contact.generators import HertzElliptical
    from engine.contact.generators.base import MaterialKinematics

    rng = np.random.default_rng(4)
    shape1 = ContactGeometry.Ellipsoid((0.2, 0.1, 0.08))
    shape2 = ContactGeometry.Ellipsoid((0.12, 0.09, 0.15))
    R = np.array([_random_rotation(rng), _random_rotation(rng)])
    p = np.array([[0.0, 0.0, 0.0], [0.05, 0.17, 0.02]])
    contact = convex_implicit_pair(0, 1, R[0], p[0], R[1], p[1], shape1, shape2)
    assert contact is not None
    p_GB = np.array([[0.01, 0.02, -0.03], [0.07, 0.15, 0.0]])  # body origins off the centres
    V_GB = rng.uniform(-0.5, 0.5, (2, 6))
    materials = (HARD, SOFT)
    material = np.array(
        [
            (m.getStiffness23(), m.getDissipation(), m.getStaticFriction())
            + (m.getDynamicFriction(), m.getViscousFriction())
            for m in materials
        ]
    )
    kin = MaterialKinematics(p_GB[0], V_GB[0, :3], V_GB[0, 3:], p_GB[1], V_GB[1, :3], V_GB[1, 3:])
    force, _ = HertzElliptical(None).calcContactForce(contact, HARD, SOFT, kin, 0.05)
    bf = np.zeros((2, 6))
    kind = np.array([ELLIPSOID, ELLIPSOID], dtype=np.int64)
    size = np.array([shape1.sizes(), shape2.sizes()])
    body = np.array([0, 1], dtype=np.int64)
    ok, power = implicit_pair_force(
        0, 1, R, p, kind, size, DIRECTIONS, material, body, p_GB, V_GB, 0.05, bf
    )
    assert ok == 1 and power == pytest.approx(force.getPowerDissipation(), rel=1e-12)
    F = force.getForceOnSurface2()[1]
    C = force.getContactPoint()
    assert np.linalg.norm(F) > 1.0
    scale = np.abs(F).max()
    np.testing.assert_allclose(bf[1, 3:], F, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(bf[0, 3:], -F, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(bf[1, :3], np.cross(C - p_GB[1], F), rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(bf[0, :3], -np.cross(C - p_GB[0], F), rtol=0, atol=1e-12 * scale)


def _scene(fused: bool, seed: int, track: bool = False, clique: bool = False):
    """Ground carries a floor (half space, normal +y), a Sphere and an Ellipsoid; free bodies
    rest against them at random poses: an Ellipsoid on the ground Sphere, an Ellipsoid on
    the ground Ellipsoid, a Sphere and an Ellipsoid against the first free Ellipsoid, an
    Ellipsoid on the floor; random velocities. ``clique`` puts the first free Ellipsoid and
    the ground Sphere in one clique. ``fused`` False realizes stage by stage."""
    rng = np.random.default_rng(seed)
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.UniformGravity(forces, matter, (0, -9.81, 0))
    ground = matter.Ground().updBody()
    ground.addContactSurface(
        Transform(Rotation(-math.pi / 2, 2)), ContactSurface(ContactGeometry.HalfSpace(), HARD)
    )
    together = ContactSurface.createNewContactClique()
    base_sphere = ContactSurface(ContactGeometry.Sphere(0.1), SOFT)
    if clique:
        base_sphere.joinClique(together)
    ground.addContactSurface(Transform((0.0, 0.3, 0.0)), base_sphere)
    ground.addContactSurface(
        Transform(Rotation(0.4, 0), (0.6, 0.3, 0.0)),
        ContactSurface(ContactGeometry.Ellipsoid((0.15, 0.08, 0.12)), HARD),
    )
    anchors = (  # (centre the body is placed around, distance from it)
        ((0.0, 0.3, 0.0), 0.17),
        ((0.6, 0.3, 0.0), 0.17),
        (None, 0.13),  # against the first free ellipsoid
        (None, 0.15),
        ((1.2, 0.06, 0.0), 0.0),  # on the floor
    )
    shapes = (
        ContactGeometry.Ellipsoid(rng.uniform(0.05, 0.12, 3)),
        ContactGeometry.Ellipsoid(rng.uniform(0.05, 0.12, 3)),
        ContactGeometry.Sphere(float(rng.uniform(0.05, 0.08))),
        ContactGeometry.Ellipsoid(rng.uniform(0.04, 0.1, 3)),
        ContactGeometry.Ellipsoid(rng.uniform(0.05, 0.1, 3)),
    )
    bodies = []
    for k, shape in enumerate(shapes):
        body = Body.Rigid(MassProperties(1.0 + 0.3 * k, (0, 0, 0), Inertia(0.01, 0.02, 0.015)))
        mobod = MobilizedBody.Free(matter.Ground(), Transform(), body, Transform())
        surface = ContactSurface(shape, HARD if k % 2 else SOFT)
        if clique and k == 0:
            surface.joinClique(together)
        mobod.updBody().addContactSurface(
            Transform(Rotation(float(rng.uniform(0, 3)), 1), rng.uniform(-0.01, 0.01, 3)),
            surface,
        )
        bodies.append(mobod)
    tracker = ContactTrackerSubsystem(system)
    ccs = CompliantContactSubsystem(system, tracker)
    ccs.setTransitionVelocity(0.05)
    ccs.setTrackDissipatedEnergy(track)
    if not fused:
        system._fused_realization = None
    state = system.realizeTopology()
    first = None
    for k, (mobod, (centre, distance)) in enumerate(zip(bodies, anchors, strict=True)):
        direction = rng.standard_normal(3)
        direction[1] = abs(direction[1]) + 0.5
        direction /= np.linalg.norm(direction)
        origin = np.array(centre) if centre is not None else first
        position = origin + distance * direction
        if k == 0:
            first = position
        mobod.setQToFitTranslation(state, position)
        mobod.setQToFitRotation(state, Rotation(float(rng.uniform(0, 6)), (1.0, 0.5, 0.3)))
        mobod.setUToFitLinearVelocity(state, rng.uniform(-0.5, 0.5, 3))
        mobod.setUToFitAngularVelocity(state, rng.uniform(-3.0, 3.0, 3))
    return system, tracker, ccs, state


def _contacts(tracker, state):
    return [
        (int(c.getSurface1()), int(c.getSurface2()), int(c.getCondition()))
        for c in tracker.getActiveContacts(state)
    ]


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_ellipsoid_pairs_in_one_call_with_the_stage_by_stage_accelerations(seed):
    """Ellipsoids resting on a sphere and on an ellipsoid, against each other and on the
    floor, at random poses and velocities: realized in one call (whyNotFused ""), with the
    stage-by-stage udot (1e-12 of its largest entry) and dissipated power (the z's
    derivative), the same contacts, forces and energy."""
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
    kinds = [tracker.getContactGeometry(s).getTypeId() for s in range(tracker.getNumSurfaces())]
    implicit = [(a, b) for a, b, _ in pairs if kinds[a] != 0]
    assert len(implicit) >= 2
    for c in tracker.getActiveContacts(state):
        if kinds[int(c.getSurface1())] != 0:
            assert EllipticalPointContact.isInstance(c)
    assert ccs.getNumContactForces(state) == ccs2.getNumContactForces(state2)
    assert ccs.calcPotentialEnergy(state) == pytest.approx(ccs2.calcPotentialEnergy(state2))
    for k in range(ccs.getNumContactForces(state)):
        f, f2 = ccs.getContactForce(state, k), ccs2.getContactForce(state2, k)
        np.testing.assert_allclose(f.getForceOnSurface2(), f2.getForceOnSurface2(), atol=1e-9)


def test_a_clique_excludes_an_ellipsoid_pair_in_the_kernel():
    """The first free ellipsoid shares a clique with the ground sphere it rests on: no
    contact between them, and the same udot as stage by stage."""
    system, tracker, _, state = _scene(True, 1, clique=True)
    system.realize(state, Stage.Acceleration)
    assert system.whyNotFused(state) == ""
    other, _, _, state2 = _scene(False, 1, clique=True)
    other.realize(state2, Stage.Acceleration)
    scale = np.max(np.abs(state2.getUDot()))
    np.testing.assert_allclose(state.getUDot(), state2.getUDot(), rtol=0, atol=1e-12 * scale)
    # surfaces: 0 floor, 1 ground sphere, 2 ground ellipsoid, 3.. the free bodies
    assert (1, 3) not in {p[:2] for p in _contacts(tracker, state)}
    system, tracker, _, state = _scene(True, 1)
    system.realize(state, Stage.Position)
    assert (1, 3) in {p[:2] for p in _contacts(tracker, state)}


def test_a_replaced_elliptical_generator_keeps_an_ellipsoid_pair_stage_by_stage():
    system, _, ccs, _ = _scene(True, 1)
    ccs.adoptForceGenerator(type("Quiet", (DoNothing,), {"CONTACT_TYPE": EllipticalPointContact})())
    state = system.realizeTopology()
    system.realize(state, Stage.Acceleration)
    assert "EllipticalPointContact" in system.whyNotFused(state)


def _drop(base: str, python_steps: bool, fused: bool = True):
    """An Ellipsoid dropped from 3 cm, tilted and sliding, onto a Sphere or an Ellipsoid
    fixed to Ground (``base``); dissipated energy tracked. Returns (stepper, integrator)."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.UniformGravity(forces, matter, (0, -9.81, 0))
    shape = (
        ContactGeometry.Sphere(0.1)
        if base == "sphere"
        else ContactGeometry.Ellipsoid((0.15, 0.08, 0.12))
    )
    matter.Ground().updBody().addContactSurface(Transform(), ContactSurface(shape, HARD))
    body = Body.Rigid(MassProperties(1.0, (0, 0, 0), Inertia(0.004, 0.006, 0.005)))
    mobod = MobilizedBody.Free(matter.Ground(), Transform(), body, Transform())
    mobod.updBody().addContactSurface(
        Transform(), ContactSurface(ContactGeometry.Ellipsoid((0.1, 0.05, 0.07)), SOFT)
    )
    tracker = ContactTrackerSubsystem(system)
    ccs = CompliantContactSubsystem(system, tracker)
    ccs.setTrackDissipatedEnergy(True)
    if not fused:
        system._fused_realization = None
    state = system.realizeTopology()
    top = 0.1 if base == "sphere" else 0.08
    mobod.setQToFitTranslation(state, (0.01, top + 0.05 + 0.03, 0.005))
    mobod.setQToFitRotation(state, Rotation(0.3, (1.0, 0.2, 0.5)))
    mobod.setUToFitLinearVelocity(state, (0.1, 0.0, -0.05))
    mobod.setUToFitAngularVelocity(state, (0.5, 1.0, 0.0))
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(1e-4)
    if python_steps:
        integ._takeCompiledSteps = lambda *args: 0  # every step in Python, one kernel call each
    stepper = TimeStepper(system, integ)
    stepper.initialize(state)
    return stepper, integ, tracker


@pytest.mark.parametrize("base", ["sphere", "ellipsoid"])
def test_dropped_ellipsoid_compiled_steps_equal_the_python_loop(base):
    """0.5 s of an ellipsoid landing on a sphere or an ellipsoid: the compiled Merson steps
    apply and take the Python loop's steps (same counts, q, u, z within 1e-10); the
    ellipsoid does land (a contact, energy dissipated)."""
    runs = []
    for python_steps in (False, True):
        stepper, integ, tracker = _drop(base, python_steps)
        if not python_steps:
            assert integ.whyNotCompiledSteps() == ""
        touched = 0
        for t in np.linspace(0.05, 0.5, 10):
            stepper.stepTo(float(t))
            touched += tracker.getActiveContacts(stepper.getState()).getNumContacts()
        state = stepper.getState()
        runs.append((state.getY().copy(), integ.getNumStepsTaken(), integ.getNumStepsAttempted()))
        assert touched >= 3
    (y, steps, attempts), (y2, steps2, attempts2) = runs
    assert (steps, attempts) == (steps2, attempts2) and steps > 20
    np.testing.assert_allclose(y, y2, rtol=0, atol=1e-10)
    assert y[-1] > 0.0  # the dissipated energy


_NOJIT_SCRIPT = """
import json
import numpy as np
from engine import Stage
from tests.engine.test_contact_fused_ellipsoid_pairs import _scene
udots, why = [], None
for fused in (True, False):
    system, tracker, ccs, state = _scene(fused, 2)
    system.realize(state, Stage.Acceleration)
    udots.append(state.getUDot().tolist())
    why = system.whyNotFused(state) if why is None else why
print(json.dumps({"why": why, "udot": udots}))
"""


def test_the_ellipsoid_pair_kernel_runs_as_python_with_the_jit_disabled():
    """With NUMBA_DISABLE_JIT=1 the same kernels run as Python: the fused realization of the
    scene gives the stage-by-stage udot."""
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
