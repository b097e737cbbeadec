"""The Ellipsoid constructors without radii, as Simbody allows them: MobilizedBody::Ellipsoid
(default semi-axes (0.5, 1/3, 0.25), setDefaultRadii later) and DecorativeEllipsoid() (same
default, setRadii later). ContactGeometry::Ellipsoid has no such constructor in Simbody."""

from __future__ import annotations

import numpy as np
import pytest

from engine import (
    Body,
    ContactGeometry,
    DecorativeEllipsoid,
    Inertia,
    InvalidArgumentError,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    SimbodyMatterSubsystem,
    Stage,
    Transform,
    Vec3,
)


def _matter():
    system = MultibodySystem()
    return system, SimbodyMatterSubsystem(system)


def test_mobilized_body_ellipsoid_without_radii_has_simbodys_default_and_setter():
    system, matter = _matter()
    body = Body.Rigid(MassProperties(1.0, Vec3(0), Inertia(1)))
    ell = MobilizedBody.Ellipsoid(matter.Ground(), Transform(), body, Transform())
    np.testing.assert_allclose(ell.getDefaultRadii(), [0.5, 1 / 3, 0.25])
    state = system.realizeTopology()
    system.realize(state, Stage.Position)
    # At the identity orientation Mo sits at the +z pole: (0, 0, c).
    np.testing.assert_allclose(ell.getMobilizerTransform(state).p(), [0, 0, 0.25], atol=1e-15)
    assert ell.setDefaultRadii(Vec3(1, 2, 3)) is ell
    np.testing.assert_allclose(ell.getDefaultRadii(), [1, 2, 3])
    state = system.realizeTopology()
    system.realize(state, Stage.Position)
    np.testing.assert_allclose(ell.getMobilizerTransform(state).p(), [0, 0, 3], atol=1e-15)
    other = MobilizedBody.Ellipsoid(ell, body)  # (parent, body) form
    np.testing.assert_allclose(other.getDefaultRadii(), [0.5, 1 / 3, 0.25])
    with pytest.raises(InvalidArgumentError, match="positive"):
        ell.setDefaultRadii(Vec3(1, 0, 3))


def test_decorative_ellipsoid_without_radii():
    deco = DecorativeEllipsoid()
    np.testing.assert_allclose(deco.getRadii(), [0.5, 1 / 3, 0.25])
    deco.setRadii(Vec3(0.1, 0.2, 0.3))
    np.testing.assert_allclose(deco.getRadii(), [0.1, 0.2, 0.3])


def test_contact_ellipsoid_needs_radii_as_in_simbody():
    with pytest.raises(TypeError):
        ContactGeometry.Ellipsoid()
    assert ContactGeometry.Ellipsoid(Vec3(1, 2, 3)).getRadii().tolist() == [1, 2, 3]
