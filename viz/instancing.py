"""GlyphGroup: many identical unit shapes (spheres, bricks, cylinders) drawn by one glyph mapper.

Drawing 1000 separate actors costs ~35 us each per frame with software OpenGL; one
vtkGlyph3DMapper draws them all in one go. Each instance keeps its own body, rigid placement
X_BD, per-axis size, and colour; per frame only the instance positions and orientations (unit
quaternions w, x, y, z) are rewritten, vectorized with numpy. Picking maps a picked world point
back to the instance whose surface it lies on. Lengths are in the model's length unit.
"""

from __future__ import annotations

import numpy as np
from vtkmodules.util.numpy_support import numpy_to_vtk
from vtkmodules.vtkCommonCore import vtkPoints
from vtkmodules.vtkCommonDataModel import vtkPolyData
from vtkmodules.vtkRenderingCore import vtkActor, vtkGlyph3DMapper

from viz.matrix_utils import quaternions_from_rotations
from viz.vtk_builder import DrawItem


class GlyphGroup:
    """One actor drawing ``items`` (same unit shape and style) with a vtkGlyph3DMapper.

    ``shape_port`` is the output port of the shared unit shape (radius / half-length 1).
    ``default_color`` is used for items with no colour request.
    """

    def __init__(self, items: list[DrawItem], shape_port, default_color) -> None:
        n = len(items)
        self.items = items
        self.shape = items[0].instance[0]
        self.body_idx = np.array([it.body_id for it in items], dtype=np.intp)
        self.x_bd = np.stack([it.x_bd for it in items])
        self.scale = np.ascontiguousarray(np.stack([it.scale for it in items]), dtype=np.float64)
        self._positions = np.zeros((n, 3))
        self._quaternions = np.tile([1.0, 0.0, 0.0, 0.0], (n, 1))
        self._rotations = np.tile(np.eye(3), (n, 1, 1))
        colors = np.empty((n, 4), dtype=np.uint8)
        for i, it in enumerate(items):
            rgb = default_color if it.color is None else it.color
            colors[i, :3] = np.clip(np.round(np.asarray(rgb) * 255.0), 0, 255)
        colors[:, 3] = 255
        self._colors = colors

        self._points = vtkPoints()
        self._points.SetData(numpy_to_vtk(self._positions, deep=False))
        self._quat_array = numpy_to_vtk(self._quaternions, deep=False)
        self._quat_array.SetName("orientation")
        scale_array = numpy_to_vtk(self.scale, deep=False)
        scale_array.SetName("scale")
        color_array = numpy_to_vtk(self._colors, deep=False)
        color_array.SetName("colors")
        self._poly = vtkPolyData()
        self._poly.SetPoints(self._points)
        pd = self._poly.GetPointData()
        for arr in (self._quat_array, scale_array, color_array):
            pd.AddArray(arr)
        self._arrays = (scale_array, color_array)

        mapper = vtkGlyph3DMapper()
        mapper.SetInputData(self._poly)
        mapper.SetSourceConnection(shape_port)
        mapper.OrientOn()
        mapper.SetOrientationModeToQuaternion()
        mapper.SetOrientationArray("orientation")
        mapper.ScalingOn()
        mapper.SetScaleModeToScaleByVectorComponents()
        mapper.SetScaleArray("scale")
        mapper.SetScaleFactor(1.0)
        mapper.ScalarVisibilityOn()
        mapper.SetScalarModeToUsePointFieldData()
        mapper.SelectColorArray("colors")
        mapper.SetColorModeToDirectScalars()
        self.mapper = mapper
        self.actor = vtkActor()
        self.actor.SetMapper(mapper)

    def __len__(self) -> int:
        return len(self.items)

    def update(self, x_gb: np.ndarray) -> None:
        """Place every instance for body poses ``x_gb`` ((nbodies, 4, 4), rigid, in ground)."""
        w = x_gb[self.body_idx] @ self.x_bd
        self._positions[:] = w[:, :3, 3]
        self._rotations = w[:, :3, :3]
        self._quaternions[:] = quaternions_from_rotations(self._rotations)
        self._points.Modified()
        self._quat_array.Modified()
        self._poly.Modified()

    def pick_instance(self, p_world) -> DrawItem | None:
        """The instance whose surface is nearest the world point ``p_world`` (a picked point)."""
        if not len(self.items):
            return None
        d = np.asarray(p_world, dtype=np.float64) - self._positions
        q = np.einsum("nji,nj->ni", self._rotations, d) / self.scale  # in unit-shape coordinates
        if self.shape == "sphere":
            surf = np.linalg.norm(q, axis=1)
        elif self.shape == "brick":
            surf = np.abs(q).max(axis=1)
        else:  # cylinder, axis y
            surf = np.maximum(np.hypot(q[:, 0], q[:, 2]), np.abs(q[:, 1]))
        miss = np.abs(surf - 1.0) * self.scale.mean(axis=1)  # roughly in length units
        return self.items[int(np.argmin(miss))]
