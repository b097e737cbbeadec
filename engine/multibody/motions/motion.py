"""Motion: how the mobilities of one mobilizer are driven (Simbody's Motion).

A Motion belongs to one MobilizedBody and drives *all* its mobilities at one level
(``Motion.Position``: q(t) known, so u and udot too; ``Motion.Velocity``: u and udot
known, q integrated; ``Motion.Acceleration``: udot known) by one method (``Prescribed``
from the Motion's functions, ``Zero``, ``Discrete`` (held), or ``Free``). The lower levels
follow Simbody's table (``calcAllMethods``). Adding a Motion is a topology change.

Concrete kinds: ``Motion.Steady``, ``Motion.Sinusoid``, ``Motion.Custom`` (a Python
``Motion.Custom.Implementation``). Quantities are per mobilizer: ``q`` (nq,) in the
mobilizer's coordinate units, ``u``/``udot`` (nu,) in its speed units.
"""

from __future__ import annotations

from enum import IntEnum
from typing import TYPE_CHECKING

import numpy as np

from engine.common.exceptions import IndexOutOfRangeError, InvalidArgumentError
from engine.common.index_arg import index_value
from engine.multibody.body_handle import MobilizedBodyHandle

if TYPE_CHECKING:
    from engine.common.state import State


class MotionLevel(IntEnum):
    """The highest driven level (lower levels are driven too)."""

    NoLevel = -1
    Acceleration = 0
    Velocity = 1
    Position = 2


class MotionMethod(IntEnum):
    """How a level is driven."""

    NoMethod = -1
    Zero = 0
    Discrete = 1
    Prescribed = 2
    Free = 3
    Fast = 4


def as_level(level, what: str = "level") -> MotionLevel:
    """A MotionLevel from a MotionLevel, int or name; InvalidArgumentError otherwise."""
    try:
        if isinstance(level, str):
            return MotionLevel[level]
        return MotionLevel(index_value(level, what))
    except (KeyError, ValueError, TypeError, IndexOutOfRangeError):
        raise InvalidArgumentError(
            f"{what}: expected Motion.Position, Motion.Velocity or Motion.Acceleration, "
            f"got {level!r}"
        ) from None


def calc_all_methods(level: MotionLevel, method: MotionMethod):
    """(qMethod, uMethod, udotMethod) of a (level, method) specification (Simbody's table)."""
    m = {level: method}
    if level == MotionLevel.Position:
        m[MotionLevel.Velocity] = m[MotionLevel.Acceleration] = (
            MotionMethod.Prescribed if method == MotionMethod.Prescribed else MotionMethod.Zero
        )
    elif level == MotionLevel.Velocity:
        m[MotionLevel.Acceleration] = (
            MotionMethod.Prescribed if method == MotionMethod.Prescribed else MotionMethod.Zero
        )
        m[MotionLevel.Position] = (
            MotionMethod.Discrete if method == MotionMethod.Zero else MotionMethod.Free
        )
    elif level == MotionLevel.Acceleration:
        m[MotionLevel.Velocity] = (
            MotionMethod.Discrete if method == MotionMethod.Zero else MotionMethod.Free
        )
        m[MotionLevel.Position] = MotionMethod.Free
    else:
        raise InvalidArgumentError(f"unrecognized motion level {level!r}")
    return m[MotionLevel.Position], m[MotionLevel.Velocity], m[MotionLevel.Acceleration]


class Motion:
    """Base of every Motion; construct a concrete kind (Motion.Steady, ...)."""

    Level = MotionLevel
    Method = MotionMethod
    NoLevel = MotionLevel.NoLevel
    Acceleration = MotionLevel.Acceleration
    Velocity = MotionLevel.Velocity
    Position = MotionLevel.Position
    NoMethod = MotionMethod.NoMethod
    Zero = MotionMethod.Zero
    Discrete = MotionMethod.Discrete
    Prescribed = MotionMethod.Prescribed
    Free = MotionMethod.Free
    Fast = MotionMethod.Fast

    def __init__(self, mobod) -> None:
        if not isinstance(mobod, MobilizedBodyHandle):
            raise InvalidArgumentError(
                f"{type(self).__name__}: the first argument is the MobilizedBody to drive, "
                f"got {type(mobod).__name__}"
            )
        if mobod.getMobilizedBodyIndex() == 0:
            raise InvalidArgumentError(
                f"{type(self).__name__}: Ground cannot be given a Motion (it has no mobilities)"
            )
        self._mobod = mobod
        mobod.adoptMotion(self)

    @staticmethod
    def nameOfLevel(level) -> str:
        try:
            return MotionLevel(int(level)).name
        except ValueError:
            return "UNRECOGNIZED LEVEL"

    @staticmethod
    def nameOfMethod(method) -> str:
        try:
            return MotionMethod(int(method)).name
        except ValueError:
            return "UNRECOGNIZED METHOD"

    def getMobilizedBody(self):
        """The MobilizedBody this Motion drives."""
        return self._mobod

    def getLevel(self, state: State) -> MotionLevel:
        raise NotImplementedError

    def getLevelMethod(self, state: State) -> MotionMethod:
        return MotionMethod.Prescribed

    def calcAllMethods(self, state: State):
        """(qMethod, uMethod, udotMethod) from getLevel and getLevelMethod."""
        return calc_all_methods(self.getLevel(state), self.getLevelMethod(state))

    # --------------------------------------------------- topology hook (state vars)
    def _realize_topology(self, state: State, matter) -> None:
        """Allocate any State variables this Motion needs (none by default)."""

    # --------------------------------------------------------- prescribed values
    # nq / nu are the numbers of q's and u's of the mobilizer in use; each returns a
    # float64 array of that length.
    def calcPrescribedPosition(self, state: State, nq: int) -> np.ndarray:
        raise NotImplementedError(f"{type(self).__name__} does not prescribe positions")

    def calcPrescribedPositionDot(self, state: State, nq: int) -> np.ndarray:
        raise NotImplementedError(f"{type(self).__name__} does not prescribe positions")

    def calcPrescribedPositionDotDot(self, state: State, nq: int) -> np.ndarray:
        raise NotImplementedError(f"{type(self).__name__} does not prescribe positions")

    def calcPrescribedVelocity(self, state: State, nu: int) -> np.ndarray:
        raise NotImplementedError(f"{type(self).__name__} does not prescribe velocities")

    def calcPrescribedVelocityDot(self, state: State, nu: int) -> np.ndarray:
        raise NotImplementedError(f"{type(self).__name__} does not prescribe velocities")

    def calcPrescribedAcceleration(self, state: State, nu: int) -> np.ndarray:
        raise NotImplementedError(f"{type(self).__name__} does not prescribe accelerations")

    def __repr__(self) -> str:
        return f"<Motion.{type(self).__name__} on body {self._mobod.getMobilizedBodyIndex()}>"
