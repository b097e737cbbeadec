"""A glyph group of many default-resolution spheres or cylinders draws a coarse unit shape while
every instance is tiny on screen (a large model seen whole: the same pixels as the full shape),
and the full shape as soon as the camera comes near enough for one to be larger; a few
instances, or bricks, always draw the full shape."""

from __future__ import annotations

import numpy as np

from engine.common.decorative_geometry import (
    DecorativeBrick,
    DecorativeCylinder,
    DecorativeSphere,
)
from tests.viz.test_picking import grid_poses
from viz.instancing import GlyphGroup
from viz.vtk_builder import COARSE_RESOLUTION, INSTANCE_LOD_COUNT


def shapes(n: int) -> list:
    """A small sphere, brick and cylinder on each of bodies 1..n."""
    out = []
    for b in range(1, n + 1):
        out += [
            DecorativeSphere(0.015).setColor((0.9, 0.5, 0.1)).setBodyId(b),
            DecorativeBrick((0.02, 0.03, 0.02)).setColor((0.2, 0.8, 0.3)).setBodyId(b),
            DecorativeCylinder(0.005, 0.015).setColor((0.2, 0.3, 0.9)).setBodyId(b),
        ]
    return out


def draw(make_scene, n: int):
    scene = make_scene(width=200, height=150)
    scene.set_geometry(shapes(n))
    scene.update_poses(grid_poses(n, spacing=0.3))
    scene.reset_camera()
    return scene


def detail(scene) -> dict[str, tuple[bool, int]]:
    """Per glyph group's shape: (coarse drawn, cells of the unit shape drawn)."""
    out = {}
    for g in scene._groups:  # noqa: SLF001
        if isinstance(g, GlyphGroup):
            port = g.mapper.GetInputConnection(1, 0)
            port.GetProducer().Update()
            cells = port.GetProducer().GetOutputDataObject(0).GetNumberOfCells()
            out[g.shape] = (g.coarse, cells)
    return out


def full_picture(scene) -> np.ndarray:
    """The scene's picture with every group's full unit shape."""
    for g in scene._groups:  # noqa: SLF001
        if isinstance(g, GlyphGroup):
            g.set_shape_ports(g.shape_ports[0], None)
    return scene.capture()


def test_many_tiny_instances_draw_a_coarse_shape_with_the_same_pixels(make_scene):
    n = INSTANCE_LOD_COUNT + 100
    scene = draw(make_scene, n)
    img = scene.capture()
    shown = detail(scene)
    assert shown["sphere"][0] and shown["cylinder"][0]
    assert shown["cylinder"][1] == COARSE_RESOLUTION + 2  # the sides and two caps
    assert shown["brick"] == (False, 6)
    assert (img != img[0, 0]).any(axis=2).sum() > 200  # the shapes are in the picture
    assert np.array_equal(img, full_picture(scene))


def test_the_camera_near_an_instance_draws_the_full_shape(make_scene):
    n = INSTANCE_LOD_COUNT + 100
    scene = draw(make_scene, n)
    scene.capture()
    assert detail(scene)["sphere"][0]
    centre = grid_poses(n, spacing=0.3)[1, :3, 3]
    scene.set_camera(position=centre + [0.0, 0.0, 0.5], focal_point=centre, view_up=(0, 1, 0))
    scene.capture()
    shown = detail(scene)
    assert not shown["sphere"][0] and not shown["cylinder"][0]
    assert shown["cylinder"][1] > COARSE_RESOLUTION + 2
    # back out: coarse again
    scene.reset_camera()
    scene.capture()
    assert detail(scene)["sphere"][0]


def test_a_few_instances_keep_the_full_shape(make_scene):
    scene = draw(make_scene, INSTANCE_LOD_COUNT // 2)
    scene.capture()
    shown = detail(scene)
    assert shown and not any(coarse for coarse, _cells in shown.values())


def test_a_parallel_projection_far_out_draws_the_coarse_shape(make_scene):
    scene = draw(make_scene, INSTANCE_LOD_COUNT + 100)
    camera = scene.renderer.GetActiveCamera()
    camera.ParallelProjectionOn()
    camera.SetParallelScale(50.0)  # 150 pixels for 100 units: a sphere of 0.015 under 0.1 px
    scene.capture()
    assert detail(scene)["sphere"][0]
    camera.SetParallelScale(0.1)  # 150 pixels for 0.2 units: a sphere of 0.015 is 11 px
    scene.capture()
    assert not detail(scene)["sphere"][0]


def test_a_group_grown_or_shrunk_by_edits_has_the_coarse_shape_a_fresh_one_has(make_scene):
    """Edits that take a group past INSTANCE_LOD_COUNT instances and back give it a coarse
    unit shape and take it away, as a group made afresh for the same decorations has it."""
    few, many = INSTANCE_LOD_COUNT // 2, INSTANCE_LOD_COUNT + 50
    scene = draw(make_scene, few)
    for n in (many, few, many):
        scene.set_geometry(shapes(n))
        scene.update_poses(grid_poses(n, spacing=0.3))
        scene.reset_camera()  # (framed as the fresh one)
        fresh = draw(make_scene, n)
        for ours, theirs in ((scene, "edited"), (fresh, "fresh")):
            ours.capture()
            shown = detail(ours)
            assert shown["sphere"][0] == (n > INSTANCE_LOD_COUNT), (theirs, n)
        assert detail(scene) == detail(fresh)
