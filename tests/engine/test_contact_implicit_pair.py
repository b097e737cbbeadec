"""Sphere-Ellipsoid and Ellipsoid-Ellipsoid contact (ConvexImplicitPair) with HertzElliptical,
and the pairs Simbody 3.7 has no tracker for."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine import (
    Body,
    CircularPointContact,
    CompliantContactSubsystem,
    ContactGeometry,
    ContactMaterial,
    ContactSurface,
    ContactTrackerSubsystem,
    EllipticalPointContact,
    GeneralForceSubsystem,
    Inertia,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    Rotation,
    SimbodyMatterSubsystem,
    Stage,
    Transform,
)
from engine.contact.implicit_pair_tracker import convex_implicit_pair

MATERIAL = ContactMaterial(1e6, 0.5, 0.6, 0.4, 0.05)


def _world(shapes, material=MATERIAL):
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    GeneralForceSubsystem(system)
    bodies = []
    for shape in shapes:
        body = Body.Rigid(MassProperties(1.0, (0, 0, 0), Inertia(0.01)))
        b = MobilizedBody.Free(matter.Ground(), Transform(), body, Transform())
        b.updBody().addContactSurface(Transform(), ContactSurface(shape, material))
        bodies.append(b)
    tracker = ContactTrackerSubsystem(system)
    ccs = CompliantContactSubsystem(system, tracker)
    return system, tracker, ccs, bodies


def _place(state, body, p, R=None, v=(0, 0, 0), w=(0, 0, 0)) -> None:
    body.setQToFitTransform(state, Transform(R if R is not None else Rotation(), p))
    body.setUToFitLinearVelocity(state, v)
    body.setUToFitAngularVelocity(state, w)


def _support_overlap(m, p1, A1, p2, A2):
    """d(m) for many unit directions m (k, 3)."""
    h1 = np.sqrt(np.einsum("ki,ij,kj->k", m, A1, m))
    h2 = np.sqrt(np.einsum("ki,ij,kj->k", m, A2, m))
    return (p1 - p2) @ m.T + h1 + h2


def test_ellipsoid_pair_depth_is_the_least_overlap_over_all_directions():
    R1 = Rotation(0.4, 0).asMat33()
    R2 = (Rotation(-0.7, 2) * Rotation(0.3, 1)).asMat33()
    e1 = ContactGeometry.Ellipsoid((0.3, 0.12, 0.08))
    e2 = ContactGeometry.Ellipsoid((0.05, 0.25, 0.1))
    p1, p2 = np.array((0.0, 0.0, 0.0)), np.array((0.22, 0.13, 0.09))
    contact = convex_implicit_pair(0, 1, R1, p1, R2, p2, e1, e2)
    assert contact is not None and EllipticalPointContact.isInstance(contact)
    A1 = (R1 * np.array((0.3, 0.12, 0.08)) ** 2) @ R1.T
    A2 = (R2 * np.array((0.05, 0.25, 0.1)) ** 2) @ R2.T
    rng = np.random.default_rng(3)
    m = rng.normal(size=(200_000, 3))
    m /= np.linalg.norm(m, axis=1)[:, None]
    sampled = float(_support_overlap(m, p1, A1, p2, A2).min())
    depth = contact.getDepth()
    n = contact.getNormalInGround()
    assert depth == pytest.approx(float(_support_overlap(n[None], p1, A1, p2, A2)[0]), rel=1e-12)
    assert depth <= sampled and depth == pytest.approx(sampled, rel=1e-4)
    # contact points: P on 1 with normal n, Q on 2 with normal -n, P - Q along n
    P = p1 + A1 @ n / math.sqrt(n @ A1 @ n)
    Q = p2 - A2 @ n / math.sqrt(n @ A2 @ n)
    assert np.linalg.norm(np.cross(P - Q, n)) < 1e-12
    assert np.allclose(contact.getOriginInGround(), 0.5 * (P + Q), atol=1e-14)
    kmax, kmin = contact.getCurvatures()
    assert kmax >= kmin > 0
    # moved apart along n by more than the depth: no contact
    assert convex_implicit_pair(0, 1, R1, p1, R2, p2 + 1.01 * depth * n, e1, e2) is None


def test_sphere_on_ellipsoid_tip_geometry_and_surface_order():
    system, tracker, ccs, (e, s) = _world(
        [ContactGeometry.Ellipsoid((0.3, 0.2, 0.1)), ContactGeometry.Sphere(0.1)]
    )
    state = system.realizeTopology()
    _place(state, e, (0, 0, 0))
    _place(state, s, (0, 0, 0.195))
    system.realize(state, Stage.Velocity)
    (contact,) = list(tracker.getActiveContacts(state))
    assert EllipticalPointContact.isInstance(contact)
    assert (contact.getSurface1(), contact.getSurface2()) == (1, 0)  # the sphere is surface 1
    assert contact.getDepth() == pytest.approx(0.005, rel=1e-12)
    assert np.allclose(contact.getNormalInGround(), (0, 0, -1))
    assert np.allclose(contact.getCurvatures(), (10 + 0.1 / 0.2**2, 10 + 0.1 / 0.3**2))
    assert np.allclose(contact.getOriginInGround(), (0, 0, 0.0975))
    F = ccs.getContactForce(state, 0).getForceOnSurface2()[1]
    assert F[2] < 0 and abs(F[0]) < 1e-9 * abs(F[2])  # pushes the ellipsoid down


def test_round_ellipsoid_gives_the_sphere_sphere_force():
    """An Ellipsoid with equal radii is a sphere: the force of the Sphere-Ellipsoid tracker
    with HertzElliptical equals HertzCircular's for the two spheres."""
    results = []
    for shape in (ContactGeometry.Sphere(0.15), ContactGeometry.Ellipsoid((0.15, 0.15, 0.15))):
        system, tracker, ccs, (a, b) = _world([ContactGeometry.Sphere(0.1), shape])
        state = system.realizeTopology()
        _place(state, a, (0, 0, 0), v=(0.1, 0.2, 0), w=(0, 1, 0))
        _place(state, b, (0.2, 0.1, 0.05), Rotation(0.3, 0), v=(-0.2, 0, 0.1))
        system.realize(state, Stage.Dynamics)
        (contact,) = list(tracker.getActiveContacts(state))
        results.append((contact, ccs.getContactForce(state, 0), system.getRigidBodyForces(state)))
    (c_sph, f_sph, b_sph), (c_ell, f_ell, b_ell) = results
    assert CircularPointContact.isInstance(c_sph) and EllipticalPointContact.isInstance(c_ell)
    assert c_ell.getDepth() == pytest.approx(c_sph.getDepth(), rel=1e-12)
    assert np.allclose(f_ell.getContactPoint(), f_sph.getContactPoint(), atol=1e-12)
    assert np.allclose(f_ell.getForceOnSurface2(), f_sph.getForceOnSurface2(), rtol=1e-7)
    assert np.allclose(b_ell, b_sph, rtol=1e-7, atol=1e-9)


