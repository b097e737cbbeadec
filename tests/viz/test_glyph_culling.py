"""Instanced closed solids (spheres, bricks, capped cylinders) drawn as opaque surfaces skip the
faces turned away from the camera, and draw exactly the picture they draw with every face: a
group with a mirrored instance (a negative scale factor) or drawn as a wireframe keeps them,
and so does a frame whose camera is inside an instance (its inner side then shows)."""

from __future__ import annotations

import dataclasses

import numpy as np

from engine.common.decorative_geometry import (
    DecorativeBrick,
    DecorativeCylinder,
    DecorativeGeometry,
    DecorativeSphere,
)
from tests.viz.test_picking import grid_poses
from viz.instancing import GlyphGroup

N = 9


def shapes(n: int, wireframe: bool = False) -> list:
    """A sphere, a brick and a cylinder on each of bodies 1..n (wireframes with
    ``wireframe``)."""
    out = []
    for b in range(1, n + 1):
        for g in (
            DecorativeSphere(0.25).setColor((0.9, 0.3, 0.2)),
            DecorativeBrick((0.1, 0.3, 0.12)).setColor((0.2, 0.8, 0.3)),
            DecorativeCylinder(0.08, 0.4).setColor((0.2, 0.3, 0.9)),
        ):
            g.setBodyId(b)
            if wireframe:
                g.setRepresentation(DecorativeGeometry.Wireframe)
            out.append(g)
    return out


def glyph_groups(scene) -> list[GlyphGroup]:
    return [g for g in scene._groups if isinstance(g, GlyphGroup)]  # noqa: SLF001


def culled(scene) -> list[bool]:
    return [bool(g.actor.GetProperty().GetBackfaceCulling()) for g in glyph_groups(scene)]


def draw(make_scene, geometry):
    scene = make_scene(width=160, height=120, instancing_threshold=4)
    scene.set_geometry(geometry)
    scene.update_poses(grid_poses(N, spacing=0.7))
    scene.reset_camera()
    return scene


def with_every_face(scene) -> np.ndarray:
    """The scene's picture with back-face culling off in every glyph group."""
    for g in glyph_groups(scene):
        g._cullable = False  # noqa: SLF001  (no culling at the next frames either)
        g.actor.GetProperty().BackfaceCullingOff()
    return scene.capture()


def test_opaque_closed_solids_cull_back_faces_and_look_the_same(make_scene):
    scene = draw(make_scene, shapes(N))
    assert len(glyph_groups(scene)) == 3
    assert culled(scene) == [True, True, True]
    img = scene.capture()
    assert (img != img[0, 0]).any(axis=2).sum() > 500  # the solids are in the picture
    assert np.array_equal(img, with_every_face(scene))


def test_a_mirrored_instance_turns_culling_off(make_scene):
    """A mirrored instance (not one the decorations can ask for: their sizes and scale factors
    are positive) shows the inner side of its faces: its group keeps every face."""
    scene = draw(make_scene, shapes(N))
    group = glyph_groups(scene)[0]
    mirrored = dataclasses.replace(group.items[0], scale=group.items[0].scale * [-1.0, 1.0, 1.0])
    group.add([mirrored], grid_poses(N, spacing=0.7))
    assert not group.actor.GetProperty().GetBackfaceCulling()
    group.remove([mirrored])
    assert group.actor.GetProperty().GetBackfaceCulling()


def test_wireframes_keep_every_face(make_scene):
    scene = draw(make_scene, shapes(N, wireframe=True))
    assert glyph_groups(scene)
    assert not any(culled(scene))


def test_a_camera_inside_an_instance_sees_its_inner_side(make_scene):
    scene = draw(make_scene, shapes(N))
    img = scene.capture()
    assert culled(scene) == [True, True, True]
    centre = grid_poses(N, spacing=0.7)[5, :3, 3]
    scene.set_camera(position=centre, focal_point=centre + [0.0, 0.0, -1.0], view_up=(0, 1, 0))
    scene.renderer.SetNearClippingPlaneTolerance(1e-4)
    inside = scene.capture()
    assert culled(scene)[0] is False  # the spheres' group (the camera in body 5's sphere)
    assert (inside == 255).all(axis=2).mean() < 0.05  # the sphere's inner side, no background
    assert np.array_equal(inside, with_every_face(scene))
    scene.reset_camera()
    for g in glyph_groups(scene):
        g._cullable = True  # noqa: SLF001  (undo with_every_face)
    assert np.array_equal(scene.capture(), img)
    assert culled(scene) == [True, True, True]
