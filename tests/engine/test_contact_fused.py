"""Compliant contact inside the fused one-call realization: the same accelerations as the
stage-by-stage path, RungeKuttaMerson's compiled steps apply, the snapshot and its history
are made on request, and the models the kernel cannot take still realize stage by stage."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine import (
    Body,
    CompliantContactSubsystem,
    Contact,
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
)
from engine.contact import contact_tracker_subsystem
from engine.contact.contact import BrickHalfSpaceContact, EllipticalPointContact
from engine.contact.generators import DoNothing
from tests.engine.contact_models import build_compliant, contact_model


def _pile(fused: bool, seed: int = 3, count: int = 12):
    """Spheres of mixed radii piled over a tilted floor and a wall, many touching each
    other: body 0 carries two spheres (never in contact with each other), spheres 3..5 share
    a clique; random velocities. ``fused`` False realizes stage by stage."""
    rng = np.random.default_rng(seed)
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.UniformGravity(forces, matter, (0, -9.81, 0))
    material = ContactMaterial(2e6, 0.4, 0.7, 0.5, 0.05)
    soft = ContactMaterial(5e5, 0.2, 0.3, 0.2, 0.0)
    ground = matter.Ground().updBody()
    ground.addContactSurface(
        Transform(Rotation(-math.pi / 2 + 0.1, 2)),
        ContactSurface(ContactGeometry.HalfSpace(), material),
    )
    ground.addContactSurface(
        Transform(Rotation(math.pi, 2), (-0.3, 0, 0)),
        ContactSurface(ContactGeometry.HalfSpace(), soft),
    )
    clique = ContactSurface.createNewContactClique()
    balls = []
    for k in range(count):
        r = float(rng.uniform(0.04, 0.08))
        body = Body.Rigid(MassProperties(1.0 + k * 0.1, (0, 0, 0), Inertia(0.4 * r * r)))
        ball = MobilizedBody.Free(matter.Ground(), Transform(), body, Transform())
        surface = ContactSurface(ContactGeometry.Sphere(r), material if k % 2 else soft)
        if 3 <= k <= 5:
            surface.joinClique(clique)
        ball.updBody().addContactSurface(Transform(), surface)
        if k == 0:
            ball.updBody().addContactSurface(
                Transform((0.05, 0, 0)), ContactSurface(ContactGeometry.Sphere(0.05), material)
            )
        balls.append(ball)
    tracker = ContactTrackerSubsystem(system)
    ccs = CompliantContactSubsystem(system, tracker)
    ccs.setTransitionVelocity(0.05)
    if not fused:
        system._fused_realization = None
    state = system.realizeTopology()
    for ball in balls:
        ball.setQToFitTranslation(state, rng.uniform((-0.25, 0.0, -0.15), (0.25, 0.3, 0.15)))
        ball.setQToFitRotation(state, Rotation(float(rng.uniform(0, 3)), int(rng.integers(3))))
        ball.setUToFitLinearVelocity(state, rng.uniform(-0.5, 0.5, 3))
        ball.setUToFitAngularVelocity(state, rng.uniform(-2.0, 2.0, 3))
    return system, tracker, ccs, state


def _pairs(snapshot):
    return [(int(c.getSurface1()), int(c.getSurface2()), int(c.getCondition())) for c in snapshot]


@pytest.mark.parametrize("seed", [3, 11])
def test_pile_realizes_in_one_call_with_the_stage_by_stage_accelerations(seed):
    system, tracker, ccs, state = _pile(True, seed)
    system.realize(state, Stage.Acceleration)
    assert system.whyNotFused(state) == ""
    other, tracker2, ccs2, state2 = _pile(False, seed)
    other.realize(state2, Stage.Acceleration)
    scale = np.max(np.abs(state2.getUDot()))
    np.testing.assert_allclose(state.getUDot(), state2.getUDot(), rtol=0, atol=1e-12 * scale)
    snapshot, snapshot2 = tracker.getActiveContacts(state), tracker2.getActiveContacts(state2)
    pairs = _pairs(snapshot)
    assert pairs == _pairs(snapshot2)
    sphere_pairs = [p for p in pairs if p[0] >= 2]
    assert len(sphere_pairs) >= 3 and len(pairs) - len(sphere_pairs) >= 2
    # surfaces: 0, 1 the half spaces; 2, 3 on ball 0; ball k >= 1 has surface k + 3
    found = {p[:2] for p in pairs}
    assert not found & {(2, 3), (6, 7), (6, 8), (7, 8)}  # one body; the clique
    assert ccs.getNumContactForces(state) == ccs2.getNumContactForces(state2)
    assert ccs.calcPotentialEnergy(state) == pytest.approx(ccs2.calcPotentialEnergy(state2))
    for k in range(ccs.getNumContactForces(state)):
        f, f2 = ccs.getContactForce(state, k), ccs2.getContactForce(state2, k)
        np.testing.assert_allclose(f.getForceOnSurface2(), f2.getForceOnSurface2(), atol=1e-9)


def test_contacts_applied_in_chunks_when_the_buffers_fill(monkeypatch):
    """With room for one contact at a time the kernel applies them as it finds them: the
    same accelerations up to rounding."""
    monkeypatch.setattr(contact_tracker_subsystem, "_found_capacity", lambda pairs, spheres: 1)
    system, _, _, state = _pile(True)
    system.realize(state, Stage.Acceleration)
    other, _, _, state2 = _pile(False)
    other.realize(state2, Stage.Acceleration)
    scale = np.max(np.abs(state2.getUDot()))
    np.testing.assert_allclose(state.getUDot(), state2.getUDot(), rtol=0, atol=1e-12 * scale)


def _reference(name: str, fused: bool):
    model = contact_model(name)
    spec = dict(model["model"])
    spec["contact"] = dict(spec["contact"], track_dissipated_energy=False)
    built = build_compliant(spec)
    if not fused:
        built.ref.system._fused_realization = None
    return model, built


def _initial(model: dict) -> dict:
    """The reference run's initial state without its z (the dissipated energy)."""
    return dict(model["initial_state"], z=[])


