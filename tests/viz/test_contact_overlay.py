"""ContactPointsOverlay draws dots at contact points and the normal (red) and friction
(purple) force arrows, offscreen."""

from __future__ import annotations

import numpy as np

from tests.viz.helpers import color_mask
from viz.overlays import ContactPointsOverlay
from viz.overlays.contact_points import FRICTION_COLOR, NORMAL_COLOR


def test_points_normal_and_friction_arrows_are_drawn_where_they_act(scene):
    overlay = ContactPointsOverlay()
    overlay.attach(scene.renderer)
    points = np.array([[-1.0, -1.0, 0.0], [1.0, -1.0, 0.0]])
    normal = np.array([[0.0, 10.0, 0.0], [0.0, 10.0, 0.0]])
    friction = np.array([[5.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    overlay.update(points, normal, friction, 0.15, 0.05, 0.08)
    img = scene.capture()
    assert overlay.count == 2
    red = color_mask(img, NORMAL_COLOR, tol=0.2)
    purple = color_mask(img, FRICTION_COLOR, tol=0.2)
    dark = np.all(img < 40, axis=2)
    h, w = img.shape[:2]
    assert red.sum() > 30 and purple.sum() > 10 and dark.sum() > 10
    ys, xs = np.nonzero(red)
    assert ys.mean() < 0.75 * h  # the normal arrows rise from the contact points (bottom)
    assert xs[xs < w / 2].size > 5 and xs[xs > w / 2].size > 5  # one at each point
    ys, xs = np.nonzero(purple)
    assert xs.mean() < w / 2 + 10  # friction only at the left point, pointing right

    overlay.update(np.zeros((0, 3)), np.zeros((0, 3)), np.zeros((0, 3)), 0.15, 0.05, 0.08)
    img = scene.capture()
    assert color_mask(img, NORMAL_COLOR, tol=0.2).sum() == 0
    assert overlay.count == 0
    overlay.detach()
