"""Force.MobilityLinearStop: a compliant stop keeping one coordinate within bounds."""

from __future__ import annotations

import math

from engine.common.exceptions import InvalidArgumentError
from engine.common.state import State
from engine.forces.compiled_terms import MOBILITY_STOP
from engine.forces.force import Force
from engine.forces.mobility_force import MobilityForce
from engine.multibody.mobilizers import identity_kinematics


class MobilityLinearStop(MobilityForce):
    """MobilityLinearStop(forces, mobod, whichQ, defaultStiffness, defaultDissipation,
    defaultQLow=-inf, defaultQHigh=inf).

    No force inside [qLow, qHigh]. Above: ``x = q - qHigh``, generalized force
    ``min(0, -k x (1 + d qdot))``; below: ``x = q - qLow``, ``max(0, -k x (1 - d qdot))``
    (Hunt-Crossley-like dissipation, never sticking), applied to the u with q's index
    (meaningful where that qdot = u). Potential energy ``k x^2 / 2`` outside, else 0.
    k, d >= 0; qLow <= qHigh (either may be infinite). The values live in the State:
    ``setBounds`` / ``setMaterialProperties`` invalidate Dynamics stage.
    """

    def __init__(
        self,
        forces,
        mobod,
        whichQ: int,
        defaultStiffness: float,
        defaultDissipation: float,
        defaultQLow: float = -math.inf,
        defaultQHigh: float = math.inf,
    ) -> None:
        self._bind_mobility(forces, mobod, whichQ, "q")
        k = self._nonnegative(defaultStiffness, "stiffness")
        d = self._nonnegative(defaultDissipation, "dissipation")
        lo, hi = self._bounds(defaultQLow, defaultQHigh)
        super().__init__(forces, {"k": k, "d": d, "lo": lo, "hi": hi})

    def _bounds(self, qLow, qHigh) -> tuple[float, float]:
        try:
            lo, hi = float(qLow), float(qHigh)
        except (TypeError, ValueError) as exc:
            raise InvalidArgumentError("Force.MobilityLinearStop: bounds must be numbers") from exc
        if math.isnan(lo) or math.isnan(hi):
            raise InvalidArgumentError("Force.MobilityLinearStop: a bound is NaN")
        if lo > hi:
            raise InvalidArgumentError(
                f"Force.MobilityLinearStop: the lower bound {lo} is above the upper bound {hi}"
            )
        return lo, hi

    def getWhichQ(self) -> int:
        return self._which

    # ------------------------------------------------------------- defaults
    def setDefaultBounds(self, defaultQLow: float, defaultQHigh: float) -> MobilityLinearStop:
        lo, hi = self._bounds(defaultQLow, defaultQHigh)
        return self._set_default(lo=lo, hi=hi)

    def setDefaultMaterialProperties(
        self, defaultStiffness: float, defaultDissipation: float
    ) -> MobilityLinearStop:
        k = self._nonnegative(defaultStiffness, "stiffness")
        d = self._nonnegative(defaultDissipation, "dissipation")
        return self._set_default(k=k, d=d)

    def getDefaultLowerBound(self) -> float:
        return self._defaults["lo"]

    def getDefaultUpperBound(self) -> float:
        return self._defaults["hi"]

    def getDefaultStiffness(self) -> float:
        return self._defaults["k"]

    def getDefaultDissipation(self) -> float:
        return self._defaults["d"]

    # --------------------------------------------------------- State values
    def setBounds(self, state: State, qLow: float, qHigh: float) -> None:
        lo, hi = self._bounds(qLow, qHigh)
        self._update(state, lo=lo, hi=hi)

    def setMaterialProperties(self, state: State, stiffness: float, dissipation: float) -> None:
        k = self._nonnegative(stiffness, "stiffness")
        d = self._nonnegative(dissipation, "dissipation")
        self._update(state, k=k, d=d)

    def getLowerBound(self, state: State) -> float:
        return self._params(state)["lo"]

    def getUpperBound(self, state: State) -> float:
        return self._params(state)["hi"]

    def getStiffness(self, state: State) -> float:
        return self._params(state)["k"]

    def getDissipation(self, state: State) -> float:
        return self._params(state)["d"]

    # -------------------------------------------------------------- physics
    def _violation(self, state: State) -> float:
        """x = q - bound when q is outside its range, else 0."""
        p = self._params(state)
        q = self._mobod.getOneQ(state, self._which)
        if q > p["hi"]:
            return q - p["hi"]
        if q < p["lo"]:
            return q - p["lo"]
        return 0.0

    def calcForce(self, state: State, bodyForces, particleForces, mobilityForces) -> None:
        x = self._violation(state)
        if x == 0.0:
            return
        p = self._params(state)
        qdot = float(self._mobod.getQDot(state)[self._which])
        if x > 0:
            f = min(0.0, -p["k"] * x * (1.0 + p["d"] * qdot))
        else:
            f = max(0.0, -p["k"] * x * (1.0 - p["d"] * qdot))
        self._apply_mobility_force(state, f, mobilityForces)

    def _compiled_term(self, state: State, excluded: list[int]):
        """The stop as a MOBILITY_STOP term where its q's rate is its u (Pin, Slider and
        the other mobilizers with qdot = u); None otherwise (the per-element path)."""
        module = self._mobod._module
        if getattr(module, "n_matrix", None) is not identity_kinematics.n_matrix:
            return None
        p = self._params(state)
        iq = self._mobod._q_range(state)[0] + self._which
        iu = self._mobod._u_range(state)[0] + self._which
        return MOBILITY_STOP, (iq, iu), (p["k"], p["d"], p["lo"], p["hi"])

    def _why_no_compiled_term(self, state: State) -> str:
        if self._compiled_term(state, []) is None:
            return f"a stop on a {self._mobod._module.NAME} q, whose rate is not its u"
        return ""

    def calcPotentialEnergy(self, state: State) -> float:
        x = self._violation(state)
        return 0.5 * self._params(state)["k"] * x * x


Force.MobilityLinearStop = MobilityLinearStop  # type: ignore[attr-defined]
