"""Pixels of a Scene: as drawn in its window, or re-rendered offscreen at another size.

``capture_window(render_window)`` reads the last rendered frame through vtkWindowToImageFilter
(back buffer, no re-render), which also works for a Qt widget's window where grabbing the
widget gives black. ``capture_scene_at(scene, width, height)`` draws the Scene's renderer (the
same actors, overlays and camera) into a temporary offscreen window of that size and puts the
renderer back. Images are (height, width, 3) uint8 arrays, row 0 at the top.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from viz.render_window import capture_rgb, create_offscreen_window

#: Largest side accepted for an offscreen capture (pixels).
MAX_CAPTURE_SIDE = 8192


def capture_window(render_window) -> np.ndarray:
    """The window's last rendered frame, without rendering again."""
    return capture_rgb(render_window)


def capture_scene_at(scene, width: int, height: int) -> np.ndarray:
    """Render ``scene`` offscreen at ``width`` x ``height`` pixels with its current camera
    (the view angle is kept: another aspect ratio shows more or less at the sides)."""
    w, h = int(width), int(height)
    if not (0 < w <= MAX_CAPTURE_SIDE and 0 < h <= MAX_CAPTURE_SIDE):
        raise InvalidArgumentError(
            f"image size must be 1 to {MAX_CAPTURE_SIDE} pixels a side, got {w} x {h}"
        )
    renderer = scene.renderer
    home = scene.render_window
    if home is not None:
        home.RemoveRenderer(renderer)
    window = create_offscreen_window(w, h)
    try:
        window.AddRenderer(renderer)
        renderer.ResetCameraClippingRange()
        window.Render()
        image = capture_rgb(window)
        window.RemoveRenderer(renderer)
    finally:
        window.Finalize()
        if home is not None:
            home.AddRenderer(renderer)
    return image
