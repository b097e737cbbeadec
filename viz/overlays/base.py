"""Overlay: the base of the teaching overlays (a set of actors shown on or off together)."""

from __future__ import annotations

import numpy as np
from vtkmodules.util.numpy_support import numpy_to_vtk, numpy_to_vtkIdTypeArray
from vtkmodules.vtkCommonCore import vtkPoints
from vtkmodules.vtkCommonDataModel import vtkCellArray, vtkPolyData
from vtkmodules.vtkRenderingCore import vtkActor, vtkPolyDataMapper


class Overlay:
    """Actors added to a renderer by ``attach`` and removed by ``detach``; hidden until the
    first ``update`` with data. Subclasses fill ``self.props`` and implement ``update``."""

    def __init__(self) -> None:
        self.props: list = []
        self.renderer = None

    def attach(self, renderer) -> None:
        """Add the actors to ``renderer`` (a vtkRenderer)."""
        if self.renderer is renderer:
            return
        self.detach()
        for prop in self.props:
            renderer.AddViewProp(prop)
        self.renderer = renderer

    def detach(self) -> None:
        """Remove the actors from their renderer (idempotent)."""
        if self.renderer is None:
            return
        for prop in self.props:
            self.renderer.RemoveViewProp(prop)
        self.renderer = None

    @property
    def attached(self) -> bool:
        return self.renderer is not None


def line_actor(color, width: float = 2.0) -> tuple[vtkActor, vtkPolyData]:
    """An unlit, unpickable polyline actor and the vtkPolyData it draws."""
    poly = vtkPolyData()
    mapper = vtkPolyDataMapper()
    mapper.SetInputData(poly)
    actor = vtkActor()
    actor.SetMapper(mapper)
    actor.PickableOff()
    prop = actor.GetProperty()
    prop.SetColor(*color)
    prop.SetLineWidth(width)
    prop.LightingOff()
    return actor, poly


def set_polylines(poly: vtkPolyData, points: np.ndarray, runs: list[int]) -> None:
    """Make ``poly`` hold polylines through ``points`` ((n, 3)): consecutive runs of the
    given lengths (each run of at least 2 points is one polyline)."""
    pts = vtkPoints()
    pts.SetData(numpy_to_vtk(np.ascontiguousarray(points, dtype=np.float64), deep=True))
    cells = vtkCellArray()
    offsets = [0]
    conn: list[int] = []
    start = 0
    for n in runs:
        if n >= 2:
            conn.extend(range(start, start + n))
            offsets.append(len(conn))
        start += n
    cells.SetData(
        numpy_to_vtkIdTypeArray(np.array(offsets, dtype=np.int64), deep=True),
        numpy_to_vtkIdTypeArray(np.array(conn, dtype=np.int64), deep=True),
    )
    poly.SetPoints(pts)
    poly.SetLines(cells)
    poly.Modified()
