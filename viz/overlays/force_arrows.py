"""ForceArrowsOverlay: force vectors as arrows, one colour per kind, with a scale legend.

Each kind (gravity, spring, applied, reaction, constraint) is one instanced arrow actor: an
arrow starts at the point where the force acts and points along it, ``|F| * metres_per_newton``
long (the same scale for every kind, so arrows compare), with a constant shaft width. The
legend in the lower-right corner names the colours and says how long an arrow of a round
number of newtons is.
"""

from __future__ import annotations

import math

import numpy as np
from vtkmodules.util.numpy_support import numpy_to_vtk
from vtkmodules.vtkCommonCore import vtkPoints
from vtkmodules.vtkCommonDataModel import vtkPolyData
from vtkmodules.vtkFiltersSources import vtkArrowSource
from vtkmodules.vtkRenderingCore import vtkActor, vtkGlyph3DMapper, vtkTextActor

from viz.overlays.base import Overlay

#: Colour of each kind of force (RGB in [0, 1]); also the drawing order.
FORCE_COLORS = {
    "gravity": (0.1, 0.65, 0.2),
    "spring": (0.95, 0.55, 0.05),
    "applied": (0.15, 0.35, 0.95),
    "reaction": (0.8, 0.1, 0.75),
    "constraint": (0.0, 0.7, 0.8),
}
#: Shown in the legend.
FORCE_LABELS = {
    "gravity": "gravity",
    "spring": "springs",
    "applied": "applied",
    "reaction": "joint reactions",
    "constraint": "constraint forces",
}


def nice_force(newtons: float) -> float:
    """The round number (1, 2 or 5 times a power of ten) nearest below ``newtons``."""
    if not (math.isfinite(newtons) and newtons > 0):
        return 1.0
    exponent = math.floor(math.log10(newtons))
    for mantissa in (5.0, 2.0, 1.0):
        value = mantissa * 10.0**exponent
        if value <= newtons:
            return value
    return 10.0**exponent


class _Arrows:
    """One kind's arrows: a glyph mapper over points with (length, width, width) scales."""

    def __init__(self, color) -> None:
        self.source = vtkArrowSource()
        self.source.SetTipLength(0.25)
        self.source.SetTipRadius(0.1)
        self.source.SetShaftRadius(0.035)
        self.poly = vtkPolyData()
        self.mapper = vtkGlyph3DMapper()
        self.mapper.SetInputData(self.poly)
        self.mapper.SetSourceConnection(self.source.GetOutputPort())
        self.mapper.SetOrientationArray("direction")
        self.mapper.SetOrientationModeToDirection()
        self.mapper.SetScaleArray("scale")
        self.mapper.SetScaleModeToScaleByVectorComponents()
        self.actor = vtkActor()
        self.actor.SetMapper(self.mapper)
        self.actor.PickableOff()
        prop = self.actor.GetProperty()
        prop.SetColor(*color)
        prop.SetAmbient(0.3)

    def set(self, points: np.ndarray, forces: np.ndarray, per_newton: float, width: float):
        lengths = np.linalg.norm(forces, axis=1) * per_newton
        keep = lengths > 1e-9 * max(width, 1e-12)
        points, forces, lengths = points[keep], forces[keep], lengths[keep]
        pts = vtkPoints()
        pts.SetData(numpy_to_vtk(np.ascontiguousarray(points, dtype=np.float64), deep=True))
        self.poly.SetPoints(pts)
        direction = numpy_to_vtk(np.ascontiguousarray(forces, dtype=np.float64), deep=True)
        direction.SetName("direction")
        # The arrow source is 1 long and 0.2 wide: width w means a (w / 0.2) y-z scale.
        scale = np.column_stack([lengths, np.full((len(lengths), 2), width / 0.2)])
        scale_array = numpy_to_vtk(np.ascontiguousarray(scale), deep=True)
        scale_array.SetName("scale")
        data = self.poly.GetPointData()
        data.AddArray(direction)
        data.AddArray(scale_array)
        self.poly.Modified()
        self.actor.SetVisibility(len(points) > 0)
        return len(points)


def _legend_line(color) -> vtkTextActor:
    actor = vtkTextActor()
    actor.PickableOff()
    tp = actor.GetTextProperty()
    tp.SetFontSize(14)
    tp.SetBold(True)
    tp.SetJustificationToRight()
    tp.SetVerticalJustificationToBottom()
    tp.SetColor(*color)
    tp.SetBackgroundColor(1.0, 1.0, 1.0)
    tp.SetBackgroundOpacity(0.7)
    actor.VisibilityOff()
    return actor


class ForceArrowsOverlay(Overlay):
    """``update(arrows, metres_per_newton, width)`` with ``arrows`` a mapping kind ->
    (points (n, 3), forces (n, 3)) in Ground; kinds left out draw nothing. The legend (one
    line per kind drawn, in its colour, and the scale) sits in the lower-right corner."""

    LINE_HEIGHT = 20  # pixels between legend lines

    def __init__(self) -> None:
        super().__init__()
        self.arrows = {kind: _Arrows(color) for kind, color in FORCE_COLORS.items()}
        self.legend = {kind: _legend_line(color) for kind, color in FORCE_COLORS.items()}
        self.scale_line = _legend_line((0.1, 0.1, 0.12))
        self.props = [a.actor for a in self.arrows.values()]
        self.props += [*self.legend.values(), self.scale_line]
        self.counts: dict[str, int] = {}

    def update(self, arrows: dict, metres_per_newton: float, width: float) -> None:
        self.counts = {}
        for kind, drawn in self.arrows.items():
            points, forces = arrows.get(kind, (np.zeros((0, 3)), np.zeros((0, 3))))
            points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
            forces = np.asarray(forces, dtype=np.float64).reshape(-1, 3)
            self.counts[kind] = drawn.set(points, forces, metres_per_newton, width)
        # A round force whose arrow is about 0.5 to 1 length unit long.
        reference = nice_force(1.0 / metres_per_newton) if metres_per_newton > 0 else 1.0
        length = reference * metres_per_newton
        self.scale_line.SetInput(f"arrow scale: {reference:g} N = {length:.3g} m")
        row = 1
        for kind in reversed(tuple(FORCE_COLORS)):
            line = self.legend[kind]
            shown = self.counts.get(kind, 0) > 0
            line.SetVisibility(shown)
            if shown:
                line.SetInput(FORCE_LABELS[kind])
                self._place(line, row)
                row += 1
        self.scale_line.SetVisibility(row > 1)
        self._place(self.scale_line, 0)

    def _place(self, actor: vtkTextActor, row: int) -> None:
        """Put a legend line ``row`` lines above the bottom-right corner."""
        coord = actor.GetPositionCoordinate()
        coord.SetCoordinateSystemToViewport()
        width = 1000
        if self.renderer is not None:
            width = self.renderer.GetSize()[0]
        coord.SetValue(width - 8, 8 + self.LINE_HEIGHT * row)
