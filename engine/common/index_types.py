"""Simbody's index types (MobilizedBodyIndex, MobilizerQIndex, ConstraintIndex, ...) as int
subclasses, so that ported code such as ``matter.getMobilizedBody(MobilizedBodyIndex(2))`` or
``Force.MobilityLinearSpring(forces, pin, MobilizerQIndex(0), k, q0)`` runs unchanged. Every
method taking an index accepts them (they are ints). ``MobilizedBodyIndex()`` without a value
is invalid, as Simbody's default-constructed index: ``isValid()`` is False and any method given
it refuses it as out of range.
"""

from __future__ import annotations

#: The value of a default-constructed (invalid) index, as Simbody's.
INVALID_INDEX = -1111111111


class _SimbodyIndex(int):
    """An index of one kind; an int whose default is invalid."""

    def __new__(cls, value: int = INVALID_INDEX):
        return super().__new__(cls, value)

    def isValid(self) -> bool:
        return int(self) >= 0

    def isValidExtended(self) -> bool:
        """Valid, or -1 (Simbody's 'extended' index range starts at -1)."""
        return int(self) >= -1

    def __repr__(self) -> str:
        return f"{type(self).__name__}({int(self)})"


_NAMES = (
    "MobilizedBodyIndex",
    "ConstraintIndex",
    "ForceIndex",
    "SubsystemIndex",
    "MeasureIndex",
    "EventTriggerByStageIndex",
    "QIndex",
    "UIndex",
    "ZIndex",
    "QErrIndex",
    "UErrIndex",
    "UDotErrIndex",
    "MultiplierIndex",
    "MobilizerQIndex",
    "MobilizerUIndex",
    "ConstrainedBodyIndex",
    "ConstrainedMobilizerIndex",
    "ConstrainedQIndex",
    "ConstrainedUIndex",
    "QuaternionPoolIndex",
    "AnglePoolIndex",
    "DiscreteVariableIndex",
    "CacheEntryIndex",
    "MarkerIndex",
    "OSensorIndex",
)

for _name in _NAMES:
    globals()[_name] = type(_name, (_SimbodyIndex,), {"__doc__": f"Simbody's {_name}."})

__all__ = ["INVALID_INDEX", *_NAMES]
