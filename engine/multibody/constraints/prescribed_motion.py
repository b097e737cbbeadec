"""Constraint.PrescribedMotion: one generalized coordinate made to follow f(t).

One holonomic equation ``q - f(t)`` (f a Function of one argument; the mobilizer must
have qdot = u), so ``pverr = u - f'(t)`` and ``paerr = udot - f''(t)``. Multiplier
lambda is a generalized force on the mobility; this constraint does work.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.common.index_arg import index_value
from engine.math.function import Function
from engine.multibody.constraints.constraint import Constraint, as_mobilized_body
from engine.multibody.constraints.mobility_constraints import require_qdot_equals_u


class PrescribedMotion(Constraint):
    """``PrescribedMotion(matter, function, coordBody, coordIndex)``."""

    NUM_EQUATIONS = (1, 0, 0)
    TYPE_NAME = "PrescribedMotion"

    def __init__(self, matter, function, coordBody, coordIndex: int = 0) -> None:
        if not isinstance(function, Function) or function.getArgumentSize() != 1:
            raise InvalidArgumentError(
                "Constraint.PrescribedMotion needs a Function of one argument (time)"
            )
        coordBody = as_mobilized_body(matter, coordBody, "Constraint.PrescribedMotion")
        require_qdot_equals_u("PrescribedMotion", coordBody)
        self._f = function
        coordIndex = index_value(coordIndex, "Constraint.PrescribedMotion: coordIndex")
        super().__init__([], [(coordBody, coordIndex)], matter=matter)

    def getFunction(self) -> Function:
        return self._f

    def _ft(self, k, order: int) -> float:
        t = np.array([k.t])
        if order == 0:
            return self._f.calcValue(t)
        return self._f.calcDerivative([0] * order, t)

    def _perr(self, k):
        return np.array([k.q[self._q_ix[0]] - self._ft(k, 0)])

    def _pverr(self, k):
        return np.array([k.u[self._u_ix[0]] - self._ft(k, 1)])

    def _paerr(self, k):
        return np.array([k.udot[self._u_ix[0]] - self._ft(k, 2)])

    def _forces(self, k, out, lam_p, lam_v, lam_a):
        out.f[0] += lam_p[0]
