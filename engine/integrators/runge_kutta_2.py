"""RungeKutta2Integrator: explicit trapezoid rule, a 2nd-order Runge-Kutta 2(1) pair.

Butcher diagram::

      0 |
      1 |  1
    ----+------------
        | 1/2  1/2      propagated 2nd-order solution
        |  0    1       embedded 1st-order estimate (uses the end derivative)

The difference is an h^2 error estimate.
"""

from __future__ import annotations

from engine.integrators.integrator import Integrator


class RungeKutta2Integrator(Integrator):
    """Error-controlled 2nd-order Runge-Kutta integrator (method name ``"RungeKutta2"``)."""

    _methodName = "RungeKutta2"
    _minOrder = 2
    _maxOrder = 2
    _hasErrorControl = True

    def _attemptODEStep(self, t1: float):
        t0 = self._tPrev
        y0, f0 = self._yPrev, self._ydotPrev
        h = t1 - t0
        f1 = self._setAdvancedStateAndRealizeDerivatives(t1, y0 + h * f0)
        self._setAdvancedStateAndRealizeKinematics(t1, y0 + (h / 2) * (f0 + f1))
        yErr = self._advanced.getY() - (y0 + h * f1)
        return True, yErr, 2