def test_ellipsoid_pair_newtons_third_law_and_energy_gradient():
    material = ContactMaterial(1e6, 0.0, 0.0, 0.0, 0.0)
    shapes = [
        ContactGeometry.Ellipsoid((0.2, 0.1, 0.08)),
        ContactGeometry.Ellipsoid((0.12, 0.09, 0.15)),
    ]
    system, tracker, ccs, (a, b) = _world(shapes, material)
    state = system.realizeTopology()
    R = Rotation(0.5, 2)
    p = np.array((0.05, 0.17, 0.02))
    _place(state, a, (0, 0, 0))
    _place(state, b, p, R)
    system.realize(state, Stage.Dynamics)
    body = system.getRigidBodyForces(state)
    ia, ib = a.getMobilizedBodyIndex(), b.getMobilizedBodyIndex()
    assert np.linalg.norm(body[ib][1]) > 0
    assert np.allclose(body[ia][1], -body[ib][1], atol=1e-12)
    pa, pb = a.getBodyOriginLocation(state), b.getBodyOriginLocation(state)
    total = body[ia][0] + np.cross(pa, body[ia][1]) + body[ib][0] + np.cross(pb, body[ib][1])
    assert np.allclose(total, 0, atol=1e-10)

    def energy(point):
        _place(state, b, point, R)
        system.realize(state, Stage.Position)
        return ccs.calcPotentialEnergy(state)

    h = 1e-7
    grad = np.array([(energy(p + h * e) - energy(p - h * e)) / (2 * h) for e in np.eye(3)])
    # HertzElliptical is not exactly conservative (CONVENTIONS 14.3): about 1e-3
    assert np.allclose(body[ib][1], -grad, rtol=2e-2, atol=2e-2 * np.abs(grad).max())


