"""MobilizedBody: Motion ownership and locking (Simbody's lock / lockAt / unlock).

A lock prescribes the mobilizer at one level, overriding its Motion while active:
``Position``: q = value (nq,), u = 0, udot = 0; ``Velocity``: u = value (nu,), udot = 0,
q free; ``Acceleration``: udot = value (nu,), q and u free. Locks live in the State (an
Instance-stage change: the State goes back to Model stage); ``lockByDefault`` is a
topology change whose value is the default q (Position) or zero.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.common.real_array import real_array
from engine.common.stage import Stage
from engine.multibody.motions.motion import MotionLevel, MotionMethod, as_level

if TYPE_CHECKING:
    from engine.common.state import State


class MobilizedBodyLockMixin:
    """adoptMotion / getMotion / hasMotion / clearMotion and the lock API."""

    _motion = None
    _default_lock_level = MotionLevel.NoLevel

    # ----------------------------------------------------------------- Motion
    def adoptMotion(self, motion) -> None:
        """Attach ``motion`` (called by the Motion constructors; a topology change)."""
        if self.getMobilizedBodyIndex() == 0:
            raise InvalidArgumentError("Ground cannot be given a Motion (it has no mobilities)")
        if self._motion is not None and self._motion is not motion:
            raise InvalidArgumentError(
                f"mobilized body {self.getMobilizedBodyIndex()} already has a Motion "
                f"({type(self._motion).__name__}); call clearMotion() first"
            )
        self._motion = motion
        self._matter.invalidateSubsystemTopologyCache()

    def clearMotion(self) -> None:
        """Remove this body's Motion (a topology change)."""
        self._motion = None
        self._matter.invalidateSubsystemTopologyCache()

    def hasMotion(self) -> bool:
        return self._motion is not None

    def getMotion(self):
        if self._motion is None:
            raise InvalidArgumentError(
                f"mobilized body {self.getMobilizedBodyIndex()} has no Motion"
            )
        return self._motion

    def getQMotionMethod(self, state: State) -> MotionMethod:
        return MotionMethod(self._matter._motion_methods(state, self)[0])

    def getUMotionMethod(self, state: State) -> MotionMethod:
        return MotionMethod(self._matter._motion_methods(state, self)[1])

    def getUDotMotionMethod(self, state: State) -> MotionMethod:
        return MotionMethod(self._matter._motion_methods(state, self)[2])

    # ------------------------------------------------------------------- locks
    def lock(self, state: State, level=MotionLevel.Position) -> None:
        """Lock at the State's current q (Position) or u (Velocity), or udot = 0
        (Acceleration)."""
        level = self._lock_level(level, "lock")
        self._matter._require(state, Stage.Model, "MobilizedBody.lock")
        if level == MotionLevel.Position:
            value = self.getQAsVector(state)
        elif level == MotionLevel.Velocity:
            value = self.getUAsVector(state)
        else:
            value = np.zeros(self._num_u(state))
        self._matter._set_lock(state, self, level, value)

    def lockAt(self, state: State, value, level=MotionLevel.Position) -> None:
        """Lock this mobilizer's q (Position, nq values), u (Velocity, nu values) or udot
        (Acceleration, nu values) at ``value`` (a scalar for one-q/one-u mobilizers)."""
        level = self._lock_level(level, "lockAt")
        self._matter._require(state, Stage.Model, "MobilizedBody.lockAt")
        n = self._num_q(state) if level == MotionLevel.Position else self._num_u(state)
        what = "q" if level == MotionLevel.Position else "u"
        arr = np.atleast_1d(real_array(value, "MobilizedBody.lockAt: value", f"{n} {what}'s"))
        if arr.ndim != 1 or arr.size != n:
            raise InvalidArgumentError(
                f"MobilizedBody.lockAt at {level.name} level: body "
                f"{self.getMobilizedBodyIndex()} has {n} {what}'s, got {arr.size} value(s)"
            )
        if not np.all(np.isfinite(arr)):
            raise InvalidArgumentError("MobilizedBody.lockAt: values must be finite")
        self._matter._set_lock(state, self, level, arr)

    def unlock(self, state: State) -> None:
        """Return to free motion or to this body's Motion (nothing if not locked)."""
        self._matter._require(state, Stage.Model, "MobilizedBody.unlock")
        if self.getLockLevel(state) != MotionLevel.NoLevel:
            self._matter._set_lock(state, self, MotionLevel.NoLevel, None)

    def isLocked(self, state: State) -> bool:
        return self.getLockLevel(state) != MotionLevel.NoLevel

    def getLockLevel(self, state: State) -> MotionLevel:
        entry = self._matter._lock_entry(state, self)
        return MotionLevel.NoLevel if entry is None else MotionLevel(entry[0])

    def getLockValueAsVector(self, state: State) -> np.ndarray:
        """The q, u or udot values of the lock (empty if not locked)."""
        entry = self._matter._lock_entry(state, self)
        if entry is None:
            return np.zeros(0)
        return np.array(self._matter._lock_value(state, self, entry), dtype=np.float64)

    getLockValue = getLockValueAsVector

    def lockByDefault(self, level=MotionLevel.Position):
        """Lock in the default State (NoLevel: not locked); a topology change."""
        level = as_level(level, "MobilizedBody.lockByDefault")
        if self.getMobilizedBodyIndex() == 0 and level != MotionLevel.NoLevel:
            raise InvalidArgumentError("Ground cannot be locked (it has no mobilities)")
        self._default_lock_level = level
        self._matter.invalidateSubsystemTopologyCache()
        return self

    def isLockedByDefault(self) -> bool:
        return self._default_lock_level != MotionLevel.NoLevel

    def getLockByDefaultLevel(self) -> MotionLevel:
        return MotionLevel(self._default_lock_level)

    # ----------------------------------------------------------------- helpers
    def _lock_level(self, level, what: str) -> MotionLevel:
        level = as_level(level, f"MobilizedBody.{what}")
        if level == MotionLevel.NoLevel:
            raise InvalidArgumentError(
                f"MobilizedBody.{what}: NoLevel is not a lock level (use unlock())"
            )
        if self.getMobilizedBodyIndex() == 0:
            raise InvalidArgumentError(f"MobilizedBody.{what}: Ground cannot be locked")
        return level

    def _num_q(self, state: State) -> int:
        return self._matter._num_q_in_use(state, self.getMobilizedBodyIndex())

    def _num_u(self, state: State) -> int:
        return int(self._matter._topo().nus[self.getMobilizedBodyIndex()])
