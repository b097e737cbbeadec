"""Constraint.ConstantCoordinate: one generalized coordinate held at a given value.

One holonomic equation ``q_i - value``, as in Simbody on any mobilizer: its derivatives go
through the mobilizer's kinematic equations qdot = N(q) u, so the velocity error is
``qdot_i = N_i u`` and the acceleration error ``qdotdot_i = N_i udot + (NDot u)_i``, and the
multiplier lambda is the generalized force lambda on coordinate q_i, that is ``N_i^T lambda``
on the mobilizer's mobilities. For a mobilizer with qdot = u (N = 1) that is the coordinate's
own mobility alone; for another (a Ball's quaternion or Euler angles, a Free, a
LineOrientation...) all of its mobilities are constrained.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.common.stage import Stage
from engine.multibody.constraints.constraint import Constraint
from engine.multibody.constraints.coordinate_coupler import _qdot_is_u, n_row_and_ndot_u
from engine.multibody.constraints.mobility_constraints import (
    MobilityValueConstraint,
    mobility_and_value,
)


class ConstantCoordinate(MobilityValueConstraint):
    """``ConstantCoordinate(mobilizedBody, [whichQ,] value)``."""

    NUM_EQUATIONS = (1, 0, 0)
    TYPE_NAME = "ConstantCoordinate"
    VALUE_NAME = "value"
    VALUE_STAGE = Stage.Position

    def __init__(self, mobod, *args) -> None:
        which, self._default_value = mobility_and_value(
            self.TYPE_NAME, mobod, args, self.VALUE_NAME
        )
        module = mobod._module
        if module is None:
            raise InvalidArgumentError("Constraint.ConstantCoordinate: Ground has no coordinates")
        if not 0 <= which < module.NQ_SLOTS:
            raise InvalidArgumentError(
                f"Constraint.ConstantCoordinate: the {module.NAME} mobilizer of body "
                f"{mobod.getMobilizedBodyIndex()} has no coordinate {which} (it has at most "
                f"{module.NQ_SLOTS})"
            )
        self._which_q = which
        self._identity = _qdot_is_u(mobod)
        mobilities = [(mobod, which)] if self._identity else [(mobod, j) for j in range(module.NU)]
        self._ix_value = -1
        self._cur = self._default_value
        self._coord_ix = -1
        self._n_row = np.ones(1)
        self._ndot_u = 0.0
        Constraint.__init__(self, [], mobilities, matter=mobod.getMatterSubsystem())

    def getDefaultValue(self) -> float:
        return self._default_value

    def setDefaultValue(self, value: float) -> ConstantCoordinate:
        return self._set_default_value(value)

    def getWhichQ(self) -> int:
        return self._which_q

    def setValue(self, state, value: float) -> None:
        self._set_value(state, value)

    def getValue(self, state) -> float:
        return self._get_value(state)

    def _resolve(self, topo) -> None:
        super()._resolve(topo)
        mobod = self.getMobilizedBody()
        self._coord_ix = int(topo.qs[mobod.getMobilizedBodyIndex()]) + self._which_q

    def _prepare(self, state) -> None:
        super()._prepare(state)
        if self._identity:
            return
        mobod = self.getMobilizedBody()
        b = mobod.getMobilizedBodyIndex()
        if self._which_q >= mobod.getNumQ(state):
            raise InvalidArgumentError(
                f"Constraint.ConstantCoordinate: body {b} has {mobod.getNumQ(state)} "
                f"coordinates in this State, not coordinate {self._which_q}"
            )
        matter = self._matter
        pc = state.updCacheEntry(matter.getMySubsystemIndex(), matter._ix.position)
        self._n_row, self._ndot_u = n_row_and_ndot_u(matter, state, pc, b, self._which_q)

    def _perr(self, k):
        return np.array([k.q[self._coord_ix] - self._cur])

    def _pverr(self, k):
        return np.array([self._n_row @ k.u[self._u_ix]])

    def _paerr(self, k):
        return np.array([self._n_row @ k.udot[self._u_ix] + self._ndot_u])

    def _forces(self, k, out, lam_p, lam_v, lam_a):
        out.f[:] += lam_p[0] * self._n_row
