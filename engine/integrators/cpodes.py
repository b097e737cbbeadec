"""CPodesIntegrator: implicit, variable-order, variable-step multistep integration.

Simbody's CPodesIntegrator wraps SUNDIALS CPODES. Here the same role is played by
scipy's solvers, wrapped so they respect the SimTK contract:

* ``CPodes.BDF`` (the default): scipy.integrate.BDF, variable-order (1-5)
  backward differentiation formulas with a Newton iteration on a finite-difference
  Jacobian. For stiff systems. After each accepted step the state gets prescribed
  motion and constraint projection; the projection correction is applied to the
  BDF history so the multistep method continues from the projected state (as
  CPODES does) instead of restarting.
* ``CPodes.Adams``: scipy.integrate.LSODA (Adams-Moulton, orders 1-12, switching
  to BDF on its own if the problem turns stiff); the projection correction goes
  into its Nordsieck history as for BDF; it restarts when an event changes the
  state.

Accuracy maps onto scipy's mixed tolerance ``|err_i| <= rtol*|y_i| + atol_i``
with rtol = accuracy and atol_i = accuracy / weight_i (u and z weights from the
State; q weights from the diagonal of N Wu pinv(N)), which matches Simbody's
relative-or-absolute scaling within a factor of 2. With setUseInfinityNorm the
tolerances are divided by sqrt(ny) so scipy's RMS test bounds the max norm.

Events, reports and interpolation use the solver's own dense output (a
polynomial of the current order). Statistics: scipy does not report rejected
attempts, so attempts are counted as the distinct trial times evaluated in a
step; every rejection (error test or Newton convergence) is counted as an error
test failure. scipy's BDF always iterates with Newton's method; requesting
``CPodes.Functional`` is recorded but does not change that.

Projection is the System's (``projectQ``/``projectU``, weighted, local) unless
``setUseCPodesProjection`` asks for CPODES's own: an unweighted least-squares
(2-norm) projection of [q, u] onto all constraints at once.
"""

from __future__ import annotations

import math
from enum import IntEnum

import numpy as np
from scipy.integrate import BDF, LSODA

from engine.common import interruptible_linalg
from engine.common.exceptions import ComputationInterruptedError, InvalidArgumentError
from engine.common.stage import Stage
from engine.integrators.error_norm import scaleDQ
from engine.integrators.integrator import _RECOVERABLE, Integrator, _TrialStepError

_EPS = float(np.finfo(np.float64).eps)


class CPodes:
    """Namespace for CPodes choices (Simbody's ``CPodes`` enums)."""

    class LinearMultistepMethod(IntEnum):
        BDF = 1
        Adams = 2

    class NonlinearSystemIterationType(IntEnum):
        Newton = 1
        Functional = 2

    BDF = LinearMultistepMethod.BDF
    Adams = LinearMultistepMethod.Adams
    Newton = NonlinearSystemIterationType.Newton
    Functional = NonlinearSystemIterationType.Functional


