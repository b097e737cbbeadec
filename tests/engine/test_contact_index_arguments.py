"""Contact and other engine entry points taking an index refuse one that is not an integer
(2.7, "1", a bool, None) with IndexOutOfRangeError naming the method and the argument, never
reading it with int() (which takes 2.7 as 2 and "1" as 1); integer forms (an int, a numpy
integer, an index type) still work (issue 22)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from engine import (
    Body,
    CompliantContactSubsystem,
    Constraint,
    ContactGeometry,
    ContactMaterial,
    ContactSurface,
    ContactSurfaceIndex,
    ContactTrackerSubsystem,
    CoordinateAxis,
    CoordinateDirection,
    EventTriggerInfo,
    GeneralContactSubsystem,
    GeneralForceSubsystem,
    IndexOutOfRangeError,
    InvalidArgumentError,
    MassProperties,
    Measure,
    MobilizedBody,
    MultibodySystem,
    PointContact,
    ProjectOptions,
    ProjectResults,
    Rotation,
    RungeKuttaMersonIntegrator,
    SimbodyMatterSubsystem,
    Stage,
    Transform,
    UnitInertia,
    Vec3,
    ZAxis,
)

BAD_INDICES = {"float": 2.7, "string": "1", "bool": True, "None": None, "nan": math.nan}


@pytest.fixture(scope="module")
def contact():
    """A sphere (radius 0.5, surface 1) on a Free body 0.1 into Ground's half space y < 0
    (surface 0), under a compliant contact subsystem; a GeneralContactSubsystem set with the
    same two bodies; the State realized to Acceleration."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    GeneralForceSubsystem(system)
    material = ContactMaterial(1e6, 0.5, 0.8, 0.6, 0.0)
    matter.Ground().updBody().addContactSurface(
        Transform(Rotation(-math.pi / 2, ZAxis)),
        ContactSurface(ContactGeometry.HalfSpace(), material),
    )
    body = Body.Rigid(MassProperties(1.0, Vec3(0), UnitInertia(0.1, 0.1, 0.1)))
    body.addContactSurface(Transform(), ContactSurface(ContactGeometry.Sphere(0.5), material))
    ball = MobilizedBody.Free(matter.Ground(), Transform(Vec3(0, 0.4, 0)), body, Transform())
    tracker = ContactTrackerSubsystem(system)
    ccs = CompliantContactSubsystem(system, tracker)
    gcs = GeneralContactSubsystem(system)
    cs = gcs.createContactSet()
    gcs.addBody(cs, matter.Ground(), ContactGeometry.HalfSpace(), Transform())
    gcs.addBody(cs, ball, ContactGeometry.Sphere(0.5), Transform())
    state = system.realizeTopology()
    system.realize(state, Stage.Acceleration)
    assert ccs.getNumContactForces(state) == 1
    return {"tracker": tracker, "ccs": ccs, "gcs": gcs, "cs": cs, "state": state}


def _tracker_calls(m):
    t = m["tracker"]
    return {
        "getMobilizedBody": lambda i: t.getMobilizedBody(i),
        "getMobilizedBodyIndex": lambda i: t.getMobilizedBodyIndex(i),
        "getContactSurface": lambda i: t.getContactSurface(i),
        "getContactSurfaceTransform": lambda i: t.getContactSurfaceTransform(i),
        "getContactGeometry": lambda i: t.getContactGeometry(i),
    }


# method -> (argument name in the refusal, call with the index under test); the other
# arguments are valid
CALLS = {
    **{
        name: ("surface", lambda m, i, name=name: _tracker_calls(m)[name](i))
        for name in (
            "getMobilizedBody",
            "getMobilizedBodyIndex",
            "getContactSurface",
            "getContactSurfaceTransform",
            "getContactGeometry",
        )
    },
    "getContact": ("i", lambda m, i: m["tracker"].getActiveContacts(m["state"]).getContact(i)),
    "getContactForce": ("i", lambda m, i: m["ccs"].getContactForce(m["state"], i)),
    "getNumBodies": ("set_index", lambda m, i: m["gcs"].getNumBodies(i)),
    "getContacts": ("set_index", lambda m, i: m["gcs"].getContacts(m["state"], i)),
    "getBody": ("index", lambda m, i: m["gcs"].getBody(m["cs"], i)),
    "getBodyGeometry": ("index", lambda m, i: m["gcs"].getBodyGeometry(m["cs"], i)),
    "getBodyTransform": ("index", lambda m, i: m["gcs"].getBodyTransform(m["cs"], i)),
    "setContactId": (
        "contactId",
        lambda m, i: PointContact(0, 1, (0, 0, 0), (0, 1, 0), 0.3, 1e-3).setContactId(i),
    ),
}


