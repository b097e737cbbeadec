"""ContactPointsOverlay: contact points as dots, with the normal and the friction part of each
contact force as arrows of two colours, and a legend at the lower left (above the orientation axes).

The arrows start at the contact point; ``|F| * metres_per_newton`` long with a constant shaft
width (as the force arrows overlay). The dots are drawn on top of the surfaces they lie on
(a contact point is inside both touching shapes by the penetration depth).
"""

from __future__ import annotations

import numpy as np
from vtkmodules.util.numpy_support import numpy_to_vtk
from vtkmodules.vtkCommonCore import vtkPoints
from vtkmodules.vtkCommonDataModel import vtkPolyData
from vtkmodules.vtkFiltersSources import vtkSphereSource
from vtkmodules.vtkRenderingCore import vtkActor, vtkGlyph3DMapper

from viz.overlays.base import Overlay
from viz.overlays.force_arrows import _Arrows, _legend_line, nice_force

POINT_COLOR = (0.05, 0.05, 0.05)
NORMAL_COLOR = (0.9, 0.15, 0.1)
FRICTION_COLOR = (0.55, 0.15, 0.9)


class ContactPointsOverlay(Overlay):
    """``update(points, normal, friction, metres_per_newton, width, radius)``: dots of
    ``radius`` at the (n, 3) contact points and the (n, 3) normal and friction forces as
    arrows (all in Ground; m and N)."""

    LINE_HEIGHT = 20
    BOTTOM = 64  # pixels above the bottom edge (the orientation axes sit below)

    def __init__(self) -> None:
        super().__init__()
        self._sphere = vtkSphereSource()
        self._sphere.SetThetaResolution(12)
        self._sphere.SetPhiResolution(8)
        self._points = vtkPolyData()
        mapper = vtkGlyph3DMapper()
        mapper.SetInputData(self._points)
        mapper.SetSourceConnection(self._sphere.GetOutputPort())
        mapper.ScalingOff()
        # drawn over the touching surfaces, which hide the point by the penetration depth
        mapper.SetResolveCoincidentTopologyToPolygonOffset()
        self.point_actor = vtkActor()
        self.point_actor.SetMapper(mapper)
        self.point_actor.PickableOff()
        self.point_actor.GetProperty().SetColor(*POINT_COLOR)
        self.normal = _Arrows(NORMAL_COLOR)
        self.friction = _Arrows(FRICTION_COLOR)
        self.legend = {
            "normal": _legend_line(NORMAL_COLOR),
            "friction": _legend_line(FRICTION_COLOR),
            "scale": _legend_line((0.1, 0.1, 0.12)),
        }
        for line in self.legend.values():
            line.GetTextProperty().SetJustificationToLeft()
        self.props = [self.point_actor, self.normal.actor, self.friction.actor]
        self.props += list(self.legend.values())
        self.count = 0

    def update(self, points, normal, friction, metres_per_newton, width, radius) -> None:
        points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        normal = np.asarray(normal, dtype=np.float64).reshape(-1, 3)
        friction = np.asarray(friction, dtype=np.float64).reshape(-1, 3)
        self.count = len(points)
        pts = vtkPoints()
        pts.SetData(numpy_to_vtk(np.ascontiguousarray(points), deep=True))
        self._points.SetPoints(pts)
        self._points.Modified()
        self._sphere.SetRadius(radius)
        self.point_actor.SetVisibility(self.count > 0)
        n_normal = self.normal.set(points, normal, metres_per_newton, width)
        n_friction = self.friction.set(points, friction, metres_per_newton, width)
        reference = nice_force(1.0 / metres_per_newton) if metres_per_newton > 0 else 1.0
        self.legend["normal"].SetInput(f"contact normal forces ({self.count} points)")
        self.legend["friction"].SetInput("contact friction forces")
        self.legend["scale"].SetInput(
            f"contact arrows: {reference:g} N = {reference * metres_per_newton:.3g} m"
        )
        rows = [("scale", self.count > 0), ("friction", n_friction > 0)]
        rows.append(("normal", self.count > 0 or n_normal > 0))
        row = 0
        for key, shown in rows:
            line = self.legend[key]
            line.SetVisibility(shown)
            if shown:
                coord = line.GetPositionCoordinate()
                coord.SetCoordinateSystemToViewport()
                coord.SetValue(8, self.BOTTOM + self.LINE_HEIGHT * row)
                row += 1
