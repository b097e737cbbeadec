"""SpringCoilsOverlay: each two-point spring drawn as a helix between its stations."""

from __future__ import annotations

import numpy as np

from viz.overlays.base import Overlay, line_actor, set_polylines

COIL_COLOR = (0.95, 0.55, 0.05)


def helix(p1, p2, radius: float, turns: int = 10, per_turn: int = 16) -> np.ndarray:
    """Points of a coil from ``p1`` to ``p2`` ((3,) each): straight end pieces of 10% of the
    length, ``turns`` turns of ``radius`` between them."""
    p1, p2 = np.asarray(p1, dtype=np.float64), np.asarray(p2, dtype=np.float64)
    axis = p2 - p1
    length = float(np.linalg.norm(axis))
    if length < 1e-12:
        return np.array([p1, p2])
    e = axis / length
    helper = np.eye(3)[int(np.argmin(np.abs(e)))]
    a = np.cross(e, helper)
    a /= np.linalg.norm(a)
    b = np.cross(e, a)
    n = turns * per_turn
    s = np.linspace(0.0, 1.0, n + 1)
    angle = 2.0 * np.pi * turns * s
    along = 0.1 + 0.8 * s
    coil = (
        p1
        + np.outer(along * length, e)
        + radius * (np.outer(np.cos(angle), a) + np.outer(np.sin(angle), b))
    )
    start = p1 + 0.1 * axis
    end = p1 + 0.9 * axis
    return np.vstack(([p1, start], coil, [end, p2]))


class SpringCoilsOverlay(Overlay):
    """``update(pairs, radius)``: a coil of ``radius`` for each (2, 3) station pair."""

    def __init__(self, color=COIL_COLOR, width: float = 2.5) -> None:
        super().__init__()
        self.actor, self._poly = line_actor(color, width)
        self.props = [self.actor]

    def update(self, pairs, radius: float) -> None:
        pairs = np.asarray(pairs, dtype=np.float64).reshape(-1, 2, 3)
        coils = [helix(p1, p2, radius) for p1, p2 in pairs]
        points = np.vstack(coils) if coils else np.zeros((0, 3))
        set_polylines(self._poly, points, [len(c) for c in coils])
