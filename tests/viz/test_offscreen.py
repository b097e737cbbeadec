"""Headless PNG rendering, the System wrapper (with a stand-in System) and frame writers."""

from __future__ import annotations

import builtins
import sys

import numpy as np
import pytest
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkIOImage import vtkPNGReader

from engine.common.decorative_geometry import DecorativeBrick, DecorativeSphere, Green, Red
from engine.common.exceptions import InvalidArgumentError
from engine.math.coordinate_axis import ZAxis
from engine.math.transform import Transform
from tests.viz.helpers import centroid, color_mask
from viz.offscreen import FrameWriter, render_geometry_to_png, render_to_png, write_png


def read_png(path) -> np.ndarray:
    reader = vtkPNGReader()
    reader.SetFileName(str(path))
    reader.Update()
    image = reader.GetOutput()
    w, h, _ = image.GetDimensions()
    pixels = vtk_to_numpy(image.GetPointData().GetScalars()).reshape(h, w, -1)
    return pixels[::-1, :, :3]


def test_render_geometry_to_png_writes_the_image(tmp_path):
    path = tmp_path / "shot.png"
    x_gb = np.tile(np.eye(4), (2, 1, 1))
    x_gb[1, :3, 3] = (1.0, 0.5, 0.0)
    geometry = [DecorativeSphere(0.3).setColor(Red).setBodyId(1), DecorativeBrick().setColor(Green)]
    image = render_geometry_to_png(geometry, x_gb, path, 200, 150, camera="front")
    assert image.shape == (150, 200, 3)
    on_disk = read_png(path)
    assert np.array_equal(on_disk, image)
    assert centroid(color_mask(image, Red))[0] > centroid(color_mask(image, Green))[0]


def test_camera_mapping_and_bad_camera(tmp_path):
    x_gb = np.eye(4)[None]
    geometry = [DecorativeSphere(0.3).setColor(Red).setTransform(Transform((1, 0, 0)))]
    image = render_geometry_to_png(
        geometry,
        x_gb,
        tmp_path / "a.png",
        120,
        90,
        uniform_background=True,
        camera={"position": (1, 0, 5), "focal_point": (1, 0, 0)},
    )
    x, y = centroid(color_mask(image, Red))
    assert abs(x - 60) < 3 and abs(y - 45) < 3
    with pytest.raises(InvalidArgumentError):
        render_geometry_to_png(geometry, x_gb, tmp_path / "b.png", camera="sideways")
    with pytest.raises(InvalidArgumentError):
        render_geometry_to_png(geometry, x_gb, tmp_path / "c.png", camera={"position": (0, 0, 1)})


def _pendulum_system(up=ZAxis, uniform=True):
    """A real MultibodySystem: one Pin body hanging 1 m below a pivot, a red sphere on it."""
    from engine import (
        Body,
        DecorationSubsystem,
        MassProperties,
        MobilizedBody,
        MultibodySystem,
        Rotation,
        SimbodyMatterSubsystem,
        UnitInertia,
        XAxis,
    )

    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    decorations = DecorationSubsystem(system)
    matter.setShowDefaultGeometry(False)
    system.setUpDirection(up)
    system.setUseUniformBackground(uniform)
    system.setDefaultLengthScale(0.5)
    body = Body.Rigid(MassProperties(1.0, (0, 0, 0), UnitInertia(0.1, 0.1, 0.1)))
    body.addDecoration(Transform(), DecorativeSphere(0.3).setColor(Red))
    # pin axis z_F along -y_G (horizontal); at q = 0 the body hangs 1 m below the pivot
    x_gf = Transform(Rotation(np.pi / 2, XAxis), (0, 0, 2.0))
    pin = MobilizedBody.Pin(matter.Ground(), x_gf, body, Transform((0, 1.0, 0)))
    return system, matter, decorations, pin