class CPodesIntegrator(Integrator):
    """Implicit multistep integrator for stiff (BDF) or smooth (Adams) problems.

    ``CPodesIntegrator(system, linearMultistepMethod=CPodes.BDF,
    nonlinearSystemIterationType=CPodes.Newton)``; method name ``"CPodesBDF"`` or
    ``"CPodesAdams"``, orders 1-5 (BDF) or 1-12 (Adams).
    """

    BDF = CPodes.BDF
    Adams = CPodes.Adams
    Newton = CPodes.Newton
    Functional = CPodes.Functional
    _hasErrorControl = True

    #: Trial restarts (each with a 10x smaller first step) before a step is declared failed.
    _MAX_RESTARTS = 12

    def __init__(
        self,
        system,
        linearMultistepMethod=CPodes.BDF,
        nonlinearSystemIterationType=CPodes.Newton,
    ) -> None:
        super().__init__(system)
        try:
            self._lmm = CPodes.LinearMultistepMethod(linearMultistepMethod)
            self._nls = CPodes.NonlinearSystemIterationType(nonlinearSystemIterationType)
        except ValueError as exc:
            raise InvalidArgumentError(
                "CPodesIntegrator needs CPodes.BDF or CPodes.Adams and CPodes.Newton or "
                f"CPodes.Functional, got {linearMultistepMethod!r}, "
                f"{nonlinearSystemIterationType!r}"
            ) from exc
        isBDF = self._lmm == CPodes.BDF
        self._methodName = "CPodesBDF" if isBDF else "CPodesAdams"
        self._minOrder = 1
        self._maxOrder = 5 if isBDF else 12
        self._solver = None
        self._dense = None
        self._denseSpan = (math.nan, math.nan)
        self._denseCorrection = None
        self._stepTimes: set[float] = set()
        self._useCPodesProjection = False

    def setUseCPodesProjection(self) -> None:
        """Project with the integrator's own method instead of the System's (Simbody's
        ``CPodesIntegrator::setUseCPodesProjection``; call before ``initialize``).

        CPODES's projection treats all constraints c(y) = [qErr(q), uErr(q, u)] as one set
        and moves y = [q, u] to the nearest point (in the plain 2-norm) where every
        constraint error, scaled by its weight, is within a tenth of the constraint
        tolerance: Gauss-Newton iterations with a finite-difference constraint Jacobian,
        least-squares (so redundant constraints are tolerated). z and prescribed
        coordinates are not treated specially."""
        if self._advanced is not None:
            raise InvalidArgumentError(
                "setUseCPodesProjection: choose the projection before initialize()"
            )
        self._useCPodesProjection = True

    def isUsingCPodesProjection(self) -> bool:
        """True after ``setUseCPodesProjection``."""
        return self._useCPodesProjection

    def getLinearMultistepMethod(self) -> CPodes.LinearMultistepMethod:
        return self._lmm

    def getNonlinearSystemIterationType(self) -> CPodes.NonlinearSystemIterationType:
        return self._nls

    # ------------------------------------------------------------- lifecycle
    def _methodInitialize(self, state) -> None:
        super()._methodInitialize(state)
        self._solver = None
        self._dense = None

    def _methodReinitialize(self, stage, shouldTerminate: bool) -> None:
        if stage < Stage.Report:
            self._solver = None
            self._dense = None

    # --------------------------------------------------------------- solver
    def _rhs(self, t: float, y: np.ndarray) -> np.ndarray:
        self._stepTimes.add(float(t))
        return self._setAdvancedStateAndRealizeDerivatives(float(t), np.array(y, dtype=float))

    def _tolerances(self):
        """(rtol, atol vector) for scipy from the accuracy and the State's weights."""
        adv = self._advanced
        acc = self._accuracyInUse
        ny = adv.getNY()
        if self.isInfinityNormInUse() and ny > 0:
            acc = acc / math.sqrt(ny)
        acc = max(acc, 100 * _EPS)
        nq = adv.getNQ()
        wq = np.empty(nq)
        if nq:
            self._system.realize(adv, Stage.Position)
            uw = adv.getUWeights()
            for i in range(nq):
                e = np.zeros(nq)
                e[i] = 1.0
                wq[i] = abs(scaleDQ(self._system, adv, uw, e)[i])
        w = np.concatenate([wq, adv.getUWeights(), adv.getZWeights()])
        atol = acc / np.maximum(w, 1e-300)
        return acc, np.minimum(atol, 1e300)

    def _startSolver(self, t0: float, y0: np.ndarray, tMax: float, firstStep: float | None):
        rtol, atol = self._tolerances()
        maxStep = self._userMaxStepSize if self._userMaxStepSize is not None else math.inf
        if firstStep is not None:
            firstStep = min(firstStep, tMax - t0)
            if maxStep < math.inf:
                firstStep = min(firstStep, maxStep)
        kwargs = dict(rtol=rtol, atol=atol, max_step=maxStep, first_step=firstStep)
        self._stepTimes = set()
        if self._lmm == CPodes.BDF:
            self._solver = BDF(self._rhs, t0, y0.copy(), tMax, **kwargs)
        else:
            kwargs["min_step"] = self._userMinStepSize or 0.0
            self._solver = LSODA(self._rhs, t0, y0.copy(), tMax, **kwargs)

    def _solverMatches(self, t0: float, y0: np.ndarray) -> bool:
        s = self._solver
        return s is not None and s.t == t0 and np.array_equal(s.y, y0)

    # ------------------------------------------------------------- stepping
    def _advanceOneStep(self, tMax: float) -> None:
        t0, y0 = self._tPrev, self._yPrev
        self._failure, self._failureExc = "", None
        firstStep = self._userInitStepSize if math.isnan(self._actualInitialStepSizeTaken) else None
        restarts = 0
        while True:
            try:
                solver = self._solver
                if solver is not None and solver.status != "running":
                    # BDF's history is plain Python and can go on past its old bound;
                    # LSODA's Fortran state cannot, so it restarts.
                    if isinstance(solver, BDF) and solver.status == "finished":
                        solver.status = "running"
                    else:
                        self._solver = None
                if not self._solverMatches(t0, y0):
                    self._startSolver(t0, y0, tMax, firstStep)
                solver = self._solver
                solver.t_bound = tMax
                self._stepTimes = set()
                message = solver.step()
                attempts = max(1, len(self._stepTimes - {t0}))
                self._statsStepsAttempted += attempts
                self._statsErrorTestFailures += attempts - 1
                if solver.status == "failed":
                    raise _TrialStepError(
                        f"scipy's {type(solver).__name__} solver gave up: {message} "
                        f"(at step size {getattr(solver, 'h_abs', math.nan):.3g})"
                    )
                if not solver.t > t0:
                    raise _TrialStepError(
                        f"scipy's {type(solver).__name__} solver made no progress past t={t0!r}"
                    )
                if self._finishStep(t0, solver, tMax):
                    return
            except _TrialStepError as exc:
                self._failure, self._failureExc = str(exc), None
            except ComputationInterruptedError:
                raise
            except _RECOVERABLE as exc:
                self._failure = f"evaluating a trial state raised {type(exc).__name__}: {exc}"
                self._failureExc = exc
            self._statsConvergenceTestFailures += 1
            restarts += 1
            previous = self._lastStepSize if math.isfinite(self._lastStepSize) else tMax - t0
            firstStep = previous / 10.0**restarts
            self._solver = None
            if restarts > self._MAX_RESTARTS or firstStep < self._minResolvableStep(t0):
                raise self._stepFailed(t0, firstStep, "step size underflow")

    def _finishStep(self, t0: float, solver, tMax: float) -> bool:
        """Accept the solver's step: prescribe and project the advanced state, feed the
        correction back to the solver. False if the projection failed."""
        t1 = float(solver.t)
        y1 = np.array(solver.y, dtype=float)
        adv = self._advanced
        self._setAdvancedStateAndRealizeKinematics(t1, y1)
        limit = self._projectionLimit()
        if self._useCPodesProjection:
            if not self._cpodesProjectNoThrow(limit):
                return False
        else:
            if not self._localProjectQAndQErrEstNoThrow(adv, None, limit):
                return False
            self._system.prescribeU(adv)
            self._system.realize(adv, Stage.Velocity)
            if not self._localProjectUAndUErrEstNoThrow(adv, None, limit):
                return False
        yFinal = adv.getY().copy()
        delta = yFinal - y1
        self._dense = solver.dense_output()
        self._denseSpan = (float(solver.t_old), t1)
        self._denseCorrection = delta if np.any(delta) else None
        if self._denseCorrection is not None:
            self._correctHistory(solver, yFinal, delta)
        h = t1 - t0
        if (
            self._userMinStepSize is not None
            and h < self._userMinStepSize * (1 - 1e-12)
            and t1 < tMax
        ):
            self._failure = (
                f"the solver needed a step of {h:.3g}, below the minimum step size "
                f"{self._userMinStepSize:g}"
            )
            raise self._stepFailed(t0, h, "step size below the minimum")
        self._lastStepSize = h
        if math.isnan(self._actualInitialStepSizeTaken):
            self._actualInitialStepSizeTaken = h
        predicted = getattr(solver, "h_abs", None)
        self._currentStepSize = float(predicted) if predicted else h
        return True

    def _cpodesProjectNoThrow(self, limit: float) -> bool:
        """CPODES's own projection of the advanced state (see setUseCPodesProjection);
        realized through Velocity on return. False (a failed step) if the scaled
        constraint error exceeds ``limit`` or the iterations do not converge."""
        adv, system = self._advanced, self._system
        nc = adv.getNQErr() + adv.getNUErr()
        if nc == 0:
            return True
        nx = adv.getNQ() + adv.getNU()
        w = np.concatenate([adv.getQErrWeights(), adv.getUErrWeights()])
        target = 0.1 * self._consTol

        def errors(x: np.ndarray) -> np.ndarray:
            y = adv.getY().copy()
            y[:nx] = x
            adv.setY(y)
            system.realize(adv, Stage.Velocity)
            return np.concatenate([adv.getQErr(), adv.getUErr()]) * w

        x0 = adv.getY()[:nx].copy()
        c = np.concatenate([adv.getQErr(), adv.getUErr()]) * w
        worst = float(np.max(np.abs(c)))
        if worst <= target:
            return True
        if not worst <= limit:
            self._statsQProjectionFailures += 1
            self._failure = (
                f"CPodes projection: constraint error {worst:.3g} exceeds the projection "
                f"limit {limit:.3g}"
            )
            return False
        C = np.empty((nc, nx))
        for j in range(nx):
            h = math.sqrt(_EPS) * max(1.0, abs(x0[j]))
            xj = x0.copy()
            xj[j] += h
            C[:, j] = (errors(xj) - c) / h
        x = x0
        for _ in range(8):
            x = x - interruptible_linalg.lstsq(C, c, rcond=None)[0]
            c = errors(x)
            worst = float(np.max(np.abs(c)))
            if worst <= target:
                self._statsQProjections += 1
                self._statsUProjections += 1
                return True
        self._statsQProjectionFailures += 1
        self._failure = f"CPodes projection did not converge (constraint error {worst:.3g})"
        return False

    def _correctHistory(self, solver, yFinal: np.ndarray, delta: np.ndarray) -> None:
        """Move the solver's current point to the projected state, as CPODES does: the
        multistep history's value column becomes the projected y (BDF's difference array
        D[0]; LSODA's Nordsieck array, whose first column is y and sits at rwork[20:20+n])
        and the method continues at its order and step size. A solver whose history is not
        reachable restarts."""
        if isinstance(solver, BDF):
            solver.y = yFinal.copy()
            solver.D[0] = yFinal
            return
        inner = getattr(solver, "_lsoda_solver", None)
        rwork = getattr(getattr(inner, "_integrator", None), "rwork", None)
        n = yFinal.size
        if rwork is None or rwork.size < 20 + n or not np.allclose(rwork[20 : 20 + n], solver.y):
            self._solver = None
            return
        rwork[20 : 20 + n] += delta
        inner._y = yFinal.copy()
        solver.y = yFinal.copy()

    # --------------------------------------------------------- interpolation
    def _interpolateY(self, t: float) -> np.ndarray:
        lo, hi = self._denseSpan
        adv = self._advanced
        if (
            self._dense is not None
            and lo == self._tPrev
            and hi == adv.getTime()
            and lo <= t <= hi
            and hi > lo
        ):
            y = np.array(self._dense(t), dtype=float)
            if self._denseCorrection is not None:
                y += ((t - lo) / (hi - lo)) * self._denseCorrection
            return y
        return super()._interpolateY(t)

    def _backUpAdvancedStateByInterpolation(self, t: float) -> None:
        super()._backUpAdvancedStateByInterpolation(t)
        self._solver = None
        self._dense = None