@pytest.mark.parametrize(
    ("method", "bad"), [(m, b) for m in CALLS for b in BAD_INDICES], ids=lambda c: str(c)
)
def test_a_non_integer_contact_index_is_refused(contact, method, bad):
    arg, call = CALLS[method]
    with pytest.raises(IndexOutOfRangeError) as info:
        call(contact, BAD_INDICES[bad])
    message = str(info.value)
    assert method in message and re.search(rf"\b{arg}\b", message), message


@pytest.mark.parametrize("method", list(CALLS), ids=str)
def test_an_out_of_range_contact_index_is_refused_naming_the_method(contact, method):
    if method == "setContactId":
        return  # any id >= 0 is an id
    arg, call = CALLS[method]
    with pytest.raises(IndexOutOfRangeError) as info:
        call(contact, 7)
    assert method in str(info.value) and re.search(rf"\b{arg}\b", str(info.value))


def test_integer_forms_of_a_contact_index_still_work(contact):
    t, ccs, gcs, state = contact["tracker"], contact["ccs"], contact["gcs"], contact["state"]
    for form in (1, np.int64(1), ContactSurfaceIndex(1)):
        assert t.getMobilizedBodyIndex(form) == 1
        assert t.getContactSurface(form).getShape().getRadius() == 0.5
    expected = ccs.getContactForce(state, 0).getForceOnSurface2()
    for form in (np.int32(0), 0.0):
        np.testing.assert_array_equal(
            np.asarray(ccs.getContactForce(state, form).getForceOnSurface2()),
            np.asarray(expected),
        )
    assert gcs.getBody(contact["cs"], np.int64(1)).getMobilizedBodyIndex() == 1
    assert len(gcs.getContacts(state, np.int64(0))) == 1
    c = PointContact(0, 1, (0, 0, 0), (0, 1, 0), 0.3, 1e-3)
    assert int(c.setContactId(np.int64(12)).getContactId()) == 12


def test_other_index_arguments_are_not_truncated():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    body = Body.Rigid(MassProperties(1.0, Vec3(0), UnitInertia(0.1, 0.1, 0.1)))
    a = MobilizedBody.Pin(matter.Ground(), Transform(), body, Transform(Vec3(0, 1, 0)))
    b = MobilizedBody.Pin(a, Transform(), body, Transform(Vec3(0, 1, 0)))
    rod = Constraint.Rod(a, b, 1.5)
    time = Measure.Time()
    state = system.realizeTopology()
    system.realize(state, Stage.Report)
    cases = {
        "getMobilizedBodyFromConstrainedBody": lambda i: rod.getMobilizedBodyFromConstrainedBody(i),
        "getValue": lambda i: time.getValue(state, i),
        "getDependsOnStage": lambda i: time.getDependsOnStage(i),
        "EventTriggerInfo": lambda i: EventTriggerInfo(i),
        "setEventId": lambda i: EventTriggerInfo().setEventId(i),
    }
    for name, call in cases.items():
        for bad in (0.5, "1", True):
            with pytest.raises(IndexOutOfRangeError, match=name):
                call(bad)
    integrator = RungeKuttaMersonIntegrator(system)
    more = {
        "CoordinateAxis": CoordinateAxis,
        "CoordinateDirection": CoordinateDirection,
        "setInternalStepLimit": integrator.setInternalStepLimit,
        "ProjectOptions": lambda i: ProjectOptions(1e-3, i),
        "setNumIterations": ProjectResults().setNumIterations,
    }
    for name, call in more.items():
        for bad in (1.5, "1", True, None):
            with pytest.raises(IndexOutOfRangeError, match=name):
                call(bad)
    for bad in (1.5, "1", True):
        with pytest.raises(InvalidArgumentError, match="lockByDefault"):
            a.lockByDefault(bad)
    assert CoordinateAxis(np.int64(2)) == CoordinateAxis(2)
    assert rod.getMobilizedBodyFromConstrainedBody(np.int64(1)) is b
    assert time.getValue(state, np.int64(1)) == 1.0
    assert EventTriggerInfo(np.int64(3)).getEventId() == 3
