"""TwoPointForce: common base of the forces acting along the line between two stations."""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import NonPhysicalError
from engine.common.stage import Stage
from engine.common.stage_arg import stage_value
from engine.common.state import State
from engine.forces.force import Force


class TwoPointForce(Force):
    """A force along the line from station 1 (fixed on body 1) to station 2 (on body 2).

    Stations are given in their body frames (m). Subclasses compute a scalar tension
    ``t``: body 1 gets ``t e`` at station 1 and body 2 gets ``-t e`` at station 2, with
    ``e`` the unit vector from station 1 to station 2 (t > 0 pulls them together).
    Drawn as a line between the stations (a DecorativeLine in Ground, Position stage).
    """

    _PARAMS_INVALIDATE = Stage.Dynamics
    _LINE_COLOR = (0.5, 0.5, 0.5)

    def __init__(self, forces, body1, station1, body2, station2, defaults: dict) -> None:
        self._mobod1 = self._check_mobod(body1, "body1")
        self._mobod2 = self._check_mobod(body2, "body2")
        if body1.getMatterSubsystem() is not body2.getMatterSubsystem():
            raise NonPhysicalError(
                f"{self._where()}: body1 and body2 belong to different matter subsystems"
            )
        self._station1 = self._vec(station1, 3, "station1")
        self._station2 = self._vec(station2, 3, "station2")
        super().__init__(forces, defaults)

    def getBody1(self):
        return self._mobod1

    def getBody2(self):
        return self._mobod2

    def getStation1(self) -> np.ndarray:
        return self._station1.copy()

    def getStation2(self) -> np.ndarray:
        return self._station2.copy()

    def _points(self, state: State) -> tuple[np.ndarray, np.ndarray]:
        """(p_GS1, p_GS2): the two stations in Ground (Position stage)."""
        p1 = self._mobod1.findStationLocationInGround(state, self._station1)
        p2 = self._mobod2.findStationLocationInGround(state, self._station2)
        return p1, p2

    def _direction(self, state: State, needed: bool):
        """(e, d): unit vector from station 1 to 2 and the distance. When the stations
        coincide e is undefined: an error if ``needed`` (the force would be nonzero)."""
        p1, p2 = self._points(state)
        r = p2 - p1
        d = float(np.linalg.norm(r))
        if d == 0.0:
            if needed:
                raise NonPhysicalError(
                    f"{self._where()} {self._index}: its two stations coincide, so the "
                    "direction of its force is undefined"
                )
            return None, 0.0
        return r / d, d

    def _apply_tension(self, state: State, bodyForces, e: np.ndarray, t: float) -> None:
        f = t * e
        self._mobod1.applyForceToBodyPoint(state, self._station1, f, bodyForces)
        self._mobod2.applyForceToBodyPoint(state, self._station2, -f, bodyForces)

    def calcDecorativeGeometryAndAppend(self, state: State, stage: Stage, geometry: list) -> None:
        """At Position stage: a line between the two stations, in Ground."""
        if stage_value(stage, "calcDecorativeGeometryAndAppend") != Stage.Position:
            return
        from engine.common.decorative_geometry import DecorativeLine

        p1, p2 = self._points(state)
        line = DecorativeLine(p1, p2).setBodyId(0).setColor(self._LINE_COLOR)
        geometry.append(line.setLineThickness(3))
