"""VerletIntegrator: velocity-Verlet-like 2nd-order method with error control.

Positions are advanced with ``q1 = q0 + h*qdot0 + (h^2/2)*qdotdot0`` (then
prescribed and projected); speeds and z with the implicit trapezoid rule
``u1 = u0 + (h/2)(udot0 + udot1)``, solved by functional iteration (at most 10
iterations; a step whose iteration does not converge is retried smaller). The
error estimate compares q with the trapezoid-rule integral of qdot and u, z with
an explicit Euler step (scaled by h so all are 3rd order in h). Orders 2-3.
"""

from __future__ import annotations

import numpy as np

from engine.common.stage import Stage
from engine.integrators.integrator import Integrator

_TINY = float(np.finfo(np.float64).eps ** 1.25)


class VerletIntegrator(Integrator):
    """Error-controlled Verlet integrator (method name ``"Verlet"``).
    ``VerletIntegrator(system, stepSize)`` fixes the step size."""

    _methodName = "Verlet"
    _minOrder = 2
    _maxOrder = 3
    _hasErrorControl = True

    def __init__(self, system, stepSize: float | None = None) -> None:
        super().__init__(system)
        if stepSize is not None:
            self.setFixedStepSize(stepSize)

    def _attemptDAEStep(self, t1: float):
        system, adv = self._system, self._advanced
        t0 = self._tPrev
        h = t1 - t0
        q0, u0, z0, qd0, ud0, zd0 = self._prevParts()
        qdd0 = self._qdotdotPrev
        nq, nu = q0.size, u0.size
        u1Est = u0 + h * ud0
        z1Est = z0 + h * zd0
        self._setAdvancedState(
            t1, np.concatenate([q0 + h * qd0 + (h * h / 2) * qdd0, u1Est, z1Est])
        )
        system.realize(adv, Stage.Time)
        system.prescribeQ(adv)
        system.realize(adv, Stage.Position)
        limit = self._projectionLimit()
        if not self._localProjectQAndQErrEstNoThrow(adv, None, limit):
            return False, None, 3, 0
        system.prescribeU(adv)
        system.realize(adv, Stage.Velocity)
        self._realizeStateDerivatives(adv)
        self._checkDerivatives(adv)

        tol = min(1e-4, 0.1 * self._accuracyInUse)
        converged = False
        prevChange = np.inf
        numIterations = 0
        for i in range(10):
            numIterations += 1
            usave, zsave = adv.getU().copy(), adv.getZ().copy()
            ud1, zd1 = adv.getUDot().copy(), adv.getZDot().copy()
            adv.setU(u0 + (h / 2) * (ud0 + ud1))
            adv.setZ(z0 + (h / 2) * (zd0 + zd1))
            system.prescribeU(adv)
            system.realize(adv, Stage.Velocity)
            self._realizeStateDerivatives(adv)
            self._checkDerivatives(adv)
            cu = np.linalg.norm(adv.getU() - usave) / (np.linalg.norm(usave) + _TINY)
            cz = np.linalg.norm(adv.getZ() - zsave) / (np.linalg.norm(zsave) + _TINY)
            change = max(cu, cz)
            converged = change <= tol
            if converged or (i > 1 and change > prevChange):
                break
            prevChange = change
        if not converged:
            self._failure = (
                "the implicit trapezoid iteration for u and z did not converge in "
                f"{numIterations} iterations (relative change {change:.3g} > {tol:g})"
            )
        yErr = np.empty(nq + nu + z0.size)
        yErr[:nq] = q0 + (h / 2) * (qd0 + adv.getQDot()) - adv.getQ()
        yErr[nq : nq + nu] = u1Est - adv.getU()
        yErr[nq + nu :] = z1Est - adv.getZ()
        if not self._localProjectUAndUErrEstNoThrow(adv, yErr, limit):
            return False, yErr, 3, numIterations
        yErr[nq:] *= h
        return converged, yErr, 3, numIterations
