"""Motion.Steady: constant generalized speeds, u = rates (entries past the given rates are
0), udot = 0; q free (integrated). The rates are a Position-stage State variable (their
defaults are set on the Motion), in the mobilizer's speed units."""

from __future__ import annotations

import math

import numpy as np

from engine.common.exceptions import IndexOutOfRangeError, InvalidArgumentError
from engine.common.stage import Stage
from engine.multibody.motions.motion import Motion, MotionLevel


class Steady(Motion):
    """Steady(mobod, u): one rate for every mobility, or a sequence of rates for the
    first len(u) mobilities (the rest 0)."""

    def __init__(self, mobod, u) -> None:
        nu = int(mobod._module.NU) if mobod._module is not None else 0
        arr = np.atleast_1d(np.asarray(u, dtype=np.float64))
        if arr.ndim != 1 or not np.all(np.isfinite(arr)):
            raise InvalidArgumentError("Motion.Steady: rates must be a finite scalar or vector")
        if np.ndim(u) == 0:
            rates = np.full(nu, float(arr[0]))
        else:
            if arr.size > nu:
                raise InvalidArgumentError(
                    f"Motion.Steady: {arr.size} rates given but the mobilizer has {nu} mobilities"
                )
            rates = np.zeros(nu)
            rates[: arr.size] = arr
        self._default_rates = rates
        self._dv = None
        self._matter = None
        super().__init__(mobod)

    def getLevel(self, state=None) -> MotionLevel:
        return MotionLevel.Velocity

    # --------------------------------------------------------------- defaults
    def setDefaultRate(self, u: float) -> Steady:
        self._default_rates = np.full(self._default_rates.size, self._finite(u))
        self._mobod._matter.invalidateSubsystemTopologyCache()
        return self

    def setOneDefaultRate(self, which: int, u: float) -> Steady:
        self._default_rates[self._which(which)] = self._finite(u)
        self._mobod._matter.invalidateSubsystemTopologyCache()
        return self

    def setDefaultRates(self, u) -> Steady:
        arr = np.asarray(u, dtype=np.float64).ravel()
        if arr.size > self._default_rates.size or not np.all(np.isfinite(arr)):
            raise InvalidArgumentError(
                f"Motion.Steady.setDefaultRates: at most {self._default_rates.size} finite rates"
            )
        self._default_rates[:] = 0.0
        self._default_rates[: arr.size] = arr
        self._mobod._matter.invalidateSubsystemTopologyCache()
        return self

    def getDefaultRate(self, which: int = 0) -> float:
        return float(self._default_rates[self._which(which)])

    # ------------------------------------------------------------ State values
    def _realize_topology(self, state, matter) -> None:
        self._matter = matter
        self._dv = matter.allocateDiscreteVariable(
            state, Stage.Position, tuple(self._default_rates), name="Motion.Steady rates"
        )

    def _rates(self, state) -> np.ndarray:
        if self._dv is None:
            return self._default_rates.copy()
        return np.array(self._matter.getDiscreteVariable(state, self._dv), dtype=np.float64)

    def getRate(self, state, which: int = 0) -> float:
        return float(self._rates(state)[self._which(which)])

    def setRate(self, state, u: float) -> None:
        """Set every mobility's rate in ``state`` (back to Time stage)."""
        self._set(state, np.full(self._default_rates.size, self._finite(u)))

    def setOneRate(self, state, which: int, u: float) -> None:
        rates = self._rates(state)
        rates[self._which(which)] = self._finite(u)
        self._set(state, rates)

    def _set(self, state, rates) -> None:
        if self._dv is None:
            raise InvalidArgumentError("Motion.Steady: call system.realizeTopology() first")
        self._matter.setDiscreteVariable(state, self._dv, tuple(float(r) for r in rates))

    # --------------------------------------------------------- prescribed values
    def calcPrescribedVelocity(self, state, nu: int) -> np.ndarray:
        return self._rates(state)[:nu]

    def calcPrescribedVelocityDot(self, state, nu: int) -> np.ndarray:
        return np.zeros(nu)

    # ---------------------------------------------------------------- helpers
    def _which(self, which: int) -> int:
        n = self._default_rates.size
        if not 0 <= int(which) < n:
            raise IndexOutOfRangeError(f"Motion.Steady: mobility {which} not in [0, {n})")
        return int(which)

    @staticmethod
    def _finite(u) -> float:
        u = float(u)
        if not math.isfinite(u):
            raise InvalidArgumentError("Motion.Steady: a rate must be finite")
        return u
