"""RungeKutta3Integrator: 3-stage, 3rd-order explicit Runge-Kutta with error control.

Butcher diagram (Butcher 1987, p. 325)::

      0 |
    1/2 | 1/2
      1 | -1    2
    ----+----------------
        | 1/6  2/3  1/6      propagated 3rd-order solution
        |  0    1    0       embedded 2nd-order (explicit midpoint)

The difference is an h^3 error estimate.
"""

from __future__ import annotations

from engine.integrators.integrator import Integrator


class RungeKutta3Integrator(Integrator):
    """Error-controlled 3rd-order Runge-Kutta integrator (method name ``"RungeKutta3"``)."""

    _methodName = "RungeKutta3"
    _minOrder = 3
    _maxOrder = 3
    _hasErrorControl = True

    def _attemptODEStep(self, t1: float):
        t0 = self._tPrev
        y0, f0 = self._yPrev, self._ydotPrev
        h = t1 - t0
        eval_ = self._setAdvancedStateAndRealizeDerivatives
        f1 = eval_(t0 + h / 2, y0 + (h / 2) * f0)
        f2 = eval_(t1, y0 + h * (2 * f1 - f0))
        self._setAdvancedStateAndRealizeKinematics(t1, y0 + (h / 6) * (f0 + 4 * f1 + f2))
        yErr = self._advanced.getY() - (y0 + h * f1)
        return True, yErr, 3
