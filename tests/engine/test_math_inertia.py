"""Inertia, UnitInertia and MassProperties: constructors, shift theorems, physical checks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.common.exceptions import InvalidArgumentError, NonPhysicalError
from engine.math import Inertia, MassProperties, Rotation, Transform, UnitInertia, XAxis, ZAxis

vec3s = st.tuples(*[st.floats(-2.0, 2.0)] * 3).map(np.array)


def random_body(rng: np.random.Generator, n: int = 5):
    """Point masses: masses, positions (in B). Returns mass, com, inertia about Bo."""
    m = rng.uniform(0.1, 2.0, n)
    r = rng.uniform(-1.0, 1.0, (n, 3))
    inertia = sum(
        mi * ((ri @ ri) * np.eye(3) - np.outer(ri, ri)) for mi, ri in zip(m, r, strict=True)
    )
    return float(m.sum()), (m[:, None] * r).sum(0) / m.sum(), inertia


# --------------------------------------------------------------------------- Inertia


def test_constructor_forms_agree():
    full = Inertia(2.0, 3.0, 4.0, 0.1, -0.2, 0.3)
    m = full.toMat33()
    assert np.array_equal(m, [[2, 0.1, -0.2], [0.1, 3, 0.3], [-0.2, 0.3, 4]])
    assert Inertia((2, 3, 4), (0.1, -0.2, 0.3)) == full
    assert Inertia(2.0, 3.0, 4.0, xy=0.1, xz=-0.2, yz=0.3) == full
    assert Inertia(m) == full
    assert Inertia(full) == full
    assert Inertia(1.5) == Inertia(1.5, 1.5, 1.5)
    assert Inertia((1, 2, 2)) == Inertia(1, 2, 2)
    assert np.array_equal(full.getMoments(), [2, 3, 4])
    assert np.array_equal(full.getProducts(), [0.1, -0.2, 0.3])


def test_point_mass_form_is_simbodys_vec3_scalar_overload():
    p, mass = np.array([1.0, 2.0, 0.5]), 3.0
    expected = mass * ((p @ p) * np.eye(3) - np.outer(p, p))
    assert np.allclose(Inertia(p, mass).toMat33(), expected)
    assert Inertia.pointMassAt(p, mass) == Inertia(p, mass)
    assert np.allclose(UnitInertia.pointMassAt(p).toMat33(), expected / mass)


def test_triangle_inequality_refused_with_the_numbers():
    with pytest.raises(NonPhysicalError, match=r"Izz = 3 > Ixx \+ Iyy = 2"):
        Inertia(1.0, 1.0, 3.0)
    with pytest.raises(NonPhysicalError, match="principal moments"):
        Inertia(1.0, 1.0, 1.0, 0.9, 0.0, 0.0)  # diagonal fine, products too large
    with pytest.raises(NonPhysicalError, match=">= 0"):
        Inertia(-1.0, 1.0, 1.0)
    # a thin rod and a disk sit exactly on the boundary and are accepted
    Inertia(1.0, 1.0, 0.0)
    Inertia(1.0, 1.0, 2.0)
    assert Inertia.cylinderAlongZ(0.0, 1.0).reexpress(Rotation(0.7, (1, 2, 3))).isFinite()


def test_inertia_input_errors():
    with pytest.raises(InvalidArgumentError, match="finite"):
        Inertia(1.0, float("nan"), 1.0)
    with pytest.raises(InvalidArgumentError, match="symmetric"):
        Inertia(np.array([[1.0, 0.2, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]))
    with pytest.raises(InvalidArgumentError, match="Inertia\\(0\\)"):
        Inertia()
    with pytest.raises(InvalidArgumentError, match="3 components"):
        Inertia((1.0, 2.0), (0.0, 0.0, 0.0))
    with pytest.raises(InvalidArgumentError, match=">= 0"):
        Inertia.brick(1.0, -2.0, 1.0)
    with pytest.raises(NonPhysicalError):
        Inertia(1, 2, 2) - Inertia(0, 2, 2)


def test_shape_factories_are_unit_mass_as_simbody():
    assert np.allclose(Inertia.sphere(2.0).getMoments(), [1.6, 1.6, 1.6])
    assert np.allclose(Inertia.brick(1, 2, 3).getMoments(), [13 / 3, 10 / 3, 5 / 3])
    assert Inertia.brick((1, 2, 3)) == Inertia.brick(1, 2, 3)
    assert np.allclose(Inertia.ellipsoid(1, 2, 3).getMoments(), [13 / 5, 10 / 5, 5 / 5])
    assert np.allclose(Inertia.cylinderAlongZ(2, 3).getMoments(), [4, 4, 2])
    assert np.allclose(Inertia.cylinderAlongY(2, 3).getMoments(), [4, 2, 4])
    assert np.allclose(Inertia.cylinderAlongX(2, 3).getMoments(), [2, 4, 4])
    assert type(Inertia.sphere(1.0)) is Inertia
    assert type(UnitInertia.sphere(1.0)) is UnitInertia
    assert type(UnitInertia.brick(1, 1, 1) * 2.0) is Inertia
    assert np.allclose((3.0 * UnitInertia.sphere(1.0)).getMoments(), [1.2, 1.2, 1.2])


def test_parallel_axis_on_a_point_mass():
    mass, p = 2.0, np.array([0.0, 3.0, 4.0])
    central = Inertia(0)  # a point mass has zero central inertia
    about_O = central.shiftFromMassCenter(-p, mass)  # O is at -p from the mass
    assert np.allclose(about_O.getMoments(), [mass * 25, mass * 16, mass * 9])
    assert np.allclose(about_O.getProducts(), [0.0, 0.0, -mass * 12])
    assert np.allclose(about_O.shiftToMassCenter(p, mass).toMat33(), 0.0, atol=1e-13)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**31), vec3s)
def test_shift_to_mass_center_and_back_is_identity(seed, q):
    mass, com, I_O = random_body(np.random.default_rng(seed))
    I = Inertia(I_O)
    central = I.shiftToMassCenter(com, mass)
    assert np.allclose(central.shiftFromMassCenter(-com, mass).toMat33(), I_O, atol=1e-12)
    # inertia about any other point Q: I_Q = I_C + m(...) about Q - C; the trace grows
    I_Q = central.shiftFromMassCenter(q - com, mass)
    assert I_Q.trace() >= central.trace() - 1e-12


def test_shift_to_a_point_that_is_not_the_mass_center_is_refused():
    with pytest.raises(NonPhysicalError, match="central inertia"):
        Inertia(0.1, 0.1, 0.1).shiftToMassCenter((1.0, 0.0, 0.0), 2.0)


def test_reexpress_is_a_similarity_transform():
    I = Inertia(2.0, 3.0, 4.0, 0.1, -0.2, 0.3)
    R_FB = Rotation(0.8, (1, -1, 2))
    I_B = I.reexpress(R_FB)
    R = R_FB.asMat33()
    assert np.allclose(I_B.toMat33(), R.T @ I.toMat33() @ R)
    assert I_B.trace() == pytest.approx(I.trace())
    assert I_B.reexpress(~R_FB).isNumericallyEqual(I, 1e-14)
    assert type(UnitInertia(1, 2, 2).reexpress(R_FB)) is UnitInertia


def test_arithmetic():
    a, b = Inertia(1, 2, 2), Inertia(2, 2, 3)
    assert a + b == Inertia(3, 4, 5)
    assert b - a == Inertia(1, 0, 1)
    assert a * 2.0 == Inertia(2, 4, 4) == 2 * a == np.float64(2.0) * a
    assert a / 2.0 == Inertia(0.5, 1, 1)
    assert np.allclose(a * np.array([1.0, 1.0, 1.0]), [1, 2, 2])
    with pytest.raises(InvalidArgumentError, match=">= 0"):
        a * -1.0


def test_unit_inertia_centroid_shifts():
    G_C = UnitInertia.brick(0.1, 0.2, 0.3)
    p = np.array([0.5, -0.2, 0.1])
    G_O = G_C.shiftFromCentroid(-p)
    assert type(G_O) is UnitInertia
    assert np.allclose(G_O.shiftToCentroid(p).toMat33(), G_C.toMat33())
    with pytest.raises(NonPhysicalError):
        G_C.shiftToCentroid((1.0, 0.0, 0.0))


# --------------------------------------------------------------------------- MassProperties


def test_mass_properties_accessors_and_spatial_matrix():
    c = np.array([0.1, -0.2, 0.3])
    I_Bo = Inertia(1.0, 1.2, 0.9).shiftFromMassCenter(c, 2.0)
    mp = MassProperties(2.0, c, I_Bo)
    assert mp.getMass() == 2.0
    assert np.array_equal(mp.getMassCenter(), c)
    assert mp.getInertia() == I_Bo
    assert np.allclose(mp.getUnitInertia().toMat33(), I_Bo.toMat33() / 2.0)
    assert np.allclose(mp.calcCentralInertia().toMat33(), Inertia(1.0, 1.2, 0.9).toMat33())
    cx = np.array([[0, -c[2], c[1]], [c[2], 0, -c[0]], [-c[1], c[0], 0]])
    expected = np.block([[I_Bo.toMat33(), 2.0 * cx], [-2.0 * cx, 2.0 * np.eye(3)]])
    assert np.allclose(mp.toSpatialMat(), expected)
    assert not mp.isInf() and mp.isFinite() and not mp.isNaN()
    assert not mp.isExactlyMassless() and not mp.isNearlyCentral()


def test_mass_properties_with_unit_inertia_scales_by_mass():
    mp = MassProperties(4.0, (0, 0, 0), UnitInertia.sphere(0.5))
    assert np.allclose(mp.getInertia().getMoments(), [0.4, 0.4, 0.4])


def test_shifted_and_transformed_mass_properties():
    rng = np.random.default_rng(7)
    mass, com, I_O = random_body(rng)
    mp = MassProperties(mass, com, Inertia(I_O))
    q = np.array([0.3, -0.4, 0.2])
    shifted = mp.calcShiftedMassProps(q)
    assert np.allclose(shifted.getMassCenter(), com - q)
    assert np.allclose(shifted.calcShiftedMassProps(-q).getInertia().toMat33(), I_O, atol=1e-12)
    # inertia about q from the point masses directly
    X_BC = Transform(Rotation(0.6, (1, 0, 1)), q)
    transformed = mp.calcTransformedMassProps(X_BC)
    R = X_BC.R().asMat33()
    assert np.allclose(transformed.getMassCenter(), R.T @ (com - q))
    assert np.allclose(
        transformed.getInertia().toMat33(), R.T @ mp.calcShiftedInertia(q).toMat33() @ R
    )
    re = mp.reexpress(Rotation(0.4, ZAxis))
    assert np.allclose(re.getMassCenter(), Rotation(0.4, ZAxis).asMat33().T @ com)


def test_mass_properties_refusals_quote_the_numbers():
    # Like Simbody, an inertia about Bo that is valid by itself is accepted even when it is
    # inconsistent with the mass center (issue 3's own example is such a body); the
    # inconsistency is reported by isPhysicallyConsistent().
    inconsistent = MassProperties(2.0, (1.0, 0.0, 0.0), Inertia(0.1, 0.1, 0.1))
    assert not inconsistent.isPhysicallyConsistent()
    assert MassProperties(2.0, (1.0, 0.0, 0.0), Inertia(0.1, 2.1, 2.1)).isPhysicallyConsistent()
    with pytest.raises(NonPhysicalError, match="triangle|>= 0"):
        MassProperties(2.0, (0.0, 0.0, 0.0), Inertia(0.1, 0.1, 1.0))
    with pytest.raises(NonPhysicalError, match="-1"):
        MassProperties(-1.0, (0, 0, 0), Inertia(1))
    with pytest.raises(InvalidArgumentError, match="NaN"):
        MassProperties(float("nan"), (0, 0, 0), Inertia(1))
    with pytest.raises(NonPhysicalError, match="ground"):
        MassProperties(float("inf"), (0, 0, 0), Inertia(1))
    with pytest.raises(NonPhysicalError, match="massless"):
        MassProperties(0.0, (0, 0, 0), Inertia(1))
    with pytest.raises(InvalidArgumentError, match="finite"):
        MassProperties(1.0, (0, float("nan"), 0), Inertia(1))
    # the consistent inertia about Bo of a point mass at (1, 0, 0) is accepted
    MassProperties(2.0, (1.0, 0.0, 0.0), Inertia((1.0, 0.0, 0.0), 2.0))


def test_massless_and_ground():
    zero = MassProperties(0.0, (0, 0, 0), Inertia(0))
    assert zero.isExactlyMassless() and zero.isNearlyMassless()
    assert zero.getUnitInertia() == UnitInertia(0)
    ground = MassProperties.ground()
    assert ground.isInf() and not ground.isFinite()
    M = ground.toSpatialMat()
    assert np.all(np.isinf(np.diag(M))) and not np.any(np.isnan(M))
    with pytest.raises(InvalidArgumentError, match="Ground"):
        ground.calcCentralInertia()
    assert ground.reexpress(Rotation(0.3, XAxis)).isInf()


def test_inconsistent_mass_properties_like_simbody_examples():
    """Simbody's common pattern MassProperties(1, Vec3(0, -1, 0), Inertia(1)) is accepted."""
    mp = MassProperties(1.0, (0.0, -1.0, 0.0), Inertia(1))
    assert not mp.isPhysicallyConsistent()
    assert np.allclose(mp.toSpatialMat()[:3, :3], np.eye(3))  # the dynamics only need these
    assert np.allclose(mp.getUnitInertia().toMat33(), np.eye(3))
    with pytest.raises(NonPhysicalError, match="isPhysicallyConsistent"):
        mp.calcCentralInertia()
    with pytest.raises(NonPhysicalError, match="not physically consistent"):
        mp.calcShiftedMassProps((0.0, -1.0, 0.0))
    assert MassProperties.ground().isPhysicallyConsistent()
