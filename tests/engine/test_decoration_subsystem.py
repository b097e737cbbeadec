"""Decorations a MultibodySystem produces: body decorations, the matter subsystem's default
sketch, and the DecorationSubsystem's body-fixed decorations, rubber bands and generators."""

from __future__ import annotations

import numpy as np
import pytest

from engine import (
    Body,
    DecorationGenerator,
    DecorationSubsystem,
    DecorativeBrick,
    DecorativeFrame,
    DecorativeLine,
    DecorativeSphere,
    DecorativeText,
    IndexOutOfRangeError,
    InvalidArgumentError,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    Rotation,
    SimbodyMatterSubsystem,
    SimTKError,
    Stage,
    Transform,
    UnitInertia,
    Vec3,
    ZAxis,
)
from engine.multibody.default_geometry import DEFAULT_GEOMETRY_REF


def two_link_chain(show_default: bool = True):
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    matter.setShowDefaultGeometry(show_default)
    body = Body.Rigid(MassProperties(2.0, Vec3(0, -0.5, 0), UnitInertia(0.1, 0.02, 0.1)))
    link1 = MobilizedBody.Pin(matter.Ground(), Transform(Vec3(0, 1, 0)), body, Transform())
    link2 = MobilizedBody.Pin(link1, Transform(Vec3(0, -1, 0)), body, Transform(Vec3(0, 0.2, 0)))
    return system, matter, link1, link2


def test_body_decorations_are_emitted_body_fixed_at_topology_stage():
    system, matter, link1, link2 = two_link_chain(show_default=False)
    X_BD = Transform(Rotation(0.3, ZAxis), Vec3(0.1, 0.2, 0.3))
    link2.addBodyDecoration(X_BD, DecorativeBrick((0.1, 0.2, 0.3)).setColor((0, 0, 1)))
    own = DecorativeSphere(0.1).setTransform(Transform(Vec3(0, 0, 1)))
    link2.addBodyDecoration(own)
    state = system.realizeTopology()
    geometry = system.calcDecorativeGeometryAndAppend(state, Stage.Topology)
    assert len(geometry) == 2
    brick, sphere = geometry
    assert brick.getBodyId() == link2.getMobilizedBodyIndex() == 2
    assert (brick.getIndexOnBody(), sphere.getIndexOnBody()) == (0, 1)
    np.testing.assert_allclose(brick.getTransform().toMat44(), X_BD.toMat44())
    np.testing.assert_allclose(sphere.getTransform().p(), [0, 0, 1])
    assert isinstance(brick, DecorativeBrick)
    # later stages add nothing from the matter subsystem; the body keeps its own copy intact
    system.realize(state, Stage.Position)
    assert system.calcDecorativeGeometryAndAppend(state, Stage.Position) == []
    assert link2.getBody().getDecorations()[1][1].getBodyId() != 2


def test_default_geometry_sketches_frames_bones_and_mass_centres():
    system, matter, link1, link2 = two_link_chain(show_default=True)
    system.setDefaultLengthScale(2.0)
    state = system.realizeTopology()
    geometry = system.calcDecorativeGeometryAndAppend(state, Stage.Topology)
    assert geometry and all(g.getUserRef() == DEFAULT_GEOMETRY_REF for g in geometry)
    frames = [g for g in geometry if isinstance(g, DecorativeFrame)]
    spheres = [g for g in geometry if isinstance(g, DecorativeSphere)]
    lines = [g for g in geometry if isinstance(g, DecorativeLine)]
    # Ground frame + per body: B, F (on parent), M (on body)
    assert len(frames) == 1 + 3 * 2
    # the mass centre of each body, at p_BC on that body, sized from the length scale
    assert sorted(s.getBodyId() for s in spheres) == [1, 2]
    for s in spheres:
        np.testing.assert_allclose(s.getTransform().p(), [0, -0.5, 0])
        assert s.getRadius() == pytest.approx(0.1)
    # bones: parent origin -> Fo for both links (X_PF offsets), Bo -> Mo only where p_BM != 0
    bones = sorted((g.getBodyId(), tuple(np.round(g.getPoint2(), 12))) for g in lines)
    assert bones == [(0, (0.0, 1.0, 0.0)), (1, (0.0, -1.0, 0.0)), (2, (0.0, 0.2, 0.0))]
    on_parent = [f for f in frames if f.getBodyId() == 1 and f.getTransform().p()[1] == -1.0]
    assert len(on_parent) == 1  # link2's F frame sits on link1 at X_PF
    matter.setShowDefaultGeometry(False)
    assert system.calcDecorativeGeometryAndAppend(state, Stage.Topology) == []


