"""Constraint.SpeedCoupler: f(u_1, ..., u_n, q_1, ..., q_m) = 0 for chosen generalized
speeds and (optionally, as Simbody) coordinates.

One nonholonomic equation ``f(u_args, q_args)``; its derivative is
``sum df/du_i udot_i + sum df/dq_j qdot_j`` (the coordinates are on mobilizers with
qdot = u). Multiplier lambda gives generalized forces ``lambda df/du_i`` on the speed
arguments' mobilities only, as Simbody.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.math.function import Function
from engine.multibody.constraints.constraint import Constraint, as_mobilized_body
from engine.multibody.constraints.coordinate_coupler import gradient
from engine.multibody.constraints.mobility_constraints import require_qdot_equals_u


class SpeedCoupler(Constraint):
    """``SpeedCoupler(matter, function, speedBody[], speedIndex[])``."""

    NUM_EQUATIONS = (0, 1, 0)
    TYPE_NAME = "SpeedCoupler"

    def __init__(
        self, matter, function, speedBody, speedIndex, coordBody=(), coordIndex=()
    ) -> None:
        speedBody, speedIndex = list(speedBody), [int(i) for i in speedIndex]
        coordBody, coordIndex = list(coordBody), [int(i) for i in coordIndex]
        if len(speedBody) != len(speedIndex) or not speedBody:
            raise InvalidArgumentError(
                "Constraint.SpeedCoupler: speedBody and speedIndex must be non-empty lists of "
                "the same length"
            )
        if len(coordBody) != len(coordIndex):
            raise InvalidArgumentError(
                "Constraint.SpeedCoupler: coordBody and coordIndex must have the same length"
            )
        n = len(speedBody) + len(coordBody)
        if not isinstance(function, Function) or function.getArgumentSize() != n:
            raise InvalidArgumentError(
                f"Constraint.SpeedCoupler: the function must take {n} arguments, the "
                f"{len(speedBody)} speeds then the {len(coordBody)} coordinates"
            )
        what = "Constraint.SpeedCoupler"
        speedBody = [as_mobilized_body(matter, b, what) for b in speedBody]
        coordBody = [as_mobilized_body(matter, b, what) for b in coordBody]
        for b in coordBody:
            require_qdot_equals_u("SpeedCoupler", b)
        self._f = function
        self._ns = len(speedBody)
        mobilities = list(zip(speedBody + coordBody, speedIndex + coordIndex, strict=True))
        super().__init__([], mobilities, matter=matter)

    def getFunction(self) -> Function:
        return self._f

    def _args(self, k) -> np.ndarray:
        ns = self._ns
        return np.concatenate((k.u[self._u_ix[:ns]], k.q[self._q_ix[ns:]]))

    def _verr(self, k):
        return np.array([self._f.calcValue(self._args(k))])

    def _vaerr(self, k):
        ns = self._ns
        g = gradient(self._f, self._args(k))
        # qdot = u for the coordinate arguments
        return np.array([g[:ns] @ k.udot[self._u_ix[:ns]] + g[ns:] @ k.u[self._u_ix[ns:]]])

    def _forces(self, k, out, lam_p, lam_v, lam_a):
        ns = self._ns
        out.f[:ns] += lam_v[0] * gradient(self._f, self._args(k))[:ns]