def test_pairs_without_a_tracker_never_interact():
    """Simbody 3.7 has no tracker for Cylinder, Brick-Sphere, Brick-Ellipsoid, Brick-Brick
    or Ellipsoid-TriangleMesh: overlapping such surfaces give no contact and no force."""
    pairs = [
        (ContactGeometry.Cylinder(0.1), ContactGeometry.Sphere(0.1)),
        (ContactGeometry.Brick((0.1, 0.1, 0.1)), ContactGeometry.Sphere(0.1)),
        (ContactGeometry.Brick((0.1, 0.1, 0.1)), ContactGeometry.Ellipsoid((0.1, 0.2, 0.1))),
    ]
    for shapes in pairs:
        system, tracker, ccs, (a, b) = _world(list(shapes))
        state = system.realizeTopology()
        _place(state, a, (0, 0, 0))
        _place(state, b, (0.05, 0, 0))
        system.realize(state, Stage.Dynamics)
        assert tracker.getActiveContacts(state).getNumContacts() == 0
        assert not system.getRigidBodyForces(state).any()
        assert not tracker.hasContactTracker(shapes[0].getTypeId(), shapes[1].getTypeId())
    G = ContactGeometry
    for a, b in [
        (G.Sphere, G.HalfSpace),
        (G.Ellipsoid, G.Sphere),
        (G.Ellipsoid, G.Ellipsoid),
        (G.TriangleMesh, G.TriangleMesh),
        (G.HalfSpace, G.Brick),
    ]:
        assert tracker.hasContactTracker(a.classTypeId(), b.classTypeId())
    assert not tracker.hasContactTracker(G.Cylinder.classTypeId(), G.HalfSpace.classTypeId())


def test_least_overlap_is_found_for_random_elongated_ellipsoids():
    rng = np.random.default_rng(0)
    m = rng.normal(size=(50_000, 3))
    m /= np.linalg.norm(m, axis=1)[:, None]
    checked = 0
    for _ in range(60):
        a1, a2 = rng.uniform(0.02, 0.3, 3), rng.uniform(0.02, 0.3, 3)
        R1 = (Rotation(rng.uniform(0, 6), 0) * Rotation(rng.uniform(0, 6), 1)).asMat33()
        R2 = (Rotation(rng.uniform(0, 6), 2) * Rotation(rng.uniform(0, 6), 0)).asMat33()
        p2 = rng.normal(size=3) * 0.2
        contact = convex_implicit_pair(
            0,
            1,
            R1,
            np.zeros(3),
            R2,
            p2,
            ContactGeometry.Ellipsoid(a1),
            ContactGeometry.Ellipsoid(a2),
        )
        A1, A2 = (R1 * a1**2) @ R1.T, (R2 * a2**2) @ R2.T
        sampled = float(_support_overlap(m, np.zeros(3), A1, p2, A2).min())
        if sampled > 1e-4:
            assert contact is not None
            assert sampled - 2e-4 <= contact.getDepth() <= sampled  # sampling: coarser
            checked += 1
        elif contact is not None:
            assert contact.getDepth() <= sampled + 1e-12
    assert checked > 10
