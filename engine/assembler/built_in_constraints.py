"""BuiltInConstraints: the System's own position constraints as an assembly condition.

Every Assembler adopts one of these first (AssemblyConditionIndex 0) with weight Infinity,
so the holonomic constraint errors (the State's qErr after realize(Position), without the
quaternion-norm rows, which the Assembler keeps satisfied by normalizing quaternions) are
requirements. ``Assembler.setSystemConstraintsWeight`` changes its weight: a finite
weight turns them into a goal, 0 ignores them.
"""

from __future__ import annotations

import numpy as np

from engine.assembler.assembly_condition import AssemblyCondition
from engine.common.stage import Stage


class BuiltInConstraints(AssemblyCondition):
    """Errors = the holonomic position-constraint errors of the whole System (qErr rows)."""

    def __init__(self) -> None:
        super().__init__("System constraints")

    def _rows(self, state) -> np.ndarray:
        """Indices into the System's qErr of the rows that are not quaternion norms."""
        matter = self.getMatterSubsystem()
        n = state.getNQErr()
        nquat = matter.getNumQuaternionsInUse(state)
        if nquat == 0:
            return np.arange(n)
        mx = matter.getMySubsystemIndex()
        start, nm = state.getQErrStart(mx), state.getNQErr(mx)
        quat = np.arange(start + nm - nquat, start + nm)
        return np.setdiff1d(np.arange(n), quat)

    def getNumErrors(self, state) -> int:
        return int(self._rows(state).size)

    def calcErrors(self, state):
        """``(0, qErr without quaternion rows)`` (realizes Position if needed)."""
        self.getMultibodySystem().realize(state, Stage.Position)
        return 0, np.array(state.getQErr())[self._rows(state)]

    def calcErrorJacobian(self, state):
        """Analytic ``Pq`` (restricted to the free q) when the matter subsystem offers
        ``calcPq`` and owns every qErr row; otherwise "not implemented" (numerical).
        Pq's quaternion columns are tangent derivatives, which is what the Assembler
        needs since it renormalizes quaternions after every change."""
        matter = self.getMatterSubsystem()
        calc_pq = getattr(matter, "calcPq", None)
        mx = matter.getMySubsystemIndex()
        if calc_pq is None or state.getNQErr(mx) != state.getNQErr():
            return -1, None
        self.getMultibodySystem().realize(state, Stage.Position)
        Pq = np.asarray(calc_pq(state), dtype=np.float64)
        if Pq.ndim != 2 or Pq.shape[0] != self._rows(state).size:
            return -1, None
        asm = self.getAssembler()
        cols = [asm.getQIndexOfFreeQ(fx) for fx in range(asm.getNumFreeQs())]
        return 0, Pq[:, cols].reshape(Pq.shape[0], len(cols))

    def _failure_details(self, state, tolerance: float) -> list[str]:
        """One line per enabled Constraint whose position errors exceed ``tolerance``."""
        matter = self.getMatterSubsystem()
        if not hasattr(matter, "getNumConstraints"):
            return []
        self.getMultibodySystem().realize(state, Stage.Position)
        lines = []
        for i in range(matter.getNumConstraints()):
            c = matter.getConstraint(i)
            if c.isDisabled(state):
                continue
            err = np.asarray(c.getPositionErrorsAsVector(state))
            if err.size and float(np.max(np.abs(err))) > tolerance:
                kind = getattr(c, "TYPE_NAME", type(c).__name__)
                bodies = [
                    c.getMobilizedBodyFromConstrainedBody(k).getMobilizedBodyIndex()
                    for k in range(c.getNumConstrainedBodies())
                ]
                lines.append(
                    f"Constraint.{kind} {i} (bodies {bodies}): position errors "
                    f"{np.array2string(err, precision=3)}"
                )
        return lines
