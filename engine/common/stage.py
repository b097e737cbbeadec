"""Stage: the ordered computation stages of a SimTK State.

Empty < Topology < Model < Instance < Time < Position < Velocity < Dynamics <
Acceleration < Report < Infinity. A State realized to a stage has valid cache
contents for that stage and every lower one.
"""

from __future__ import annotations

from enum import IntEnum

from engine.common.exceptions import StageOutOfRangeError


class Stage(IntEnum):
    """One computation stage. Compares and orders like an integer.

    ``stage.next()``, ``stage.prev()``, ``stage + 1`` and ``stage - 1`` give
    neighbouring stages; ``getName()`` gives the name as Simbody prints it.
    """

    Empty = 0
    Topology = 1
    Model = 2
    Instance = 3
    Time = 4
    Position = 5
    Velocity = 6
    Dynamics = 7
    Acceleration = 8
    Report = 9
    Infinity = 10

    def getName(self) -> str:
        """The stage name, e.g. ``"Position"``."""
        return self.name

    def next(self) -> Stage:
        """The stage after this one (raises for Infinity)."""
        return self + 1

    def prev(self) -> Stage:
        """The stage before this one (raises for Empty)."""
        return self - 1

    def isInRuntimeRange(self) -> bool:
        """True for Instance through Report, the stages realize() may be asked for."""
        return Stage.Instance <= self <= Stage.Report

    def __add__(self, other: object) -> Stage:  # type: ignore[override]
        if not isinstance(other, int):
            return NotImplemented
        return _stage_from_int(int(self) + int(other))

    def __sub__(self, other: object) -> Stage:  # type: ignore[override]
        if isinstance(other, Stage):
            return int(self) - int(other)  # type: ignore[return-value]
        if not isinstance(other, int):
            return NotImplemented
        return _stage_from_int(int(self) - int(other))

    def __str__(self) -> str:
        return self.name


def _stage_from_int(value: int) -> Stage:
    if not 0 <= value <= 10:
        raise StageOutOfRangeError(
            f"there is no stage {value}: stages run from Empty (0) to Infinity (10)"
        )
    return Stage(value)


#: Aliases Simbody defines.
Stage.LowestValid = Stage.Empty  # type: ignore[attr-defined]
Stage.HighestValid = Stage.Infinity  # type: ignore[attr-defined]
Stage.LowestRuntime = Stage.Instance  # type: ignore[attr-defined]
Stage.HighestRuntime = Stage.Report  # type: ignore[attr-defined]
Stage.NValid = 11  # type: ignore[attr-defined]
Stage.NRuntime = 7  # type: ignore[attr-defined]

#: All stages in order, for fast indexing by int.
ALL_STAGES: tuple[Stage, ...] = tuple(Stage)
