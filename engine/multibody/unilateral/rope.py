"""Rope: the distance between a point on one body and a point on another may not exceed
a length limit (Simbody's ConditionalConstraint.h). perr = limit - |p2 - p1|."""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.common.state import State
from engine.math.vec import as_vec3
from engine.multibody.unilateral.unilateral_contact import (
    ContactRows,
    UnilateralContact,
    body_frame,
    check_positive,
    mobod_of,
    station_rows,
)


class Rope(UnilateralContact):
    """``Rope(mobod1, point1, mobod2, point2, defaultLengthLimit, minCOR)``; points are
    stations in their bodies' frames, the limit in metres."""

    def __init__(self, mobod1, point1, mobod2, point2, defaultLengthLimit, minCOR) -> None:  # noqa: N803
        super().__init__(1.0, minCOR)
        self._b1 = mobod_of(mobod1, "Rope")
        self._b2 = mobod_of(mobod2, "Rope")
        if self._b1 is self._b2:
            raise InvalidArgumentError("Rope: the two ends must be on different bodies")
        self._p1 = as_vec3(point1, "Rope: point1")
        self._p2 = as_vec3(point2, "Rope: point2")
        self._length = check_positive(defaultLengthLimit, "Rope: defaultLengthLimit")

    def _bodies(self) -> list:
        return [self._b1, self._b2]

    def getDefaultLengthLimit(self) -> float:
        return self._length

    def setDefaultLengthLimit(self, length: float) -> None:
        self._length = check_positive(length, "Rope.setDefaultLengthLimit")

    def _rows(self, state: State, matter) -> ContactRows:
        R1, o1 = body_frame(matter, state, self._b1)
        R2, o2 = body_frame(matter, state, self._b2)
        p1 = o1 + R1 @ self._p1
        p2 = o2 + R2 @ self._p2
        r = p2 - p1
        dist = float(np.linalg.norm(r))
        d = r / dist if dist > 0 else np.zeros(3)
        row = -station_rows(
            matter,
            state,
            self._b1.getMobilizedBodyIndex(),
            p1,
            self._b2.getMobilizedBodyIndex(),
            p2,
            [d],
        )[0]
        return ContactRows(self._length - dist, row, None, 0.5 * (p1 + p2))
