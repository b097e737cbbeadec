"""SemiExplicitEulerIntegrator: fixed-step, first-order semi-explicit Euler.

Each step advances the first-order variables first, ``u1 = u0 + h*udot0`` and
``z1 = z0 + h*zdot0``, then the positions with the *new* speeds,
``q1 = q0 + h*N(q0)*u1``, then applies prescribed motion and projects onto the
constraints. There is no error control: every step has the fixed size given to
the constructor (steps are only shortened to land on report or event times).
Interpolation between steps is linear.
"""

from __future__ import annotations

import numpy as np

from engine.common.stage import Stage
from engine.integrators.integrator import Integrator


class SemiExplicitEulerIntegrator(Integrator):
    """Fixed-step semi-explicit Euler (method name ``"SemiExplicitEuler"``);
    ``SemiExplicitEulerIntegrator(system, stepSize)`` with stepSize in time units."""

    _methodName = "SemiExplicitEuler"
    _minOrder = 1
    _maxOrder = 1
    _hasErrorControl = False
    _interpolationOrder = 1

    def __init__(self, system, stepSize: float) -> None:
        super().__init__(system)
        self.setFixedStepSize(stepSize)

    def _attemptDAEStep(self, t1: float):
        system, adv = self._system, self._advanced
        t0 = self._tPrev
        h = t1 - t0
        q0, u0, z0, _qd0, ud0, zd0 = self._prevParts()
        u1 = u0 + h * ud0
        z1 = z0 + h * zd0
        self._setAdvancedState(t1, np.concatenate([q0, u1, z1]))
        system.realize(adv, Stage.Position)  # old q, new t
        system.prescribeU(adv)
        qdot = system.multiplyByN(adv, adv.getU())
        adv.setQ(q0 + h * qdot)
        system.prescribeQ(adv)
        system.realize(adv, Stage.Position)
        system.prescribeU(adv)
        if not self._localProjectQAndQErrEstNoThrow(adv, None):
            return False, None, 1, 1
        system.prescribeU(adv)
        system.realize(adv, Stage.Velocity)
        if not self._localProjectUAndUErrEstNoThrow(adv, None):
            return False, None, 1, 1
        return True, None, 1, 1
