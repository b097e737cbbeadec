"""RungeKuttaMersonIntegrator: 5-stage, 4th-order explicit Runge-Kutta with error control.

Butcher diagram (Hairer, Norsett & Wanner, Solving ODEs I, table 4.1)::

      0 |
    1/3 | 1/3
    1/3 | 1/6  1/6
    1/2 | 1/8   0   3/8
      1 | 1/2   0  -3/2   2
    ----+---------------------------
        | 1/6   0    0   2/3  1/6        propagated 4th-order solution
        | 1/10  0   3/10 2/5  1/5        embedded 3rd-order solution

The difference of the two, ``(y1 - y_stage5)/5``, is an h^4 error estimate that
controls the step size. This is Simbody's default-quality general-purpose method.

Where a kernel can evaluate the State's derivatives
(``FusedRealization.compiledDerivatives``), the four trial stages run in one kernel call
(``merson_kernel.merson_trial_stages``: the same operations in the same order, so the
same steps); otherwise, or if a stage is not finite, stage by stage through the State.
"""

from __future__ import annotations

import numpy as np

from engine.integrators.integrator import Integrator
from engine.integrators.merson_kernel import merson_trial_stages


class RungeKuttaMersonIntegrator(Integrator):
    """Error-controlled 4th-order Runge-Kutta-Merson integrator (method name
    ``"RungeKuttaMerson"``, order 4). Use ``setAccuracy`` to choose the accuracy."""

    _methodName = "RungeKuttaMerson"
    _minOrder = 4
    _maxOrder = 4
    _hasErrorControl = True
    _interpolationOrder = 4

    def _workArrays(self, n: int) -> list[np.ndarray]:
        """Stage derivatives f1..f4, the stage state, ysave and a scratch array (length
        n = ny), kept between steps so a step allocates nothing."""
        work = getattr(self, "_rkWork", None)
        if work is None or work[0].size != n:
            work = [np.empty(n) for _ in range(7)]
            self._rkWork = work
        return work

    def _attemptODEStep(self, t1: float):
        # Each line computes exactly the floating-point operations (same order, same
        # rounding) of the textbook formulas in the module docstring, in place.
        t0 = self._tPrev
        y0, f0 = self._yPrev, self._ydotPrev
        h = t1 - t0
        f1, f2, f3, f4, y, ysave, tmp = self._workArrays(y0.size)
        fused = self._system._fused_realization
        compiled = fused.compiledDerivatives(self._advanced) if fused is not None else None
        if compiled is not None:
            failed_stage = merson_trial_stages(h, y0, f0, f1, f2, f3, f4, y, ysave, tmp, *compiled)
            if failed_stage == 0:
                self._statsRealizations += 4
                fused.countRealizations(4)
                self._setAdvancedStateAndRealizeKinematics(t1, y)
                yErr = self._advanced.getY() - ysave
                yErr /= 5
                return True, yErr, 4
            # a non-finite stage: redo the step below, which says which variable failed
        eval_ = self._setAdvancedStateAndRealizeDerivatives
        np.multiply(h / 3, f0, out=y)
        y += y0  # y0 + (h/3) f0
        eval_(t0 + h / 3, y, f1)
        np.add(f0, f1, out=y)
        y *= h / 6
        y += y0  # y0 + (h/6)(f0 + f1)
        eval_(t0 + h / 3, y, f2)
        np.multiply(3, f2, out=y)
        np.add(f0, y, out=y)
        y *= h / 8
        y += y0  # y0 + (h/8)(f0 + 3 f2)
        eval_(t0 + h / 2, y, f3)
        np.multiply(3, f2, out=tmp)
        np.subtract(f0, tmp, out=ysave)
        np.multiply(4, f3, out=tmp)
        ysave += tmp
        ysave *= h / 2
        ysave += y0  # y0 + (h/2)(f0 - 3 f2 + 4 f3)
        eval_(t1, ysave, f4)
        np.multiply(4, f3, out=y)
        np.add(f0, y, out=y)
        y += f4
        y *= h / 6
        y += y0  # y1 = y0 + (h/6)(f0 + 4 f3 + f4)
        self._setAdvancedStateAndRealizeKinematics(t1, y)
        yErr = self._advanced.getY() - ysave
        yErr /= 5
        return True, yErr, 4
