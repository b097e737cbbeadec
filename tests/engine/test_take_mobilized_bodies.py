"""``SimbodyMatterSubsystem.takeMobilizedBodies``: bodies moved from one System into another
under new parents are owned by the new one (their values and Body kept, not copied), the
System they make equals one constructed from the same values, their topology rows come from
the source's realized arrays, what belongs to the source's own System is refused with
nothing moved, and ``giveBackMobilizedBodies`` makes the source whole again."""

from __future__ import annotations

import numpy as np
import pytest

from engine import (
    Body,
    ContactGeometry,
    ContactSurface,
    InvalidArgumentError,
    MobilizedBody,
    MultibodySystem,
    SimbodyMatterSubsystem,
    Stage,
    Transform,
    Vec3,
)
from tests.engine.test_clone_for_new_parent import (
    LINK,
    MATERIAL,
    _assert_same_topology,
    _constructed,
    _source,
)


def _taken(matter, parents: dict[int, int] | None = None):
    """A new System that takes every body of ``matter`` in order (body b under the taken
    ``parents.get(b, its parent)``)."""
    system = MultibodySystem()
    taker = SimbodyMatterSubsystem(system)
    bodies = [matter.getMobilizedBody(b) for b in range(1, matter.getNumBodies())]
    indices = [
        (parents or {}).get(
            b, matter.getMobilizedBody(b).getParentMobilizedBody().getMobilizedBodyIndex()
        )
        for b in range(1, matter.getNumBodies())
    ]
    taker.takeMobilizedBodies(bodies[:3], indices[:3])  # in two runs
    taker.takeMobilizedBodies(bodies[3:], indices[3:])
    return system, taker, bodies


def test_taken_bodies_make_the_system_constructed_and_bring_their_rows():
    _, matter = _source()
    parents = {6: 2}  # a re-parented body and its subtree
    reference_system, reference = _constructed(matter, parents)
    bodies_before = [matter.getMobilizedBody(b).getBody() for b in range(1, 9)]
    system, taker, bodies = _taken(matter, parents)
    assert sum(len(run[2]) for run in taker._taken_rows) == 8  # every row from the source
    state = system.realizeTopology()
    reference_state = reference_system.realizeTopology()
    _assert_same_topology(taker, reference)
    np.testing.assert_array_equal(state.getQ(), reference_state.getQ())
    for s, sys_ in ((state, system), (reference_state, reference_system)):
        sys_.realize(s, Stage.Acceleration)
    np.testing.assert_allclose(state.getUDot(), reference_state.getUDot(), rtol=0, atol=1e-12)
    for b, mobod in enumerate(bodies, start=1):
        assert taker.getMobilizedBody(b) is mobod and mobod.getMatterSubsystem() is taker
        assert mobod.getBody() is bodies_before[b - 1]
    assert bodies[5].getParentMobilizedBody() is taker.getMobilizedBody(2)


def test_a_taken_body_changed_before_it_is_realized_gets_its_row_made_anew():
    _, matter = _source()
    system, taker, _ = _taken(matter)
    taker.getMobilizedBody(2).getBody().setDefaultRigidBodyMassProperties(LINK)  # the Body
    taker.getMobilizedBody(3).setDefaultMassProperties(LINK)  # through the handle
    taker.getMobilizedBody(4).setDefaultInboardFrame(Transform(Vec3(0.5, 0, 0)))
    taker.getMobilizedBody(6).setDefaultQ([0.7])
    state = system.realizeTopology()
    topo = taker._topo()
    assert topo.mass[2] == LINK.getMass() and topo.mass[3] == LINK.getMass()
    np.testing.assert_array_equal(topo.p_PF[4], (0.5, 0, 0))
    assert taker.getMobilizedBody(6).getQ(state)[0] == 0.7
    assert topo.mass[5] == matter.getMobilizedBody(5).getDefaultMassProperties().getMass()


def test_giving_back_makes_the_source_whole_again():
    source_system, matter = _source()
    before = source_system.realizeTopology()
    parents = matter.parentIndices()
    _taken(matter, {6: 2})
    matter.giveBackMobilizedBodies(parents)
    for b in range(1, matter.getNumBodies()):
        mobod = matter.getMobilizedBody(b)
        assert mobod.getMatterSubsystem() is matter and mobod.getMobilizedBodyIndex() == b
        assert mobod.getParentMobilizedBody().getMobilizedBodyIndex() == parents[b]
    source_system.realize(before, Stage.Acceleration)
    assert np.all(np.isfinite(before.getUDot()))


def test_what_belongs_to_the_source_s_system_is_refused_and_nothing_moves():
    _, matter = _source()
    target = SimbodyMatterSubsystem(MultibodySystem())
    first = matter.getMobilizedBody(1)
    with pytest.raises(InvalidArgumentError, match="Ground"):
        target.takeMobilizedBodies([matter.Ground()], [0])
    with pytest.raises(InvalidArgumentError, match="parent"):
        target.takeMobilizedBodies([first], [1])  # (not an earlier body)
    with pytest.raises(InvalidArgumentError, match="parents"):
        target.takeMobilizedBodies([first], [0, 0])
    with pytest.raises(InvalidArgumentError, match="other matter"):
        matter.takeMobilizedBodies([first], [0])
    body = Body.Rigid(LINK)
    body.addContactSurface(Transform(), ContactSurface(ContactGeometry.Sphere(0.1), MATERIAL))
    with_surface = MobilizedBody.Pin(matter.Ground(), body)
    with pytest.raises(InvalidArgumentError, match="contact surfaces"):
        target.takeMobilizedBodies([first, with_surface], [0, 1])
    assert target.getNumBodies() == 1 and first.getMatterSubsystem() is matter
    assert first.getMobilizedBodyIndex() == 1
