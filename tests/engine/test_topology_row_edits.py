"""Changing one body's frames, mass properties or default q after realizeTopology is a
topology change (as in Simbody: the System must be realized again and older States are
refused), and the System realized again equals a System built with the new values from
scratch. Only the changed bodies' rows of the topology are made again when nothing else
changed; a structural change (a body added) makes every row again."""

from __future__ import annotations

import numpy as np
import pytest

from engine import (
    Body,
    Force,
    GeneralForceSubsystem,
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
from engine.common.exceptions import SimTKError

FIELDS = ("mtype", "parent", "qs", "nqs", "us", "nus", "params", "R_PF", "p_PF", "R_BM")
FIELDS += ("p_BM", "mass", "com_B", "I_B", "uses_quaternion")

LINK = MassProperties(1.0, Vec3(0, -0.1, 0), Inertia(0.02, 0.01, 0.02))
HEAVY = MassProperties(3.0, Vec3(0.05, -0.2, 0), Inertia(0.2, 0.1, 0.3))
X_PF_NEW = Transform(Rotation(0.4, XAxis), Vec3(0.1, -0.3, 0.05))
X_BM_NEW = Transform(Vec3(0, 0.02, 0))


def _chain(n: int, edited: int | None = None):
    """An n-link chain (Ball, Pin alternately); body ``edited`` built with the new values."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.UniformGravity(forces, matter, Vec3(0, -9.81, 0))
    parent = matter.Ground()
    bodies = []
    for i in range(1, n + 1):
        new = i == edited
        kind = MobilizedBody.Ball if i % 2 else MobilizedBody.Pin
        parent = kind(
            parent,
            X_PF_NEW if new else Transform(Vec3(0, -0.2, 0)),
            Body.Rigid(HEAVY if new else LINK),
            X_BM_NEW if new else Transform(),
        )
        if new:
            parent.setDefaultQ([np.cos(0.2), np.sin(0.2), 0.0, 0.0])
        bodies.append(parent)
    return system, matter, bodies


def _udot(system, matter, state) -> np.ndarray:
    matter.updU(state)[:] = np.linspace(0.1, 0.6, state.getNU())
    system.realize(state, Stage.Acceleration)
    return np.array(state.getUDot())


def test_a_body_edited_in_place_equals_one_built_with_its_new_values():
    system, matter, bodies = _chain(6)
    old_state = system.realizeTopology()
    body = bodies[2]  # body 3, a Ball
    body.setDefaultMassProperties(HEAVY)
    body.setDefaultInboardFrame(X_PF_NEW).setDefaultOutboardFrame(X_BM_NEW)
    body.setDefaultQ([np.cos(0.2), np.sin(0.2), 0.0, 0.0])
    assert body.getDefaultMassProperties() is HEAVY
    with pytest.raises(SimTKError, match="realizeTopology"):
        system.realize(old_state, Stage.Position)  # as Simbody: a topology change
    state = system.realizeTopology()
    with pytest.raises(SimTKError, match="earlier topology"):
        system.realize(old_state, Stage.Position)
    system.realizeModel(state)

    ref_system, ref_matter, _ = _chain(6, edited=3)
    ref_state = ref_system.realizeTopology()
    ref_system.realizeModel(ref_state)
    topo, ref = matter._topo(state), ref_matter._topo(ref_state)
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(topo, name), getattr(ref, name), err_msg=name)
    assert topo.quaternion_pool_order == ref.quaternion_pool_order
    np.testing.assert_array_equal(state.getQ(), ref_state.getQ())
    np.testing.assert_allclose(
        _udot(system, matter, state), _udot(ref_system, ref_matter, ref_state), rtol=1e-13
    )


def test_only_the_edited_rows_are_made_again_unless_the_tree_changed(monkeypatch):
    system, matter, bodies = _chain(8)
    system.realizeTopology()
    made = []
    real = type(matter)._topology_of_all
    monkeypatch.setattr(
        type(matter), "_topology_of_all", lambda self: (made.append(1), real(self))[1]
    )
    bodies[4].setDefaultMassProperties(HEAVY)
    bodies[6].setDefaultInboardFrame(X_PF_NEW)
    state = system.realizeTopology()
    assert made == []  # two rows patched, not every body's
    assert matter._topo(state).mass[5] == 3.0 and matter._topo(state).mass[4] == 1.0

    bodies[1].setDefaultQ([0.3])  # a Pin; then the tree changes too
    MobilizedBody.Pin(bodies[-1], Transform(Vec3(0, -0.2, 0)), Body.Rigid(LINK), Transform())
    state = system.realizeTopology()
    assert made == [1]
    topo = matter._topo(state)
    assert topo.nb == 10 and topo.mass[5] == 3.0 and topo.parent[9] == 8
    assert state.getQ()[matter.getMobilizedBody(2).getFirstQIndex(state)] == 0.3


def test_bad_mass_properties_are_refused_before_anything_changes():
    system, matter, bodies = _chain(2)
    state = system.realizeTopology()
    with pytest.raises(InvalidArgumentError, match="MassProperties"):
        bodies[0].setDefaultMassProperties((1.0, (0, 0, 0)))
    with pytest.raises(InvalidArgumentError, match="Ground"):
        matter.Ground().setDefaultMassProperties(LINK)
    system.realize(state, Stage.Position)  # nothing changed: the State still fits


def test_a_body_template_s_decorations_are_copied_into_each_body():
    """Bodies made from one template share its decorations until one of them changes; a
    change to the template or to one body's decoration never shows on another body."""
    from engine import DecorativeSphere

    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    template = Body.Rigid(LINK)
    sphere = DecorativeSphere(0.1)
    template.addDecoration(sphere)
    sphere.setColor((1.0, 0.0, 0.0))  # the Body keeps its own copy, as Simbody's
    a = MobilizedBody.Pin(matter.Ground(), template)
    b = MobilizedBody.Pin(a, template)
    template.getDecorations()[0][1].setColor((0.0, 0.0, 1.0))
    a.getBody().getDecorations()[0][1].setColor((0.0, 1.0, 0.0))
    colors = [tuple(m.getBody().getDecorations()[0][1].getColor()) for m in (a, b)]
    assert colors == [(0.0, 1.0, 0.0), (-1.0, -1.0, -1.0)]
    b.addBodyDecoration(DecorativeSphere(0.2))
    assert (a.getBody().getNumDecorations(), b.getBody().getNumDecorations()) == (1, 2)
    assert template.getNumDecorations() == 1
