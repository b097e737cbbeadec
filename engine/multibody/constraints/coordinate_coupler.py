"""Constraint.CoordinateCoupler: f(q_1, ..., q_n) = 0 for chosen coordinates.

One holonomic equation ``f(q_args)`` (each coordinate on a mobilizer with qdot = u).
Derivatives: ``sum df/dq_i u_i`` and ``sum df/dq_i udot_i + sum d2f/dq_i dq_j u_i u_j``;
multiplier lambda gives generalized forces ``lambda df/dq_i`` on the argument
mobilities.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.math.function import Function
from engine.multibody.constraints.constraint import Constraint, as_mobilized_body
from engine.multibody.constraints.mobility_constraints import require_qdot_equals_u


def gradient(f: Function, x: np.ndarray) -> np.ndarray:
    return np.array([f.calcDerivative([i], x) for i in range(x.size)])


def hessian_quadratic(f: Function, x: np.ndarray, v: np.ndarray) -> float:
    n = x.size
    return float(sum(f.calcDerivative([i, j], x) * v[i] * v[j] for i in range(n) for j in range(n)))


class CoordinateCoupler(Constraint):
    """``CoordinateCoupler(matter, function, coordBody[], coordIndex[])``."""

    NUM_EQUATIONS = (1, 0, 0)
    TYPE_NAME = "CoordinateCoupler"

    def __init__(self, matter, function, coordBody, coordIndex) -> None:
        coordBody, coordIndex = list(coordBody), [int(i) for i in coordIndex]
        if len(coordBody) != len(coordIndex) or not coordBody:
            raise InvalidArgumentError(
                "Constraint.CoordinateCoupler: coordBody and coordIndex must be non-empty lists "
                "of the same length"
            )
        if not isinstance(function, Function) or function.getArgumentSize() != len(coordBody):
            raise InvalidArgumentError(
                f"Constraint.CoordinateCoupler: the function must take {len(coordBody)} "
                "arguments, one per coordinate"
            )
        what = "Constraint.CoordinateCoupler"
        coordBody = [as_mobilized_body(matter, b, what) for b in coordBody]
        for b in coordBody:
            require_qdot_equals_u("CoordinateCoupler", b)
        self._f = function
        super().__init__([], list(zip(coordBody, coordIndex, strict=True)), matter=matter)

    def getFunction(self) -> Function:
        return self._f

    def _perr(self, k):
        return np.array([self._f.calcValue(k.q[self._q_ix])])

    def _pverr(self, k):
        x = k.q[self._q_ix]
        return np.array([gradient(self._f, x) @ k.u[self._u_ix]])

    def _paerr(self, k):
        x = k.q[self._q_ix]
        u = k.u[self._u_ix]
        return np.array(
            [gradient(self._f, x) @ k.udot[self._u_ix] + hessian_quadratic(self._f, x, u)]
        )

    def _forces(self, k, out, lam_p, lam_v, lam_a):
        out.f += lam_p[0] * gradient(self._f, k.q[self._q_ix])
