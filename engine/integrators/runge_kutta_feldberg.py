"""RungeKuttaFeldbergIntegrator: Fehlberg's 6-stage 4(5) Runge-Kutta pair.

The 5th-order solution is propagated (local extrapolation) and the difference
from the embedded 4th-order solution, an h^5 estimate, controls the step size,
so the method really converges at the order it reports (5). (Simbody 3.7
propagates the 4th-order member while reporting order 5.)
"""

from __future__ import annotations

from engine.integrators.integrator import Integrator

_C = (0.0, 1 / 4, 3 / 8, 12 / 13, 1.0, 1 / 2)
_A = (
    (),
    (1 / 4,),
    (3 / 32, 9 / 32),
    (1932 / 2197, -7200 / 2197, 7296 / 2197),
    (439 / 216, -8.0, 3680 / 513, -845 / 4104),
    (-8 / 27, 2.0, -3544 / 2565, 1859 / 4104, -11 / 40),
)
#: 5th-order weights (propagated) and 4th-order weights (embedded).
_B5 = (16 / 135, 0.0, 6656 / 12825, 28561 / 56430, -9 / 50, 2 / 55)
_B4 = (25 / 216, 0.0, 1408 / 2565, 2197 / 4104, -1 / 5, 0.0)


class RungeKuttaFeldbergIntegrator(Integrator):
    """Error-controlled 5th-order Runge-Kutta-Fehlberg integrator (method name
    ``"RungeKuttaFeldberg"``, Simbody's spelling)."""

    _methodName = "RungeKuttaFeldberg"
    _minOrder = 5
    _maxOrder = 5
    _hasErrorControl = True
    _interpolationOrder = 5

    def _attemptODEStep(self, t1: float):
        t0 = self._tPrev
        y0, f0 = self._yPrev, self._ydotPrev
        h = t1 - t0
        k = [f0]
        for stage in range(1, 6):
            y = y0.copy()
            for a, f in zip(_A[stage], k, strict=True):
                y += (h * a) * f
            k.append(self._setAdvancedStateAndRealizeDerivatives(t0 + _C[stage] * h, y))
        y5 = y0.copy()
        err = 0.0 * y0
        for b5, b4, f in zip(_B5, _B4, k, strict=True):
            y5 += (h * b5) * f
            err += (h * (b5 - b4)) * f
        self._setAdvancedStateAndRealizeKinematics(t1, y5)
        return True, err, 5
