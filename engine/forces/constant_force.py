"""Force.ConstantForce: a force fixed in Ground applied at a body station."""

from __future__ import annotations

import numpy as np

from engine.common.stage import Stage
from engine.common.state import State
from engine.forces.compiled_terms import STATION_FORCE
from engine.forces.force import Force


class ConstantForce(Force):
    """ConstantForce(forces, mobod, station, force).

    The force f_G (N, in Ground) acts at the station (m, in the body frame); no
    potential energy. The values live in the State: ``setForce`` /
    ``setStation`` invalidate Dynamics stage.
    """

    _PARAMS_INVALIDATE = Stage.Dynamics

    def __init__(self, forces, mobod, station, force) -> None:
        self._bind(forces)
        self._mobod = self._check_mobod(mobod)
        s = self._vec(station, 3, "station")
        f = self._vec(force, 3, "force")
        super().__init__(forces, {"station": s, "f": f})

    def getMobilizedBody(self):
        return self._mobod

    def setDefaultStation(self, station) -> ConstantForce:
        return self._set_default(station=self._vec(station, 3, "station"))

    def setDefaultForce(self, force) -> ConstantForce:
        return self._set_default(f=self._vec(force, 3, "force"))

    def getDefaultStation(self) -> np.ndarray:
        return self._default("station")

    def getDefaultForce(self) -> np.ndarray:
        return self._default("f")

    def setStation(self, state: State, station) -> None:
        self._update(state, station=self._vec(station, 3, "station"))

    def setForce(self, state: State, force) -> None:
        self._update(state, f=self._vec(force, 3, "force"))

    def getStation(self, state: State) -> np.ndarray:
        return self._param(state, "station")

    def getForce(self, state: State) -> np.ndarray:
        return self._param(state, "f")

    def calcForce(self, state: State, bodyForces, particleForces, mobilityForces) -> None:
        p = self._params(state)
        self._mobod.applyForceToBodyPoint(state, p["station"], p["f"], bodyForces)

    def _compiled_term(self, state: State, excluded: list[int]):
        p = self._params(state)
        s, f = p["station"], p["f"]
        b = self._mobod.getMobilizedBodyIndex()
        return STATION_FORCE, (b,), (s[0], s[1], s[2], f[0], f[1], f[2])


Force.ConstantForce = ConstantForce  # type: ignore[attr-defined]
