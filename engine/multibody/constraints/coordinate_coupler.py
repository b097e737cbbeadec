"""Constraint.CoordinateCoupler: f(q_1, ..., q_n) = 0 for chosen coordinates.

One holonomic equation ``f(x)`` with x_i the coordinate ``coordIndex[i]`` of mobilizer
``coordBody[i]``. As in Simbody, the derivatives go through the mobilizers' kinematic
equations qdot = N(q) u, so any mobilizer qualifies (a Ball's or Free's quaternion
coordinates too): with g = df/dx and H = d2f/dx2,

* velocity error ``g . xdot`` with xdot_i = (N_b u_b)_i,
* acceleration error ``g . xddot + xdot^T H xdot`` with xddot_i = (N_b udot_b + NDot_b u_b)_i,
* the multiplier lambda acts as the generalized force ``lambda g_i`` on coordinate x_i,
  that is ``N_b^T (lambda g_i e_i)`` on the mobilities u_b of its mobilizer.

For a mobilizer with qdot = u (N = 1) only the coordinate's own mobility is constrained;
for any other mobilizer, all of its mobilities are.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.math.function import Function
from engine.multibody.constraints.constraint import Constraint, as_mobilized_body
from engine.multibody.kernels.n_operators import N_OP, NDOT_OP, _block


def gradient(f: Function, x: np.ndarray) -> np.ndarray:
    return np.array([f.calcDerivative([i], x) for i in range(x.size)])


def hessian_quadratic(f: Function, x: np.ndarray, v: np.ndarray) -> float:
    n = x.size
    return float(sum(f.calcDerivative([i, j], x) * v[i] * v[j] for i in range(n) for j in range(n)))


def _qdot_is_u(mobod) -> bool:
    module = mobod._module
    return not module.USES_QUATERNION and module.NQ_SLOTS == module.NU


def n_row_and_ndot_u(matter, state, pc, b: int, i: int) -> tuple[np.ndarray, float]:
    """Row i of body b's N (qdot_i = row . u_b) and (NDot u_b)_i, from the State's q and u and
    the position cache ``pc`` (its R_FM)."""
    topo = matter._topo(state)
    euler = bool(matter.getUseEulerAngles(state))
    q = matter.getQ(state)
    u = matter.getU(state)
    q0, nq, u0, nu = int(topo.qs[b]), int(topo.nqs[b]), int(topo.us[b]), int(topo.nus[b])
    qb = np.ascontiguousarray(q[q0 : q0 + nq])
    params, R = topo.params[b], np.ascontiguousarray(pc.R_FM[b])
    N = _block(N_OP, topo.mtype[b], qb, qb, params, euler, R, nq, nu)
    qdot = np.ascontiguousarray(N @ u[u0 : u0 + nu])
    NDot = _block(NDOT_OP, topo.mtype[b], qb, qdot, params, euler, R, nq, nu)
    return N[i].copy(), float(NDot[i] @ u[u0 : u0 + nu])


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
        mobilities: list[tuple] = []
        slots: list[np.ndarray] = []

        def slot(mobod, which: int) -> int:
            for k, (m, w) in enumerate(mobilities):
                if m is mobod and w == which:
                    return k
            mobilities.append((mobod, which))
            return len(mobilities) - 1

        for b, i in zip(coordBody, coordIndex, strict=True):
            module = b._module
            if module is None:
                raise InvalidArgumentError(f"{what}: Ground has no coordinates")
            if not 0 <= i < module.NQ_SLOTS:
                raise InvalidArgumentError(
                    f"{what}: the {module.NAME} mobilizer of body {b.getMobilizedBodyIndex()} "
                    f"has no coordinate {i} (it has at most {module.NQ_SLOTS})"
                )
            if _qdot_is_u(b):
                slots.append(np.array([slot(b, i)], dtype=np.int64))
            else:
                slots.append(np.array([slot(b, j) for j in range(module.NU)], dtype=np.int64))
        self._f = function
        self._coords = list(zip(coordBody, coordIndex, strict=True))
        self._slots = slots
        self._x_ix = np.zeros(0, dtype=np.int64)
        self._n_rows: list[np.ndarray] = [np.ones(1) for _ in slots]
        self._ndot_u = np.zeros(len(slots))
        super().__init__([], mobilities, matter=matter)

    def getFunction(self) -> Function:
        return self._f

    def _resolve(self, topo) -> None:
        super()._resolve(topo)
        self._x_ix = np.array(
            [topo.qs[b.getMobilizedBodyIndex()] + i for b, i in self._coords], dtype=np.int64
        )

    def _prepare(self, state) -> None:
        """Rows of N (and NDot u) for the coordinates on mobilizers with qdot != u."""
        matter = self._matter
        pc = None
        for n, (mobod, i) in enumerate(self._coords):
            if _qdot_is_u(mobod):
                continue
            b = mobod.getMobilizedBodyIndex()
            if i >= mobod.getNumQ(state):
                raise InvalidArgumentError(
                    f"Constraint.CoordinateCoupler: body {b} has {mobod.getNumQ(state)} "
                    f"coordinates in this State, not coordinate {i}"
                )
            if pc is None:  # (read while the Position stage is being realized, too)
                pc = state.updCacheEntry(matter.getMySubsystemIndex(), matter._ix.position)
            self._n_rows[n], self._ndot_u[n] = n_row_and_ndot_u(matter, state, pc, b, i)

    def _xdot(self, uvec: np.ndarray) -> np.ndarray:
        """Coordinate rates from the u-like vector (full) ``uvec``."""
        ub = uvec[self._u_ix]
        return np.array([row @ ub[s] for row, s in zip(self._n_rows, self._slots, strict=True)])

    def _perr(self, k):
        return np.array([self._f.calcValue(k.q[self._x_ix])])

    def _pverr(self, k):
        x = k.q[self._x_ix]
        return np.array([gradient(self._f, x) @ self._xdot(k.u)])

    def _paerr(self, k):
        x = k.q[self._x_ix]
        xdot = self._xdot(k.u)
        xddot = self._xdot(k.udot) + self._ndot_u
        return np.array([gradient(self._f, x) @ xddot + hessian_quadratic(self._f, x, xdot)])

    def _forces(self, k, out, lam_p, lam_v, lam_a):
        g = gradient(self._f, k.q[self._x_ix])
        for gi, row, s in zip(g, self._n_rows, self._slots, strict=True):
            out.f[s] += lam_p[0] * gi * row
