"""A Scene given the decorations of an edited model redraws only the decorations that changed,
and ends up drawing exactly what a Scene built afresh from them draws: the same items on the
same bodies, batched the same way, the same actors in the renderer and the same pixels. Bodies
renumbered by the edit (one removed or inserted before them) keep their drawing, followed by
name."""

from __future__ import annotations

import numpy as np

from engine.common.decorative_geometry import (
    DecorativeBrick,
    DecorativeFrame,
    DecorativeLine,
    DecorativeSphere,
    DecorativeText,
)
from tests.viz.test_picking import grid_poses
from viz.decoration_keys import KeyedGeometry, body_map, match
from viz.scene import Scene

THRESHOLD = 4


def body_decorations(b: int, name: str) -> list:
    """What body ``b`` called ``name`` shows: a sphere, a frame, a bone and (name-dependent
    size) a brick; body 3 also a label."""
    size = 0.05 + 0.01 * (sum(map(ord, name)) % 7)
    out = [
        DecorativeSphere(0.08).setBodyId(b).setColor((0.2, 0.5, 0.9)),
        DecorativeFrame(0.2).setBodyId(b),
        DecorativeLine((0.0, 0.0, 0.0), (0.0, -0.3, 0.0)).setBodyId(b).setColor((0.5,) * 3),
        DecorativeBrick((size, size, size)).setBodyId(b),
    ]
    if name == "b3":
        out.append(DecorativeText("three").setBodyId(b))
    return out


def model(names: list[str], recolor: str = "") -> KeyedGeometry:
    """The decorations of bodies ``names`` (index = position + 1), body by body, then Ground's
    frame, as a session collects them."""
    out = []
    for i, name in enumerate(names):
        decorations = body_decorations(i + 1, name)
        if name == recolor:
            decorations[0].setColor((0.9, 0.1, 0.1))
        out += decorations
    out.append(DecorativeFrame(1.0))
    return KeyedGeometry(out, ["Ground", *names])


def check_same_as_fresh(scene: Scene, geometry) -> Scene:
    fresh = Scene(instancing_threshold=THRESHOLD)
    fresh.set_geometry(geometry)
    assert scene.describe() == fresh.describe()
    actors = scene.renderer.GetActors().GetNumberOfItems()
    assert actors == fresh.renderer.GetActors().GetNumberOfItems()
    assert glyph_state(scene) == glyph_state(fresh)
    return fresh


def glyph_state(scene: Scene) -> dict:
    """Per glyph group: whether it culls back faces and has a coarse unit shape."""
    return {
        key: (bool(g.actor.GetProperty().GetBackfaceCulling()), g.shape_ports[1] is not None)
        for key, g in scene._glyphs.items()  # noqa: SLF001
    }


def test_edits_redraw_only_what_changed_and_equal_a_fresh_build():
    names = [f"b{i}" for i in range(8)]
    scene = Scene(instancing_threshold=THRESHOLD)
    scene.set_geometry(model(names))
    spheres = scene._glyphs[next(k for k in scene._glyphs if k[0][0] == "sphere")]  # noqa: SLF001
    label = next(it for it in scene._static if it.kind.startswith("text"))  # noqa: SLF001
    label_actor, sphere_actor = label.actor, spheres.actor
    steps = [
        names + ["new"],  # a body added at the end
        names[:2] + ["mid"] + names[2:] + ["new"],  # inserted early: those after it move up
        names[:2] + names[3:] + ["new"],  # b2 removed: those after it move down
        ["b0", "b1", "b3", "elbow", "b5", "b6", "b7", "new"],  # b4 renamed in place
        ["b1", "b3", "new"],  # most removed (b0 too): too few to batch, drawn singly
        ["b1", "b3", "new", "x4", "x5", "x6", "x7"],  # enough again: batched
    ]
    for k, step in enumerate(steps):
        geometry = model(step)
        scene.set_geometry(geometry)
        check_same_as_fresh(scene, geometry)
        if k < 4:  # the spheres' glyph group was changed, not made again
            assert any(g.actor is sphere_actor for g in scene._groups)  # noqa: SLF001
    # the label on b3 kept its actor through every renumbering of b3
    assert label.actor is label_actor and label.body_id == 2
    # a colour change redraws that sphere alone (it moves to the glyph group afresh)
    kept = scene._items.copy()  # noqa: SLF001
    geometry = model(steps[-1], recolor="x5")
    scene.set_geometry(geometry)
    check_same_as_fresh(scene, geometry)
    assert len(set(map(id, kept)) - set(map(id, scene._items))) == 1  # noqa: SLF001


def test_a_renumbered_model_draws_the_same_pixels_as_a_fresh_build(make_scene):
    names = [f"b{i}" for i in range(10)]
    scene = make_scene(320, 240, instancing_threshold=THRESHOLD)
    scene.set_geometry(model(names))
    edited = names[:1] + names[2:] + ["tail"]
    geometry = model(edited)
    x_gb = grid_poses(len(edited), seed=5)
    scene.set_geometry(geometry)
    scene.update_poses(x_gb)
    fresh = make_scene(320, 240, instancing_threshold=THRESHOLD)
    fresh.set_geometry(geometry)
    fresh.update_poses(x_gb)
    for s in (scene, fresh):
        s.set_camera(position=(0, 1.2, 7), focal_point=(0, 1.2, 0), view_up=(0, 1, 0))
    a, b = scene.capture().astype(int), fresh.capture().astype(int)
    drawn = (b.sum(axis=2) < 3 * 250).sum()
    assert drawn > 2000
    assert (np.abs(a - b).max(axis=2) > 40).sum() < 0.002 * a.shape[0] * a.shape[1]
    # picking names the new body index
    pose = x_gb[5]
    x, y = scene.world_to_display(pose[:3, 3])
    hit = scene.pick(x, y)
    assert hit is not None and hit.body_id == 5


def test_bodies_are_followed_by_name():
    assert body_map(["G", "a", "b", "c"], ["G", "a", "c"], 4).tolist() == [0, 1, -1, 2]
    assert body_map(["G", "a", "b"], ["G", "a", "z"], 3).tolist() == [0, 1, 2]  # renamed
    assert body_map(None, ["G"], 3).tolist() == [0, 1, 2]
    old = model(["a", "b", "c"])
    new = model(["a", "c"])
    pairing = match(old, new)
    assert (pairing >= 0).all()  # every decoration of the new model was drawn before
    assert set(old.bodies[pairing]) == {0, 1, 3}
    # the same decoration twice on one body pairs up one to one
    twice = KeyedGeometry([DecorativeSphere(0.1).setBodyId(1)] * 2, ["G", "a"])
    assert sorted(match(twice, twice).tolist()) == [0, 1]
