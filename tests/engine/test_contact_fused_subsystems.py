"""Several contact subsystems in the fused one-call realization, with Simbody's semantics:
every ContactTrackerSubsystem tracks every surface, every CompliantContactSubsystem applies
the forces of all its tracker's contacts (two of them apply each force twice, each with its
own transition velocity and its own dissipated energy), a tracker alone applies nothing,
and a GeneralContactSubsystem's force elements sit beside them. Each realizes in one call
with the stage-by-stage accelerations, body forces and dissipated powers."""

from __future__ import annotations

import math

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
    ElasticFoundationForce,
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
    TriangleMeshContact,
)
from engine.contact.generators import DoNothing
from tests.engine.test_compiled_merson_attempt import simulate_merson

FLOOR = Transform(Rotation(-math.pi / 2, 2))  # half space y < 0, outward normal +y
HARD = ContactMaterial(2e6, 0.4, 0.7, 0.5, 0.05)
SOFT = ContactMaterial(5e5, 0.2, 0.3, 0.2, 0.0)


def _mesh_cube(half: float) -> ContactGeometry.TriangleMesh:
    return ContactGeometry.TriangleMesh(trimesh.creation.box(extents=(2 * half,) * 3).subdivide())


def _scene(layout: str, track=(), general: bool = False):
    """Free bodies on a floor, pressed in at random poses and velocities: two Spheres
    touching each other, an Ellipsoid, a Brick and a mesh cube. ``layout`` "one" has one
    tracker and one CompliantContactSubsystem, "two on one" two CompliantContactSubsystems
    on one tracker, "two pairs" two trackers with one each, "tracker alone" a tracker
    without one. ``track`` lists the compliant subsystems
    (0, 1) that track their dissipated energy. ``general`` adds a GeneralContactSubsystem
    set (a floor, a Sphere and a mesh cube on their own bodies) with a HuntCrossleyForce and
    an ElasticFoundationForce. Returns (system, trackers, compliant, state)."""
    rng = np.random.default_rng(5)
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.UniformGravity(forces, matter, (0, -9.81, 0))
    matter.Ground().updBody().addContactSurface(
        FLOOR, ContactSurface(ContactGeometry.HalfSpace(), HARD)
    )
    shapes = (
        ContactGeometry.Sphere(0.05),
        ContactGeometry.Sphere(0.04),
        ContactGeometry.Ellipsoid((0.06, 0.04, 0.05)),
        ContactGeometry.Brick((0.05, 0.04, 0.03)),
        _mesh_cube(0.05),
    )
    places = ((0, 0.045, 0), (0.08, 0.037, 0), (0.3, 0.035, 0), (0.6, 0.035, 0), (0.9, 0.04, 0))
    bodies = []
    for k, shape in enumerate(shapes):
        body = Body.Rigid(MassProperties(1.0, (0, 0, 0), Inertia(0.004)))
        body.addContactSurface(Transform(), ContactSurface(shape, SOFT if k % 2 else HARD))
        bodies.append(MobilizedBody.Free(matter.Ground(), Transform(), body, Transform()))
    trackers, compliant = [ContactTrackerSubsystem(system)], []
    if layout == "two pairs":
        trackers.append(ContactTrackerSubsystem(system))
    if layout != "tracker alone":
        for g, vt in enumerate((0.05, 0.2)[: 1 if layout == "one" else 2]):
            ccs = CompliantContactSubsystem(system, trackers[-1] if g else trackers[0])
            ccs.setTransitionVelocity(vt)
            ccs.setTrackDissipatedEnergy(g in track)
            compliant.append(ccs)
    if general:
        gcs = GeneralContactSubsystem(system)
        cs = gcs.createContactSet()
        gcs.addBody(cs, matter.Ground(), ContactGeometry.HalfSpace(), FLOOR)
        for shape in (ContactGeometry.Sphere(0.05), _mesh_cube(0.04)):
            body = Body.Rigid(MassProperties(1.0, (0, 0, 0), Inertia(0.004)))
            bodies.append(MobilizedBody.Free(matter.Ground(), Transform(), body, Transform()))
            gcs.addBody(cs, bodies[-1], shape, Transform())
        places += ((0, 0.045, 0.5), (0.3, 0.035, 0.5))
        hunt = HuntCrossleyForce(forces, gcs, cs)
        hunt.setBodyParameters(0, 1e7, 0.3, 0.6, 0.4, 0.0)
        hunt.setBodyParameters(1, 1e6, 0.3, 0.6, 0.4, 0.0)
        ElasticFoundationForce(forces, gcs, cs).setBodyParameters(2, 1e8, 0.3, 0.6, 0.4, 0.02)
    state = system.realizeTopology()
    for mobod, p in zip(bodies, places, strict=True):
        mobod.setQToFitTransform(state, Transform(Rotation(float(rng.uniform(-0.3, 0.3)), 0), p))
        mobod.setUToFitLinearVelocity(state, rng.uniform(-0.5, 0.5, 3))
        mobod.setUToFitAngularVelocity(state, rng.uniform(-3.0, 3.0, 3))
    return system, trackers, compliant, state


def _stage_by_stage(system, state):
    fused = system._fused_realization
    system._fused_realization = None
    try:
        system.realize(state, Stage.Acceleration)
    finally:
        system._fused_realization = fused
    return state


