"""Opacity, representation, default colour, line thickness and overlays change the pixels."""

from __future__ import annotations

import numpy as np

from engine.common.decorative_geometry import (
    DecorativeBrick,
    DecorativeGeometry,
    DecorativeLine,
    DecorativeSphere,
    DecorativeText,
    Red,
)
from engine.math.transform import Transform
from tests.viz.helpers import assert_shows, color_mask, exact_mask


def centre_pixel(img):
    return img[img.shape[0] // 2, img.shape[1] // 2].astype(int)


def test_opacity_blends_with_background(scene):
    scene.set_geometry([DecorativeSphere(0.8).setColor(Red)])
    opaque = centre_pixel(scene.capture())
    scene.set_geometry([DecorativeSphere(0.8).setColor(Red).setOpacity(0.4)])
    faint = centre_pixel(scene.capture())
    assert opaque[1] < 60 and opaque[2] < 60
    # Front and back faces each let 60 % of the white through: 0.36 * 255 = 92.
    assert faint[1] > 70 and faint[2] > 70, f"translucent red over white is pink, got {faint}"
    assert faint[0] > 200


def test_zero_opacity_hides(scene):
    scene.set_geometry([DecorativeSphere(0.8).setColor(Red).setOpacity(0)])
    img = scene.capture()
    assert exact_mask(img, (255, 255, 255)).all()


def test_representation_changes_pixels(scene):
    counts = {}
    reps = (DecorativeGeometry.Surface, DecorativeGeometry.Wireframe, DecorativeGeometry.Points)
    for rep in reps:
        g = DecorativeBrick((0.8, 0.6, 0.6)).setColor(Red).setRepresentation(rep)
        g.setTransform(Transform((0, 0, 0)))
        scene.set_geometry([g])
        scene.renderer.GetActiveCamera().Azimuth(0)
        counts[rep] = int(color_mask(scene.capture(), Red).sum())
    surface = counts[DecorativeGeometry.Surface]
    wire = counts[DecorativeGeometry.Wireframe]
    points = counts[DecorativeGeometry.Points]
    assert surface > 3 * wire > 0
    assert wire > points > 0


def test_default_colour_is_used_when_unset(scene):
    scene.set_geometry([DecorativeSphere(0.8)])
    r, g, b = centre_pixel(scene.capture())
    assert 120 < r < 255 and abs(r - g) < 30 and b >= r - 5  # light blue-grey


def test_line_thickness_widens_lines(scene):
    def count(t):
        line = DecorativeLine((-1, 0, 0), (1, 0, 0)).setColor(Red).setLineThickness(t)
        scene.set_geometry([line])
        return int(color_mask(scene.capture(), Red).sum())

    assert count(6) > 2 * count(1) > 0


def test_overlay_text_is_drawn_top_left(scene):
    blank = scene.capture()
    scene.set_overlay_text(sim_time=1.5, realtime_rate=1.0, fps=60)
    img = scene.capture()
    changed = np.any(img != blank, axis=2)
    ys, xs = np.nonzero(changed)
    assert len(xs) > 50
    assert xs.mean() < img.shape[1] / 2 and ys.mean() < img.shape[0] / 2
    scene.set_overlay_text()
    assert np.array_equal(scene.capture(), blank)


def test_screen_text_stays_on_screen(scene):
    scene.set_geometry([DecorativeText("pinned").setIsScreenText(True).setColor((0, 0, 1))])
    a = assert_shows(scene.capture(), (0, 0, 1), min_pixels=10)
    scene.renderer.GetActiveCamera().Azimuth(90)
    b = color_mask(scene.capture(), (0, 0, 1))
    assert np.array_equal(a, b)
    ys, xs = np.nonzero(a)
    assert ys.mean() > a.shape[0] / 2 and xs.mean() < a.shape[1] / 2  # bottom-left


def test_billboard_text_faces_the_camera(scene):
    scene.set_geometry([DecorativeText("HI").setScale(0.6).setColor((0, 0, 1))])
    front = int(color_mask(scene.capture(), (0, 0, 1)).sum())
    scene.renderer.GetActiveCamera().Azimuth(80)
    side = int(color_mask(scene.capture(), (0, 0, 1)).sum())
    scene.set_geometry([DecorativeText("HI").setScale(0.6).setColor((0, 0, 1)).setFaceCamera(0)])
    flat_side = int(color_mask(scene.capture(), (0, 0, 1)).sum())
    assert side > 0.6 * front
    assert flat_side < 0.4 * front


def test_default_text_colour_contrasts_with_the_background(scene):
    label = DecorativeText("HELLO").setScale(0.6).setTransform(Transform((-1.5, 0, 0)))
    scene.set_geometry([label])
    on_white = scene.capture().astype(int)
    assert (on_white.max(axis=2) < 80).sum() > 30  # dark text
    scene.set_hints(background=(0, 0, 0))
    on_black = scene.capture().astype(int)
    assert (on_black.min(axis=2) > 200).sum() > 30  # light text
