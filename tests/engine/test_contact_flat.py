"""The tracker's flat contact arrays: Contact and ContactForce objects built lazily give the
same answers as the per-pair narrow phase, ids persist, and clique exclusion holds."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine import (
    Body,
    CircularPointContact,
    CompliantContactSubsystem,
    Contact,
    ContactGeometry,
    ContactMaterial,
    ContactSurface,
    ContactTrackerSubsystem,
    IndexOutOfRangeError,
    Inertia,
    InvalidObjectError,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    Rotation,
    SimbodyMatterSubsystem,
    Stage,
    Transform,
)
from engine.contact import pair_trackers

R = 0.1


def _model():
    """A floor, five balls on it (balls 0-1 and 2-3 overlap; 3 and 4 share a clique)."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    material = ContactMaterial(1e6, 0.5, 0.6, 0.4, 0.1)
    matter.Ground().updBody().addContactSurface(
        Transform(Rotation(-math.pi / 2, 2)), ContactSurface(ContactGeometry.HalfSpace(), material)
    )
    clique = ContactSurface.createNewContactClique()
    balls = []
    body = Body.Rigid(MassProperties(1.0, (0, 0, 0), Inertia(0.004)))
    for k in range(5):
        ball = MobilizedBody.Free(matter.Ground(), Transform(), body, Transform())
        surface = ContactSurface(ContactGeometry.Sphere(R), material)
        if k >= 3:
            surface.joinClique(clique)
        ball.updBody().addContactSurface(Transform(), surface)
        balls.append(ball)
    tracker = ContactTrackerSubsystem(system)
    ccs = CompliantContactSubsystem(system, tracker)
    state = system.realizeTopology()
    places = [(0, 0.09, 0), (0.19, 0.095, 0), (1, 0.2, 0), (1.15, 0.25, 0.02), (1.3, 0.25, 0)]
    for k, (ball, x) in enumerate(zip(balls, places, strict=True)):
        ball.setQToFitTranslation(state, x)
        ball.setUToFitLinearVelocity(state, (0.1 * k, -0.2, 0.05))
        ball.setUToFitAngularVelocity(state, (0.0, 0.3 * k, 0.0))
    return system, tracker, ccs, state


def test_contacts_are_built_lazily_and_match_the_pair_trackers():
    system, tracker, ccs, state = _model()
    system.realize(state, Stage.Dynamics)
    snapshot = tracker.getActiveContacts(state)
    assert all(c is None for c in snapshot._objects), "Contact objects built eagerly"
    Rg, pg = tracker.surfaceTransformsInGround(state)
    expected = {}
    for s in (1, 2):  # balls 0 and 1 touch the floor (surface 0)
        mask, x, origin, n = pair_trackers.half_space_spheres(
            0, Rg[0], pg[0], np.array([s]), pg[[s]], np.array([R])
        )
        assert mask[0]
        expected[(0, s)] = pair_trackers.circular(
            0, s, Rg[0], pg[0], Rg[s], pg[s], np.inf, R, R, x[0], origin[0], n
        )
    for i, j in ((1, 2), (3, 4), (4, 5)):
        c = pair_trackers.sphere_sphere(i, j, Rg[i], pg[i], R, Rg[j], pg[j], R)
        assert c is not None, "the model's spheres overlap"
        expected[(i, j)] = c
    del expected[(4, 5)]  # surfaces 4 and 5 share a clique: excluded
    pairs = [(int(c.getSurface1()), int(c.getSurface2())) for c in snapshot]
    assert pairs == sorted(expected)
    for got in snapshot:
        want = expected[(int(got.getSurface1()), int(got.getSurface2()))]
        assert CircularPointContact.isInstance(got)
        assert got.getCondition() == Contact.NewContact
        assert snapshot.getContactById(got.getContactId()) is got
        for name in ("getDepth", "getEffectiveRadius", "getRadius1", "getRadius2"):
            assert getattr(got, name)() == getattr(want, name)()
        for name in ("getOrigin", "getNormal", "getOriginInGround", "getNormalInGround"):
            np.testing.assert_allclose(getattr(got, name)(), getattr(want, name)(), atol=1e-15)
    assert snapshot.getContactIdForSurfacePair(2, 1) == snapshot.getContact(2).getContactId()
    assert snapshot.getContactIdForSurfacePair(4, 5) is None
    # forces: the kernel's rows become ContactForces on request, with Newton's third law
    assert ccs.getNumContactForces(state) == 4
    for k in range(4):
        force = ccs.getContactForce(state, k)
        assert force.getContactId() == snapshot.getContact(k).getContactId()
        patch = ccs.calcContactPatchDetailsById(state, force.getContactId())
        assert patch.isValid() and patch.getNumDetails() == 1
        np.testing.assert_array_equal(
            patch.getContactDetail(0).getForceOnSurface2(), force.getForceOnSurface2()[1]
        )
    assert ccs.calcPotentialEnergy(state) > 0.0


