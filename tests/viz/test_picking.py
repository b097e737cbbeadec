"""Picking maps a screen point back to the decoration's bodyId, indexOnBody and userRef."""

from __future__ import annotations

import numpy as np
import pytest

from engine.common.decorative_geometry import (
    Decorations,
    DecorativeBrick,
    DecorativeCylinder,
    DecorativeSphere,
)
from engine.math.rotation import Rotation
from engine.math.transform import Transform


def grid_poses(n, spacing=0.9, seed=0):
    """Ground plus n bodies on a square grid in the z = 0 plane, randomly rotated."""
    rng = np.random.default_rng(seed)
    side = int(np.ceil(np.sqrt(n)))
    x_gb = np.tile(np.eye(4), (n + 1, 1, 1))
    for i in range(n):
        x_gb[i + 1, :3, :3] = Rotation(rng.uniform(0, 6), rng.normal(size=3)).asMat33()
        x_gb[i + 1, :3, 3] = [(i % side - (side - 1) / 2) * spacing, (i // side) * spacing, 0]
    return x_gb


def mixed_geometry(n):
    shapes = [
        lambda: DecorativeSphere(0.25),
        lambda: DecorativeBrick((0.2, 0.25, 0.15)),
        lambda: DecorativeCylinder(0.15, 0.25),
    ]
    return [
        shapes[i % 3]().setBodyId(i + 1).setIndexOnBody(i).setUserRef(f"body{i + 1}")
        for i in range(n)
    ]


@pytest.mark.parametrize("threshold", [1000, 2], ids=["actors", "instanced"])
def test_pick_returns_the_body_under_the_cursor(make_scene, threshold):
    n = 24
    scene = make_scene(300, 220, instancing_threshold=threshold)
    scene.set_geometry(mixed_geometry(n))
    x_gb = grid_poses(n)
    scene.update_poses(x_gb)
    scene.reset_camera(elevation=0)
    scene.render()
    if threshold == 2:
        assert scene.num_actors() == 3  # one glyph group per shape
    for i in range(n):
        x, y = scene.world_to_display(x_gb[i + 1, :3, 3])
        hit = scene.pick(x, y)
        assert hit is not None and hit.body_id == i + 1, f"body {i + 1}: got {hit}"
        assert hit.index_on_body == i and hit.user_ref == f"body{i + 1}"
        body, index, ref = hit  # also a plain 3-tuple
        assert (body, index, ref) == (i + 1, i, f"body{i + 1}")


def test_pick_background_and_ground_return_none(make_scene):
    scene = make_scene(uniform=False)
    scene.set_geometry([DecorativeSphere(0.2).setBodyId(1)])
    scene.update_poses(np.tile(np.eye(4), (2, 1, 1)))
    scene.render()
    assert scene.pick(2, 148) is None  # sky (y counts from the bottom)
    assert scene.pick(100, 5) is None  # ground (not pickable) at the bottom edge


def test_pick_compound_reports_compound_identity(scene):
    d = Decorations().setBodyId(0).setIndexOnBody(7).setUserRef("leg")
    d.addDecoration(Transform((1, 0, 0)), DecorativeSphere(0.3).setUserRef("ignored"))
    scene.set_geometry([d])
    scene.render()
    x, y = scene.world_to_display((1, 0, 0))
    assert scene.pick(x, y) == (0, 7, "leg")


def test_pick_without_window_is_none():
    from viz.scene import Scene

    s = Scene()
    assert s.pick(10, 10) is None
    s.close()
