"""Each decoration kind renders in its colour at the expected place (left or right of centre)."""

from __future__ import annotations

import pytest

from engine.common.decorative_geometry import (
    Decorations,
    DecorativeArrow,
    DecorativeBrick,
    DecorativeCircle,
    DecorativeCone,
    DecorativeCylinder,
    DecorativeEllipsoid,
    DecorativeFrame,
    DecorativeLine,
    DecorativeMesh,
    DecorativeMeshFile,
    DecorativePoint,
    DecorativeSphere,
    DecorativeText,
    DecorativeTorus,
)
from engine.math.rotation import Rotation
from engine.math.transform import Transform
from tests.viz.helpers import WIDTH, assert_shows, centroid, color_mask
from tests.viz.meshes import write_cube_obj, write_cube_stl, write_cube_vtp

RED, GREEN, BLUE = (1, 0, 0), (0, 1, 0), (0, 0, 1)


def _kinds(tmp_path):
    """(decoration built around x = 0 in D, colour to look for) per kind."""
    return {
        "Point": (DecorativePoint((0, 0, 0)).setLineThickness(12), RED),
        "Line": (DecorativeLine((-0.5, -0.5, 0), (0.5, 0.5, 0)).setLineThickness(4), GREEN),
        "Circle": (DecorativeCircle(0.4), BLUE),
        "Sphere": (DecorativeSphere(0.4), RED),
        "Ellipsoid": (DecorativeEllipsoid((0.5, 0.3, 0.3)), GREEN),
        "Brick": (DecorativeBrick((0.3, 0.4, 0.3)), BLUE),
        "Cylinder": (DecorativeCylinder(0.3, 0.5), RED),
        "Frame": (DecorativeFrame(0.7).setLineThickness(4), GREEN),  # default axis colours
        "Text": (DecorativeText("AB").setScale(0.5).setTransform(Transform((-0.4, -0.2, 0))), BLUE),
        "Mesh": (
            DecorativeMesh([(-0.5, -0.5, 0), (0.5, -0.5, 0), (0, 0.5, 0)], [(0, 1, 2)]),
            RED,
        ),
        "MeshFile": (DecorativeMeshFile(write_cube_obj(tmp_path / "cube.obj", 0.4)), GREEN),
        "Arrow": (DecorativeArrow((-0.5, -0.3, 0), (0.5, 0.3, 0), 0.3), BLUE),
        "Torus": (DecorativeTorus(0.4, 0.12), RED),
        "Cone": (DecorativeCone((0, -0.4, 0), (0, 1, 0), 0.8, 0.4), GREEN),
    }


KIND_NAMES = [
    "Point",
    "Line",
    "Circle",
    "Sphere",
    "Ellipsoid",
    "Brick",
    "Cylinder",
    "Frame",
    "Text",
    "Mesh",
    "MeshFile",
    "Arrow",
    "Torus",
    "Cone",
]


@pytest.mark.parametrize("side", [-1, 1], ids=["left", "right"])
@pytest.mark.parametrize("kind", KIND_NAMES)
def test_kind_renders_in_colour_on_the_expected_side(scene, tmp_path, kind, side):
    geom, rgb = _kinds(tmp_path)[kind]
    if kind != "Frame":
        geom.setColor(rgb)
    placed = Decorations(geom).setTransform(Transform((1.1 * side, 0, 0)))
    scene.set_geometry([placed])
    img = scene.capture()
    mask = assert_shows(img, rgb, min_pixels=10)
    x, _ = centroid(mask)
    if side < 0:
        assert x < WIDTH / 2 - 15, f"{kind} should be left of centre, centroid x={x:.0f}"
    else:
        assert x > WIDTH / 2 + 15, f"{kind} should be right of centre, centroid x={x:.0f}"


def test_frame_axes_have_their_colours(scene):
    scene.set_geometry([DecorativeFrame(1.0).setLineThickness(4)])
    scene.view("front")
    scene.renderer.GetActiveCamera().Azimuth(30)
    scene.renderer.GetActiveCamera().Elevation(20)
    img = scene.capture()
    for rgb in (RED, GREEN, BLUE):
        assert color_mask(img, rgb).sum() >= 10, f"missing axis colour {rgb}"
    # x (red) points right, y (green) up.
    assert centroid(color_mask(img, RED))[0] > centroid(color_mask(img, GREEN))[0]
    assert centroid(color_mask(img, GREEN))[1] < centroid(color_mask(img, RED))[1]


def test_cylinder_axis_is_y_like_simbody(scene):
    scene.set_geometry([DecorativeCylinder(0.2, 1.2).setColor(RED)])
    ys, xs = color_mask(scene.capture(), RED).nonzero()
    assert (ys.max() - ys.min()) > 3 * (xs.max() - xs.min())


def test_transform_rotation_is_applied(scene):
    lying = Transform(Rotation(1.5707963267948966, (0, 0, 1)), (0, 0, 0))
    scene.set_geometry([DecorativeCylinder(0.2, 1.2).setColor(RED).setTransform(lying)])
    ys, xs = color_mask(scene.capture(), RED).nonzero()
    assert (xs.max() - xs.min()) > 3 * (ys.max() - ys.min())


def test_scale_factors_stretch_the_shape(scene):
    scene.set_geometry([DecorativeSphere(0.3).setColor(BLUE).setScaleFactors((3, 1, 1))])
    ys, xs = color_mask(scene.capture(), BLUE).nonzero()
    assert (xs.max() - xs.min()) > 2.5 * (ys.max() - ys.min())


@pytest.mark.parametrize("writer", [write_cube_obj, write_cube_stl, write_cube_vtp])
def test_mesh_files_load(scene, tmp_path, writer):
    path = writer(tmp_path / f"cube{writer.__name__[-4:].replace('_', '.')}", 0.5)
    scene.set_geometry([DecorativeMeshFile(path).setColor(RED)])
    mask = assert_shows(scene.capture(), RED, min_pixels=500)
    x, y = centroid(mask)
    assert abs(x - 100) < 5 and abs(y - 75) < 5


def test_compound_places_elements_and_inherits_colour(scene):
    d = Decorations().setColor(GREEN).setTransform(Transform((-1, 0, 0)))
    d.addDecoration(Transform((2, 0, 0)), DecorativeSphere(0.3))
    d.addDecoration(DecorativeBrick((0.3, 0.3, 0.3)).setColor(RED))
    scene.set_geometry([d])
    img = scene.capture()
    assert centroid(color_mask(img, GREEN))[0] > 110  # sphere at x = +1
    assert centroid(color_mask(img, RED))[0] < 90  # brick at x = -1
