"""System hints: up direction (camera and ground), uniform background, length scale."""

from __future__ import annotations

import numpy as np
import pytest

from engine.common.decorative_geometry import DecorativeSphere, Green, Red
from engine.common.exceptions import InvalidArgumentError
from engine.math.coordinate_axis import ZAxis
from engine.math.transform import Transform
from tests.viz.helpers import HEIGHT, WIDTH, centroid, color_mask, exact_mask


def ground_mask(img):
    """Grey, unsaturated pixels (the checkered ground)."""
    a = img.astype(int)
    spread = a.max(axis=2) - a.min(axis=2)
    level = a.max(axis=2)
    return (spread < 30) & (level > 90) & (level < 235)


def sky_mask(img):
    a = img.astype(int)
    return (a[..., 2] > a[..., 0] + 25) & (a[..., 2] > 150)


def render_up(make_scene, up):
    s = make_scene(uniform=False)
    s.set_hints(up=up, length_scale=0.5)
    u = np.asarray(up, dtype=float)
    s.set_geometry(
        [
            DecorativeSphere(0.25).setColor(Red).setTransform(Transform(u * 1.0)),
            DecorativeSphere(0.25).setColor(Green).setTransform(Transform((0.8, 0.8, 0.8))),
        ]
    )
    s.view("front")
    s.zoom_to_fit()
    return s.capture()


@pytest.mark.parametrize("up", [(0, 1, 0), (0, 0, 1), (0, 0, -1)], ids=["+Y", "+Z", "-Z"])
def test_ground_is_below_and_sky_above_for_any_up(make_scene, up):
    img = render_up(make_scene, up)
    bottom, top = img[-HEIGHT // 5 :], img[: HEIGHT // 5]
    assert ground_mask(bottom).mean() > 0.8, "the ground should fill the bottom of the view"
    assert sky_mask(top).mean() > 0.8, "the sky gradient should fill the top of the view"
    red = color_mask(img, (1, 0, 0))
    assert red.sum() > 20
    assert centroid(red)[1] < HEIGHT / 2, "a sphere one unit 'up' should appear above centre"


def test_up_direction_changes_the_image_as_expected(make_scene):
    """A green sphere at (0.8, 0.8, 0.8) is above ground for +Y and +Z up, below it for -Z."""
    images = {up: render_up(make_scene, up) for up in [(0, 1, 0), (0, 0, 1), (0, 0, -1)]}
    for up in [(0, 1, 0), (0, 0, 1)]:
        green = color_mask(images[up], (0, 1, 0))
        assert green.sum() > 20, f"green sphere should be visible with up={up}"
        assert centroid(green)[0] > WIDTH / 2, "+X is to the right in the front view"
    assert color_mask(images[(0, 0, -1)], (0, 1, 0)).sum() == 0, "hidden under the ground"
    ups = list(images)
    for i in range(len(ups)):
        for j in range(i + 1, len(ups)):
            assert np.abs(images[ups[i]].astype(int) - images[ups[j]].astype(int)).mean() > 2


def test_uniform_background_has_no_ground_and_updates_live(make_scene):
    s = make_scene(uniform=False)
    s.set_geometry([DecorativeSphere(0.3).setColor(Red)])
    before = s.capture()
    assert ground_mask(before).sum() > 1000
    s.set_hints(uniform_background=True)
    after = s.capture()
    assert ground_mask(after).sum() == 0
    assert exact_mask(after, (255, 255, 255)).sum() + color_mask(after, Red).sum() > 0.97 * (
        WIDTH * HEIGHT
    )
    s.set_hints(background=(0.1, 0.1, 0.1))
    dark = s.capture()
    grey = dark.astype(int)
    assert (np.abs(grey - 25.5).max(axis=2) <= 1).mean() > 0.8


def test_camera_view_up_follows_up_hint(make_scene):
    s = make_scene()
    s.set_geometry([DecorativeSphere(0.3)])
    s.set_hints(up=ZAxis.asVec3())
    s.reset_camera()
    view_up = np.array(s.renderer.GetActiveCamera().GetViewUp())
    assert view_up[2] > 0.9
    s.set_hints(up=(-1, 0, 0))
    view_up = np.array(s.renderer.GetActiveCamera().GetViewUp())
    assert np.allclose(view_up, (-1, 0, 0), atol=1e-9)


def test_length_scale_sizes_the_ground_checkers(make_scene):
    def checker_edges(scale):
        s = make_scene(uniform=False)
        s.set_hints(length_scale=scale)
        s.set_camera(position=(0, 10, 0.001), focal_point=(0, 0, 0), view_up=(0, 0, -1))
        row = s.capture()[HEIGHT // 2].astype(int).sum(axis=1)
        return int(np.count_nonzero(np.abs(np.diff(row)) > 20))

    assert checker_edges(0.25) > 2 * checker_edges(1.0) > 0


@pytest.mark.parametrize(
    "kwargs",
    [
        {"up": (0, 1, 1)},
        {"up": (0, 2, 0)},
        {"up": (0, 0)},
        {"length_scale": 0},
        {"length_scale": float("nan")},
        {"background": (2, 0, 0)},
    ],
)
def test_bad_hints_raise(make_scene, kwargs):
    with pytest.raises(InvalidArgumentError):
        make_scene().set_hints(**kwargs)