def test_render_to_png_uses_system_geometry_poses_and_hints(tmp_path):
    system, _matter, _decorations, _pin = _pendulum_system()
    state = system.realizeTopology()
    image = render_to_png(system, state, tmp_path / "sys.png", 160, 120, camera="front")
    assert (tmp_path / "sys.png").stat().st_size > 0
    assert (image == 255).all(axis=2).mean() > 0.5  # uniform white background, no ground
    x, y = centroid(color_mask(image, Red))
    assert abs(x - 80) < 3 and abs(y - 60) < 3  # the only body is at z = 1: in view, +Z up


def test_render_to_png_draws_rubber_bands_at_the_current_pose(tmp_path):
    from engine import DecorativeLine, Stage

    system, _matter, decorations, pin = _pendulum_system()
    decorations.addRubberBandLine(
        0, (0, 0, 2.0), pin, (0, 0, 0), DecorativeLine().setColor(Green).setLineThickness(4)
    )
    state = system.realizeTopology()

    def band_and_ball(q: float, name: str):
        pin.setOneQ(state, 0, q)
        system.realize(state, Stage.Position)
        image = render_to_png(system, state, tmp_path / name, 200, 160, camera="front")
        return color_mask(image, Green), color_mask(image, Red)

    band, ball = band_and_ball(0.0, "hanging.png")
    columns = np.nonzero(band.any(axis=0))[0]
    assert band.sum() > 10 and ball.sum() > 20
    assert columns.max() - columns.min() <= 6  # hanging: the band is vertical
    band, ball = band_and_ball(1.2, "swung.png")  # the band must follow the body
    columns = np.nonzero(band.any(axis=0))[0]
    ball_columns = np.nonzero(ball.any(axis=0))[0]
    assert columns.max() - columns.min() > 30  # now slanted
    assert columns.max() >= ball_columns.min() - 3  # and it reaches the ball


def test_png_sequence_writer(tmp_path):
    frames = [np.full((20, 30, 3), v, np.uint8) for v in (0, 100, 200)]
    with FrameWriter(tmp_path / "seq") as writer:
        for f in frames:
            writer.write(f)
    files = sorted((tmp_path / "seq").glob("frame_*.png"))
    assert [p.name for p in files] == ["frame_00000.png", "frame_00001.png", "frame_00002.png"]
    assert np.array_equal(read_png(files[1]), frames[1])
    with pytest.raises(InvalidArgumentError):
        FrameWriter(tmp_path / "x_%03d.png").write(np.zeros((4, 4), np.uint8))


def test_frame_sizes_must_match(tmp_path):
    writer = FrameWriter(tmp_path / "f_%02d.png")
    writer.write(np.zeros((10, 10, 3), np.uint8))
    with pytest.raises(InvalidArgumentError, match="expected 10x10"):
        writer.write(np.zeros((10, 12, 3), np.uint8))


def test_mp4_writer(tmp_path):
    path = tmp_path / "movie.mp4"
    with FrameWriter(path, fps=10) as writer:
        for k in range(5):
            writer.write(np.full((48, 64, 3), 40 * k, np.uint8))
    assert path.stat().st_size > 0 and writer.count == 5


def test_mp4_without_imageio_ffmpeg_raises_a_clear_error(tmp_path, monkeypatch):
    real_import = builtins.__import__

    def no_ffmpeg(name, *args, **kwargs):
        if name == "imageio_ffmpeg":
            raise ImportError("No module named 'imageio_ffmpeg'")
        return real_import(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, "imageio_ffmpeg", raising=False)
    monkeypatch.setattr(builtins, "__import__", no_ffmpeg)
    with pytest.raises(RuntimeError, match="pip install imageio-ffmpeg"):
        FrameWriter(tmp_path / "movie.mp4")


def test_write_png_rejects_bad_images(tmp_path):
    with pytest.raises(InvalidArgumentError):
        write_png(np.zeros((4, 4)), tmp_path / "x.png")
    with pytest.raises(OSError):
        write_png(np.zeros((4, 4, 3), np.uint8), tmp_path / "no_such_dir" / "x.png")
