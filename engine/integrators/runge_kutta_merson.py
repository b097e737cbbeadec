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
(``FusedRealization.compiledDerivatives``), a whole attempt (trial stages, kinematics,
error estimate and norm, quaternion projection) runs in one kernel call
(``merson_compiled.attempt.merson_attempt``: the same operations in the same order, so the
same steps); otherwise, or if anything in it is not finite, stage by stage through the
State, which names what failed.

A step of a model with thousands of constraint equations can take seconds; it can be cut
short (``interruptStep`` from another thread; a signal's exception in the main thread,
whose handler runs while the step runs in a helper thread): the step in progress is then
not taken and the advanced State is left at the last completed step (see
``_takeConstrainedCompiledSteps``).
"""

from __future__ import annotations

import math
import threading
import time

import numpy as np

from engine.common.interruptible_linalg import run_stoppably
from engine.common.numba_internals import compiled_entry_point as _compiled
from engine.common.project_options import ProjectOptions
from engine.common.stage import Stage
from engine.integrators.integrator import Integrator, _Comm, _StepInterruptedError
from engine.integrators.merson_compiled.attempt import (
    INFO_SIZE,
    KE,
    NORM,
    NORMALIZED,
    PROJECTED,
    WORK_ROWS,
    WORST,
    YERR,
    merson_attempt,
)
from engine.integrators.merson_compiled.constrained_steps import (
    ATTEMPT_INFO_SIZE,
    ATTEMPTS,
    CONS_SPEC,
    COUNTS_SIZE,
    INTERRUPTED,
    PROJECTIONS,
    Q_PROJECTIONS,
    U_PROJECTIONS,
    constrained_merson_steps,
)
from engine.integrators.merson_compiled.run_record import new_run_records
from engine.integrators.merson_compiled.steps import merson_steps
from engine.multibody.kernels.array_table import ArrayTable
from engine.multibody.kernels.constraint_kernels import carve_work, constrained_work_size
from engine.multibody.kernels.fused_stages import ACCELERATION, DYNAMICS, POSITION, VELOCITY
from engine.multibody.kernels.pivoted_cholesky import LARGE_M

_TIME_STAGE = POSITION - 1

#: the most steps one merson_steps call takes (control returns to Python, which can
#: be interrupted, at least this often)
_MAX_STEPS_PER_CALL = 2000

#: a stepping kernel call takes at most as many steps as fit in this much wall time (s) at
#: the wall time per step its previous calls took (``_stepsPerCall``): control returns to
#: Python, which shows progress and handles signals, several times a second however much a
#: step costs (a model with many constraints can take a tenth of a second per step)
_SECONDS_PER_CALL = 0.1

#: the default overshoot factor of the integrators' projections (target accuracy
#: = constraint tolerance x this)
_OVERSHOOT = ProjectOptions().getOvershootFactor()

#: in the main thread, a constrained stepping call expected to take longer than this
#: (s of wall time per step; or with more than LARGE_M constraint equations before a
#: step is measured) runs in a helper thread, so that a signal's handler runs while it
#: does (``interruptible_linalg.run_stoppably``)
_LONG_STEP = 0.02


class RungeKuttaMersonIntegrator(Integrator):
    """Error-controlled 4th-order Runge-Kutta-Merson integrator (method name
    ``"RungeKuttaMerson"``, order 4). Use ``setAccuracy`` to choose the accuracy."""

    _methodName = "RungeKuttaMerson"
    _minOrder = 4
    _maxOrder = 4
    _hasErrorControl = True
    _interpolationOrder = 4
    #: the step serial of the step that ``merson_steps`` last stopped before (it left
    #: that step to Python)
    _compiledStepsStopped = -1
    #: wall time (s) per step of the last stepping kernel call that took steps (NaN before
    #: the first: that call takes one step, and its time includes loading the kernel)
    _secondsPerCompiledStep = math.nan
    #: a constrained stepping call still running in its helper thread after a signal
    #: (its ``Stopped`` and previous-step scratch), waited for before the next step
    _unfinishedCall: tuple | None = None

    def _workMatrix(self, n: int) -> np.ndarray:
        """(WORK_ROWS, n) scratch kept between steps, so a step allocates nothing: rows
        F1..F4 the stage derivatives, Y the stage state, YSAVE, TMP, and (for the compiled
        attempt) YERR, SCALED and SQUARES."""
        work = getattr(self, "_rkWork", None)
        if work is None or work.shape[1] != n:
            work = self._rkWork = np.empty((WORK_ROWS, n))
            self._rkInfo = np.zeros(INFO_SIZE)
            self._runRecord = new_run_records(1)
            self._mersonEntry = (None, merson_attempt)
        return work

    def _attemptDAEStep(self, t1: float):
        """Integrator._attemptDAEStep, in one kernel (``merson_attempt``) where a kernel
        can evaluate the derivatives; the error norm it computes is handed to the error
        test (``_knownErrorNorm``)."""
        system, adv = self._system, self._advanced
        fused = system._fused_realization
        compiled = fused.compiledDerivatives(adv) if fused is not None else None
        if compiled is None or adv.getNUErr():
            return super()._attemptDAEStep(t1)
        y0 = self._yPrev
        work = self._workMatrix(y0.size)
        info = self._rkInfo
        project = adv.getNQErr() > 0
        entry = self._mersonEntry
        if entry[0] is not compiled:  # a new plan: the dispatcher, then its entry point
            entry = self._mersonEntry = (compiled, merson_attempt)
        args = (
            t1 - self._tPrev,
            y0,
            self._ydotPrev,
            work,
            *compiled,
            self._uScalePrev,
            self._zScalePrev,
            adv.getUWeights(),
            self.isInfinityNormInUse(),
            project,
            2.0**4 * self._accuracyInUse,
            self._consTol * _OVERSHOOT,
            bool(self._userProjectEveryStep),
            info,
        )
        status = entry[1](*args)
        if entry[1] is merson_attempt:  # the arguments' types stay those of this plan
            self._mersonEntry = (compiled, _compiled(merson_attempt, args))
        if status:  # redo it through the State, which says what went wrong
            return super()._attemptDAEStep(t1)
        adv._note_y_change("setY")  # the kernel wrote y1 into q and u
        adv.setTime(t1)
        fused.recordKernelRealization(adv, _TIME_STAGE, VELOCITY, info[KE])
        if info[NORMALIZED]:  # and then normalized the quaternions in q
            adv._note_q_change("updQ")
            fused.recordKernelRealization(adv, POSITION, VELOCITY, info[KE])
        self._countKernelAttempts(fused, 1, int(info[PROJECTED]), int(info[NORMALIZED]))
        yErr = work[YERR]
        self._knownErrorNorm = (yErr, float(info[NORM]), int(info[WORST]))
        return True, yErr, 4, 1

    def _countKernelAttempts(self, fused, attempts: int, projections: int, normalizations: int):
        """Count the work of ``attempts`` kernel attempts (``merson_attempt``), of which
        ``projections`` ran the quaternion projection and ``normalizations`` normalized
        quaternions: per attempt four derivative evaluations and the kinematics at y1
        (Time..Velocity), per projection a projectQ, and Position and Velocity again where
        it changed q. Realize and prescribe calls the kernel made unnecessary are not
        counted: the kernel does not make them."""
        self._statsRealizations += 4 * attempts
        fused.countRealizations(4 * attempts)
        fused.countStages(_TIME_STAGE, VELOCITY, attempts)
        fused.countStages(POSITION, VELOCITY, normalizations)
        fused.countQuaternionProjections(normalizations)
        self._statsQProjections += normalizations
        fused.countProjectQCalls(projections)

    def _compiledStepsObstacle(self, adv) -> str:
        """Integrator._compiledStepsObstacle: what keeps ``merson_steps`` from stepping
        ``adv`` (see merson_compiled.steps)."""
        system = self._system
        fused = system._fused_realization
        if fused is None:
            return "the System realizes its stages one by one"
        why = fused.whyNoCompiledDerivatives(adv)
        constrained = fused.compiledConstrainedDerivatives(adv) is not None
        if why and not constrained:
            return why
        if adv.getNUErr() and not constrained:
            return "its constraints are projected after every step"
        if adv.getNEventTriggers():
            return "event witnesses are watched over every step"
        if self._userReturnEveryInternalStep:
            return "it returns after every internal step (setReturnEveryInternalStep)"
        if system.hasTimeAdvancedEvents():
            return "a time-advanced event handler runs after every step"
        if adv._hasAutoUpdateVariables():
            return "auto-update discrete variables are swapped at every step"
        return ""

    def _takeCompiledSteps(self, tMax: float, tStop: float, maxSteps: float) -> int:
        """Integrator._takeCompiledSteps with ``merson_steps``, where a kernel can
        evaluate the derivatives and nothing needs Python between steps (see
        ``merson_compiled.steps``)."""
        system, adv = self._system, self._advanced
        self._finishUnfinishedCall()
        request = self._interrupt()
        if request.is_set():
            request.clear()
            raise _StepInterruptedError()
        if self._compiledStepsStopped == self._stepSerial or self._compiledStepsObstacle(adv):
            return 0
        stage = adv.getSystemStage()
        if stage < Stage.Velocity:
            return 0
        adv.autoUpdateDiscreteVariables()  # those updated on request, at the run's start
        fused = system._fused_realization
        compiled = fused.compiledDerivatives(adv)
        if compiled is None:  # compiled constraints: the steps that project them
            return self._takeConstrainedCompiledSteps(tMax, tStop, maxSteps, stage)
        nz = adv.getNY() - adv.getNQ() - adv.getNU()  # z: the dissipated energy
        leading, scratch = self._compiledStepsStart(tMax, tStop, maxSteps, stage, nz)
        runRecord = self._runRecord
        run = runRecord[0]  # a view of the record the kernel writes
        args = (
            *leading,
            *compiled,
            adv.getUWeights(),
            self.isInfinityNormInUse(),
            adv.getNQErr() > 0,
            self._consTol * _OVERSHOOT,
            bool(self._userProjectEveryStep),
            self._rkInfo,
            runRecord,
        )
        start = time.perf_counter()
        status = merson_steps(*args)  # once per stepTo: the dispatcher will do
        steps = self._afterCompiledSteps(status, *scratch)
        self._timeCompiledSteps(start, steps)
        if steps:
            projections = int(run["projections"])
            self._countKernelAttempts(
                fused, int(run["attempts"]), projections, int(run["normalizations"])
            )
        return steps

    def _compiledStepsStart(self, tMax, tStop, maxSteps, stage, nz: int) -> tuple:
        """Before a stepping kernel's call (``merson_steps``, ``constrained_merson_steps``):
        the run record's start values written, and (leading, scratch): the arguments both
        kernels take first (the step limits, the derivative flags, the accuracy, the step
        size bounds, the previous-step scratch and the work matrix), and the scratch
        arrays (y, ydot, qdotdot, u scale and z scale (``nz`` long) of the previous step)
        that ``_afterCompiledSteps`` takes."""
        system, adv = self._system, self._advanced
        fused = system._fused_realization
        ny, nq, nu = adv.getNY(), adv.getNQ(), adv.getNU()
        work = self._workMatrix(ny)  # (and the run record, on a first call)
        run = self._runRecord[0]
        run["time"] = adv.getTime()
        run["step_size"] = self._currentStepSize
        run["first_step_size"] = self._actualInitialStepSizeTaken
        run["tiny_steps"] = self._tinySteps
        needDerivatives = stage < Stage.Acceleration
        withInertias = needDerivatives and not system._matter._abi_current(
            fused._current_plan(adv).ctx
        )
        mn, mx = self._userMinStepSize, self._userMaxStepSize
        scratch = (np.empty(ny), np.empty(ny), np.empty(nq), np.empty(nu), np.empty(nz))
        leading = (
            tMax,
            tStop,
            self._stepsPerCall(maxSteps),
            needDerivatives,
            withInertias,
            self._accuracyInUse,
            0.0 if mn is None else mn,
            math.inf if mx is None else mx,
            *scratch,
            work,
        )
        return leading, scratch

    def _stepsPerCall(self, maxSteps: float) -> float:
        """The most steps the next stepping kernel call may take: ``maxSteps`` (the
        caller's limit), at most _MAX_STEPS_PER_CALL, and at most what fits in
        _SECONDS_PER_CALL at the measured wall time per step (one step before any is
        measured)."""
        perStep = self._secondsPerCompiledStep
        fit = 1 if math.isnan(perStep) else max(1, int(_SECONDS_PER_CALL / max(perStep, 1e-9)))
        return min(maxSteps, _MAX_STEPS_PER_CALL, fit)

    def _timeCompiledSteps(self, start: float, steps: int) -> None:
        """Record the wall time per step of a stepping kernel call that began at ``start``
        (``time.perf_counter``) and took ``steps`` steps (see ``_stepsPerCall``)."""
        if steps:
            self._secondsPerCompiledStep = (time.perf_counter() - start) / steps

    def _afterCompiledSteps(self, status, yPrev, fPrev, qddPrev, uScale, zScale) -> int:
        """Leave the integrator and the advanced state as the Python loop would after the
        steps a stepping kernel took (its run record ``self._runRecord``, its status and
        the previous-step data it wrote); the number of steps. The caller counts the
        attempts' projections and realizations."""
        adv, fused = self._advanced, self._system._fused_realization
        run = self._runRecord[0]
        steps = int(run["steps"])
        if not status and not steps:  # the time was already at tStop: nothing done
            return 0
        adv._note_y_change("setY")  # the kernel wrote q and u (and realized from them)
        adv.setTime(run["time"])
        if status and status != INTERRUPTED:  # q and u are back at the start of the step
            self._compiledStepsStopped = self._stepSerial + steps  # that Python takes next
        if steps == 0:
            return 0
        if not status:  # realized through Velocity at the last step's end
            fused.recordKernelRealization(adv, _TIME_STAGE, VELOCITY, run["kinetic_energy"])
        # the previous-step data and statistics, as the Python loop leaves them
        self._tPrev = float(run["previous_time"])
        self._yPrev, self._ydotPrev, self._qdotdotPrev = yPrev, fPrev, qddPrev
        self._uScalePrev, self._zScalePrev = uScale, zScale
        self._triggersPrev = np.zeros(0)
        self._currentStepSize = float(run["step_size"])
        self._lastStepSize = float(run["last_step_size"])
        self._actualInitialStepSizeTaken = float(run["first_step_size"])
        self._tinySteps = int(run["tiny_steps"])
        self._lastWorstState = int(run["worst_state"])
        self._failure, self._failureExc, self._knownErrorNorm = "", None, None
        attempts = int(run["attempts"])
        realizations = int(run["derivative_realizations"])
        self._statsRealizations += realizations
        fused.countStages(DYNAMICS, ACCELERATION, realizations)
        self._statsStepsAttempted += attempts
        self._statsConvergentIterations += attempts
        self._statsErrorTestFailures += int(run["error_test_failures"])
        self._statsStepsTaken += steps
        self._stepSerial += steps
        return steps

    def _constrainedKernelArrays(self, adv, cc) -> tuple:
        """The ``cons`` tuple of ``constrained_merson_steps`` for the advanced State and
        its compiled constraints ``cc``: (m, addresses, shapes), a table of the
        constraints and the State's arrays their kernels write, the projection weights
        and the scratch (``constrained_steps.CONS_SPEC``). Kept, with the arrays, while the
        State and ``cc`` stay the same (``cc`` is made again, with its State's plan, when
        the discrete variables or the Instance stage change, and with them the weights)."""
        kept = getattr(self, "_constrainedArrays", None)
        if kept is not None and kept[0] is adv and kept[1] is cc:
            return kept[2]
        matter = self._system._matter
        sx = matter.getMySubsystemIndex()
        nu, m, nb = adv.getNU(), cc.m, matter.getNumBodies()
        wu = np.array(adv.getUWeights(sx), dtype=np.float64)
        wu[wu <= 0] = 1.0
        arrays = (
            cc.ci,
            cc.cf,
            cc.info.qerr,
            cc.uerr,
            cc.multipliers,
            cc.udot_err,
            np.array(adv.getQErrWeights(sx)[:m], dtype=np.float64),
            matter._q_weights(adv),
            np.array(adv.getUErrWeights(sx)[:m], dtype=np.float64),
            wu,
            *carve_work(np.zeros(constrained_work_size(m, nb, nu)), m, nb, nu),
            np.zeros((m, nu)),
        )
        table = ArrayTable(CONS_SPEC, arrays)  # checks each array against its declaration
        cons = (m, table.addresses, table.shapes)
        # the arrays stay referenced while the kernels may read them at their addresses
        self._constrainedArrays = (adv, cc, cons, table)
        return cons

    def _takeConstrainedCompiledSteps(self, tMax, tStop, maxSteps, stage) -> int:
        """_takeCompiledSteps for a State with compiled constraints
        (``fused.compiledConstrainedDerivatives``): ``constrained_merson_steps``, whose
        attempts project q, u and the error estimate as ``_attemptDAEStep`` does."""
        system, adv = self._system, self._advanced
        fused = system._fused_realization
        args, cc = fused.compiledConstrainedDerivatives(adv)
        leading, scratch = self._compiledStepsStart(tMax, tStop, maxSteps, stage, 0)
        cons = self._constrainedKernelArrays(adv, cc)
        tol = self._consTol
        force = float(bool(self._userProjectEveryStep))
        tols = np.array([tol, tol * _OVERSHOOT, self._projectionLimit(), force])
        info = getattr(self, "_constrainedInfo", None)
        if info is None:
            info = self._constrainedInfo = np.zeros(ATTEMPT_INFO_SIZE)
            self._constrainedCounts = np.zeros(COUNTS_SIZE, dtype=np.int64)
        counts = self._constrainedCounts
        request = self._interrupt()
        kernelArgs = (
            *leading,
            *args,
            adv.getUWeights(),
            self.isInfinityNormInUse(),
            cons,
            tols,
            info,
            counts,
            self._runRecord,
            request.address,
        )
        start = time.perf_counter()
        if self._longConstrainedCall(cc.m):  # a signal's handler must run meanwhile
            call = run_stoppably(constrained_merson_steps, kernelArgs, request.set)
            if call.interruption is not None:
                # the State as the kernel left it (the step in progress dropped), then the
                # signal's exception; a kernel still loading its callees is waited for by
                # the next step
                self._unfinishedCall = (call, scratch)
                if call.finished:
                    self._finishUnfinishedCall()
                raise call.interruption
            status = call.value
        else:
            status = constrained_merson_steps(*kernelArgs)
        steps = self._afterConstrainedSteps(status, scratch, start)
        if status == INTERRUPTED:
            raise _StepInterruptedError()
        return steps

    def _longConstrainedCall(self, m: int) -> bool:
        """Whether the next constrained stepping call runs in a helper thread
        (``_LONG_STEP``): in the main thread, where signal handlers run, when its steps
        are slow."""
        if threading.current_thread() is not threading.main_thread():
            return False
        perStep = self._secondsPerCompiledStep
        return perStep > _LONG_STEP if not math.isnan(perStep) else m > LARGE_M

    def _finishUnfinishedCall(self) -> None:
        """Wait for a constrained stepping call that a signal left running (see
        ``_takeConstrainedCompiledSteps``) and do its bookkeeping."""
        unfinished = self._unfinishedCall
        if unfinished is None:
            return
        call, scratch = unfinished
        call.done.wait()
        self._unfinishedCall = None
        try:
            self._afterConstrainedSteps(call.value, scratch, math.nan)
        finally:
            self._interrupt().clear()  # asked by the signal, whatever the call returned

    def _afterConstrainedSteps(self, status: int, scratch: tuple, start: float) -> int:
        """The bookkeeping after a ``constrained_merson_steps`` call that began at ``start``
        (``time.perf_counter``) with the previous-step ``scratch`` and returned
        ``status``: the steps taken. An interrupted call (INTERRUPTED: the step in
        progress dropped, q and u back at its start) leaves the advanced State realized
        through Velocity at the last completed step, as it was before that step."""
        system, adv = self._system, self._advanced
        fused = system._fused_realization
        counts = self._constrainedCounts
        steps = self._afterCompiledSteps(status, *scratch)
        if status == INTERRUPTED:
            self._interrupt().clear()
            adv._note_y_change("setY")  # the dropped step's stages wrote the State's cache
            system.realize(adv, Stage.Velocity)
            if steps:
                self._comm = _Comm.CompletedInternalStepNoEvent
        elif not math.isnan(start):
            self._timeCompiledSteps(start, steps)
        if steps:
            attempts = int(counts[ATTEMPTS])
            projections = int(counts[PROJECTIONS])
            qChanged, uChanged = int(counts[Q_PROJECTIONS]), int(counts[U_PROJECTIONS])
            # per attempt: four derivative evaluations and the kinematics at y1; per
            # projection a projectQ and a projectU call, counted as System.projectQ/U
            # count them
            self._statsRealizations += 4 * attempts
            fused.countRealizations(4 * attempts)
            fused.countStages(_TIME_STAGE, VELOCITY, attempts)
            self._statsQProjections += qChanged
            self._statsUProjections += uChanged
            system._num_project_q += projections
            system._num_project_u += projections
            system._num_q_projections += qChanged
            system._num_q_err_est_projections += qChanged
            system._num_u_projections += uChanged
            system._num_u_err_est_projections += uChanged
        return steps

    def _attemptODEStep(self, t1: float):
        # Each line computes exactly the floating-point operations (same order, same
        # rounding) of the textbook formulas in the module docstring, in place.
        t0 = self._tPrev
        y0, f0 = self._yPrev, self._ydotPrev
        h = t1 - t0
        f1, f2, f3, f4, y, ysave, tmp = self._workMatrix(y0.size)[:YERR]
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
