"""update_poses moves decorations; dynamic geometry reuses actors; instancing matches actors."""

from __future__ import annotations

import numpy as np
import pytest

from engine.common.decorative_geometry import (
    DecorativeArrow,
    DecorativeBrick,
    DecorativeLine,
    DecorativeSphere,
    DecorativeText,
    Red,
)
from engine.common.exceptions import IndexOutOfRangeError, InvalidArgumentError
from engine.math.rotation import Rotation
from engine.math.transform import Transform
from tests.viz.helpers import centroid, color_mask


def poses(*origins):
    x = np.tile(np.eye(4), (len(origins) + 1, 1, 1))
    for i, p in enumerate(origins):
        x[i + 1, :3, 3] = p
    return x


def test_update_poses_moves_the_object(scene):
    scene.set_geometry([DecorativeSphere(0.3).setColor(Red).setBodyId(1)])
    scene.update_poses(poses((-1, 0, 0)))
    x_left, _ = centroid(color_mask(scene.capture(), Red))
    scene.update_poses(poses((1, 0.5, 0)))
    x_right, y_up = centroid(color_mask(scene.capture(), Red))
    assert x_left < 70 and x_right > 130
    assert y_up < 75  # moved up too (row 0 is the top)


def test_body_rotation_and_decoration_transform_compose(scene):
    """X_GB @ X_BD: a brick offset 1 along the body's x, body turned 90 degrees about z."""
    brick = DecorativeBrick((0.2, 0.2, 0.2)).setColor(Red).setBodyId(1)
    brick.setTransform(Transform((1, 0, 0)))
    scene.set_geometry([brick])
    x_gb = poses((0, 0, 0))
    x_gb[1, :3, :3] = Rotation(np.pi / 2, (0, 0, 1)).asMat33()
    scene.update_poses(x_gb)
    x, y = centroid(color_mask(scene.capture(), Red))
    assert abs(x - 100) < 4 and y < 40  # now above the centre, at ground (0, 1, 0)


def test_bad_poses_raise(scene):
    scene.set_geometry([DecorativeSphere().setBodyId(3)])
    with pytest.raises(InvalidArgumentError):
        scene.update_poses(np.eye(4))
    with pytest.raises(IndexOutOfRangeError):
        scene.update_poses(np.tile(np.eye(4), (3, 1, 1)))
    scene.update_poses(np.tile(np.eye(4), (4, 1, 1)))


def test_instanced_image_matches_individual_actors(make_scene):
    rng = np.random.default_rng(1)
    n = 40
    geometry = []
    for i in range(n):
        g = DecorativeSphere(0.12) if i % 2 else DecorativeBrick((0.1, 0.06, 0.12))
        g.setBodyId(i + 1).setColor(tuple(rng.uniform(0.2, 1.0, 3)))
        g.setTransform(Transform(Rotation(rng.uniform(0, 6), rng.normal(size=3)), (0, 0.1, 0)))
        geometry.append(g)
    x_gb = np.tile(np.eye(4), (n + 1, 1, 1))
    for i in range(n):
        x_gb[i + 1, :3, :3] = Rotation(rng.uniform(0, 6), rng.normal(size=3)).asMat33()
        x_gb[i + 1, :3, 3] = rng.uniform(-1.5, 1.5, 3) * (1, 0.8, 0.5)
    images = []
    for threshold in (1000, 4):
        s = make_scene(instancing_threshold=threshold)
        s.set_geometry(geometry)
        s.update_poses(x_gb)
        s.set_camera(position=(0, 0, 6), focal_point=(0, 0, 0))
        images.append(s.capture().astype(int))
        assert s.num_actors() == (n if threshold == 1000 else 2)
    differs = np.any(np.abs(images[0] - images[1]) > 40, axis=2).mean()
    assert differs < 0.01, f"{differs:.2%} of pixels differ between instanced and actors"


def test_instanced_update_moves_instances(make_scene):
    s = make_scene(instancing_threshold=2)
    s.set_geometry([DecorativeSphere(0.2).setColor(Red).setBodyId(i + 1) for i in range(5)])
    s.set_camera(position=(0, 0, 6), focal_point=(0, 0, 0))
    s.update_poses(poses(*[(-1.5, y, 0) for y in np.linspace(-1, 1, 5)]))
    x1, _ = centroid(color_mask(s.capture(), Red))
    s.update_poses(poses(*[(1.5, y, 0) for y in np.linspace(-1, 1, 5)]))
    x2, _ = centroid(color_mask(s.capture(), Red))
    assert x1 < 50 and x2 > 150


def test_dynamic_geometry_reuses_actors_by_slot(scene):
    def band(x):
        return DecorativeLine((x, -1, 0), (x, 1, 0)).setColor(Red).setLineThickness(3)

    static_count = scene.num_actors()
    scene.set_dynamic_geometry([band(-1), DecorativeArrow((0, 0, 0), (1, 0, 0))])
    actors = [it.actor for it in scene._dynamic]
    x1, _ = centroid(color_mask(scene.capture(), Red))
    scene.set_dynamic_geometry([band(1), DecorativeArrow((0, 0, 0), (0, 1, 0))])
    assert [it.actor for it in scene._dynamic] == actors  # same actors, updated in place
    x2, _ = centroid(color_mask(scene.capture(), Red))
    assert x1 < 70 and x2 > 130
    scene.set_dynamic_geometry([DecorativeSphere(0.1), band(0)])  # kinds changed: new actors
    assert scene._dynamic[0].actor is not actors[0]
    scene.set_dynamic_geometry([])
    assert scene.num_actors() == static_count
    assert not color_mask(scene.capture(), Red).any()


def test_dynamic_geometry_follows_body_poses(scene):
    scene.set_geometry([DecorativeSphere(0.05).setBodyId(1)])
    scene.update_poses(poses((1, 0, 0)))
    scene.set_dynamic_geometry([DecorativeBrick((0.3, 0.3, 0.3)).setColor(Red).setBodyId(1)])
    x, _ = centroid(color_mask(scene.capture(), Red))
    assert x > 130


def test_zero_length_dynamic_items_are_hidden_not_broken(scene):
    scene.set_dynamic_geometry(
        [
            DecorativeLine((0, 0, 0), (0, 0, 0)).setColor(Red),
            DecorativeArrow((1, 1, 1), (1, 1, 1)).setColor(Red),
            DecorativeText("").setColor(Red),
        ]
    )
    assert not color_mask(scene.capture(), Red).any()


def test_follow_body_keeps_it_centred(scene):
    scene.set_geometry([DecorativeSphere(0.2).setColor(Red).setBodyId(1)])
    scene.update_poses(poses((0, 0, 0)))
    scene.follow_body(1)
    for p in [(1.5, 0.5, 0), (-3, 2, 1), (10, 0, -4)]:
        scene.update_poses(poses(p))
        x, y = centroid(color_mask(scene.capture(), Red))
        assert abs(x - 100) < 3 and abs(y - 75) < 3
    scene.follow_body(None)
    scene.update_poses(poses((11, 0, -4)))
    x, _ = centroid(color_mask(scene.capture(), Red))
    assert x > 110
