"""Simbody's per-type constraint error and multiplier getters.

Constraints with several equations of one kind have plural getters returning arrays
(``Ball.getPositionErrors(state)`` -> (3,)); those with one equation have singular getters
returning numbers (``Rod.getPositionError(state)``). Position errors need Position stage,
velocity errors Velocity, acceleration errors and multipliers Acceleration; a disabled
constraint has none. Holonomic constraints report the time derivatives of their position
errors as velocity errors, and so on, as Simbody does.
"""

from __future__ import annotations

import numpy as np


def _position(self, state) -> np.ndarray:
    return self.getPositionErrorsAsVector(state)


def _velocity(self, state) -> np.ndarray:
    return self.getVelocityErrorsAsVector(state)


def _acceleration(self, state) -> np.ndarray:
    return self.getAccelerationErrorsAsVector(state)


def _multipliers(self, state) -> np.ndarray:
    return self.getMultipliersAsVector(state)


def _one(get):
    def single(self, state) -> float:
        values = get(self, state)
        return float(values[0]) if values.size else 0.0

    return single


_PLURAL = {
    "getPositionErrors": _position,
    "getVelocityErrors": _velocity,
    "getAccelerationErrors": _acceleration,
    "getMultipliers": _multipliers,
}
_SINGULAR = {
    "getPositionError": _one(_position),
    "getVelocityError": _one(_velocity),
    "getAccelerationError": _one(_acceleration),
    "getMultiplier": _one(_multipliers),
}


def install(plural: list, singular: list, nonholonomic: list, acceleration_only: list) -> None:
    """Give each constraint class its Simbody getters (see the module docstring)."""
    for cls in plural:
        for name, fn in _PLURAL.items():
            setattr(cls, name, fn)
    for cls in singular:
        for name, fn in _SINGULAR.items():
            setattr(cls, name, fn)
    for cls in nonholonomic:
        for name in ("getVelocityError", "getAccelerationError", "getMultiplier"):
            setattr(cls, name, _SINGULAR[name])
    for cls in acceleration_only:
        for name in ("getAccelerationError", "getMultiplier"):
            setattr(cls, name, _SINGULAR[name])