def test_decoration_subsystem_body_fixed_rubber_bands_and_generators():
    system, matter, link1, link2 = two_link_chain(show_default=False)
    decorations = DecorationSubsystem(system)
    assert system.getDecorationSubsystem() is decorations and system.hasDecorationSubsystem()
    decorations.addBodyFixedDecoration(link1, Transform(Vec3(0, -0.5, 0)), DecorativeSphere(0.2))
    decorations.addRubberBandLine(0, Vec3(1, 1, 0), link2, Vec3(0, 0.1, 0), DecorativeLine())
    calls: list[float] = []

    class TimeLabel(DecorationGenerator):
        def generateDecorations(self, state, geometry):
            calls.append(state.getTime())
            geometry.append(DecorativeText(f"t = {state.getTime():.2f}"))

    decorations.addDecorationGenerator(Stage.Time, TimeLabel())
    decorations.addDecorationGenerator(
        Stage.Velocity, lambda state, geometry: geometry.append(DecorativeText("v"))
    )
    state = system.realizeTopology()
    link1.setOneQ(state, 0, 0.4)
    link2.setOneQ(state, 0, -0.7)
    state.setTime(1.25)
    system.realize(state, Stage.Position)

    topology = system.calcDecorativeGeometryAndAppend(state, Stage.Topology)
    assert [type(g) for g in topology] == [DecorativeSphere]
    assert topology[0].getBodyId() == 1
    np.testing.assert_allclose(topology[0].getTransform().p(), [0, -0.5, 0])

    timed = system.calcDecorativeGeometryAndAppend(state, Stage.Time)
    assert [g.getText() for g in timed] == ["t = 1.25"] and calls == [1.25]

    (band,) = system.calcDecorativeGeometryAndAppend(state, Stage.Position)
    assert band.getBodyId() == 0
    np.testing.assert_allclose(band.getPoint1(), [1, 1, 0])
    expected = link2.findStationLocationInGround(state, Vec3(0, 0.1, 0))
    np.testing.assert_allclose(band.getPoint2(), expected)
    # the stations follow the bodies
    link1.setOneQ(state, 0, 1.4)
    system.realize(state, Stage.Position)
    (band,) = system.calcDecorativeGeometryAndAppend(state, Stage.Position)
    np.testing.assert_allclose(
        band.getPoint2(), link2.findStationLocationInGround(state, Vec3(0, 0.1, 0))
    )
    assert not np.allclose(band.getPoint2(), expected)
    # a Velocity-stage generator needs the State at Velocity
    with pytest.raises(SimTKError, match="Velocity"):
        system.calcDecorativeGeometryAndAppend(state, Stage.Velocity)
    system.realize(state, Stage.Velocity)
    velocity = system.calcDecorativeGeometryAndAppend(state, Stage.Velocity)
    assert [g.getText() for g in velocity] == ["v"]


def test_decoration_subsystem_refuses_bad_input():
    system, matter, link1, link2 = two_link_chain(show_default=False)
    decorations = DecorationSubsystem(system)
    with pytest.raises(SimTKError, match="already has a DecorationSubsystem"):
        DecorationSubsystem(system)
    with pytest.raises(IndexOutOfRangeError, match="no mobilized body 7"):
        decorations.addBodyFixedDecoration(7, Transform(), DecorativeSphere())
    with pytest.raises(InvalidArgumentError, match="DecorativeGeometry"):
        decorations.addBodyFixedDecoration(1, Transform(), "sphere")
    with pytest.raises(InvalidArgumentError, match="DecorativeLine"):
        decorations.addRubberBandLine(0, Vec3(0, 0, 0), 1, Vec3(0, 0, 0), DecorativeSphere())
    with pytest.raises(InvalidArgumentError, match="callable"):
        decorations.addDecorationGenerator(Stage.Position, 42)
    bare = MultibodySystem()
    SimbodyMatterSubsystem(bare)
    assert not bare.hasDecorationSubsystem()
    with pytest.raises(SimTKError, match="no DecorationSubsystem"):
        bare.getDecorationSubsystem()
