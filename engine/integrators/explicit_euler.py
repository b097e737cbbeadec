"""ExplicitEulerIntegrator: forward Euler, y1 = y0 + h*f(t0, y0), with error control.

The error estimate compares the Euler result with the explicit trapezoid rule
using the end-of-step derivative, ``(h/2)(f0 - f1)`` (an h^2 estimate), so each
step costs exactly one derivative evaluation, which is reused as the start of
the next step. Projection is interleaved with the step. Interpolation between
steps is linear (first order, like the method).
"""

from __future__ import annotations

from engine.common.stage import Stage
from engine.integrators.integrator import Integrator


class ExplicitEulerIntegrator(Integrator):
    """First-order explicit Euler integrator (method name ``"ExplicitEuler"``).

    ``ExplicitEulerIntegrator(system, stepSize)`` also sets the initial step size;
    call ``setFixedStepSize`` to take every step with one size.
    """

    _methodName = "ExplicitEuler"
    _minOrder = 1
    _maxOrder = 1
    _hasErrorControl = True
    _interpolationOrder = 1

    def __init__(self, system, stepSize: float | None = None) -> None:
        super().__init__(system)
        if stepSize is not None:
            self.setInitialStepSize(stepSize)

    def _attemptDAEStep(self, t1: float):
        system, adv = self._system, self._advanced
        t0 = self._tPrev
        y0, f0 = self._yPrev, self._ydotPrev
        h = t1 - t0
        yEuler = y0 + h * f0
        self._setAdvancedState(t1, yEuler)
        system.realize(adv, Stage.Time)
        system.prescribeQ(adv)
        system.realize(adv, Stage.Position)
        if not self._localProjectQAndQErrEstNoThrow(adv, None):
            return False, None, 2, 1
        system.prescribeU(adv)
        system.realize(adv, Stage.Velocity)
        if not self._localProjectUAndUErrEstNoThrow(adv, None):
            return False, None, 2, 1
        self._realizeStateDerivatives(adv)
        f1 = self._checkDerivatives(adv)
        yErr = yEuler - (y0 + (h / 2) * (f0 + f1))
        return True, yErr, 2, 1
