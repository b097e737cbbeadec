"""Contact API objects: geometry, material, surface, cliques, Body surfaces, Contact kinds."""

import math

import numpy as np
import pytest

from engine import (
    Body,
    BrickHalfSpaceContact,
    CircularPointContact,
    Contact,
    ContactGeometry,
    ContactMaterial,
    ContactSurface,
    EllipticalPointContact,
    IndexOutOfRangeError,
    InvalidArgumentError,
    MassProperties,
    PointContact,
    Transform,
)


def test_geometry_kinds_and_accessors():
    assert ContactGeometry.HalfSpace().getTypeName() == "HalfSpace"
    s = ContactGeometry.Sphere(0.25)
    assert s.getRadius() == 0.25 and s.setRadius(0.5).getRadius() == 0.5
    e = ContactGeometry.Ellipsoid((0.1, 0.2, 0.3))
    assert e.getRadii().tolist() == [0.1, 0.2, 0.3]
    b = ContactGeometry.Brick((0.1, 0.2, 0.3))
    assert b.getVertexPos(0).tolist() == [-0.1, -0.2, -0.3]
    assert b.getVertexPos(5).tolist() == [0.1, -0.2, 0.3]
    assert ContactGeometry.Cylinder(0.2).getRadius() == 0.2
    assert ContactGeometry.Sphere.isInstance(s) and not ContactGeometry.Sphere.isInstance(e)
    with pytest.raises(InvalidArgumentError):
        ContactGeometry.Brick.getAs(s)


@pytest.mark.parametrize(
    "make",
    [
        lambda: ContactGeometry.Sphere(-1.0),
        lambda: ContactGeometry.Sphere(0.0),
        lambda: ContactGeometry.Sphere(float("nan")),
        lambda: ContactGeometry.Ellipsoid((1, 0, 1)),
        lambda: ContactGeometry.Brick((1, 1, float("inf"))),
        lambda: ContactGeometry.Cylinder(-2),
        lambda: ContactGeometry.Sphere(1).setRadius(-1),
    ],
)
def test_bad_geometry_refused(make):
    with pytest.raises(InvalidArgumentError, match="must"):
        make()


def test_half_space_drawing_occupies_positive_x():
    d = ContactGeometry.HalfSpace().createDecorativeGeometry()
    h = d.getHalfLengths()
    x = d.getTransform().p()[0]
    assert x - h[0] == pytest.approx(0.0) and x + h[0] > 0
    cyl = ContactGeometry.Cylinder(0.1).createDecorativeGeometry()
    # the drawn cylinder's axis (its y axis) lies along Sz
    assert np.allclose(cyl.getTransform().R().asMat33()[:, 1], [0, 0, 1])
    assert ContactGeometry.Sphere(0.3).createDecorativeGeometry().getRadius() == 0.3


def test_material_validation():
    m = ContactMaterial(1e6, 0.5, 0.8, 0.6, 0.1)
    assert (m.getStiffness(), m.getDissipation()) == (1e6, 0.5)
    assert m.getStiffness23() == pytest.approx(1e4)
    assert (m.getStaticFriction(), m.getDynamicFriction(), m.getViscousFriction()) == (
        0.8,
        0.6,
        0.1,
    )
    for args in [
        (0.0, 0.1, 0, 0),
        (-1, 0, 0, 0),
        (1, -0.1, 0, 0),
        (1, 0, 0.2, 0.5),
        (float("nan"),),
    ]:
        with pytest.raises(InvalidArgumentError):
            ContactMaterial(*args)
    with pytest.raises(InvalidArgumentError, match="stiffness"):
        m.setStiffness(0)
    assert ContactMaterial.calcPlaneStrainStiffness(1e9, 0.5) == pytest.approx(1e9 / 0.75)


def test_surface_cliques_and_body_surfaces():
    mat = ContactMaterial(1e6, 0.1, 0.5, 0.3, 0)
    c1 = ContactSurface.createNewContactClique()
    c2 = ContactSurface.createNewContactClique()
    assert c1 != c2
    a = ContactSurface(ContactGeometry.Sphere(0.1), mat).joinClique(c1)
    b = ContactSurface(ContactGeometry.Sphere(0.1), mat, 0.0).joinClique(c2).joinClique(c1)
    assert a.isInSameClique(b) and b.getCliques() == tuple(sorted((c1, c2)))
    assert b.getThickness() == 0.0 and a.getThickness() == 1.0
    with pytest.raises(InvalidArgumentError):
        ContactSurface(ContactGeometry.Sphere(0.1), "steel")
    with pytest.raises(InvalidArgumentError):
        ContactSurface(mat, mat)
    body = Body.Rigid(MassProperties(1, (0, 0, 0), np.eye(3)))
    assert body.addContactSurface(Transform((0, 1, 0)), a) == 0
    assert body.addContactSurface(Transform(), b) == 1
    assert body.getNumContactSurfaces() == 2
    assert body.getContactSurfaceTransform(0).p().tolist() == [0, 1, 0]
    assert body.getContactSurface(1).getShape().getRadius() == 0.1
    with pytest.raises(IndexOutOfRangeError):
        body.getContactSurface(2)
    copy = body.clone()
    copy.getContactSurface(0).getShape().setRadius(0.7)
    assert body.getContactSurface(0).getShape().getRadius() == 0.1


def test_contact_kinds():
    c = CircularPointContact(0, math.inf, 1, 0.2, Transform(), 0.2, 1e-3, (0, 0, 0), (-1, 0, 0))
    assert CircularPointContact.isInstance(c) and not EllipticalPointContact.isInstance(c)
    assert CircularPointContact.getAs(c).getEffectiveRadius() == 0.2
    assert c.getCondition() == Contact.Unknown
    assert Contact.nameOfCondition(Contact.NewContact) == "NewContact"
    assert Contact.nameOfCondition(Contact.Broken) == "Broken"
    with pytest.raises(InvalidArgumentError):
        BrickHalfSpaceContact.getAs(c)
    e = EllipticalPointContact(0, 1, Transform(), Transform(), (4.0, 1.0), 1e-3)
    assert e.getEffectiveRadius() == pytest.approx(0.4)
    b = BrickHalfSpaceContact(0, 2, Transform(), 3, 1e-3)
    assert b.getLowestVertex() == 3
    with pytest.raises(InvalidArgumentError):
        BrickHalfSpaceContact(0, 2, Transform(), 8, 1e-3)
    p = PointContact(0, 1, (0, 0, 0), (0, 1, 0), 0.3, 0.6, 1e-3)
    assert p.getEffectiveRadius() == pytest.approx(0.2)
    assert p.getRadiusOfCurvature2() == 0.6
    with pytest.raises(InvalidArgumentError):
        PointContact(0, 1, (0, 0, float("nan")), (0, 1, 0), 0.3, 1e-3)
