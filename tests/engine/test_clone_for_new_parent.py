"""``MobilizedBody.cloneForNewParent``: a body copied into another System under a new parent
is the body it copies (type, direction, frames, mass properties, default q, options), the
System made of copies equals one constructed from the same values, the copies' topology rows
are taken from the realized source's (and made anew when a copy changes before it is
realized), and what belongs to the source's own System is refused."""

from __future__ import annotations

import numpy as np
import pytest

from engine import (
    Body,
    ContactGeometry,
    ContactMaterial,
    ContactSurface,
    Inertia,
    InvalidArgumentError,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    Rotation,
    SimbodyMatterSubsystem,
    Stage,
    Transform,
    Vec3,
    XAxis,
)

FIELDS = ("mtype", "parent", "qs", "nqs", "us", "nus", "params", "R_PF", "p_PF", "R_BM")
FIELDS += ("p_BM", "mass", "com_B", "I_B", "uses_quaternion")

LINK = MassProperties(1.0, Vec3(0, -0.1, 0), Inertia(0.02, 0.01, 0.02))
HEAVY = MassProperties(3.0, Vec3(0.05, -0.2, 0), Inertia(0.2, 0.1, 0.3))
X_PF = Transform(Rotation(0.4, XAxis), Vec3(0.1, -0.3, 0.05))
X_BM = Transform(Vec3(0, 0.02, 0))
MATERIAL = ContactMaterial(1e6, 0.5, 0.8, 0.6, 0.0)
KINDS = ("Ball", "Pin", "Ellipsoid", "Slider")


def _source(n: int = 8):
    """A realized chain of four mobilizer kinds, one reversed, one with a default q."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    parent = matter.Ground()
    for i in range(n):
        kind = getattr(MobilizedBody, KINDS[i % len(KINDS)])
        extra = (MobilizedBody.Reverse,) if i == 3 else ()
        parent = kind(parent, X_PF, Body.Rigid(HEAVY if i % 3 else LINK), X_BM, *extra)
    matter.getMobilizedBody(2).setDefaultQ([0.25])  # a Pin
    system.realizeTopology()
    return system, matter


def _copies(matter, parents: dict[int, int] | None = None):
    """A new System of every body of ``matter`` copied in order (body b under the copy of
    ``parents.get(b, its parent)``)."""
    system = MultibodySystem()
    copy = SimbodyMatterSubsystem(system)
    made = [copy.Ground()]
    for b in range(1, matter.getNumBodies()):
        mb = matter.getMobilizedBody(b)
        p = (parents or {}).get(b, mb.getParentMobilizedBody().getMobilizedBodyIndex())
        made.append(mb.cloneForNewParent(made[p]))
    return system, copy


def _constructed(matter, parents: dict[int, int] | None = None):
    """The same System as ``_copies`` made with the constructors."""
    system = MultibodySystem()
    built = SimbodyMatterSubsystem(system)
    made = [built.Ground()]
    for b in range(1, matter.getNumBodies()):
        mb = matter.getMobilizedBody(b)
        p = (parents or {}).get(b, mb.getParentMobilizedBody().getMobilizedBodyIndex())
        kind = getattr(MobilizedBody, mb.getMobilizerTypeName())
        extra = (MobilizedBody.Reverse,) if mb.isReversed() else ()
        new = kind(
            made[p],
            mb.getDefaultInboardFrame(),
            Body.Rigid(mb.getDefaultMassProperties()),
            mb.getDefaultOutboardFrame(),
            *extra,
        )
        new.setDefaultQ(mb.getDefaultQ())
        made.append(new)
    return system, built


def _assert_same_topology(a, b) -> None:
    ta, tb = a._topo(), b._topo()
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(ta, name), getattr(tb, name), err_msg=name)
    assert ta.quaternion_pool_order == tb.quaternion_pool_order


def test_a_system_of_copies_equals_one_constructed_and_takes_the_source_rows():
    _, matter = _source()
    parents = {6: 2}  # a re-parented body and its subtree
    system, copy = _copies(matter, parents)
    assert len(copy._row_sources) == matter.getNumBodies() - 1  # every row from the source
    reference_system, reference = _constructed(matter, parents)
    state = system.realizeTopology()
    reference_state = reference_system.realizeTopology()
    _assert_same_topology(copy, reference)
    assert copy._row_sources == {}  # (kept only until realized)
    np.testing.assert_array_equal(state.getQ(), reference_state.getQ())
    for s, sys_ in ((state, system), (reference_state, reference_system)):
        sys_.realize(s, Stage.Acceleration)
    np.testing.assert_allclose(state.getUDot(), reference_state.getUDot(), rtol=0, atol=1e-12)
    clone = copy.getMobilizedBody(4)
    assert clone.isReversed() and clone.getMatterSubsystem() is copy
    assert clone.getParentMobilizedBody() is copy.getMobilizedBody(3)
    assert clone.getBody() is not matter.getMobilizedBody(4).getBody()


def test_a_copy_changed_before_it_is_realized_gets_its_row_made_anew():
    _, matter = _source()
    system, copy = _copies(matter)
    copy.getMobilizedBody(1).setDefaultMassProperties(LINK)  # through the handle
    copy.getMobilizedBody(2).getBody().setDefaultRigidBodyMassProperties(LINK)  # the Body
    copy.getMobilizedBody(3).setDefaultRadii((0.2, 0.3, 0.4))  # an Ellipsoid's option
    copy.getMobilizedBody(4).setDefaultInboardFrame(Transform(Vec3(0.5, 0, 0)))
    copy.getMobilizedBody(6).setDefaultQ([0.7])
    system.realizeTopology()
    topo = copy._topo()
    assert topo.mass[1] == LINK.getMass() and topo.mass[2] == LINK.getMass()
    np.testing.assert_array_equal(topo.params[3], copy.getMobilizedBody(3)._params)
    np.testing.assert_array_equal(topo.p_PF[4], (0.5, 0, 0))
    source = matter._topo()  # the source is untouched
    assert source.mass[1] == LINK.getMass() and source.mass[2] == HEAVY.getMass()
    np.testing.assert_array_equal(source.p_PF[4], X_PF.p())
    assert not np.array_equal(source.params[3], topo.params[3])
    state = system.realizeTopology()
    assert copy.getMobilizedBody(6).getQ(state)[0] == 0.7


def test_a_copy_of_an_unrealized_source_makes_its_rows():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    MobilizedBody.Pin(matter.Ground(), X_PF, Body.Rigid(LINK), X_BM)
    _, copy = _copies(matter)
    assert copy._row_sources == {}


def test_what_belongs_to_the_source_s_system_is_refused():
    _, matter = _source()
    target = SimbodyMatterSubsystem(MultibodySystem())
    with pytest.raises(InvalidArgumentError, match="Ground"):
        matter.Ground().cloneForNewParent(target.Ground())
    with pytest.raises(InvalidArgumentError, match="MobilizedBody"):
        matter.getMobilizedBody(1).cloneForNewParent(target)
    body = Body.Rigid(LINK)
    body.addContactSurface(Transform(), ContactSurface(ContactGeometry.Sphere(0.1), MATERIAL))
    with_surface = MobilizedBody.Pin(matter.Ground(), body)
    with pytest.raises(InvalidArgumentError, match="contact surfaces"):
        with_surface.cloneForNewParent(target.Ground())
    assert target.getNumBodies() == 1
