"""Default decorations Simbody draws for some constraints (in Ground, Position stage).

Rod: a line between its two points plus a small sphere at each end; Ball: a sphere at
each of the two points; Weld: a small frame at each of the two frames. Positions are
computed from the State, so these are dynamic (regenerated every frame).
"""

from __future__ import annotations

import numpy as np

from engine.common.decorative_geometry import (
    DecorativeFrame,
    DecorativeLine,
    DecorativeSphere,
    Orange,
    Yellow,
)
from engine.math.rotation import Rotation
from engine.math.transform import Transform


def _station_G(constraint, state, k: int, s_B) -> np.ndarray:
    mobod = constraint.getMobilizedBodyFromConstrainedBody(k)
    return np.asarray(mobod.findStationLocationInGround(state, s_B), dtype=float)


def _sphere_at(p_G: np.ndarray, radius: float, color) -> DecorativeSphere:
    s = DecorativeSphere(radius)
    s.setBodyId(0)
    s.setTransform(Transform(Rotation(), p_G))
    s.setColor(color)
    return s


def rod_line(rod, state) -> list:
    p1 = _station_G(rod, state, 0, rod._p1)
    p2 = _station_G(rod, state, 1, rod._p2)
    line = DecorativeLine(p1, p2)
    line.setBodyId(0)
    line.setColor(Orange)
    line.setLineThickness(3)
    r = 0.02 * rod.getDefaultRodLength()
    return [line, _sphere_at(p1, r, Orange), _sphere_at(p2, r, Orange)]


def ball_points(ball, state) -> list:
    r = 0.02
    return [
        _sphere_at(_station_G(ball, state, 0, ball._p1), r, Yellow),
        _sphere_at(_station_G(ball, state, 1, ball._p2), r, Orange),
    ]


def weld_frames(weld, state) -> list:
    out = []
    for k, (R, o) in enumerate(((weld._R1, weld._o1), (weld._R2, weld._o2))):
        mobod = weld.getMobilizedBodyFromConstrainedBody(k)
        frame = DecorativeFrame(0.1)
        frame.setBodyId(mobod.getMobilizedBodyIndex())
        frame.setTransform(Transform(Rotation(R), o))
        frame.setColor(Yellow if k == 0 else Orange)
        out.append(frame)
    return out
