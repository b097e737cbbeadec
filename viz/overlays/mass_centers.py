"""MassCentersOverlay: a marker at every body's mass centre and a larger one at the system's."""

from __future__ import annotations

import numpy as np
from vtkmodules.util.numpy_support import numpy_to_vtk
from vtkmodules.vtkCommonCore import vtkPoints
from vtkmodules.vtkCommonDataModel import vtkPolyData
from vtkmodules.vtkFiltersSources import vtkSphereSource
from vtkmodules.vtkRenderingCore import vtkActor, vtkGlyph3DMapper

from viz.overlays.base import Overlay

BODY_COLOR = (0.08, 0.08, 0.08)
SYSTEM_COLOR = (1.0, 0.75, 0.0)


def _markers(color) -> tuple[vtkActor, vtkPolyData, vtkSphereSource]:
    sphere = vtkSphereSource()
    sphere.SetThetaResolution(16)
    sphere.SetPhiResolution(12)
    poly = vtkPolyData()
    mapper = vtkGlyph3DMapper()
    mapper.SetInputData(poly)
    mapper.SetSourceConnection(sphere.GetOutputPort())
    mapper.ScalingOff()
    actor = vtkActor()
    actor.SetMapper(mapper)
    actor.PickableOff()
    actor.GetProperty().SetColor(*color)
    return actor, poly, sphere


class MassCentersOverlay(Overlay):
    """``update(body_centers, system_center, radius)``: spheres of ``radius`` at the (n, 3)
    body mass centres and one of twice the radius at the system's (None: not drawn)."""

    def __init__(self) -> None:
        super().__init__()
        self.body_actor, self._body_poly, self._body_sphere = _markers(BODY_COLOR)
        self.system_actor, self._system_poly, self._system_sphere = _markers(SYSTEM_COLOR)
        self.props = [self.body_actor, self.system_actor]

    @staticmethod
    def _set(poly: vtkPolyData, points: np.ndarray) -> None:
        pts = vtkPoints()
        pts.SetData(numpy_to_vtk(np.ascontiguousarray(points, dtype=np.float64), deep=True))
        poly.SetPoints(pts)
        poly.Modified()

    def update(self, body_centers, system_center, radius: float) -> None:
        centers = np.asarray(body_centers, dtype=np.float64).reshape(-1, 3)
        self._body_sphere.SetRadius(radius)
        self._system_sphere.SetRadius(2.0 * radius)
        self._set(self._body_poly, centers)
        self.system_actor.SetVisibility(system_center is not None)
        if system_center is not None:
            self._set(self._system_poly, np.asarray(system_center, dtype=np.float64).reshape(1, 3))
