"""SemiExplicitEuler2Integrator: semi-explicit Euler with error control.

Each step is computed twice, as one full step and as two half steps of
semi-explicit Euler (u and z first, then q with the new u); their difference is
the error estimate (an h^2 estimate of a first-order method) and the two-half-step
result is kept (no extrapolation, which would spoil stability). Order 1, as Simbody
3.7 reports it. Interpolation between steps is linear.
"""

from __future__ import annotations

import numpy as np

from engine.common.stage import Stage
from engine.integrators.integrator import Integrator


class SemiExplicitEuler2Integrator(Integrator):
    """Error-controlled semi-explicit Euler (method name ``"SemiExplicitEuler2"``)."""

    _methodName = "SemiExplicitEuler2"
    _minOrder = 1
    _maxOrder = 1
    _hasErrorControl = True
    _interpolationOrder = 1

    def _semiStep(self, t: float, h: float, q, u, z, udot, zdot):
        """One semi-explicit Euler step of size h ending at t, from (q, u, z) with the
        given udot, zdot; leaves the advanced state there (prescribed, at Position)."""
        system, adv = self._system, self._advanced
        u1 = u + h * udot
        z1 = z + h * zdot
        self._setAdvancedState(t, np.concatenate([q, u1, z1]))
        system.realize(adv, Stage.Position)  # old q, new t
        system.prescribeU(adv)
        qdot = system.multiplyByN(adv, adv.getU())
        adv.setQ(q + h * qdot)
        system.prescribeQ(adv)
        system.realize(adv, Stage.Position)
        system.prescribeU(adv)

    def _attemptDAEStep(self, t1: float):
        system, adv = self._system, self._advanced
        t0 = self._tPrev
        h = t1 - t0
        hHalf = h / 2
        q0, u0, z0, _qd0, ud0, zd0 = self._prevParts()
        # One big step.
        self._semiStep(t1, h, q0, u0, z0, ud0, zd0)
        yBig = adv.getY().copy()
        # Two half steps.
        self._semiStep(t0 + hHalf, hHalf, q0, u0, z0, ud0, zd0)
        system.realize(adv, Stage.Velocity)
        self._realizeStateDerivatives(adv)
        self._checkDerivatives(adv)
        qH, uH, zH = adv.getQ().copy(), adv.getU().copy(), adv.getZ().copy()
        udH, zdH = adv.getUDot().copy(), adv.getZDot().copy()
        self._semiStep(t1, hHalf, qH, uH, zH, udH, zdH)
        yErr = adv.getY() - yBig
        if not self._localProjectQAndQErrEstNoThrow(adv, None):
            return False, yErr, 2, 1
        system.prescribeU(adv)
        system.realize(adv, Stage.Velocity)
        if not self._localProjectUAndUErrEstNoThrow(adv, None):
            return False, yErr, 2, 1
        return True, yErr, 2, 1
