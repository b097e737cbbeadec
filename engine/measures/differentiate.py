"""Measure.Differentiate: the time derivative of another measure.

``Measure.Differentiate(subsystem, operand)``. If the operand can deliver its
own derivative (getNumTimeDerivatives() > 0) that exact value is used, with one
derivative fewer and the operand's stages shifted by one. Otherwise (or after
``setForceUseApproximation(True)``, a topology change) the derivative is
estimated from the operand's values at successive steps: first order
``(f - f0)/(t - t0)`` on the first step, then second order ``2*that - fdot0``.
The history lives in an auto-update discrete variable, so it advances by one
step each time the integrator starts a step, and reading the value mid-step
never disturbs it. An approximated derivative is 0 until one step was taken.
"""

from __future__ import annotations

import math

from engine.common.stage import Stage
from engine.measures.measure import Measure, requireMeasure, splitSubsystem, zeroLike


class Differentiate(Measure):
    """Time derivative of an operand measure (see the module docstring)."""

    _needsSubsystem = False

    def __init__(self, *args, **kwargs) -> None:
        subsystem, rest = splitSubsystem(args, kwargs, "Differentiate")
        operand = rest[0] if rest else kwargs.pop("operand")
        self._operand = requireMeasure(operand, "Measure.Differentiate: operand")
        self._forceApprox = False
        self._resultIx = -1
        super().__init__(subsystem, zeroLike(self._operand._defaultValue), numCacheEntries=0)

    def getOperandMeasure(self) -> Measure:
        return self._operand

    def setOperandMeasure(self, operand: Measure) -> Differentiate:
        self._operand = requireMeasure(operand, "setOperandMeasure: operand")
        self._invalidateTopology()
        return self

    def setForceUseApproximation(self, mustApproximate: bool) -> Differentiate:
        """Estimate the derivative numerically even if the operand offers it exactly."""
        self._forceApprox = bool(mustApproximate)
        self._invalidateTopology()
        return self

    def getForceUseApproximation(self) -> bool:
        return self._forceApprox

    def isUsingApproximation(self) -> bool:
        """True if the derivative is estimated numerically (forced, or the operand has
        no derivatives)."""
        return self._forceApprox or self._operand.getNumTimeDerivatives() == 0

    @property
    def _approx(self) -> bool:
        return self.isUsingApproximation()

    # ------------------------------------------------------------------ hooks
    def _numTimeDerivatives(self) -> int:
        if self._approx:
            return 0
        n = self._operand.getNumTimeDerivatives()
        return max(n - 1, 0) if n < 2**31 - 1 else n

    def _dependsOnStage(self, derivOrder: int) -> Stage:
        if self._approx:
            return self._operand.getDependsOnStage(derivOrder)
        return self._operand.getDependsOnStage(derivOrder + 1)

    def _getUncachedValue(self, state, derivOrder: int):
        if not self._approx:
            return self._operand.getValue(state, derivOrder + 1)
        self._ensureDerivativeIsRealized(state)
        sub = self.getSubsystem().getMySubsystemIndex()
        return state.getDiscreteVarUpdateValue(sub, self._resultIx)[1]

    def _realizeTopologyVirtual(self, subsystem, state) -> None:
        if not self._approx:
            return
        stage = self._operand.getDependsOnStage(0)
        zero = zeroLike(self._operand._defaultValue)
        self._resultIx = state.allocateAutoUpdateDiscreteVariable(
            subsystem.getMySubsystemIndex(),
            max(stage, Stage.Position),
            (zero, zero, False),
            max(stage, Stage.Topology),
            name=f"Differentiate measure {self._measureIndex} history",
        )

    def _ensureDerivativeIsRealized(self, state) -> None:
        sub = self.getSubsystem().getMySubsystemIndex()
        if state.isDiscreteVarUpdateValueRealized(sub, self._resultIx):
            return
        t0 = state.getDiscreteVarLastUpdateTime(sub, self._resultIx)
        f0, fdot0, good0 = state.getDiscreteVariable(sub, self._resultIx)
        t = state.getTime()
        f = self._operand.getValue(state)
        good = False
        if not math.isfinite(t0):
            fdot = zeroLike(f)
        elif t == t0:
            fdot, good = fdot0, good0
        else:
            fdot = (f - f0) / (t - t0)
            if good0:
                fdot = 2.0 * fdot - fdot0
            good = True
        entry = state.getDiscreteVarUpdateIndex(sub, self._resultIx)
        state.setCacheEntryValue(sub, entry, (f, fdot, good))
        state.markDiscreteVarUpdateValueRealized(sub, self._resultIx)

    def realizeMeasureAcceleration(self, subsystem, state) -> None:
        # Record this step's operand value even if nobody reads the derivative.
        if self._approx and state.getSubsystemStage(subsystem.getMySubsystemIndex()) >= max(
            self._operand.getDependsOnStage(0), Stage.Topology
        ):
            self._ensureDerivativeIsRealized(state)

    def initializeMeasure(self, subsystem, state) -> None:
        if not self._approx:
            return
        sub = subsystem.getMySubsystemIndex()
        stage = self._operand.getDependsOnStage(0)
        if stage > Stage.Model and state.getSystemStage() < stage:
            subsystem.getSystem().realize(state, stage)
        f = self._operand.getValue(state)
        state.setDiscreteVariable(sub, self._resultIx, (f, zeroLike(f), False))
        state.markCacheValueNotRealized(sub, state.getDiscreteVarUpdateIndex(sub, self._resultIx))
