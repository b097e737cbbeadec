"""TriangleMesh contact geometry, its trackers and the ElasticFoundation generator."""

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
    IndexOutOfRangeError,
    Inertia,
    InvalidArgumentError,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    NonPhysicalError,
    Rotation,
    RungeKuttaMersonIntegrator,
    SimbodyMatterSubsystem,
    Stage,
    StageTooLowError,
    TimeStepper,
    Transform,
    TriangleMeshContact,
)

FLOOR = Transform(Rotation(-math.pi / 2, 2))  # half space y < 0, outward normal +y
HALF = 0.1  # half side of the cube


def _cube_mesh(subdivisions: int = 2) -> ContactGeometry.TriangleMesh:
    box = trimesh.creation.box(extents=(2 * HALF, 2 * HALF, 2 * HALF))
    for _ in range(subdivisions):
        box = box.subdivide()
    return ContactGeometry.TriangleMesh(box)


def _sphere_mesh(radius: float, subdivisions: int = 4) -> ContactGeometry.TriangleMesh:
    return ContactGeometry.TriangleMesh(trimesh.creation.icosphere(subdivisions, radius))


def _free_body(matter, mass: float = 2.0):
    body = Body.Rigid(MassProperties(mass, (0, 0, 0), Inertia(0.01)))
    return MobilizedBody.Free(matter.Ground(), Transform(), body, Transform())


