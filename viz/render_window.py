"""Offscreen render-window creation and pixel capture (no Qt, works with no DISPLAY).

With no X display on Linux the window is created directly as an EGL window (falling back to
OSMesa), which avoids VTK first trying, and complaining about, a missing X server. Multisampling
is always off: with software OpenGL it costs 3-5x for little gain.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import vtkmodules.vtkRenderingOpenGL2  # noqa: F401  (registers the OpenGL implementations)
from vtkmodules.util.numpy_support import vtk_to_numpy
from vtkmodules.vtkRenderingCore import vtkRenderWindow, vtkWindowToImageFilter

from engine.common.exceptions import InvalidArgumentError


def _headless() -> bool:
    return sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    )


def create_offscreen_window(width: int, height: int):
    """A new offscreen vtkRenderWindow of ``width`` x ``height`` pixels, multisampling off."""
    w, h = int(width), int(height)
    if w <= 0 or h <= 0:
        raise InvalidArgumentError(f"window size must be positive, got {w} x {h}")
    window = None
    if _headless():
        from vtkmodules.vtkRenderingOpenGL2 import vtkEGLRenderWindow, vtkOSOpenGLRenderWindow

        for cls in (vtkEGLRenderWindow, vtkOSOpenGLRenderWindow):
            candidate = cls()
            if candidate.SupportsOpenGL():
                window = candidate
                break
    if window is None:
        window = vtkRenderWindow()
    window.SetOffScreenRendering(1)
    window.SetMultiSamples(0)
    window.SetSize(w, h)
    return window


def capture_rgb(render_window) -> np.ndarray:
    """The window's current back-buffer pixels as an (height, width, 3) uint8 array.

    Row 0 is the top of the image. Call after rendering.
    """
    grab = vtkWindowToImageFilter()
    grab.SetInput(render_window)
    grab.SetInputBufferTypeToRGB()
    grab.ReadFrontBufferOff()
    grab.ShouldRerenderOff()
    grab.Update()
    image = grab.GetOutput()
    w, h, _ = image.GetDimensions()
    pixels = vtk_to_numpy(image.GetPointData().GetScalars()).reshape(h, w, -1)
    return np.ascontiguousarray(pixels[::-1, :, :3])
