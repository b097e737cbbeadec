"""BodyFramesOverlay: a red-green-blue triad (x, y, z axes) at every body's origin."""

from __future__ import annotations

import numpy as np
from vtkmodules.util.numpy_support import numpy_to_vtk

from viz.overlays.base import Overlay, line_actor, set_polylines

AXIS_COLORS = ((0.9, 0.1, 0.1), (0.1, 0.75, 0.1), (0.15, 0.3, 0.95))


class BodyFramesOverlay(Overlay):
    """``update(x_gb, length)``: axes of length ``length`` along each body's x, y, z."""

    def __init__(self, width: float = 3.0, include_ground: bool = False) -> None:
        super().__init__()
        self.include_ground = include_ground
        self.actor, self._poly = line_actor((1.0, 1.0, 1.0), width)
        self.actor.GetMapper().SetScalarModeToUseCellData()
        self.props = [self.actor]

    def update(self, x_gb, length: float) -> None:
        x = np.asarray(x_gb, dtype=np.float64)
        if not self.include_ground:
            x = x[1:]
        n = len(x)
        origins = x[:, :3, 3]
        ends = origins[:, None, :] + length * np.transpose(x[:, :3, :3], (0, 2, 1))  # (n, 3, 3)
        points = np.empty((n, 3, 2, 3))
        points[:, :, 0] = origins[:, None, :]
        points[:, :, 1] = ends
        set_polylines(self._poly, points.reshape(-1, 3), [2] * (3 * n))
        colors = np.tile(np.array(AXIS_COLORS) * 255, (n, 1)).astype(np.uint8)
        array = numpy_to_vtk(colors, deep=True)
        array.SetName("axis colours")
        self._poly.GetCellData().SetScalars(array)
