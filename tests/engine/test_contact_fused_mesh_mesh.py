"""TriangleMesh-TriangleMesh contact (ElasticFoundation) inside the fused one-call
realization (``engine.contact.kernels.mesh_mesh_kernel``, ``mesh_queries``): the compiled
queries agree with the Python mesh's, the models realize in one call with the
stage-by-stage accelerations, dissipated power, contacts, forces and energy, Newton's third
law holds, and a short drop follows the stage-by-stage trajectory."""

from __future__ import annotations

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
from engine.contact.kernels import mesh_queries

HARD = ContactMaterial(2e6, 0.4, 0.7, 0.5, 0.05)
SOFT = ContactMaterial(5e5, 0.2, 0.3, 0.2, 0.0)


def _box(extents, subdivisions: int) -> ContactGeometry.TriangleMesh:
    box = trimesh.creation.box(extents=extents)
    for _ in range(subdivisions):
        box = box.subdivide()
    return ContactGeometry.TriangleMesh(box)


_MESHES: dict = {}


def _mesh(name: str) -> ContactGeometry.TriangleMesh:
    """The test meshes, made once: a 1280-face icosphere of radius 7 cm, a 192-face slab
    30 x 4 x 30 cm, 48- and 192-face cubes of half side 5 and 4 cm."""
    if name not in _MESHES:
        _MESHES[name] = {
            "ball": lambda: ContactGeometry.TriangleMesh(trimesh.creation.icosphere(3, 0.07)),
            "slab": lambda: _box((0.3, 0.04, 0.3), 2),
            "cube": lambda: _box((0.1, 0.1, 0.1), 1),
            "small cube": lambda: _box((0.08, 0.08, 0.08), 2),
        }[name]()
    return _MESHES[name]


# (lower mesh, upper mesh, upper body's height above the lower one's for the poses)
CASES = {
    "ball on slab": ("slab", "ball", {"touching": 0.0875, "deep": 0.075, "apart": 0.0915}),
    "cube on cube": ("cube", "small cube", {"touching": 0.0915, "deep": 0.075, "apart": 0.095}),
}


def _pair(fused: bool, case: str, pose: str, gravity: bool = True):
    """Two free bodies, the lower mesh at the origin and the upper one above it, both
    tilted and moving; the upper one's height is the case's for ``pose``. ``fused`` False
    realizes stage by stage."""
    lower, upper, heights = CASES[case]
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    if gravity:
        Force.UniformGravity(forces, matter, (0, -9.81, 0))
    bodies = []
    for k, (name, material) in enumerate(((lower, HARD), (upper, SOFT))):
        body = Body.Rigid(MassProperties(1.0 + k, (0, 0, 0), Inertia(0.004, 0.005, 0.006)))
        mobod = MobilizedBody.Free(matter.Ground(), Transform(), body, Transform())
        X_BS = Transform(Rotation(0.3 * k, 1), (0.002 * k, 0.0, -0.001))
        mobod.updBody().addContactSurface(X_BS, ContactSurface(_mesh(name), material))
        bodies.append(mobod)
    tracker = ContactTrackerSubsystem(system)
    ccs = CompliantContactSubsystem(system, tracker)
    ccs.setTransitionVelocity(0.05)
    ccs.setTrackDissipatedEnergy(True)
    if not fused:
        system._fused_realization = None
    state = system.realizeTopology()
    places = ((0.0, 0.0, 0.0), (0.011, heights[pose], -0.007))
    tilts = (Rotation(0.05, (1.0, 0.0, 0.4)), Rotation(0.12, (0.3, 1.0, 0.8)))
    velocities = (((0.1, 0.0, -0.05), (0.2, -0.4, 0.1)), ((-0.2, -0.3, 0.1), (1.5, 0.5, -2.0)))
    for mobod, p, R, (v, w) in zip(bodies, places, tilts, velocities, strict=True):
        mobod.setQToFitTransform(state, Transform(R, p))
        mobod.setUToFitLinearVelocity(state, v)
        mobod.setUToFitAngularVelocity(state, w)
    return system, tracker, ccs, state, bodies


