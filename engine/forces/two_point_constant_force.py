"""Force.TwoPointConstantForce: a constant force along the line between two stations."""

from __future__ import annotations

from engine.common.state import State
from engine.forces.force import Force
from engine.forces.state_parameters import ForceParameter
from engine.forces.two_point_force import TwoPointForce


class TwoPointConstantForce(ForceParameter, TwoPointForce):
    """TwoPointConstantForce(forces, body1, station1, body2, station2, force).

    ``-f e`` on body 1 at station 1 and ``+f e`` on body 2 at station 2 (e from
    station 1 to 2): f > 0 pushes the stations apart, f < 0 pulls them together (N).
    No potential energy. f lives in the State: ``setForce`` invalidates Dynamics.
    """

    _LINE_COLOR = (1.0, 1.0, 0.0)

    def __init__(self, forces, body1, station1, body2, station2, force: float) -> None:
        self._bind(forces)
        defaults = {"f": self._real(force, "force")}
        super().__init__(forces, body1, station1, body2, station2, defaults)

    def calcForce(self, state: State, bodyForces, particleForces, mobilityForces) -> None:
        f = self._params(state)["f"]
        e, _ = self._direction(state, needed=f != 0)
        if e is not None:
            self._apply_tension(state, bodyForces, e, -f)


Force.TwoPointConstantForce = TwoPointConstantForce  # type: ignore[attr-defined]
