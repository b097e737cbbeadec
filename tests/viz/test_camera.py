"""Camera presets relative to the up direction, zoom to fit, and matrix helpers."""

from __future__ import annotations

import numpy as np
import pytest

from engine.common.decorative_geometry import Blue, DecorativeSphere, Green, Red
from engine.common.exceptions import InvalidArgumentError
from engine.math.rotation import Rotation
from engine.math.transform import Transform
from tests.viz.helpers import centroid, color_mask
from viz import camera
from viz.matrix_utils import quaternions_from_rotations, rotation_x_to


@pytest.mark.parametrize(
    "up, camera_side",
    [
        ((0, 1, 0), (0, 0, 1)),
        ((0, 0, 1), (0, -1, 0)),
        ((0, 0, -1), (0, 1, 0)),
        ((1, 0, 0), (0, 0, -1)),
    ],
)
def test_front_view_keeps_plus_x_or_y_to_the_right(up, camera_side):
    direction, view_up = camera.preset_direction("front", up)
    assert np.allclose(-direction, camera_side)  # the camera sits on this side
    assert np.allclose(view_up, up)
    _, right, _ = camera.view_basis(up)
    assert np.allclose(np.cross(direction, view_up), right)


@pytest.mark.parametrize("up", [(0, 1, 0), (0, 0, 1), (-1, 0, 0)])
def test_all_presets_are_orthonormal_and_right_handed(up):
    directions = {}
    for preset in camera.PRESETS:
        d, v = camera.preset_direction(preset, up)
        assert abs(np.dot(d, v)) < 1e-12 and np.isclose(np.linalg.norm(d), 1)
        directions[preset] = d
    assert np.allclose(directions["front"], -directions["back"])
    assert np.allclose(directions["left"], -directions["right"])
    assert np.allclose(directions["top"], -np.asarray(up))
    assert np.allclose(directions["bottom"], np.asarray(up))


def test_bad_preset_raises():
    with pytest.raises(InvalidArgumentError):
        camera.preset_direction("diagonal", (0, 1, 0))


@pytest.mark.parametrize("preset", camera.PRESETS)
def test_zoom_to_fit_centres_the_geometry(scene, preset):
    scene.set_geometry([DecorativeSphere(0.2).setColor(Red).setBodyId(1)])
    x_gb = np.tile(np.eye(4), (2, 1, 1))
    x_gb[1, :3, 3] = (5, -3, 2)
    scene.update_poses(x_gb)
    scene.view(preset)
    scene.zoom_to_fit()
    mask = color_mask(scene.capture(), Red)
    x, y = centroid(mask)
    assert abs(x - 100) < 3 and abs(y - 75) < 3
    assert mask.sum() > 2000  # zoomed in on a small sphere


def test_views_place_objects_as_expected(scene):
    """+Y up: red at forward (0, 0, -1), green at right (+1, 0, 0), blue at the origin."""
    scene.set_geometry(
        [
            DecorativeSphere(0.2).setColor(Red).setTransform(Transform((0, 0, -1))),
            DecorativeSphere(0.2).setColor(Green).setTransform(Transform((1, 0, 0))),
            DecorativeSphere(0.2).setColor(Blue),
        ]
    )

    def where(preset):
        scene.view(preset)
        scene.zoom_to_fit()
        img = scene.capture()
        return {c: centroid(color_mask(img, c)) for c in ((1, 0, 0), (0, 1, 0), (0, 0, 1))}

    top = where("top")  # looking down: forward is up the screen, right is right
    assert top[(1, 0, 0)][1] < top[(0, 0, 1)][1] - 10
    assert top[(0, 1, 0)][0] > top[(0, 0, 1)][0] + 10
    left = where("left")  # from -X: forward (-Z) is to the left
    assert left[(1, 0, 0)][0] < left[(0, 0, 1)][0] - 10
    back = where("back")  # from -Z: +X is on the left
    assert back[(0, 1, 0)][0] < back[(0, 0, 1)][0] - 10


def test_quaternions_match_rotations():
    rng = np.random.default_rng(3)
    mats = [Rotation(a, rng.normal(size=3)).asMat33() for a in rng.uniform(0, 2 * np.pi, 50)]
    mats += [np.diag([1.0, -1.0, -1.0]), np.diag([-1.0, 1.0, -1.0]), np.diag([-1.0, -1.0, 1.0])]
    q = quaternions_from_rotations(np.array(mats))
    w, x, y, z = q.T
    rebuilt = np.stack(
        [
            np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
            np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
            np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1),
        ],
        axis=1,
    )
    assert np.allclose(rebuilt, np.array(mats), atol=1e-12)


def test_rotation_x_to_is_proper():
    for d in [(1, 0, 0), (0, 0, -3), (1, 2, 3), (0, 1e-9, 1)]:
        r = rotation_x_to(d)
        assert np.allclose(r @ r.T, np.eye(3)) and np.isclose(np.linalg.det(r), 1)
        assert np.allclose(r[:, 0], np.asarray(d) / np.linalg.norm(d))
