"""Headless rendering: images and videos of decorations with no display and no Qt.

- ``render_geometry_to_png(geometry, X_GB, path, ...)``: one PNG from a decoration list and body
  poses (the core, independent of System).
- ``render_to_png(system, state, path, ...)``: one PNG of a System in a State, gathering geometry
  of every stage from Topology to Position (viz.system_decorations) and the body poses
  from the matter subsystem, and using the System's visualization hints.
- ``FrameWriter``: writes successive frames as a PNG sequence, or as an MP4 when the optional
  package ``imageio-ffmpeg`` (a dependency of mbstudio) is importable.

``camera`` arguments accept None (front view raised 15 degrees, zoomed to fit), a preset name
("front", "back", "left", "right", "top", "bottom", zoomed to fit), or a mapping with
``position``, ``focal_point`` and optionally ``view_up`` and ``view_angle`` (degrees), in ground.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import numpy as np
from vtkmodules.util.numpy_support import numpy_to_vtk
from vtkmodules.vtkCommonDataModel import vtkImageData
from vtkmodules.vtkIOImage import vtkPNGWriter

from engine.common.exceptions import InvalidArgumentError
from viz.camera import PRESETS
from viz.scene import Scene
from viz.system_decorations import collect_decorations


def write_png(image: np.ndarray, path) -> None:
    """Write an (height, width, 3) uint8 RGB array (row 0 at the top) to a PNG file."""
    img = np.asarray(image)
    if img.ndim != 3 or img.shape[2] not in (3, 4) or img.dtype != np.uint8:
        raise InvalidArgumentError(
            f"image must be an (h, w, 3) or (h, w, 4) uint8 array, got {img.shape} {img.dtype}"
        )
    h, w, c = img.shape
    data = vtkImageData()
    data.SetDimensions(w, h, 1)
    arr = numpy_to_vtk(np.ascontiguousarray(img[::-1]).reshape(-1, c), deep=True)
    data.GetPointData().SetScalars(arr)
    writer = vtkPNGWriter()
    writer.SetFileName(os.fspath(path))
    writer.SetInputData(data)
    writer.Write()
    if writer.GetErrorCode():
        code = writer.GetErrorCode()
        raise OSError(f"could not write PNG {os.fspath(path)!r} (VTK error code {code})")


def apply_camera(scene: Scene, camera) -> None:
    """Aim ``scene``'s camera as described by a ``camera`` argument (see module docstring)."""
    if camera is None:
        scene.reset_camera()
    elif isinstance(camera, str):
        if camera not in PRESETS:
            raise InvalidArgumentError(f"camera preset must be one of {PRESETS}, got {camera!r}")
        scene.view(camera)
        scene.zoom_to_fit()
    elif isinstance(camera, Mapping):
        missing = {"position", "focal_point"} - set(camera)
        if missing:
            raise InvalidArgumentError(
                f"a camera mapping needs 'position' and 'focal_point'; missing {sorted(missing)}"
            )
        scene.set_camera(
            camera["position"],
            camera["focal_point"],
            camera.get("view_up"),
            camera.get("view_angle"),
        )
    else:
        raise InvalidArgumentError(
            f"camera must be None, a preset name or a mapping, got {type(camera).__name__}"
        )


def render_geometry_to_png(
    geometry,
    x_gb,
    path,
    width: int = 800,
    height: int = 600,
    *,
    up=(0.0, 1.0, 0.0),
    uniform_background: bool = False,
    length_scale: float = 1.0,
    camera=None,
    overlay: str | None = None,
) -> np.ndarray:
    """Render decorations on bodies at poses ``x_gb`` ((nbodies, 4, 4), ground) to a PNG.

    Returns the image as an (height, width, 3) uint8 array (row 0 at the top). Works with no
    display (EGL or OSMesa offscreen rendering).
    """
    scene = Scene()
    try:
        scene.attach_offscreen(width, height)
        scene.set_hints(up=up, uniform_background=uniform_background, length_scale=length_scale)
        scene.set_geometry(geometry)
        scene.update_poses(x_gb)
        if overlay:
            scene.set_overlay_text(text=overlay)
        apply_camera(scene, camera)
        image = scene.capture()
    finally:
        scene.close()
    write_png(image, path)
    return image