def _fused_and_slow(system, state):
    slow = state.copy()
    system.realize(state, Stage.Acceleration)
    assert system.whyNotFused(state) == ""
    _stage_by_stage(system, slow)
    scale = max(1.0, float(np.max(np.abs(slow.getUDot()))))
    np.testing.assert_allclose(state.getUDot(), slow.getUDot(), rtol=0, atol=1e-12 * scale)
    forces, forces2 = system.getRigidBodyForces(state), system.getRigidBodyForces(slow)
    fscale = float(np.max(np.abs(forces2)))
    np.testing.assert_allclose(forces, forces2, rtol=0, atol=1e-12 * fscale)
    np.testing.assert_allclose(state.getZDot(), slow.getZDot(), rtol=1e-12)
    return state, slow


def _contact_pairs(tracker, state) -> list:
    return [(int(c.getSurface1()), int(c.getSurface2())) for c in tracker.getActiveContacts(state)]


@pytest.mark.parametrize("layout", ["two on one", "two pairs"])
def test_two_compliant_subsystems_apply_each_force_twice_in_one_call(layout):
    system, trackers, compliant, state = _scene(layout, track=(0, 1))
    fast, _ = _fused_and_slow(system, state)
    assert len(_contact_pairs(trackers[0], fast)) == 6  # floor x 5 (the two Spheres), Sphere-Sphere
    assert _contact_pairs(trackers[-1], fast) == _contact_pairs(trackers[0], fast)
    first, second = compliant  # each reports a force for every contact
    assert first.getNumContactForces(fast) == second.getNumContactForces(fast) == 6
    zdot = fast.getZDot()
    assert zdot.shape == (2,) and np.all(zdot > 0) and zdot[0] != zdot[1]


def test_the_doubled_forces_are_twice_one_subsystems():
    """Two compliant subsystems with the same transition velocity give each body exactly
    the contact forces of one subsystem, twice."""
    one, _, _, state1 = _scene("one")
    two, _, compliant, state2 = _scene("two on one")
    compliant[1].setTransitionVelocity(0.05)
    state2 = two.realizeTopology()
    state2.setQ(state1.getQ())
    state2.setU(state1.getU())
    for system, state in ((one, state1), (two, state2)):
        system.realize(state, Stage.Acceleration)
        assert system.whyNotFused(state) == ""
    gravity = np.zeros_like(one.getRigidBodyForces(state1))
    gravity[1:, 1, 1] = -9.81
    contact1 = one.getRigidBodyForces(state1) - gravity
    np.testing.assert_allclose(
        two.getRigidBodyForces(state2) - gravity, 2.0 * contact1, rtol=1e-12, atol=1e-12
    )
    assert np.max(np.abs(contact1)) > 1.0


def test_a_tracker_alone_tracks_contacts_and_applies_no_force():
    system, (tracker,), _, state = _scene("tracker alone")
    fast, _ = _fused_and_slow(system, state)
    assert len(_contact_pairs(tracker, fast)) == 6
    udot = fast.getUDot().reshape(-1, 6)  # per body: angular, then linear acceleration
    expected = np.zeros_like(udot)
    expected[:, 4] = -9.81
    np.testing.assert_allclose(udot, expected, rtol=0, atol=1e-12)


def test_energy_tracked_by_the_second_subsystem_only():
    """The second compliant subsystem's dissipated energy is the State's only z: written
    after each fused realization (the integrators' kernels step only the first's)."""
    system, _, compliant, state = _scene("two on one", track=(1,))
    fast, slow = _fused_and_slow(system, state)
    assert fast.getZDot().shape == (1,) and fast.getZDot()[0] > 0
    integ, final, _ = simulate_merson(system, state, "steps", tfinal=0.02, accuracy=1e-4)
    assert integ.compiledStepsTaken == 0
    assert final.getZ()[0] > 0


def test_compiled_merson_steps_with_two_compliant_subsystems():
    system, _, _, state = _scene("two pairs", track=(0,))
    system.realize(state, Stage.Acceleration)
    fast, fast_state, _ = simulate_merson(system, state, "steps", tfinal=0.03, accuracy=1e-4)
    slow, slow_state, _ = simulate_merson(system, state, "python", tfinal=0.03, accuracy=1e-4)
    assert fast.compiledStepsTaken > 0.9 * fast.getNumStepsTaken()
    assert fast.getNumStepsTaken() == slow.getNumStepsTaken() > 5
    np.testing.assert_allclose(fast_state.getQ(), slow_state.getQ(), rtol=0, atol=1e-10)
    np.testing.assert_allclose(fast_state.getZ(), slow_state.getZ(), rtol=1e-10)


def test_general_contact_force_elements_beside_a_tracker():
    system, _, _, state = _scene("two on one", track=(0,), general=True)
    fast, _ = _fused_and_slow(system, state)
    hunt, foundation = (system.getRigidBodyForces(fast)[b][1][1] for b in (6, 7))
    assert hunt > 0 and foundation > 0  # both set forces push their bodies up


def test_a_replaced_generator_in_the_second_subsystem_keeps_the_model_stage_by_stage():
    """Every compliant subsystem must use the built-in generators: a quiet mesh generator
    in the second one sends the model stage by stage, and whyNotFused says why."""
    system, _, compliant, _ = _scene("two on one")
    quiet = type("Quiet", (DoNothing,), {"CONTACT_TYPE": TriangleMeshContact})
    compliant[1].adoptForceGenerator(quiet())
    state = system.realizeTopology()
    system.realize(state, Stage.Acceleration)
    assert "TriangleMeshContacts have a generator other than ElasticFoundation" in (
        system.whyNotFused(state)
    )
