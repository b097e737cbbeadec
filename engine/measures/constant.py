"""Measure.Constant, Measure.Zero and Measure.One: values that never change.

``Measure.Constant(subsystem, value)`` or ``Measure.Constant(value)`` (no
subsystem needed). Its value depends only on Topology (changing it with
setValue is a topology change); every time derivative is zero, and there are
infinitely many of them.
"""

from __future__ import annotations

from engine.common.stage import Stage
from engine.measures.measure import INFINITE_DERIVATIVES, Measure, asValue, splitSubsystem, zeroLike


class Constant(Measure):
    """A constant value (float or vector)."""

    def __init__(self, *args, **kwargs) -> None:
        subsystem, rest = splitSubsystem(args, kwargs, "Constant")
        value = rest[0] if rest else kwargs.pop("value", 0.0)
        super().__init__(subsystem, asValue(value), numCacheEntries=0)

    def setValue(self, value) -> Constant:
        """Change the constant (a topology change: realizeTopology() again)."""
        return self.setDefaultValue(value)

    def _dependsOnStage(self, derivOrder: int) -> Stage:
        return Stage.Empty if derivOrder > 0 else Stage.Topology

    def _numTimeDerivatives(self) -> int:
        return INFINITE_DERIVATIVES

    def _getUncachedValue(self, state, derivOrder: int):
        return zeroLike(self._defaultValue) if derivOrder > 0 else self._defaultValue


class Zero(Constant):
    """The constant 0 (``Measure.Zero(subsystem)``, or ``Zero(subsystem, size)`` for a
    zero vector)."""

    def __init__(self, *args, **kwargs) -> None:
        subsystem, rest = splitSubsystem(args, kwargs, "Zero")
        size = rest[0] if rest else kwargs.pop("size", None)
        super().__init__(subsystem, 0.0 if size is None else [0.0] * int(size))


class One(Constant):
    """The constant 1 (``Measure.One(subsystem)``, or ``One(subsystem, size)`` for a
    vector of ones)."""

    def __init__(self, *args, **kwargs) -> None:
        subsystem, rest = splitSubsystem(args, kwargs, "One")
        size = rest[0] if rest else kwargs.pop("size", None)
        super().__init__(subsystem, 1.0 if size is None else [1.0] * int(size))
