"""Measure.Sinusoid: a*sin(w*t + p) of the State's time.

``Measure.Sinusoid(subsystem, amplitude, frequency, phase=0)`` with frequency w
in rad per time unit and phase p in radians; the value has the units of the
amplitude. Three time derivatives (w*a*cos, -w^2*a*sin, -w^3*a*cos), all
depending on Time stage and cached.
"""

from __future__ import annotations

import math

import numpy as np

from engine.common.stage import Stage
from engine.measures.measure import Measure, asValue, splitSubsystem


class Sinusoid(Measure):
    """A sinusoidal function of time (see the module docstring)."""

    def __init__(self, *args, **kwargs) -> None:
        subsystem, rest = splitSubsystem(args, kwargs, "Sinusoid")
        names = ("amplitude", "frequency", "phase")
        values = list(rest) + [kwargs.pop(n) for n in names[len(rest) :] if n in kwargs]
        if len(values) < 2:
            raise TypeError("Measure.Sinusoid needs (subsystem, amplitude, frequency[, phase])")
        self._a = asValue(values[0], "amplitude")
        self._w = asValue(values[1], "frequency")
        self._p = asValue(values[2] if len(values) > 2 else 0.0, "phase")
        default = self._a * 0.0 + self._w * 0.0 + self._p * 0.0
        super().__init__(subsystem, default, numCacheEntries=4)

    def _dependsOnStage(self, derivOrder: int) -> Stage:
        return Stage.Time

    def _numTimeDerivatives(self) -> int:
        return 3

    def _calcCachedValue(self, state, derivOrder: int):
        a, w = self._a, self._w
        arg = w * state.getTime() + self._p
        sin, cos = (math.sin, math.cos) if isinstance(arg, float) else (np.sin, np.cos)
        if derivOrder == 0:
            return a * sin(arg)
        if derivOrder == 1:
            return w * a * cos(arg)
        if derivOrder == 2:
            return -w * w * a * sin(arg)
        return -w * w * w * a * cos(arg)
