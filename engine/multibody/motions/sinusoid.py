"""Motion.Sinusoid: every mobility of the mobilizer follows m(t) = a sin(w t + phi) at one
level (docs/conventions.md §10): Position level q = m, qdot = m', qdotdot = m'';
Velocity level u = m, udot = m'; Acceleration level udot = m. ``a`` is in the level's
units, ``w`` in rad per unit time, ``phi`` in rad."""

from __future__ import annotations

import math

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.multibody.motions.motion import Motion, MotionLevel, as_level


class Sinusoid(Motion):
    """Sinusoid(mobod, level, amplitude, rate, phase)."""

    def __init__(self, mobod, level, amplitude: float, rate: float, phase: float) -> None:
        self._level = as_level(level, "Motion.Sinusoid")
        if self._level == MotionLevel.NoLevel:
            raise InvalidArgumentError("Motion.Sinusoid: NoLevel is not a level to drive")
        values = [float(amplitude), float(rate), float(phase)]
        if not all(math.isfinite(v) for v in values):
            raise InvalidArgumentError("Motion.Sinusoid: amplitude, rate and phase must be finite")
        self._a, self._w, self._phi = values
        super().__init__(mobod)

    def getLevel(self, state=None) -> MotionLevel:
        return self._level

    def getAmplitude(self) -> float:
        return self._a

    def getRate(self) -> float:
        return self._w

    def getPhase(self) -> float:
        return self._phi

    def _deriv(self, state, order: int, n: int) -> np.ndarray:
        """The order-th time derivative of a sin(w t + phi), repeated n times."""
        x = self._w * state.getTime() + self._phi
        a, w = self._a, self._w
        value = (a * math.sin(x), a * w * math.cos(x), -a * w * w * math.sin(x))[order]
        return np.full(n, value)

    def _at(self, level: MotionLevel, state, order: int, n: int) -> np.ndarray:
        if self._level != level:
            raise InvalidArgumentError(
                f"Motion.Sinusoid drives the {self._level.name} level, not {level.name}"
            )
        return self._deriv(state, order, n)

    def calcPrescribedPosition(self, state, nq: int) -> np.ndarray:
        return self._at(MotionLevel.Position, state, 0, nq)

    def calcPrescribedPositionDot(self, state, nq: int) -> np.ndarray:
        return self._at(MotionLevel.Position, state, 1, nq)

    def calcPrescribedPositionDotDot(self, state, nq: int) -> np.ndarray:
        return self._at(MotionLevel.Position, state, 2, nq)

    def calcPrescribedVelocity(self, state, nu: int) -> np.ndarray:
        return self._at(MotionLevel.Velocity, state, 0, nu)

    def calcPrescribedVelocityDot(self, state, nu: int) -> np.ndarray:
        return self._at(MotionLevel.Velocity, state, 1, nu)

    def calcPrescribedAcceleration(self, state, nu: int) -> np.ndarray:
        return self._at(MotionLevel.Acceleration, state, 0, nu)