def _world(shapes, material, floor=True, gravity=True, clique=None):
    """Free bodies, each with one of ``shapes``; a floor half space if asked."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    if gravity:
        Force.UniformGravity(forces, matter, (0, -9.81, 0))
    if floor:
        matter.Ground().updBody().addContactSurface(
            FLOOR, ContactSurface(ContactGeometry.HalfSpace(), material)
        )
    bodies = []
    for shape in shapes:
        b = _free_body(matter)
        surface = ContactSurface(shape, material)
        if clique is not None:
            surface.joinClique(clique)
        b.updBody().addContactSurface(Transform(), surface)
        bodies.append(b)
    tracker = ContactTrackerSubsystem(system)
    ccs = CompliantContactSubsystem(system, tracker)
    return system, tracker, ccs, bodies


def _place(state, body, p, R=None, v=(0, 0, 0), w=(0, 0, 0)) -> None:
    if R is not None:
        body.setQToFitTransform(state, Transform(R, p))
    else:
        body.setQToFitTranslation(state, p)
    body.setUToFitLinearVelocity(state, v)
    body.setUToFitAngularVelocity(state, w)


# ---------------------------------------------------------------------------- geometry
def test_mesh_accessors_and_nearest_point():
    mesh = _cube_mesh(0)
    assert mesh.getTypeName() == "TriangleMesh"
    assert (mesh.getNumVertices(), mesh.getNumFaces(), mesh.getNumEdges()) == (8, 12, 18)
    assert mesh.getVolume() == pytest.approx(8 * HALF**3)
    assert sum(mesh.getFaceArea(f) for f in range(12)) == pytest.approx(24 * HALF**2)
    for f in range(12):
        c = mesh.findCentroid(f)
        n = mesh.getFaceNormal(f)
        # outward normals: the centroid lies on the face of the cube n points out of
        assert float(c @ n) == pytest.approx(HALF)
        e = mesh.getFaceEdge(f, 0)
        assert f in (mesh.getEdgeFace(e, 0), mesh.getEdgeFace(e, 1))
    point, inside, normal = mesh.findNearestPoint((0.05, 0.02, -0.03))
    assert inside and np.allclose(point, (HALF, 0.02, -0.03)) and np.allclose(normal, (1, 0, 0))
    point, inside, normal = mesh.findNearestPoint((0.3, 0.3, 0.0))  # nearest: an edge
    assert not inside and np.allclose(point, (HALF, HALF, 0.0))
    assert np.allclose(normal, np.array((1, 1, 0)) / math.sqrt(2))
    point, inside, _ = mesh.findNearestPoint((-0.3, -0.3, -0.3))  # a vertex
    assert not inside and np.allclose(point, (-HALF, -HALF, -HALF))
    assert list(mesh.containsPoints([(0, 0, 0), (0.2, 0, 0), (0.09, -0.09, 0.09)])) == [
        True,
        False,
        True,
    ]
    hit, distance, face, _ = mesh.intersectsRay((-1, 0.01, 0.02), (1, 0, 0))
    assert hit and distance == pytest.approx(1 - HALF)
    assert np.allclose(mesh.getFaceNormal(face), (-1, 0, 0))
    point, inside, normal = ContactGeometry.Sphere(0.5).findNearestPoint((0, 0.3, 0))
    assert inside and np.allclose(point, (0, 0.5, 0)) and np.allclose(normal, (0, 1, 0))
    point, inside, normal = ContactGeometry.HalfSpace().findNearestPoint((-0.2, 1, 2))
    assert not inside and np.allclose(point, (0, 1, 2)) and np.allclose(normal, (-1, 0, 0))
    with pytest.raises(InvalidArgumentError):
        ContactGeometry.Brick((1, 1, 1)).findNearestPoint((0, 0, 0))
    decoration = mesh.createDecorativeGeometry()
    assert decoration.getMesh().getNumFaces() == 12


def test_mesh_from_vertices_and_flat_faces_and_polygonal_mesh():
    v = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
    faces = [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3]
    tet = ContactGeometry.TriangleMesh(v, faces)
    assert tet.getNumFaces() == 4 and tet.getVolume() == pytest.approx(1 / 6)
    again = ContactGeometry.TriangleMesh(tet.createPolygonalMesh())
    assert np.array_equal(again.faces(), tet.faces())


def test_bad_meshes_are_refused():
    v = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
    closed = [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)]
    with pytest.raises(InvalidArgumentError, match="not closed"):
        ContactGeometry.TriangleMesh(v + [(1, 1, 1)], closed[:3] + [(1, 2, 4)])
    with pytest.raises(InvalidArgumentError, match="inside out"):
        ContactGeometry.TriangleMesh(v, [f[::-1] for f in closed])
    with pytest.raises(InvalidArgumentError, match="degenerate"):
        flat = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0.5, 0, 0)]  # face (0, 1, 3) is a segment
        ContactGeometry.TriangleMesh(flat, closed)
    with pytest.raises(InvalidArgumentError, match="degenerate"):
        ContactGeometry.TriangleMesh(v, closed[:3] + [(1, 1, 3)])
    with pytest.raises(InvalidArgumentError, match="valid are"):
        ContactGeometry.TriangleMesh(v, closed[:3] + [(1, 2, 7)])
    with pytest.raises(InvalidArgumentError, match="same direction"):
        ContactGeometry.TriangleMesh(v, closed + [closed[0]])
    with pytest.raises(InvalidArgumentError, match="3 per face"):
        ContactGeometry.TriangleMesh(v, [0, 1, 2, 3])
    with pytest.raises(InvalidArgumentError, match="finite"):
        ContactGeometry.TriangleMesh([(0, 0, math.nan)] + v[1:], closed)
    with pytest.raises(InvalidArgumentError, match="PolygonalMesh"):
        ContactGeometry.TriangleMesh("cube")


# ---------------------------------------------------------------------------- mesh on floor
def test_mesh_cube_resting_on_half_space_carries_its_weight():
    k = 1e7
    mesh = _cube_mesh()
    system, tracker, ccs, (cube,) = _world([mesh], ContactMaterial(k, 0.5, 0.8, 0.5, 0.0))
    state = system.realizeTopology()
    # combined stiffness k/2 over the bottom face's area: (k/2) A x = m g
    x = 2.0 * 9.81 / (0.5 * k * (2 * HALF) ** 2)
    _place(state, cube, (0, HALF - x, 0))
    system.realize(state, Stage.Acceleration)
    snapshot = tracker.getActiveContacts(state)
    assert snapshot.getNumContacts() == 1
    contact = snapshot.getContact(0)
    assert TriangleMeshContact.isInstance(contact)
    assert contact.getSurface1Faces() == frozenset()
    bottom = {f for f in range(mesh.getNumFaces()) if mesh.getFaceNormal(f)[1] < -0.99}
    assert bottom <= contact.getSurface2Faces()
    force = ccs.getContactForce(state, 0)
    assert np.allclose(force.getForceOnSurface2()[1], (0, 2.0 * 9.81, 0), rtol=1e-9)
    assert np.allclose(force.getContactPoint(), (0, -x / 2, 0), atol=1e-12)
    assert force.getPotentialEnergy() == pytest.approx(0.5 * 2.0 * 9.81 * x)
    assert np.allclose(cube.getBodyAcceleration(state)[1], 0, atol=1e-9)
    patch = ccs.calcContactPatchDetailsById(state, contact.getContactId())
    assert patch.getNumDetails() == len(bottom)
    detail = patch.getContactDetail(0)
    assert np.allclose(detail.getContactNormal(), (0, 1, 0))
    assert detail.getDeformation() == pytest.approx(x)
    assert detail.getPatchArea() == pytest.approx(mesh.getFaceArea(min(bottom)))


def test_mesh_force_is_minus_gradient_of_potential_energy():
    mesh = _cube_mesh()
    system, _, ccs, (cube,) = _world([mesh], ContactMaterial(1e6, 0.0, 0.0, 0.0, 0.0))
    state = system.realizeTopology()
    R = Rotation(0.3, 0) * Rotation(0.2, 2)
    p = np.array((0.01, 0.12, -0.02))

    def energy(point):
        _place(state, cube, point, R)
        system.realize(state, Stage.Position)
        return ccs.calcPotentialEnergy(state)

    _place(state, cube, p, R)
    system.realize(state, Stage.Dynamics)
    force = system.getRigidBodyForces(state)[cube.getMobilizedBodyIndex()][1]
    force = force - np.array([0, -9.81 * 2.0, 0])
    h = 1e-7
    grad = np.array([(energy(p + h * e) - energy(p - h * e)) / (2 * h) for e in np.eye(3)])
    assert force[1] > 0
    assert np.allclose(force, -grad, rtol=1e-5, atol=1e-6 * abs(force[1]))


def test_no_mesh_force_when_separated_or_in_one_clique():
    material = ContactMaterial(1e6, 0.5, 0.6, 0.4, 0.05)
    clique = ContactSurface.createNewContactClique()
    system, tracker, ccs, (a, b) = _world(
        [_cube_mesh(0), _cube_mesh(0)], material, floor=False, gravity=False, clique=clique
    )
    state = system.realizeTopology()
    _place(state, a, (0, 0, 0))
    _place(state, b, (0.15, 0, 0))  # overlapping, but in one clique
    system.realize(state, Stage.Dynamics)
    assert tracker.getActiveContacts(state).getNumContacts() == 0
    assert not system.getRigidBodyForces(state).any()

    system, tracker, ccs, (cube,) = _world([_cube_mesh(0)], material, gravity=False)
    state = system.realizeTopology()
    _place(state, cube, (0, HALF + 1e-9, 0))  # just above the floor
    system.realize(state, Stage.Dynamics)
    assert tracker.getActiveContacts(state).getNumContacts() == 0
    assert ccs.getNumContactForces(state) == 0


def test_mesh_mesh_newtons_third_law_and_friction():
    material = ContactMaterial(1e6, 0.5, 0.6, 0.4, 0.05)
    system, tracker, ccs, (a, b) = _world(
        [_cube_mesh(1), _sphere_mesh(0.08, 2)], material, floor=False, gravity=False
    )
    state = system.realizeTopology()
    _place(state, a, (0, 0, 0), Rotation(0.2, 1), v=(1, 0, 0.2), w=(0, 3, 1))
    _place(state, b, (0.02, 0.17, 0.01), v=(-1, -0.1, 0), w=(2, 0, 0))
    system.realize(state, Stage.Dynamics)
    snapshot = tracker.getActiveContacts(state)
    assert snapshot.getNumContacts() == 1
    contact = snapshot.getContact(0)
    assert contact.getSurface1Faces() and contact.getSurface2Faces()
    F = ccs.getContactForce(state, 0).getForceOnSurface2()[1]
    assert F[1] > 0 and abs(F[0]) > 0  # pushes b up; friction opposes b's slip along -x
    assert F[0] > 0
    body = system.getRigidBodyForces(state)
    ia, ib = a.getMobilizedBodyIndex(), b.getMobilizedBodyIndex()
    assert np.allclose(body[ia][1], -body[ib][1], atol=1e-12)
    pa, pb = a.getBodyOriginLocation(state), b.getBodyOriginLocation(state)
    total = body[ia][0] + np.cross(pa, body[ia][1]) + body[ib][0] + np.cross(pb, body[ib][1])
    assert np.allclose(total, 0, atol=1e-10)
    patch = ccs.calcContactPatchDetailsById(state, contact.getContactId())
    assert patch.getNumDetails() > 0
    force = ccs.getContactForce(state, 0)
    assert force.getPowerDissipation() > 0
    # the resultant at the centre of pressure C is the sum of the face springs' forces
    C = force.getContactPoint()
    details = [patch.getContactDetail(k) for k in range(patch.getNumDetails())]
    total = sum(d.getForceOnSurface2() for d in details)
    moment = sum(np.cross(d.getContactPoint() - C, d.getForceOnSurface2()) for d in details)
    assert np.allclose(force.getForceOnSurface2()[1], total, atol=1e-12)
    assert np.allclose(force.getForceOnSurface2()[0], moment, atol=1e-12)
    assert sum(d.getPotentialEnergy() for d in details) == pytest.approx(
        force.getPotentialEnergy(), rel=1e-12
    )
    assert sum(d.getPowerLoss() for d in details) == pytest.approx(
        force.getPowerDissipation(), rel=1e-12
    )


# ---------------------------------------------------------------------------- against analytic
# An elastic foundation of stiffness k (per unit area and depth) pressed by a rigid sphere of
# radius R to depth x pushes with F = k * integral of (x - s^2/(2R)) over the patch
# = pi k R x^2 (small x).
R_BALL = 0.1
X_DEPTH = 0.004


def _analytic(k_combined: float) -> float:
    return math.pi * k_combined * R_BALL * X_DEPTH**2 * (1 - X_DEPTH / (3 * R_BALL))


@pytest.mark.parametrize("case", ["mesh-sphere on half space", "sphere on mesh box", "meshes"])
def test_mesh_sphere_force_matches_the_analytic_foundation(case):
    k = 2e8
    material = ContactMaterial(k, 0.0, 0.0, 0.0, 0.0)
    slab = trimesh.creation.box(extents=(0.1, 0.02, 0.1))
    for _ in range(4):
        slab = slab.subdivide()
    fine_box = ContactGeometry.TriangleMesh(slab)  # top face at y = 0.01 in its frame
    if case == "mesh-sphere on half space":
        shapes, floor = [_sphere_mesh(R_BALL, 5)], True
    elif case == "sphere on mesh box":
        shapes, floor = [ContactGeometry.Sphere(R_BALL), fine_box], False
    else:
        shapes, floor = [_sphere_mesh(R_BALL, 5), fine_box], False
    system, tracker, ccs, bodies = _world(shapes, material, floor=floor, gravity=False)
    state = system.realizeTopology()
    _place(state, bodies[0], (0.003, R_BALL - X_DEPTH, -0.002))
    if len(bodies) == 2:
        _place(state, bodies[1], (0, -0.01, 0))
    system.realize(state, Stage.Dynamics)
    assert tracker.getActiveContacts(state).getNumContacts() == 1
    F = system.getRigidBodyForces(state)[bodies[0].getMobilizedBodyIndex()][1]
    expected = _analytic(0.5 * k)
    assert F[1] == pytest.approx(expected, rel=0.06)
    assert abs(F[0]) < 0.05 * F[1] and abs(F[2]) < 0.05 * F[1]


# ------------------------------------------------------------------ ElasticFoundationForce
def _ef_world(shapes, floor=True, gravity=True):
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    if gravity:
        Force.UniformGravity(forces, matter, (0, -9.81, 0))
    gcs = GeneralContactSubsystem(system)
    contact_set = gcs.createContactSet()
    if floor:
        gcs.addBody(contact_set, matter.Ground(), ContactGeometry.HalfSpace(), FLOOR)
    bodies = []
    for shape in shapes:
        b = _free_body(matter)
        gcs.addBody(contact_set, b, shape, Transform())
        bodies.append(b)
    ef = ElasticFoundationForce(forces, gcs, contact_set)
    return system, gcs, ef, bodies


def test_elastic_foundation_force_carries_a_mesh_cube():
    k = 1e7
    system, gcs, ef, (cube,) = _ef_world([_cube_mesh()])
    ef.setBodyParameters(1, k, 0.5, 0.8, 0.5, 0.0)
    assert ef.getBodyParameters(1) == (k, 0.5, 0.8, 0.5, 0.0)
    state = system.realizeTopology()
    x = 2.0 * 9.81 / (k * (2 * HALF) ** 2)  # k A x = m g (the mesh's own stiffness)
    _place(state, cube, (0, HALF - x, 0))
    system.realize(state, Stage.Position)
    (contact,) = gcs.getContacts(state, 0)
    assert TriangleMeshContact.isInstance(contact)
    assert (contact.getSurface1(), contact.getSurface2()) == (0, 1)
    with pytest.raises(StageTooLowError, match="Dynamics"):
        ef.calcPotentialEnergy(state)
    system.realize(state, Stage.Acceleration)
    assert np.allclose(cube.getBodyAcceleration(state), 0, atol=1e-9)
    assert ef.calcPotentialEnergy(state) == pytest.approx(0.5 * 2.0 * 9.81 * x)


def test_elastic_foundation_force_mesh_pair_third_law_and_refusals():
    system, gcs, ef, (a, b) = _ef_world(
        [_cube_mesh(1), _sphere_mesh(0.08, 2)], floor=False, gravity=False
    )
    with pytest.raises(IndexOutOfRangeError):
        ef.setBodyParameters(2, 1e6, 0, 0, 0, 0)
    with pytest.raises(NonPhysicalError):
        ef.setBodyParameters(0, 0.0, 0, 0, 0, 0)
    with pytest.raises(NonPhysicalError):
        ef.setTransitionVelocity(-1.0)
    ef.setBodyParameters(0, 1e6, 0.5, 0.6, 0.4, 0.05)
    ef.setBodyParameters(1, 2e6, 0.2, 0.6, 0.4, 0.05)
    state = system.realizeTopology()
    _place(state, a, (0, 0, 0), Rotation(0.2, 1), v=(1, 0, 0.2), w=(0, 3, 1))
    _place(state, b, (0.02, 0.17, 0.01), v=(-1, -0.1, 0), w=(2, 0, 0))
    system.realize(state, Stage.Dynamics)
    body = system.getRigidBodyForces(state)
    ia, ib = a.getMobilizedBodyIndex(), b.getMobilizedBodyIndex()
    assert body[ib][1][1] > 0
    assert np.allclose(body[ia][1], -body[ib][1], atol=1e-12)
    pa, pb = a.getBodyOriginLocation(state), b.getBodyOriginLocation(state)
    total = body[ia][0] + np.cross(pa, body[ia][1]) + body[ib][0] + np.cross(pb, body[ib][1])
    assert np.allclose(total, 0, atol=1e-10)

    system, gcs, ef, _ = _ef_world([ContactGeometry.Sphere(0.1)])
    with pytest.raises(InvalidArgumentError, match="not a triangle mesh"):
        ef.setBodyParameters(1, 1e6, 0, 0, 0, 0)


def test_dropped_mesh_cube_lands_and_energy_balances():
    """KE + PE + dissipated energy stays constant through a tilted landing (the spring set
    changes face by face, but each spring starts at zero force)."""
    material = ContactMaterial(1e6, 1.0, 0.8, 0.5, 0.0)
    system, tracker, ccs, (cube,) = _world([_cube_mesh(1)], material)
    ccs.setTrackDissipatedEnergy(True)
    state = system.realizeTopology()
    _place(state, cube, (0, 0.2, 0), Rotation(0.3, 2), v=(0.2, -0.5, 0))
    system.realize(state, Stage.Acceleration)
    e0 = system.calcEnergy(state)
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(1e-4)
    stepper = TimeStepper(system, integ)
    stepper.initialize(state)
    touched = False
    for k in range(1, 5):
        stepper.stepTo(0.025 * k)
        s = stepper.getState()
        system.realize(s, Stage.Acceleration)
        touched |= ccs.getNumContactForces(s) > 0
        balance = system.calcEnergy(s) + ccs.getDissipatedEnergy(s)
        assert balance == pytest.approx(e0, rel=1e-3)
    assert touched and ccs.getDissipatedEnergy(s) > 0
    assert cube.getBodyOriginLocation(s)[1] > 0.08  # resting on an edge, not fallen through


def test_mesh_file_loading_and_the_convex_hull_of_an_open_mesh(tmp_path):
    closed = tmp_path / "box.stl"
    trimesh.creation.box(extents=(0.2, 0.3, 0.4)).export(closed)
    mesh = ContactGeometry.TriangleMesh.loadFile(closed)
    assert mesh.getVolume() == pytest.approx(0.2 * 0.3 * 0.4)
    opened = trimesh.creation.box(extents=(0.2, 0.3, 0.4))
    opened.update_faces(np.arange(len(opened.faces)) != 0)  # drop one triangle
    path = tmp_path / "open.stl"
    opened.export(path)
    with pytest.raises(InvalidArgumentError, match="not closed"):
        ContactGeometry.TriangleMesh.loadFile(path)
    hull = ContactGeometry.TriangleMesh(trimesh.load(path).convex_hull)
    assert hull.getVolume() == pytest.approx(0.2 * 0.3 * 0.4)
    with pytest.raises(InvalidArgumentError, match="cannot read"):
        ContactGeometry.TriangleMesh.loadFile(tmp_path / "missing.stl")
