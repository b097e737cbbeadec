"""Force.TwoPointLinearDamper: a linear damper between two body stations."""

from __future__ import annotations

import numpy as np

from engine.common.state import State
from engine.forces.force import Force
from engine.forces.state_parameters import DampingParameter
from engine.forces.two_point_force import TwoPointForce


class TwoPointLinearDamper(DampingParameter, TwoPointForce):
    """TwoPointLinearDamper(forces, body1, station1, body2, station2, damping).

    Tension ``c (e . (v2 - v1))`` along the line (v1, v2 the stations' velocities in
    G, c >= 0 in N s/m): it resists the rate of separation. No potential energy. c
    lives in the State: ``setDamping`` invalidates Dynamics stage.
    """

    _LINE_COLOR = (1.0, 0.5, 0.0)

    def __init__(self, forces, body1, station1, body2, station2, damping: float) -> None:
        self._bind(forces)
        defaults = {"c": self._nonnegative(damping, "damping")}
        super().__init__(forces, body1, station1, body2, station2, defaults)

    def calcForce(self, state: State, bodyForces, particleForces, mobilityForces) -> None:
        c = self._params(state)["c"]
        v1 = self._mobod1.findStationVelocityInGround(state, self._station1)
        v2 = self._mobod2.findStationVelocityInGround(state, self._station2)
        e, _ = self._direction(state, needed=c != 0 and bool(np.any(v1 != v2)))
        if e is not None:
            self._apply_tension(state, bodyForces, e, c * float(e @ (v2 - v1)))


Force.TwoPointLinearDamper = TwoPointLinearDamper  # type: ignore[attr-defined]
