"""HardStopUpper and HardStopLower: a mobilizer coordinate q limited to q <= upper or
q >= lower (Simbody's ConditionalConstraint.h). Their rows come from the q's row of N
(qdot = N u), so they work for any mobilizer whose chosen q has a well-defined rate."""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import IndexOutOfRangeError, InvalidArgumentError
from engine.common.state import State
from engine.multibody.unilateral.unilateral_contact import (
    ContactRows,
    UnilateralContact,
    _finite,
    mobod_of,
)

# Mobilizers whose generalized speeds are their coordinates' rates (N = I).
_QDOT_IS_U = frozenset(
    ("Pin", "Slider", "Translation", "Cylinder", "Screw", "Universal", "Planar", "BendStretch")
)


class _HardStop(UnilateralContact):
    _side = 1.0  # +1: lower limit (perr = q - limit); -1: upper limit (perr = limit - q)

    def __init__(self, mobod, whichQ: int, defaultLimit: float, minCOR: float) -> None:  # noqa: N803
        name = type(self).__name__
        super().__init__(1.0, minCOR)
        self._mobod = mobod_of(mobod, name)
        if isinstance(whichQ, bool) or not isinstance(whichQ, (int, np.integer)) or whichQ < 0:
            raise InvalidArgumentError(
                f"{name}: whichQ must be a MobilizerQIndex >= 0, got {whichQ!r}"
            )
        self._whichQ = int(whichQ)
        self._limit = _finite(defaultLimit, f"{name}: default limit")

    def _bodies(self) -> list:
        return [self._mobod]

    def getMobilizedBody(self):
        return self._mobod

    def getWhichQ(self) -> int:
        return self._whichQ

    def _q_index(self, state: State) -> int:
        nq = self._mobod.getNumQ(state)
        if self._whichQ >= nq:
            raise IndexOutOfRangeError(
                f"{type(self).__name__}: q {self._whichQ} does not exist; body "
                f"{self._mobod.getMobilizedBodyIndex()}'s mobilizer has {nq} q(s)"
            )
        return self._mobod.getFirstQIndex(state) + self._whichQ

    def _rows(self, state: State, matter) -> ContactRows:
        iq = self._q_index(state)
        if type(self._mobod).__name__ in _QDOT_IS_U:
            n_row = np.zeros(state.getNU())
            n_row[self._mobod.getFirstUIndex(state) + self._whichQ] = 1.0
        else:
            e = np.zeros(state.getNQ())
            e[iq] = 1.0
            n_row = matter.multiplyByN(state, True, e)  # N^T e: qdot_iq = n_row @ u
        q = float(state.getQ()[iq])
        perr = self._side * (q - self._limit)
        point = self._mobod.getBodyOriginLocation(state)
        return ContactRows(perr, self._side * np.asarray(n_row, dtype=float), None, point)


class HardStopUpper(_HardStop):
    """``HardStopUpper(mobod, whichQ, defaultUpperLimit, minCOR)``: q <= upper limit."""

    _side = -1.0

    def getDefaultUpperLimit(self) -> float:
        return self._limit

    def setDefaultUpperLimit(self, limit: float) -> None:
        self._limit = _finite(limit, "HardStopUpper.setDefaultUpperLimit")


class HardStopLower(_HardStop):
    """``HardStopLower(mobod, whichQ, defaultLowerLimit, minCOR)``: q >= lower limit."""

    _side = 1.0

    def getDefaultLowerLimit(self) -> float:
        return self._limit

    def setDefaultLowerLimit(self, limit: float) -> None:
        self._limit = _finite(limit, "HardStopLower.setDefaultLowerLimit")