def _contacts(tracker, state):
    return [
        (int(c.getSurface1()), int(c.getSurface2()), int(c.getCondition()))
        for c in tracker.getActiveContacts(state)
    ]


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("pose", ["touching", "deep", "apart"])
def test_mesh_pair_in_one_call_with_the_stage_by_stage_results(case, pose):
    """A mesh sphere on a mesh slab and a mesh cube on a mesh cube, touching, deep and apart
    (bounding spheres overlapping): one call (whyNotFused ""), the stage-by-stage udot (1e-12
    of its largest entry) and dissipated power, the same contacts and faces, forces and
    potential energy."""
    system, tracker, ccs, state, _ = _pair(True, case, pose)
    system.realize(state, Stage.Acceleration)
    assert system.whyNotFused(state) == ""
    other, tracker2, ccs2, state2, _ = _pair(False, case, pose)
    other.realize(state2, Stage.Acceleration)
    assert other.whyNotFused(state2) != ""
    scale = np.max(np.abs(state2.getUDot()))
    np.testing.assert_allclose(state.getUDot(), state2.getUDot(), rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(state.getZDot(), state2.getZDot(), rtol=1e-12)
    assert _contacts(tracker, state) == _contacts(tracker2, state2)
    snapshot = tracker.getActiveContacts(state)
    if pose == "apart":
        assert snapshot.getNumContacts() == 0 and state.getZDot()[0] == 0.0
        np.testing.assert_allclose(state.getUDot()[3:6], (0.0, -9.81, 0.0), atol=1e-12)
        return
    (contact,) = snapshot
    assert TriangleMeshContact.isInstance(contact)
    assert contact.getSurface1Faces() and contact.getSurface2Faces()
    assert state.getZDot()[0] > 0.0
    force, force2 = ccs.getContactForce(state, 0), ccs2.getContactForce(state2, 0)
    np.testing.assert_allclose(force.getForceOnSurface2(), force2.getForceOnSurface2(), atol=1e-9)
    assert ccs.calcPotentialEnergy(state) == pytest.approx(ccs2.calcPotentialEnergy(state2))
    assert ccs.calcPotentialEnergy(state) > 0.0
    # the contact force is a real part of udot: the upper body does not fall freely
    assert abs(state.getUDot()[10] + 9.81) > 0.1


@pytest.mark.parametrize("case", list(CASES))
def test_the_fused_mesh_pair_forces_obey_newtons_third_law(case):
    """Without gravity the fused body forces of the two meshes are equal and opposite: no
    net force, no net moment about the origin (1e-12 of the force)."""
    system, _, _, state, (a, b) = _pair(True, case, "deep", gravity=False)
    system.realize(state, Stage.Dynamics)
    assert system.whyNotFused(state) == ""
    forces = system.getRigidBodyForces(state)
    fa, fb = forces[a.getMobilizedBodyIndex()], forces[b.getMobilizedBodyIndex()]
    size = np.linalg.norm(fb[1])
    assert size > 1.0
    np.testing.assert_allclose(fa[1] + fb[1], 0.0, atol=1e-12 * size)
    pa, pb = a.getBodyOriginLocation(state), b.getBodyOriginLocation(state)
    moment = fa[0] + np.cross(pa, fa[1]) + fb[0] + np.cross(pb, fb[1])
    np.testing.assert_allclose(moment, 0.0, atol=1e-12 * size)


def test_random_poses_give_the_stage_by_stage_body_forces():
    """The upper mesh at 12 random orientations, offsets and velocities per case, from
    apart to 3 cm deep: the fused body forces are the stage-by-stage ones (1e-12 of their
    largest entry), so the kernel found the tracker's faces in contact (the area scaling
    depends on every one of them)."""
    rng = np.random.default_rng(11)
    for case in CASES:
        runs = [_pair(fused, case, "touching", gravity=False) for fused in (True, False)]
        touching = 0
        for _ in range(12):
            axis = rng.normal(size=3)
            X = Transform(Rotation(float(rng.uniform(0.0, 6.3)), axis), rng.uniform(-0.04, 0.04, 3))
            X = Transform(X.R(), X.p() + np.array((0.0, rng.uniform(0.06, 0.1), 0.0)))
            v, w = rng.uniform(-1.0, 1.0, 3), rng.uniform(-3.0, 3.0, 3)
            forces = []
            for system, _, _, state, (_, upper) in runs:
                upper.setQToFitTransform(state, X)
                upper.setUToFitLinearVelocity(state, v)
                upper.setUToFitAngularVelocity(state, w)
                system.realize(state, Stage.Dynamics)
                forces.append(np.array(system.getRigidBodyForces(state)))
            assert runs[0][0].whyNotFused(runs[0][3]) == ""
            scale = np.max(np.abs(forces[1]))
            np.testing.assert_allclose(forces[0], forces[1], rtol=0, atol=1e-12 * scale)
            touching += scale > 0.0
        assert 4 <= touching <= 11


def test_compiled_mesh_queries_are_the_python_mesh_queries():
    """nearest_point_and_inside (without and with a hint face), point_inside_mesh and
    faces_in_box on the icosphere and a cube at random points near their surfaces: the
    nearest points of ``nearestPoints`` (1e-15 m), its inside flags, ``containsPoints``
    (trimesh's ray test), and the faces whose boxes meet a box."""
    rng = np.random.default_rng(7)
    for name, size in (("ball", 0.07), ("small cube", 0.045)):
        mesh = _mesh(name)
        arrays = mesh_queries.mesh_query_arrays(mesh)
        stack = np.zeros(arrays["nodes"].shape[0] + 2, dtype=np.int64)
        tree = (arrays["nodes"], arrays["links"], arrays["tree_faces"], stack)
        normals = (arrays["face_normals"], arrays["vertex_normals"])
        v, f = arrays["vertices"], arrays["faces"]
        P = rng.normal(size=(300, 3))
        P *= (size * rng.uniform(0.8, 1.2, 300) / np.linalg.norm(P, axis=1))[:, None]
        near, inside, _ = mesh.nearestPoints(P)
        hint = -1
        for p, q, flag in zip(P, near, inside, strict=True):
            for start in (-1, hint):
                *found, face = mesh_queries.nearest_point_and_inside(
                    *p, v, f, *normals, *tree, start
                )
                np.testing.assert_allclose(found[:3], q, rtol=0, atol=1e-15)
                assert found[3] == flag
            hint = face
        assert 50 < inside.sum() < 250
        contained = [mesh_queries.point_inside_mesh(*p, v, f, *normals, *tree, -1)[0] for p in P]
        assert contained == mesh.containsPoints(P).tolist()
        out = np.zeros(f.shape[0], dtype=np.int64)
        lo, hi = np.array((-0.03, 0.01, -0.02)), np.array((0.04, 0.2, 0.05))
        count = mesh_queries.faces_in_box(*lo, *hi, arrays["face_boxes"], *tree, out)
        corners = v[f]
        meets = (corners.min(axis=1) <= hi).all(axis=1) & (corners.max(axis=1) >= lo).all(axis=1)
        assert 0 < count < f.shape[0]
        assert sorted(out[:count].tolist()) == np.flatnonzero(meets).tolist()


def _drop(fused: bool):
    """The 1280-face icosphere (1 kg) 0.5 mm above the 192-face slab fixed to Ground,
    falling at 0.3 m/s and spinning; both of a stiffer material (5e7 N/m^3) so that it
    bounces within 20 ms; RungeKuttaMerson 1e-2; the stage-by-stage run takes its steps
    in Python. Returns (stepper, integrator)."""
    material = ContactMaterial(5e7, 0.5, 0.6, 0.4, 0.1)
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.UniformGravity(forces, matter, (0, -9.81, 0))
    ground = matter.Ground().updBody()
    ground.addContactSurface(Transform(), ContactSurface(_mesh("slab"), material))
    body = Body.Rigid(MassProperties(1.0, (0, 0, 0), Inertia(0.002)))
    mobod = MobilizedBody.Free(matter.Ground(), Transform(), body, Transform())
    mobod.updBody().addContactSurface(Transform(), ContactSurface(_mesh("ball"), material))
    tracker = ContactTrackerSubsystem(system)
    CompliantContactSubsystem(system, tracker)
    if not fused:
        system._fused_realization = None
    state = system.realizeTopology()
    mobod.setQToFitTranslation(state, (0.01, 0.02 + 0.07 + 0.0005, -0.02))
    mobod.setUToFitLinearVelocity(state, (0.3, -0.3, 0.1))
    mobod.setUToFitAngularVelocity(state, (0.0, 2.0, 1.0))
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(1e-2)
    stepper = TimeStepper(system, integ)
    stepper.initialize(state)
    return stepper, integ


def test_dropped_mesh_ball_on_a_mesh_slab_follows_the_stage_by_stage_trajectory():
    """20 ms of the icosphere landing on the slab and bouncing: the fused run takes
    compiled Merson steps and ends where the stage-by-stage run ends (positions within
    1e-5 m, velocities within 1e-3 m/s, well inside the integration accuracy's reach; the
    contact changes the velocity by about 0.6 m/s); the ball has bounced (it moves up)."""
    ends = []
    for fused in (True, False):
        stepper, integ = _drop(fused)
        if fused:
            assert integ.whyNotCompiledSteps() == ""
        stepper.stepTo(0.02)
        state = stepper.getState()
        if fused:
            assert stepper.getSystem().whyNotFused(state) == ""
        ends.append((state.getQ().copy(), state.getU().copy()))
    (q, u), (q2, u2) = ends
    np.testing.assert_allclose(q, q2, rtol=0, atol=1e-5)
    np.testing.assert_allclose(u, u2, rtol=0, atol=1e-3)
    assert u[4] > 0.1  # bounced: moving up
