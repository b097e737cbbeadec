"""Independent helpers for the Assembler tests.

The reference models' trees come from ``tests.engine.reference_models.build_tree`` (bodies
and mobilizers; forces are irrelevant to assembly). The loop closures are also available as
user-written assembly conditions (``RodCondition``, ``BallCondition``: only calcErrors, so the
Assembler must differentiate them numerically), which doubles as a test of user-defined
conditions.
"""

from __future__ import annotations

import numpy as np

from engine import Stage
from engine.assembler import AssemblyCondition


def station_G(matter, state, body: int, station) -> np.ndarray:
    return matter.getMobilizedBody(body).findStationLocationInGround(state, np.asarray(station))


def loop_errors(matter, state, constraint: dict) -> np.ndarray:
    """Position errors of a reference Rod or Ball, computed from the model description."""
    p1 = station_G(matter, state, constraint["body1"], constraint["station1_B"])
    p2 = station_G(matter, state, constraint["body2"], constraint["station2_B"])
    if constraint["type"] == "Constraint::Rod":
        return np.array([np.linalg.norm(p2 - p1) - constraint["length"]])
    R_GA = matter.getMobilizedBody(constraint["ancestor_body"]).getBodyRotation(state).asMat33()
    return R_GA.T @ (p2 - p1)


class RodCondition(AssemblyCondition):
    """User-written loop closure: |p2 - p1| - length (errors only)."""

    def __init__(self, constraint: dict) -> None:
        super().__init__("user rod")
        self.constraint = constraint

    def calcErrors(self, state):
        return 0, loop_errors(self.getMatterSubsystem(), state, self.constraint)


class BallCondition(AssemblyCondition):
    """User-written loop closure: R_GA^T (p2 - p1), returned as a bare array."""

    def __init__(self, constraint: dict) -> None:
        super().__init__("user ball")
        self.constraint = constraint

    def calcErrors(self, state):
        return loop_errors(self.getMatterSubsystem(), state, self.constraint)


def user_loop_condition(constraint: dict) -> AssemblyCondition:
    if constraint["type"] == "Constraint::Rod":
        return RodCondition(constraint)
    return BallCondition(constraint)


class Evaluator:
    """Evaluate functions of q on a private State (independent of the Assembler)."""

    def __init__(self, system, matter) -> None:
        self.system = system
        self.matter = matter
        self.state = system.realizeTopology()

    def at(self, q):
        self.state.setQ(q)
        self.system.realize(self.state, Stage.Position)
        return self.state


def fd_jacobian(fun, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """Central differences of the vector function fun at x (columns per x entry)."""
    cols = []
    for j in range(x.size):
        xp, xm = x.copy(), x.copy()
        xp[j] += h
        xm[j] -= h
        cols.append((np.atleast_1d(fun(xp)) - np.atleast_1d(fun(xm))) / (2 * h))
    return np.array(cols).T


def projected_gradient(goal, constraints, q: np.ndarray, free=None) -> np.ndarray:
    """Z^T grad goal at q: the goal's gradient on the constraint manifold {constraints = 0}
    restricted to the ``free`` q (all by default)."""
    free = np.arange(q.size) if free is None else np.asarray(free)

    def sub(fun):
        def f(xf):
            qq = q.copy()
            qq[free] = xf
            return fun(qq)

        return f

    g = fd_jacobian(sub(goal), q[free]).reshape(-1)
    if constraints is None:
        return g
    A = fd_jacobian(sub(constraints), q[free])
    _, s, Vt = np.linalg.svd(A)
    rank = int(np.sum(s > 1e-9 * s[0]))
    Z = Vt[rank:].T
    return Z.T @ g