@pytest.mark.parametrize(
    ("name", "until"),
    [
        ("ball_drop", 0.2),
        ("slide_roll", 0.2),
        ("two_spheres", 0.2),
        # the brick's impacts magnify a change of 1e-14 in u to 2e-4 in the state by 0.2 s
        # (a step taken differently): compared to 0.15 s
        ("brick_settle", 0.15),
        ("ellipsoid_settle", 0.2),
    ],
)
def test_reference_models_same_accelerations_and_compiled_steps(name, until):
    """The reference trajectories' models (dissipated energy not tracked) over a few
    reports: at each state of the stage-by-stage run the fused realization gives the same
    udot, and the compiled Merson steps run and follow the same trajectory (within the
    integrator's accuracy: rounding differs, and a sticking contact magnifies it)."""
    runs = []
    for fused in (True, False):
        model, built = _reference(name, fused)
        system = built.ref.system
        integ = RungeKuttaMersonIntegrator(system)
        integ.setAccuracy(1e-4)
        stepper = TimeStepper(system, integ)
        stepper.initialize(built.ref.new_state(_initial(model)))
        if fused:
            assert integ.whyNotCompiledSteps() == ""
        rows = []
        for t in np.linspace(0.02, until, 6):
            stepper.stepTo(float(t))
            state = stepper.getState()
            system.realize(state, Stage.Acceleration)
            rows.append((state.getQ().copy(), state.getU().copy(), state.getUDot().copy()))
        runs.append((built, rows))
    (fused_built, fused_rows), (_, rows) = runs
    for (q, u, _), (q2, u2, _) in zip(fused_rows, rows, strict=True):
        np.testing.assert_allclose(np.concatenate((q, u)), np.concatenate((q2, u2)), atol=1e-6)
    system = fused_built.ref.system
    state = fused_built.ref.new_state(_initial(model))
    for q, u, udot in rows:
        state.setQ(q)
        state.setU(u)
        system.realize(state, Stage.Acceleration)
        assert system.whyNotFused(state) == ""
        scale = max(1.0, float(np.max(np.abs(udot))))
        np.testing.assert_allclose(state.getUDot(), udot, rtol=0, atol=1e-12 * scale)


def test_history_is_made_on_request_through_compiled_steps():
    """Two spheres collide while the compiled steps run: asked at each report, the contact
    is NewContact once, Ongoing with the same id, then Broken once, then gone."""
    model, built = _reference("two_spheres", True)
    system = built.ref.system
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(1e-5)
    stepper = TimeStepper(system, integ)
    stepper.initialize(built.ref.new_state(_initial(model)))
    assert integ.whyNotCompiledSteps() == ""
    seen, ids = [], set()
    t = 0.0
    while t < model["runs"][0]["reports"][-1]["t"]:
        t += 0.002
        stepper.stepTo(t)
        for c in built.tracker.getActiveContacts(stepper.getState()):
            seen.append(Contact.nameOfCondition(c.getCondition()))
            ids.add(int(c.getContactId()))
    assert seen[0] == "NewContact" and seen.count("NewContact") == 1
    assert seen[-1] == "Broken" and seen.count("Broken") == 1
    assert set(seen[1:-1]) == {"Ongoing"} and len(ids) == 1
    assert integ.getNumStepsTaken() > len(seen)  # several compiled steps per report


