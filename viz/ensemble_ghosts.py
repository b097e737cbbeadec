"""EnsembleGhosts: translucent spheres at the body origins of many ensemble members, one
colour per member (its parameter's place in the ensemble), drawn as one glyph mapper."""

from __future__ import annotations

import numpy as np
from vtkmodules.util.numpy_support import numpy_to_vtk
from vtkmodules.vtkCommonCore import vtkPoints
from vtkmodules.vtkCommonDataModel import vtkPolyData
from vtkmodules.vtkFiltersSources import vtkSphereSource
from vtkmodules.vtkRenderingCore import vtkActor, vtkGlyph3DMapper, vtkRenderer

#: opacity of the ghosts
OPACITY = 0.35


class EnsembleGhosts:
    """``update(points, colours)``: a sphere of ``radius`` (m) at each of the (n, 3) points
    (Ground frame), coloured by the (n, 3) RGB rows in [0, 1]; added to ``renderer``."""

    def __init__(self, renderer: vtkRenderer, radius: float = 0.06) -> None:
        self.sphere = vtkSphereSource()
        self.sphere.SetRadius(radius)
        self.sphere.SetThetaResolution(12)
        self.sphere.SetPhiResolution(8)
        self.poly = vtkPolyData()
        self.mapper = vtkGlyph3DMapper()
        self.mapper.SetInputData(self.poly)
        self.mapper.SetSourceConnection(self.sphere.GetOutputPort())
        self.mapper.ScalingOff()
        self.mapper.SetScalarModeToUsePointData()
        self.mapper.SetColorModeToDirectScalars()
        self.actor = vtkActor()
        self.actor.SetMapper(self.mapper)
        self.actor.PickableOff()
        self.actor.GetProperty().SetOpacity(OPACITY)
        self.renderer = renderer
        renderer.AddActor(self.actor)
        self._arrays: tuple = ()

    @property
    def count(self) -> int:
        return self.poly.GetNumberOfPoints()

    def update(self, points: np.ndarray, colours: np.ndarray) -> None:
        pts = np.ascontiguousarray(points, dtype=np.float64).reshape(-1, 3)
        rgb = np.ascontiguousarray(np.clip(colours, 0, 1) * 255, dtype=np.uint8).reshape(-1, 3)
        vtk_pts = vtkPoints()
        vtk_pts.SetData(numpy_to_vtk(pts, deep=True))
        scalars = numpy_to_vtk(rgb, deep=True)
        scalars.SetName("colours")
        self.poly.SetPoints(vtk_pts)
        self.poly.GetPointData().SetScalars(scalars)
        self.poly.Modified()
        self._arrays = (vtk_pts, scalars)

    def points(self) -> np.ndarray:
        """(n, 3) the sphere centres drawn now."""
        from vtkmodules.util.numpy_support import vtk_to_numpy

        pts = self.poly.GetPoints()
        return np.zeros((0, 3)) if pts is None else vtk_to_numpy(pts.GetData()).reshape(-1, 3)

    def remove(self) -> None:
        self.renderer.RemoveActor(self.actor)
