"""Force.TwoPointLinearSpring: a linear spring between two body stations."""

from __future__ import annotations

from engine.common.state import State
from engine.forces.force import Force
from engine.forces.state_parameters import StiffnessParameter
from engine.forces.two_point_force import TwoPointForce


class TwoPointLinearSpring(StiffnessParameter, TwoPointForce):
    """TwoPointLinearSpring(forces, body1, station1, body2, station2, k, x0).

    Tension ``k (d - x0)`` along the line (d the stations' distance, k >= 0 in N/m,
    x0 >= 0 the rest length in m); potential energy ``k (d - x0)^2 / 2``. k and x0
    live in the State: ``setStiffness`` / ``setRestLength`` invalidate Dynamics stage.
    """

    def __init__(self, forces, body1, station1, body2, station2, k: float, x0: float) -> None:
        self._bind(forces)
        defaults = {
            "k": self._nonnegative(k, "stiffness"),
            "x0": self._nonnegative(x0, "rest length"),
        }
        super().__init__(forces, body1, station1, body2, station2, defaults)

    def setDefaultRestLength(self, x0: float) -> TwoPointLinearSpring:
        return self._set_default(x0=self._nonnegative(x0, "rest length"))

    def getDefaultRestLength(self) -> float:
        return self._defaults["x0"]

    def setRestLength(self, state: State, x0: float) -> None:
        self._update(state, x0=self._nonnegative(x0, "rest length"))

    def getRestLength(self, state: State) -> float:
        return self._params(state)["x0"]

    def calcForce(self, state: State, bodyForces, particleForces, mobilityForces) -> None:
        p = self._params(state)
        e, d = self._direction(state, needed=p["k"] != 0 and p["x0"] != 0)
        if e is not None:
            self._apply_tension(state, bodyForces, e, p["k"] * (d - p["x0"]))

    def calcPotentialEnergy(self, state: State) -> float:
        p = self._params(state)
        _, d = self._direction(state, needed=False)
        x = d - p["x0"]
        return 0.5 * p["k"] * x * x


Force.TwoPointLinearSpring = TwoPointLinearSpring  # type: ignore[attr-defined]
