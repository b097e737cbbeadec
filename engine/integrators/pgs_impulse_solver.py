"""PGSImpulseSolver: projected Gauss-Seidel for the ImpulseProblem (Simbody's
PGSImpulseSolver.h). Rows are relaxed one unit at a time (a single row, or a friction pair
as a 2x2 block) and each result is projected onto its admissible set: pi >= 0 for
unilateral rows, the Coulomb disk |pi_t| <= mu pi_n for a friction pair, the box for a
bounded row. Iterates until no impulse changes by more than tol * (1 + max |pi|)."""

from __future__ import annotations

import numpy as np

from engine.integrators.impulse_solver import ImpulseProblem, ImpulseSolver


class PGSImpulseSolver(ImpulseSolver):
    """``PGSImpulseSolver(convergenceTol=1e-10, maxIters=500)``."""

    def solve(self, problem: ImpulseProblem) -> np.ndarray:
        A = np.asarray(problem.A, dtype=float)
        v0 = np.asarray(problem.v0, dtype=float)
        m = v0.shape[0]
        pi = np.zeros(m)
        v = v0.copy()
        units: list[tuple] = [("b", i) for i in problem.bilateral]
        units += [("u", i) for i in problem.unilateral]
        units += [("x", i, lim) for i, lim in problem.bounded]
        units += [("f", i, j, k, mu) for i, j, k, mu in problem.friction]
        diag = np.diag(A).copy()
        diag[diag <= 0] = 1e-300
        self._lastIters = 0
        for it in range(self._maxIters):
            change = 0.0
            for unit in units:
                kind = unit[0]
                if kind == "f":
                    _, i, j, k, mu = unit
                    blk = A[np.ix_((i, j), (i, j))]
                    old = pi[[i, j]].copy()
                    try:
                        new = old - np.linalg.solve(blk, v[[i, j]])
                    except np.linalg.LinAlgError:
                        new = old - v[[i, j]] / diag[[i, j]]
                    limit = mu * max(pi[k], 0.0)
                    norm = float(np.hypot(new[0], new[1]))
                    if norm > limit:
                        new *= limit / norm if norm > 0 else 0.0
                    d = new - old
                    if d[0] != 0.0 or d[1] != 0.0:
                        pi[i], pi[j] = new
                        v += A[:, i] * d[0] + A[:, j] * d[1]
                        change = max(change, abs(d[0]), abs(d[1]))
                    continue
                i = unit[1]
                new = pi[i] - v[i] / diag[i]
                if kind == "u":
                    new = max(new, 0.0)
                elif kind == "x":
                    new = min(max(new, -unit[2]), unit[2])
                d = new - pi[i]
                if d != 0.0:
                    pi[i] = new
                    v += A[:, i] * d
                    change = max(change, abs(d))
            self._lastIters = it + 1
            if change <= self._tol * (1.0 + float(np.max(np.abs(pi), initial=0.0))):
                break
        return pi