def system_hints(system) -> dict:
    """The visualization hints of a System as keyword arguments for Scene.set_hints."""
    return {
        "up": system.getUpDirection().asVec3(),
        "uniform_background": bool(system.getUseUniformBackground()),
        "length_scale": float(system.getDefaultLengthScale()),
    }


def system_geometry_and_poses(system, state) -> tuple[list, np.ndarray]:
    """(decorations of every stage up to Position, X_GB) for a System in a State.

    The State is realized to Position if it is not already; X_GB is (nbodies, 4, 4) with
    body 0 = Ground.
    """
    decorations = collect_decorations(system, state)
    return decorations.static + decorations.dynamic, decorations.x_gb


def render_to_png(
    system, state, path, width: int = 800, height: int = 600, camera=None
) -> np.ndarray:
    """Render a System in a State to a PNG (realizing it to Position if needed).

    Returns the image as an (height, width, 3) uint8 array.
    """
    geometry, x_gb = system_geometry_and_poses(system, state)
    return render_geometry_to_png(
        geometry, x_gb, path, width, height, camera=camera, **system_hints(system)
    )


class FrameWriter:
    """Writes frames ((h, w, 3) uint8 arrays) as a PNG sequence or an MP4 video.

    ``FrameWriter("out/frame_%05d.png")`` or ``FrameWriter("out_dir")`` writes numbered PNGs
    (``frame_00000.png``...); ``FrameWriter("movie.mp4", fps=30)`` writes H.264 video and needs
    the package ``imageio-ffmpeg``. Use as a context manager, or call ``close()``.
    """

    def __init__(self, path, fps: float = 30.0) -> None:
        self.path = os.fspath(path)
        self.fps = float(fps)
        if not np.isfinite(self.fps) or self.fps <= 0.0:
            raise InvalidArgumentError(f"fps must be > 0, got {fps}")
        self.count = 0
        self._video = None
        self._size = None
        self.is_video = self.path.lower().endswith(".mp4")
        if self.is_video:
            try:
                import imageio_ffmpeg
            except ImportError as exc:
                raise RuntimeError(
                    "writing MP4 needs the optional package imageio-ffmpeg "
                    "(pip install imageio-ffmpeg); write a PNG sequence instead, e.g. "
                    "FrameWriter('frames/frame_%05d.png')"
                ) from exc
            self._ffmpeg = imageio_ffmpeg
            os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        else:
            if "%" not in self.path:
                self.path = os.path.join(self.path, "frame_%05d.png")
            os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)

    def write(self, image: np.ndarray) -> None:
        """Append one frame; every frame must have the size of the first."""
        img = np.asarray(image)
        if img.ndim != 3 or img.shape[2] != 3 or img.dtype != np.uint8:
            raise InvalidArgumentError(f"frames must be (h, w, 3) uint8, got {img.shape}")
        if self._size is None:
            self._size = img.shape[:2]
        elif img.shape[:2] != self._size:
            raise InvalidArgumentError(
                f"frame {self.count} is {img.shape[1]}x{img.shape[0]}, "
                f"expected {self._size[1]}x{self._size[0]}"
            )
        if self.is_video:
            if self._video is None:
                h, w = self._size
                self._video = self._ffmpeg.write_frames(
                    self.path, (w, h), fps=self.fps, macro_block_size=2, quality=7
                )
                self._video.send(None)
            self._video.send(np.ascontiguousarray(img))
        else:
            write_png(img, self.path % self.count)
        self.count += 1

    def close(self) -> None:
        """Finish the file (needed for MP4)."""
        if self._video is not None:
            self._video.close()
            self._video = None

    def __enter__(self) -> FrameWriter:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