def test_ids_persist_through_the_history_arrays():
    system, tracker, _, state = _model()
    system.realize(state, Stage.Velocity)
    first = tracker.getActiveContacts(state)
    ids = [int(c.getContactId()) for c in first]
    # what an integrator does at a step end: the auto-update value becomes the variable
    sx = tracker.getMySubsystemIndex()
    entry = state.getDiscreteVarUpdateIndex(sx, tracker._prior_index)
    history = state.getCacheEntry(sx, entry)
    np.testing.assert_array_equal(history[1], ids)
    state.setDiscreteVariable(sx, tracker._prior_index, history)
    system.realize(state, Stage.Position)
    second = tracker.getActiveContacts(state)
    assert [int(c.getContactId()) for c in second] == ids
    assert all(c.getCondition() == Contact.Ongoing for c in second)


@pytest.mark.parametrize("bad", [math.nan, 1.5, None, "1", math.inf])
def test_index_arguments_of_the_contact_accessors_are_refused_by_name(bad):
    system, tracker, ccs, state = _model()
    system.realize(state, Stage.Velocity)
    snapshot = tracker.getActiveContacts(state)
    calls = {
        "mobodIx": lambda: tracker.getContactSurfaceIndex(bad, 0),
        "contactSurfaceOrdinal": lambda: tracker.getContactSurfaceIndex(1, bad),
        "surface1": lambda: tracker.hasContactTracker(bad, 1),
        "surf2": lambda: snapshot.getContactIdForSurfacePair(0, bad),
        "contactId": lambda: ccs.getContactForceById(state, bad),
    }
    for name, call in calls.items():
        with pytest.raises(IndexOutOfRangeError, match=name):
            call()
    with pytest.raises(IndexOutOfRangeError, match="contactId"):
        ccs.calcContactPatchDetailsById(state, bad)
    with pytest.raises(IndexOutOfRangeError, match="contactId"):
        snapshot.getContactById(bad)
    # an integral float is an index, as Simbody's implicit conversions allow
    assert tracker.getContactSurfaceIndex(1.0, 0) == tracker.getContactSurfaceIndex(1, 0)


def test_the_force_of_a_contact_that_has_none_is_invalid_and_gives_no_values():
    system, tracker, ccs, state = _model()
    system.realize(state, Stage.Velocity)
    ids = [c.getContactId() for c in tracker.getActiveContacts(state)]
    unknown = max(ids) + 1000
    force = ccs.getContactForceById(state, unknown)
    assert not force.isValid()
    for getter in ("getContactPoint", "getForceOnSurface2", "getPotentialEnergy"):
        with pytest.raises(InvalidObjectError, match="isValid"):
            getattr(force, getter)()
    with pytest.raises(InvalidObjectError):
        force.getPowerDissipation()
    assert repr(force) == "ContactForce(invalid)"
    patch = ccs.calcContactPatchDetailsById(state, unknown)
    assert not patch.isValid() and patch.getNumDetails() == 0
    valid = ccs.getContactForce(state, 0)
    assert valid.isValid() and np.all(np.isfinite(valid.getForceOnSurface2()))
