"""Constraint.SpeedCoupler: f(u_1, ..., u_n) = 0 for chosen generalized speeds.

One nonholonomic equation ``f(u_args)``; its derivative is ``sum df/du_i udot_i``.
Multiplier lambda gives generalized forces ``lambda df/du_i`` on the argument
mobilities. (Only speed arguments are supported.)
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.math.function import Function
from engine.multibody.constraints.constraint import Constraint, as_mobilized_body
from engine.multibody.constraints.coordinate_coupler import gradient


class SpeedCoupler(Constraint):
    """``SpeedCoupler(matter, function, speedBody[], speedIndex[])``."""

    NUM_EQUATIONS = (0, 1, 0)
    TYPE_NAME = "SpeedCoupler"

    def __init__(self, matter, function, speedBody, speedIndex) -> None:
        speedBody, speedIndex = list(speedBody), [int(i) for i in speedIndex]
        if len(speedBody) != len(speedIndex) or not speedBody:
            raise InvalidArgumentError(
                "Constraint.SpeedCoupler: speedBody and speedIndex must be non-empty lists of "
                "the same length"
            )
        if not isinstance(function, Function) or function.getArgumentSize() != len(speedBody):
            raise InvalidArgumentError(
                f"Constraint.SpeedCoupler: the function must take {len(speedBody)} arguments, "
                "one per speed"
            )
        speedBody = [as_mobilized_body(matter, b, "Constraint.SpeedCoupler") for b in speedBody]
        self._f = function
        super().__init__([], list(zip(speedBody, speedIndex, strict=True)), matter=matter)

    def getFunction(self) -> Function:
        return self._f

    def _verr(self, k):
        return np.array([self._f.calcValue(k.u[self._u_ix])])

    def _vaerr(self, k):
        return np.array([gradient(self._f, k.u[self._u_ix]) @ k.udot[self._u_ix]])

    def _forces(self, k, out, lam_p, lam_v, lam_a):
        out.f += lam_v[0] * gradient(self._f, k.u[self._u_ix])
