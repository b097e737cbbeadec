"""Physics oracles and refusals of compliant contact (ContactTracker/CompliantContact)."""

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
    IndexOutOfRangeError,
    Inertia,
    InvalidArgumentError,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    Rotation,
    RungeKuttaMersonIntegrator,
    SimbodyMatterSubsystem,
    Stage,
    StageTooLowError,
    TimeStepper,
    Transform,
)

FLOOR = Transform(Rotation(-math.pi / 2, 2))  # half space y < 0 ... outward normal +y
RADIUS = 0.1


def _ball_body(mass: float = 2.0) -> Body:
    return Body.Rigid(MassProperties(mass, (0, 0, 0), Inertia(0.4 * mass * RADIUS**2)))


def _world(material: ContactMaterial, n_balls: int = 1, gravity: bool = True, clique=None):
    """A floor (y = 0) and free balls on it; returns (system, matter, tracker, ccs, balls)."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    if gravity:
        Force.UniformGravity(forces, matter, (0, -9.81, 0))
    matter.Ground().updBody().addContactSurface(
        FLOOR, ContactSurface(ContactGeometry.HalfSpace(), material)
    )
    balls = []
    for _ in range(n_balls):
        ball = MobilizedBody.Free(matter.Ground(), Transform(), _ball_body(), Transform())
        surface = ContactSurface(ContactGeometry.Sphere(RADIUS), material)
        if clique is not None:
            surface.joinClique(clique)
        ball.updBody().addContactSurface(Transform(), surface)
        balls.append(ball)
    tracker = ContactTrackerSubsystem(system)
    ccs = CompliantContactSubsystem(system, tracker)
    return system, matter, tracker, ccs, balls


def _place(state, ball, p, v=(0, 0, 0), w=(0, 0, 0)) -> None:
    ball.setQToFitTranslation(state, p)
    ball.setUToFitLinearVelocity(state, v)
    ball.setUToFitAngularVelocity(state, w)


def test_frictionless_elastic_bounce_conserves_energy():
    system, _, _, ccs, (ball,) = _world(ContactMaterial(1e6, 0.0, 0.0, 0.0, 0.0))
    state = system.realizeTopology()
    _place(state, ball, (0, RADIUS + 0.005, 0), v=(0.3, -1.0, 0))
    system.realize(state, Stage.Velocity)
    e0 = system.calcEnergy(state)
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(1e-6)
    stepper = TimeStepper(system, integ)
    stepper.initialize(state)
    touched = False
    for k in range(1, 7):
        stepper.stepTo(0.01 * k)
        s = stepper.getState()
        system.realize(s, Stage.Acceleration)
        touched |= ccs.getNumContactForces(s) > 0
        assert abs(system.calcEnergy(s) - e0) < 1e-5 * e0
    assert touched
    # it bounced: moving up again, with the tangential speed untouched (no friction)
    v = ball.getBodyOriginVelocity(stepper.getState())
    assert v[1] > 0.5 and v[0] == pytest.approx(0.3, abs=1e-9)


def test_hertz_force_is_minus_gradient_of_energy():
    system, _, tracker, ccs, (ball,) = _world(ContactMaterial(2e6, 0.3, 0.5, 0.4, 0.1))
    state = system.realizeTopology()
    p = np.array([0.01, RADIUS - 0.002, -0.02])

    def energy(point):
        _place(state, ball, point)
        system.realize(state, Stage.Position)
        return ccs.calcPotentialEnergy(state)

    _place(state, ball, p)
    system.realize(state, Stage.Dynamics)
    force = system.getRigidBodyForces(state)[ball.getMobilizedBodyIndex()][1]
    force = force - np.array([0, -9.81 * 2.0, 0])  # remove gravity
    h = 1e-7
    grad = np.array([(energy(p + h * e) - energy(p - h * e)) / (2 * h) for e in np.eye(3)])
    assert np.allclose(force, -grad, rtol=1e-6, atol=1e-6 * np.max(np.abs(force)))
    assert force[1] > 0


def test_newtons_third_law_per_contact():
    material = ContactMaterial(1e6, 0.5, 0.6, 0.4, 0.05)
    system, matter, tracker, ccs, (a, b) = _world(material, 2, gravity=False)
    state = system.realizeTopology()
    _place(state, a, (0, 0.5, 0), v=(1, 0, 0.2), w=(0, 3, 1))
    _place(state, b, (0.19, 0.52, 0.01), v=(-1, 0.1, 0), w=(2, 0, 0))
    system.realize(state, Stage.Dynamics)
    snapshot = tracker.getActiveContacts(state)
    assert snapshot.getNumContacts() == 1
    contact = snapshot.getContact(0)
    assert (contact.getSurface1(), contact.getSurface2()) == (1, 2)
    assert ccs.getNumContactForces(state) == 1
    f = ccs.getContactForce(state, 0)
    assert np.linalg.norm(f.getForceOnSurface2()[1]) > 0
    body = system.getRigidBodyForces(state)
    ia, ib = a.getMobilizedBodyIndex(), b.getMobilizedBodyIndex()
    # equal and opposite forces, and moments about the Ground origin that cancel
    assert np.allclose(body[ia][1], -body[ib][1], atol=1e-12)
    pa, pb = a.getBodyOriginLocation(state), b.getBodyOriginLocation(state)
    total = body[ia][0] + np.cross(pa, body[ia][1]) + body[ib][0] + np.cross(pb, body[ib][1])
    assert np.allclose(total, 0, atol=1e-10)


def test_no_force_when_separated_or_in_one_clique():
    material = ContactMaterial(1e6, 0.5, 0.6, 0.4, 0.05)
    clique = ContactSurface.createNewContactClique()
    system, _, tracker, ccs, (a, b) = _world(material, 2, gravity=False, clique=clique)
    state = system.realizeTopology()
    _place(state, a, (0, 0.5, 0))
    _place(state, b, (0.15, 0.5, 0))  # overlapping spheres, but in one clique
    system.realize(state, Stage.Dynamics)
    assert tracker.getActiveContacts(state).getNumContacts() == 0
    assert not system.getRigidBodyForces(state).any()
    _place(state, a, (0, RADIUS + 1e-9, 0))  # just above the floor
    system.realize(state, Stage.Dynamics)
    assert ccs.getNumContactForces(state) == 0
    assert ccs.calcPotentialEnergy(state) == 0.0
    _place(state, a, (0, RADIUS - 1e-4, 0))
    system.realize(state, Stage.Dynamics)
    assert ccs.getNumContactForces(state) == 1


def test_contact_conditions_new_ongoing_broken():
    """Two spheres pass through a collision: NewContact, then Ongoing, then one
    BrokenContact report after they separate, then nothing."""
    material = ContactMaterial(1e7, 0.0, 0.0, 0.0, 0.0)
    system, _, tracker, ccs, (a, b) = _world(material, 2, gravity=False)
    state = system.realizeTopology()
    _place(state, a, (0, 0.5, 0), v=(0.5, 0, 0))
    _place(state, b, (0.201, 0.5, 0), v=(-0.5, 0, 0))
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(1e-3)
    integ.setReturnEveryInternalStep(True)
    integ.initialize(state)
    steps = []
    while integ.getTime() < 0.02:
        integ.stepTo(0.02)
        snapshot = tracker.getActiveContacts(integ.getState())
        steps.append([Contact.nameOfCondition(c.getCondition()) for c in snapshot])
    assert steps.count(["Broken"]) == 1 and steps[-1] == []
    assert steps.count(["NewContact"]) == 1
    seen = []
    for names in steps:
        if names and (not seen or seen[-1] != names[0]):
            seen.append(names[0])
    assert seen == ["NewContact", "Ongoing", "Broken"]


def test_bad_input_refused():
    material = ContactMaterial(1e6, 0.1, 0.5, 0.4, 0.0)
    with pytest.raises(InvalidArgumentError, match="radius"):
        ContactGeometry.Sphere(-0.1)
    with pytest.raises(InvalidArgumentError, match="stiffness"):
        ContactMaterial(0.0, 0.1, 0.5, 0.4, 0.0)
    with pytest.raises(InvalidArgumentError):
        ContactMaterial(float("nan"), 0.1, 0.5, 0.4, 0.0)
    system, _, tracker, ccs, (ball,) = _world(material)
    with pytest.raises(InvalidArgumentError, match="ContactTrackerSubsystem"):
        CompliantContactSubsystem(system, object())
    with pytest.raises(InvalidArgumentError, match="transition velocity"):
        ccs.setTransitionVelocity(0.0)
    state = system.realizeTopology()
    with pytest.raises(StageTooLowError, match="Position"):
        tracker.getActiveContacts(state)
    system.realize(state, Stage.Position)
    with pytest.raises(StageTooLowError, match="Velocity"):
        ccs.getNumContactForces(state)
    with pytest.raises(IndexOutOfRangeError):
        tracker.getContactSurfaceIndex(1, 3)
    assert tracker.getNumSurfaces() == 2
    assert tracker.getMobilizedBody(1).getMobilizedBodyIndex() == ball.getMobilizedBodyIndex()
    with pytest.raises(IndexOutOfRangeError):
        tracker.getContactSurfaceTransform(2)
    with pytest.raises(InvalidArgumentError):
        ball.updBody().addContactSurface(Transform(), ContactGeometry.Sphere(0.1))
