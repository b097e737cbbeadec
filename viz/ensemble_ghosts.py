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

    def hit(self, x: float, y: float) -> int | None:
        """The index of the sphere drawn under display point (x, y) (VTK display pixels from
        the bottom left of the render window), the one nearest the camera where several
        overlap; None if the point is on none of them."""
        centres = self.points()
        if not len(centres) or not self.actor.GetVisibility():
            return None
        display, depth = self.display_points(centres)
        renderer = self.renderer
        camera = renderer.GetActiveCamera()
        up = np.asarray(camera.GetViewUp(), dtype=np.float64)
        rim, _ = self.display_points(centres + self.sphere.GetRadius() * up)
        radius_px = np.linalg.norm(rim - display, axis=1)
        inside = np.nonzero(np.linalg.norm(display - (x, y), axis=1) <= radius_px)[0]
        if not len(inside):
            return None
        return int(inside[np.argmin(depth[inside])])

    def display_points(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(n, 2) VTK display pixels of the (n, 3) Ground points for the renderer's camera,
        and (n,) their depths (the normalized z, smaller nearer the camera)."""
        renderer = self.renderer
        camera = renderer.GetActiveCamera()
        m = camera.GetCompositeProjectionTransformMatrix(renderer.GetTiledAspectRatio(), -1, 1)
        matrix = np.array([[m.GetElement(i, j) for j in range(4)] for i in range(4)])
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        clip = np.c_[pts, np.ones(len(pts))] @ matrix.T
        ndc = clip[:, :3] / clip[:, 3:4]
        width, height = self.renderer.GetSize()
        x0, y0 = self.renderer.GetOrigin()
        display = np.c_[x0 + (ndc[:, 0] + 1) * width / 2, y0 + (ndc[:, 1] + 1) * height / 2]
        return display, ndc[:, 2]

    def remove(self) -> None:
        self.renderer.RemoveActor(self.actor)
