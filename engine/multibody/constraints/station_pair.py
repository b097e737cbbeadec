"""StationPairConstraint: base of the constraints between a station on each of two bodies
(Rod, Ball): the stations' defaults and the two constrained bodies."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from engine.multibody.constraints.constraint import Constraint, as_vec3

if TYPE_CHECKING:
    from typing import Self


class StationPairConstraint(Constraint):
    """Station ``_p1`` (in body 1's frame, m) and ``_p2`` (in body 2's); body 1 and body 2
    are the constrained bodies 0 and 1."""

    def _set_stations(self, point1, point2) -> None:
        self._p1 = as_vec3(point1, f"Constraint.{self.TYPE_NAME} point1")
        self._p2 = as_vec3(point2, f"Constraint.{self.TYPE_NAME} point2")

    def getDefaultPointOnBody1(self) -> np.ndarray:
        return self._p1.copy()

    def getDefaultPointOnBody2(self) -> np.ndarray:
        return self._p2.copy()

    def setDefaultPointOnBody1(self, p) -> Self:
        self._p1 = as_vec3(p, "setDefaultPointOnBody1")
        self._matter.invalidateSubsystemTopologyCache()
        return self

    def setDefaultPointOnBody2(self, p) -> Self:
        self._p2 = as_vec3(p, "setDefaultPointOnBody2")
        self._matter.invalidateSubsystemTopologyCache()
        return self

    def getBody1Mobilizer(self):
        return self._bodies[0]

    def getBody2Mobilizer(self):
        return self._bodies[1]
