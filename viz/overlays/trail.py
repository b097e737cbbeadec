"""TrailOverlay: the path a point of a body has traced, as a polyline in Ground."""

from __future__ import annotations

import numpy as np

from viz.overlays.base import Overlay, line_actor, set_polylines

TRAIL_COLOR = (0.85, 0.15, 0.55)


class TrailOverlay(Overlay):
    """Keeps the last ``capacity`` points given to ``add`` (Ground, model units) and draws
    them as one polyline. ``clear()`` starts a new trail (a reset, another body)."""

    def __init__(self, capacity: int = 3000, color=TRAIL_COLOR, width: float = 2.5) -> None:
        super().__init__()
        self.capacity = int(capacity)
        self.actor, self._poly = line_actor(color, width)
        self.props = [self.actor]
        self._points = np.zeros((0, 3))

    @property
    def points(self) -> np.ndarray:
        return self._points

    def clear(self) -> None:
        self._points = np.zeros((0, 3))
        set_polylines(self._poly, self._points, [])

    def add(self, point) -> None:
        """Append one point (skipped when it repeats the last one) and redraw."""
        p = np.asarray(point, dtype=np.float64).reshape(1, 3)
        if not np.all(np.isfinite(p)):
            return
        if len(self._points) and np.array_equal(self._points[-1], p[0]):
            return
        self._points = np.concatenate((self._points, p))[-self.capacity :]
        set_polylines(self._poly, self._points, [len(self._points)])
