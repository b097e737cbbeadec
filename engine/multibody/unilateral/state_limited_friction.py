"""StateLimitedFriction: friction whose normal force is known from the State (a preloaded
bearing, a clamp) rather than from a contact impulse (Simbody's ConditionalConstraint.h).

The time stepper treats it as a velocity-level constraint ``row @ u = 0`` (sticking) whose
impulse is limited, in one step of length h, to ``mu * N(state) * h`` (mu_s while sticking,
mu_d + mu_v * slip while slipping). Subclasses give the slip-velocity row and N.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import IndexOutOfRangeError, InvalidArgumentError
from engine.common.stage import Stage
from engine.common.state import State
from engine.multibody.unilateral.unilateral_contact import (
    ConditionalConstraint,
    _finite,
    check_friction,
    mobod_of,
)


class StateLimitedFriction(ConditionalConstraint):
    """Base class: ``getNormalForceMagnitude(state)`` and ``calcSlipRow(state)`` define it.
    On unless switched off in the State."""

    _SWITCH = "friction_enabled"
    _ADOPT = "adoptStateLimitedFriction"

    def __init__(self, mu_s: float, mu_d: float, mu_v: float) -> None:
        super().__init__()
        self._mu = check_friction(mu_s, mu_d, mu_v, type(self).__name__)

    def getStaticFrictionCoef(self) -> float:
        return self._mu[0]

    def getDynamicFrictionCoef(self) -> float:
        return self._mu[1]

    def getViscousFrictionCoef(self) -> float:
        return self._mu[2]

    def getFrictionCoefficient(self, slipSpeed: float, transitionVelocity: float) -> float:  # noqa: N803
        if slipSpeed <= transitionVelocity:
            return self._mu[0]
        return self._mu[1] + self._mu[2] * slipSpeed

    def getNormalForceMagnitude(self, state: State) -> float:
        raise NotImplementedError

    def calcSlipRow(self, state: State) -> np.ndarray:
        """The nu-row giving the slip velocity ``row @ u`` (Position stage)."""
        raise NotImplementedError

    def getSlipVelocity(self, state: State) -> float:
        self.getMatterSubsystem()._require(state, Stage.Velocity, "getSlipVelocity")
        return float(self.calcSlipRow(state) @ state.getU())


class MobilityFriction(StateLimitedFriction):
    """Friction on one mobility u of a mobilizer, pressed by a normal force given as a
    number (N) or a function ``normalForce(state) -> N``: e.g. a preloaded pin bearing
    (whose friction torque limit is then mu * N, with N in N*m/unit-mu)."""

    def __init__(self, mobod, whichU: int, normalForce, mu_s, mu_d, mu_v) -> None:  # noqa: N803
        super().__init__(mu_s, mu_d, mu_v)
        self._mobod = mobod_of(mobod, "MobilityFriction")
        if isinstance(whichU, bool) or not isinstance(whichU, (int, np.integer)) or whichU < 0:
            raise InvalidArgumentError(f"MobilityFriction: whichU must be >= 0, got {whichU!r}")
        self._whichU = int(whichU)
        if callable(normalForce):
            self._N = normalForce
        else:
            value = _finite(normalForce, "MobilityFriction: normalForce")
            if value < 0:
                raise InvalidArgumentError(
                    f"MobilityFriction: normalForce must be >= 0, got {value}"
                )
            self._N = value

    def _bodies(self) -> list:
        return [self._mobod]

    def getNormalForceMagnitude(self, state: State) -> float:
        if callable(self._N):
            value = _finite(self._N(state), "MobilityFriction: normalForce(state)")
            if value < 0:
                raise InvalidArgumentError(f"MobilityFriction: normalForce(state) gave {value} < 0")
            return value
        return self._N

    def calcSlipRow(self, state: State) -> np.ndarray:
        nu = self._mobod.getNumU(state)
        if self._whichU >= nu:
            raise IndexOutOfRangeError(
                f"MobilityFriction: u {self._whichU} does not exist; the mobilizer has {nu} u(s)"
            )
        row = np.zeros(state.getNU())
        row[self._mobod.getFirstUIndex(state) + self._whichU] = 1.0
        return row
