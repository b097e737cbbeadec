"""ImpulseSolver: the constraint-space impulse problem the SemiExplicitEulerTimeStepper
hands to a solver (Simbody's ImpulseSolver.h), and the base class of the solvers.

Problem: given the (m x m) matrix ``A = J M^-1 J^T`` and the constraint-space velocity
``v0`` the rows would have without impulses, find impulses ``pi`` so that the velocity
``v = v0 + A pi`` satisfies, row by row,

* bilateral rows: ``v_i = 0`` (pi_i free);
* unilateral rows: ``v_i >= 0``, ``pi_i >= 0``, ``v_i pi_i = 0``;
* friction pairs (i, j) tied to unilateral row k with coefficient mu: the slip ``(v_i,
  v_j)`` is driven to zero inside the Coulomb cone ``|(pi_i, pi_j)| <= mu pi_k``;
* bounded rows with limit L: ``v_i = 0`` inside ``|pi_i| <= L``.

Targets other than zero (restitution, gap closing) are folded into v0 by the caller.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.common.exceptions import InvalidArgumentError


@dataclass
class ImpulseProblem:
    """Rows of an impulse problem; index lists refer to rows of A."""

    A: np.ndarray
    v0: np.ndarray
    bilateral: list[int] = field(default_factory=list)
    unilateral: list[int] = field(default_factory=list)
    friction: list[tuple[int, int, int, float]] = field(default_factory=list)
    bounded: list[tuple[int, float]] = field(default_factory=list)


class ImpulseSolver:
    """Base class. ``setMaxIterations``/``setConvergenceTol`` bound the work; ``getNumIterations``
    reports the last solve's iterations."""

    PLUS = 0
    PGS = 1

    def __init__(self, convergenceTol: float = 1e-10, maxIters: int = 500) -> None:  # noqa: N803
        self.setConvergenceTol(convergenceTol)
        self.setMaxIterations(maxIters)
        self._lastIters = 0

    def setConvergenceTol(self, tol: float) -> None:
        if not (tol > 0 and np.isfinite(tol)):
            raise InvalidArgumentError(
                f"ImpulseSolver: convergence tolerance must be > 0, got {tol}"
            )
        self._tol = float(tol)

    def getConvergenceTol(self) -> float:
        return self._tol

    def setMaxIterations(self, maxIters: int) -> None:  # noqa: N803
        if (
            isinstance(maxIters, bool)
            or not isinstance(maxIters, (int, np.integer))
            or maxIters < 1
        ):
            raise InvalidArgumentError(
                f"ImpulseSolver: max iterations must be >= 1, got {maxIters!r}"
            )
        self._maxIters = int(maxIters)

    def getMaxIterations(self) -> int:
        return self._maxIters

    def getNumIterations(self) -> int:
        return self._lastIters

    def solve(self, problem: ImpulseProblem) -> np.ndarray:
        raise NotImplementedError