def test_tracked_dissipated_energy_fused_with_its_zdot():
    """The reference ball drop with its z: realized in one call, the same udot and zdot
    (the dissipated power) as stage by stage, and the compiled steps apply (they step z
    too: test_contact_tracked_energy_steps.py)."""
    model = contact_model("ball_drop")
    results = []
    for fused in (True, False):
        built = build_compliant(model["model"])
        system = built.ref.system
        if not fused:
            system._fused_realization = None
        state = built.ref.new_state(model["initial_state"])
        sphere = built.ref.mobods[1]
        sphere.setQToFitTranslation(state, (0.1, 0.0, 0.1))  # pressed into the floor
        sphere.setUToFitLinearVelocity(state, (0.3, -0.5, 0.1))
        system.realize(state, Stage.Acceleration)
        if fused:
            assert system.whyNotFused(state) == ""
            integ = RungeKuttaMersonIntegrator(system)
            integ.initialize(state)
            assert integ.whyNotCompiledSteps() == ""
        results.append((state.getUDot().copy(), state.getZDot().copy()))
    (udot, zdot), (udot2, zdot2) = results
    assert zdot2[0] > 0.0 and built.ccs.getNumContactForces(state) == 1
    np.testing.assert_allclose(udot, udot2, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(zdot, zdot2, rtol=1e-12)


def _shapes_on_floor(fused: bool, seed: int, track: bool = False):
    """Ellipsoids, bricks and spheres of mixed sizes dropped on a tilted floor and against
    a wall, many of them touching a half space; body 0 carries an ellipsoid and a brick.
    The bodies' surfaces share a clique (as the ragdoll's), bodies 4 and 5 share one with
    the wall;
    random poses and velocities."""
    rng = np.random.default_rng(seed)
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.UniformGravity(forces, matter, (0, -9.81, 0))
    hard = ContactMaterial(2e6, 0.4, 0.7, 0.5, 0.05)
    soft = ContactMaterial(5e5, 0.2, 0.3, 0.2, 0.0)
    ground = matter.Ground().updBody()
    ground.addContactSurface(
        Transform(Rotation(-math.pi / 2 + 0.1, 2)),
        ContactSurface(ContactGeometry.HalfSpace(), hard),
    )
    clique = ContactSurface.createNewContactClique()
    ground.addContactSurface(
        Transform(Rotation(math.pi, 2), (-0.2, 0, 0)),
        ContactSurface(ContactGeometry.HalfSpace(), soft).joinClique(clique),
    )
    together = ContactSurface.createNewContactClique()
    bodies = []
    for k in range(10):
        body = Body.Rigid(MassProperties(1.0 + 0.2 * k, (0, 0, 0), Inertia(0.01, 0.02, 0.015)))
        mobod = MobilizedBody.Free(matter.Ground(), Transform(), body, Transform())
        shape = k % 3
        if shape == 0:
            geometry = ContactGeometry.Ellipsoid(rng.uniform(0.03, 0.12, 3))
        elif shape == 1:
            geometry = ContactGeometry.Brick(rng.uniform(0.02, 0.08, 3))
        else:
            geometry = ContactGeometry.Sphere(float(rng.uniform(0.03, 0.08)))
        surface = ContactSurface(geometry, hard if k % 2 else soft).joinClique(together)
        if k in (4, 5):
            surface.joinClique(clique)
        mobod.updBody().addContactSurface(
            Transform(Rotation(float(rng.uniform(0, 3)), 0), rng.uniform(-0.02, 0.02, 3)),
            surface,
        )
        if k == 0:
            mobod.updBody().addContactSurface(
                Transform((0.05, 0, 0)),
                ContactSurface(ContactGeometry.Brick((0.03, 0.02, 0.04)), hard).joinClique(
                    together
                ),
            )
        bodies.append(mobod)
    tracker = ContactTrackerSubsystem(system)
    ccs = CompliantContactSubsystem(system, tracker)
    ccs.setTransitionVelocity(0.05)
    ccs.setTrackDissipatedEnergy(track)
    if not fused:
        system._fused_realization = None
    state = system.realizeTopology()
    for k, mobod in enumerate(bodies):
        # spread along x; just about touching the floor (which rises with x) or the wall
        x = -0.25 + 0.06 * k
        mobod.setQToFitTranslation(state, (x, 0.1 * x + rng.uniform(-0.01, 0.06), 0.0))
        mobod.setQToFitRotation(
            state, Rotation(float(rng.uniform(0, 6)), (1.0, float(rng.uniform(-1, 1)), 0.3))
        )
        mobod.setUToFitLinearVelocity(state, rng.uniform(-0.5, 0.5, 3))
        mobod.setUToFitAngularVelocity(state, rng.uniform(-3.0, 3.0, 3))
    for k in (7, 9):  # a brick and an ellipsoid pulled off the floor fast: "yanked"
        bodies[k].setUToFitLinearVelocity(state, (0.0, 4.0, 0.0))
    return system, tracker, ccs, state


@pytest.mark.parametrize("seed", [1, 7])
def test_ellipsoids_and_bricks_on_half_spaces_in_one_call_with_the_same_accelerations(seed):
    """HertzElliptical and BrickHalfSpacePenalty in the kernel: the same udot, contacts,
    forces, energy and dissipated power (the z's derivative) as stage by stage."""
    system, tracker, ccs, state = _shapes_on_floor(True, seed, track=True)
    system.realize(state, Stage.Acceleration)
    assert system.whyNotFused(state) == ""
    other, tracker2, ccs2, state2 = _shapes_on_floor(False, seed, track=True)
    other.realize(state2, Stage.Acceleration)
    scale = np.max(np.abs(state2.getUDot()))
    np.testing.assert_allclose(state.getUDot(), state2.getUDot(), rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(state.getZDot(), state2.getZDot(), rtol=1e-12)
    snapshot = tracker.getActiveContacts(state)
    pairs = _pairs(snapshot)
    assert pairs == _pairs(tracker2.getActiveContacts(state2))
    kinds = {type(c).__name__ for c in snapshot}
    assert {"EllipticalPointContact", "BrickHalfSpaceContact"} <= kinds
    assert sum(1 for c in snapshot if type(c).__name__ != "CircularPointContact") >= 4
    assert not {p[:2] for p in pairs} & {(1, 7), (1, 8)}  # the wall's clique
    assert ccs.getNumContactForces(state) == ccs2.getNumContactForces(state2)
    assert ccs.calcPotentialEnergy(state) == pytest.approx(ccs2.calcPotentialEnergy(state2))
    for k in range(ccs.getNumContactForces(state)):
        f, f2 = ccs.getContactForce(state, k), ccs2.getContactForce(state2, k)
        np.testing.assert_allclose(f.getForceOnSurface2(), f2.getForceOnSurface2(), atol=1e-9)


@pytest.mark.parametrize("kind", [EllipticalPointContact, BrickHalfSpaceContact])
def test_a_replaced_elliptical_or_brick_generator_keeps_contact_stage_by_stage(kind):
    system, _, ccs, _ = _shapes_on_floor(True, 1)
    ccs.adoptForceGenerator(type("Quiet", (DoNothing,), {"CONTACT_TYPE": kind})())
    state = system.realizeTopology()
    system.realize(state, Stage.Acceleration)
    assert kind.__name__ in system.whyNotFused(state)


def _tetrahedron(size: float):
    return ContactGeometry.TriangleMesh(
        [(0, 0, 0), (size, 0, 0), (0, size, 0), (0, 0, size)],
        [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)],
    )


def test_mesh_pairs_and_sphere_ellipsoid_pairs_are_fused():
    """A Sphere-TriangleMesh pair (test_contact_fused_mesh.py), a mesh-mesh pair
    (test_contact_fused_mesh_mesh.py) and a Sphere-Ellipsoid pair
    (test_contact_fused_ellipsoid_pairs.py) are the kernel's: such models realize in one
    call, and the tracker reports their contact."""
    for base, other in (
        (ContactGeometry.Sphere(0.1), _tetrahedron(0.2)),
        (_tetrahedron(0.2), _tetrahedron(0.2)),
        (ContactGeometry.Sphere(0.1), ContactGeometry.Ellipsoid((0.1, 0.2, 0.15))),
    ):
        system = MultibodySystem()
        matter = SimbodyMatterSubsystem(system)
        material = ContactMaterial(1e6, 0.1, 0.5, 0.4, 0.0)
        matter.Ground().updBody().addContactSurface(Transform(), ContactSurface(base, material))
        body = Body.Rigid(MassProperties(1.0, (0, 0, 0), Inertia(0.01)))
        mobod = MobilizedBody.Free(matter.Ground(), Transform(), body, Transform())
        mobod.updBody().addContactSurface(Transform(), ContactSurface(other, material))
        tracker = ContactTrackerSubsystem(system)
        CompliantContactSubsystem(system, tracker)
        state = system.realizeTopology()
        mobod.setQToFitTranslation(state, (0.05, 0.05, 0.05))
        system.realize(state, Stage.Acceleration)
        assert system.whyNotFused(state) == ""
        assert tracker.getActiveContacts(state).getNumContacts() == 1
