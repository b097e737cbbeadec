"""QValue: the assembly condition "this generalized coordinate should have this value".

Simbody's SimTK::QValue (../shared/spec/QValue.txt). Error ``q - value`` (one equation);
goal ``(q - value)^2 / 2``. Usable as a goal (``adoptAssemblyGoal(c, weight)``) or a
requirement (``adoptAssemblyError(c)`` or weight Infinity). q is in the mobilizer's own
units (radians for angles, metres for translations).
"""

from __future__ import annotations

import math

import numpy as np

from engine.assembler.assembly_condition import AssemblyCondition
from engine.common.exceptions import IndexOutOfRangeError, InvalidArgumentError


def _body_index(mbx) -> int:
    if hasattr(mbx, "getMobilizedBodyIndex"):
        return int(mbx.getMobilizedBodyIndex())
    if isinstance(mbx, (int, np.integer)) and not isinstance(mbx, bool):
        return int(mbx)
    raise InvalidArgumentError(
        f"QValue: the first argument is a MobilizedBodyIndex (int) or a MobilizedBody, "
        f"got {type(mbx).__name__}"
    )


class QValue(AssemblyCondition):
    """Request that q number ``mobilizerQIndex`` of body ``mobilizedBodyIndex`` be ``value``."""

    def __init__(self, mobilizedBodyIndex, mobilizerQIndex: int, value: float) -> None:
        super().__init__("QValue")
        self._mbx = _body_index(mobilizedBodyIndex)
        if not isinstance(mobilizerQIndex, (int, np.integer)) or isinstance(mobilizerQIndex, bool):
            raise InvalidArgumentError(
                f"QValue: mobilizerQIndex must be an int, got {type(mobilizerQIndex).__name__}"
            )
        self._qx = int(mobilizerQIndex)
        if self._mbx < 0 or self._qx < 0:
            raise IndexOutOfRangeError(
                f"QValue: body index {self._mbx} and q index {self._qx} must be >= 0"
            )
        self._value = self._checked_value(value)

    @staticmethod
    def _checked_value(value) -> float:
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise InvalidArgumentError(f"QValue: value must be a number, got {value!r}") from None
        if not math.isfinite(v):
            raise InvalidArgumentError(f"QValue: value must be finite, got {v}")
        return v

    # ------------------------------------------------------------------ value
    def getValue(self) -> float:
        """The value this q is asked to take."""
        return self._value

    def setValue(self, newValue: float) -> None:
        """Change the requested value (may be done repeatedly while tracking)."""
        self._value = self._checked_value(newValue)

    def getMobilizedBodyIndex(self) -> int:
        return self._mbx

    def getMobilizerQIndex(self) -> int:
        return self._qx

    # ---------------------------------------------------------------- helpers
    def _mobod(self):
        return self.getMatterSubsystem().getMobilizedBody(self._mbx)

    def _q(self, state) -> float:
        return self._mobod().getOneQ(state, self._qx)

    def _free_index(self, state) -> int:
        mobod = self._mobod()
        qIndex = int(self.getMatterSubsystem()._topo(state).qs[self._mbx]) + self._qx
        mobod._check_which(self._qx, mobod.getNumQ(state), "q")
        return self.getFreeQIndexOfQ(qIndex)

    def _validate(self, assembler) -> None:
        matter = assembler.getMatterSubsystem()
        if self._mbx >= matter.getNumBodies():
            raise IndexOutOfRangeError(
                f"QValue: there is no mobilized body {self._mbx}; the system has "
                f"{matter.getNumBodies()} bodies (0 = Ground)"
            )
        mobod = matter.getMobilizedBody(self._mbx)
        state = assembler.getInternalState()
        n = mobod.getNumQ(state)
        if self._qx >= n:
            raise IndexOutOfRangeError(
                f"QValue: body {self._mbx} ({mobod.getMobilizerTypeName()}) has {n} q; "
                f"there is no q {self._qx}"
            )

    # ------------------------------------------------------ condition methods
    def getNumEquations(self, state=None) -> int:
        """Always 1."""
        return 1

    def getNumErrors(self, state=None) -> int:
        return 1

    def calcErrors(self, state):
        """``(0, [q - value])``."""
        return 0, np.array([self._q(state) - self._value])

    def calcErrorJacobian(self, state):
        """``(0, J)``: a 1 x nFreeQs row, 1 in this q's column (all 0 if it is locked)."""
        J = np.zeros((1, self.getNumFreeQs()))
        fx = self._free_index(state)
        if fx >= 0:
            J[0, fx] = 1.0
        return 0, J

    def calcGoal(self, state):
        """``(0, (q - value)^2 / 2)``."""
        e = self._q(state) - self._value
        return 0, 0.5 * e * e

    def calcGoalGradient(self, state):
        """``(0, grad)``: ``q - value`` in this q's slot of the nFreeQs vector."""
        g = np.zeros(self.getNumFreeQs())
        fx = self._free_index(state)
        if fx >= 0:
            g[fx] = self._q(state) - self._value
        return 0, g

    def _describe(self) -> str:
        return f"q {self._qx} of body {self._mbx} = {self._value:g}"

    def _goal_error_weights(self, state) -> np.ndarray:
        return np.array([0.5])

    def __repr__(self) -> str:
        return f"QValue(body {self._mbx}, q {self._qx}, value {self._value!r})"
