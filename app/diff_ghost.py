"""DiffGhost: the other State of a State diff drawn over the 3-D view.

After a comparison of two recorded moments, the bodies are drawn a second time, translucent,
where the other State has them (the "ghost"); the bodies that moved between the two States
are highlighted: their ghost is orange and an orange wireframe copy follows each of them in
the live view. ``show(geometry, x_gb_other, moved)`` builds the actors (body-fixed
decorations of bodies other than Ground); ``follow(x_gb)`` moves the highlight copies with
the displayed State; ``clear()`` removes everything. GUI thread only.
"""

from __future__ import annotations

import numpy as np
from vtkmodules.vtkCommonMath import vtkMatrix4x4
from vtkmodules.vtkRenderingCore import vtkActor

from viz.vtk_builder import VtkGeometryBuilder

GHOST_COLOUR = (0.45, 0.65, 0.95)
MOVED_COLOUR = (1.0, 0.55, 0.0)
GHOST_OPACITY = 0.3
MOVED_GHOST_OPACITY = 0.45
#: A body moved if its origin moved more than this (model length units) or it turned more
#: than this (radians, about any axis).
MOVE_TOLERANCE = 1e-9


def moved_bodies(x_gb_a: np.ndarray, x_gb_b: np.ndarray) -> list[int]:
    """Indices of the bodies (not Ground) whose pose differs between the two pose stacks."""
    a, b = np.asarray(x_gb_a), np.asarray(x_gb_b)
    out = []
    for k in range(1, min(len(a), len(b))):
        moved = np.linalg.norm(a[k, :3, 3] - b[k, :3, 3]) > MOVE_TOLERANCE
        turned = np.abs(a[k, :3, :3] - b[k, :3, :3]).max() > MOVE_TOLERANCE
        if moved or turned:
            out.append(k)
    return out


class DiffGhost:
    """See the module docstring. ``renderer``: the 3-D view's vtkRenderer."""

    def __init__(self, renderer) -> None:
        self.renderer = renderer
        self._builder = VtkGeometryBuilder()
        #: (body, X_BD: the piece's frame on its body, actor) per ghost piece.
        self.ghost_actors: list[tuple[int, np.ndarray, vtkActor]] = []
        self.highlight_actors: list[tuple[int, np.ndarray, vtkMatrix4x4, vtkActor]] = []
        self._items: list = []  # the drawn items own their VTK sources: keep them alive
        self.moved: list[int] = []

    @property
    def visible(self) -> bool:
        return bool(self.ghost_actors)

    def clear(self) -> None:
        for *_, actor in self.ghost_actors:
            self.renderer.RemoveActor(actor)
        for *_, actor in self.highlight_actors:
            self.renderer.RemoveActor(actor)
        self.ghost_actors, self.highlight_actors, self._items = [], [], []
        self.moved = []

    def _actor(self, item, world: np.ndarray, colour, opacity: float, wireframe: bool):
        matrix = vtkMatrix4x4()
        matrix.DeepCopy(world.reshape(-1).tolist())
        actor = vtkActor()
        actor.SetMapper(item.mapper)
        actor.SetUserMatrix(matrix)
        actor.PickableOff()
        prop = actor.GetProperty()
        prop.SetColor(*colour)
        prop.SetOpacity(opacity)
        if wireframe:
            prop.SetRepresentationToWireframe()
            prop.SetLineWidth(1.0)
            prop.LightingOff()
        self.renderer.AddActor(actor)
        return matrix, actor

    def show(self, geometry, x_gb_other: np.ndarray, x_gb_shown: np.ndarray) -> None:
        """Draw the bodies at ``x_gb_other`` as a ghost and highlight those that moved
        between ``x_gb_shown`` (the displayed State) and it."""
        self.clear()
        self.moved = moved_bodies(x_gb_shown, x_gb_other)
        moved = set(self.moved)
        items = [
            it
            for it in self._builder.build(list(geometry))
            if it.style == "actor" and it.mapper is not None and it.visible and it.body_id > 0
        ]
        self._items = items
        for it in items:
            if it.body_id >= len(x_gb_other):
                continue
            is_moved = it.body_id in moved
            colour = MOVED_COLOUR if is_moved else GHOST_COLOUR
            opacity = MOVED_GHOST_OPACITY if is_moved else GHOST_OPACITY
            _, actor = self._actor(
                it, x_gb_other[it.body_id] @ it.local, colour, opacity, wireframe=False
            )
            self.ghost_actors.append((it.body_id, it.local, actor))
            if is_moved:
                matrix, actor = self._actor(
                    it, x_gb_shown[it.body_id] @ it.local, MOVED_COLOUR, 0.7, wireframe=True
                )
                self.highlight_actors.append((it.body_id, it.local, matrix, actor))

    def follow(self, x_gb: np.ndarray | None) -> None:
        """Move the highlight copies to the displayed poses ``x_gb``."""
        if x_gb is None:
            return
        for body, local, matrix, _ in self.highlight_actors:
            if body < len(x_gb):
                matrix.DeepCopy((x_gb[body] @ local).reshape(-1).tolist())
