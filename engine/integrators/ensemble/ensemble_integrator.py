"""EnsembleIntegrator: many States of one System advanced together by Runge-Kutta-Merson,
compiled calls over all members, each limited to about CALL_SECONDS of wall time (design:
docs/ensembles.md).

::

    ensemble = EnsembleIntegrator(system, states)   # States of ``system``, one per member
    ensemble.setAccuracy(1e-6)
    t, q, u = ensemble.advanceTo(1.0)                # (M,), (M, nq), (M, nu)

Every member has its own step size and error control: its steps are exactly those of a
``RungeKuttaMersonIntegrator`` with the same accuracy started from its State and driven by a
``TimeStepper`` to the same times (bit for bit: the same kernels in the same order); with
``interpolate=True``, those of the integrator driven by ``Integrator.stepTo``, the values at a
time inside a step coming from the same 4th-order dense output. The members must be States the
compiled stepping takes (``Integrator.whyNotCompiledSteps`` is empty: a tree without
constraints, event witnesses, time-advanced events or auto-update variables, whose forces
are all compiled); the constructor refuses others and says why.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from engine.common.count_arg import count_value
from engine.common.exceptions import InvalidArgumentError
from engine.common.index_arg import index_value
from engine.common.project_options import ProjectOptions
from engine.common.stage import Stage
from engine.common.state import State
from engine.integrators.ensemble.ensemble_kernel import (
    C_ATTEMPTS,
    C_FAILURES,
    C_REALIZATIONS,
    C_STEPS,
    COUNTS,
    advance_members,
    advance_members_through,
    hermite_inverses,
    interpolate_members,
    read_members,
)
from engine.integrators.merson_compiled.attempt import INFO_SIZE, WORK_ROWS
from engine.integrators.merson_compiled.run_record import new_run_records
from engine.integrators.merson_compiled.steps import (
    CRAWLING,
    DERIVATIVES_NOT_FINITE,
    STEP_UNDERFLOW,
)
from engine.integrators.runge_kutta_merson import RungeKuttaMersonIntegrator

_OVERSHOOT = ProjectOptions().getOvershootFactor()
_CUBIC, _QUARTIC = hermite_inverses()
_THIRD = 1.0 / 3.0

#: with a progress callback, ``advanceTo`` reports about this often (s of wall time)
PROGRESS_INTERVAL = 0.25

#: a stepping kernel call is limited to as many steps as take about this long (s of wall
#: time, measured), so that control returns to Python several times a second
CALL_SECONDS = 0.1
#: the first call's step limit, and the largest
_FIRST_BUDGET, _MAX_BUDGET = 256, 1 << 24

#: what a member's nonzero status means
STATUS_TEXT = {
    0: "",
    1: "a trial stage's state or derivatives were not finite",
    2: "a trial stage's state or derivatives were not finite",
    3: "a trial stage's state or derivatives were not finite",
    4: "a trial stage's state or derivatives were not finite",
    5: "the advanced state was not finite",
    6: "the error norm was not finite",
    7: "a quaternion was zero",
    DERIVATIVES_NOT_FINITE: "the derivatives at a step's start were not finite",
    STEP_UNDERFLOW: "the step size underflowed",
    CRAWLING: "the integration made no progress (steps too small to advance time)",
}


class EnsembleIntegrator:
    """Runge-Kutta-Merson for an ensemble of States with one topology (see the module
    docstring). ``system``: the System of every member, or a sequence of Systems, one per
    member (e.g. one model built with different masses, lengths or forces: each member then
    uses its own System's parameters). ``states``: the members' initial States (copied;
    realized here).
    ``accuracy``: the relative accuracy of every member (Integrator.setAccuracy; default
    1e-3 as the integrators'). ``threads``: how many threads share the members (the kernels
    release the interpreter; 1 by default). ``interpolate``: False (default), every member's
    steps end at each time given to ``advanceTo`` (as ``TimeStepper.stepTo`` steps, which
    never integrates past the time it is asked for); True, the steps go on past it and the
    report comes from the dense output (as ``Integrator.stepTo``), so the trajectory does not
    depend on the report times. ``progress(fraction)``, if given, is called about every
    ``PROGRESS_INTERVAL`` s of wall time while the members are set up (realized and their
    kernel tables made, a few ms each) with the fraction of them done; an exception it raises
    (a caller's cancellation) stops the construction and propagates."""

    def __init__(
        self,
        system,
        states,
        accuracy: float | None = None,
        threads: int = 1,
        interpolate: bool = False,
        progress: Callable[[float], None] | None = None,
    ) -> None:
        states = list(states)
        if not states:
            raise InvalidArgumentError("EnsembleIntegrator needs at least one State")
        threads = count_value(threads, "EnsembleIntegrator: threads", 1)
        if isinstance(system, list | tuple):
            systems = list(system)
            if len(systems) != len(states):
                raise InvalidArgumentError(
                    f"EnsembleIntegrator: {len(systems)} Systems for {len(states)} States"
                )
        else:
            systems = [system] * len(states)
        self._systems = systems
        self._threads = threads
        self._interpolate = bool(interpolate)
        self._accuracy = 1e-3
        if accuracy is not None:
            self.setAccuracy(accuracy)
        self._members: list[State] = []
        tables = []
        time_scales: list[float] = []
        nq = nu = None
        reported = time.perf_counter()
        for k, given in enumerate(states):
            due = time.perf_counter() - reported >= PROGRESS_INTERVAL
            if progress is not None and k > 0 and due:
                progress(k / len(states))
                reported = time.perf_counter()
            if not isinstance(given, State):
                raise InvalidArgumentError(
                    f"EnsembleIntegrator: member {k} is a {type(given).__name__}, not a State"
                )
            system = systems[k]
            fused = getattr(system, "_fused_realization", None)
            if fused is None:
                raise InvalidArgumentError(
                    f"EnsembleIntegrator: member {k}'s System realizes its stages one by one, "
                    "so no kernel can step its States"
                )
            adv = State(given)
            system.realizeModel(adv)
            system.realize(adv, Stage.Acceleration)
            why = self._obstacle(system, adv)
            if why:
                raise InvalidArgumentError(
                    f"EnsembleIntegrator: member {k} cannot be stepped by the compiled kernel: "
                    f"{why}"
                )
            if nq is None:
                nq, nu = adv.getNQ(), adv.getNU()
                self._quaternions = adv.getNQErr() > 0
            elif (adv.getNQ(), adv.getNU()) != (nq, nu):
                raise InvalidArgumentError(
                    f"EnsembleIntegrator: member {k} has {adv.getNQ()} q and {adv.getNU()} u, "
                    f"member 0 has {nq} and {nu}: the members must share one topology"
                )
            compiled = fused.compiledDerivatives(adv)
            if compiled is None:
                raise InvalidArgumentError(
                    f"EnsembleIntegrator: member {k}: {fused.whyNoCompiledDerivatives(adv)}"
                )
            tables.append(compiled)
            self._members.append(adv)
            time_scales.append(system.getDefaultTimeScale())
        self._timeScales = np.array(time_scales)
        self._plans = [adv._fast for adv in self._members]  # keep the tables' arrays alive
        m = len(self._members)
        ny = nq + nu
        self._nq, self._nu = nq, nu
        self._euler = np.array([bool(c[0]) for c in tables])
        self._addresses = np.ascontiguousarray(np.stack([c[1] for c in tables]))
        self._shapes = np.ascontiguousarray(np.stack([c[2] for c in tables]))
        weights = [np.asarray(a.getUWeights()) for a in self._members]
        self._wu = np.ascontiguousarray(np.stack(weights))
        self._wu.flags.writeable = False  # read-only, as a State's: the kernels' types match
        self._yPrev = np.empty((m, ny))
        self._fPrev = np.empty((m, ny))
        self._qddPrev = np.empty((m, nq))
        self._uScale = np.empty((m, nu))
        self._work = np.empty((m, WORK_ROWS, ny))
        self._info = np.zeros((m, INFO_SIZE))
        self._run = new_run_records(m)
        self._counts = np.zeros((m, COUNTS))
        self._status = np.zeros(m, dtype=np.int64)
        self._need = np.zeros(m, dtype=np.int64)
        self._scratch = [
            (np.empty((5, ny)), np.empty((5, ny)), np.empty(ny), np.empty(ny))
            for _ in range(self._threads)
        ]
        self._started = False
        self._budget = _FIRST_BUDGET  # steps per kernel call (_in_bounded_calls)
        self._cancelled = False
        for k, adv in enumerate(self._members):
            self._run[k]["time"] = adv.getTime()
            y = np.asarray(adv.getY())
            self._yPrev[k] = y
            self._fPrev[k] = np.asarray(adv.getYDot())
            self._run[k]["previous_time"] = adv.getTime()
        self._lastReport = -math.inf

    # -- settings ---------------------------------------------------------------------------
    @staticmethod
    def _obstacle(system, state: State) -> str:
        """Why the compiled stepping cannot take ``state`` (realized through Acceleration)
        ("" if it can): what ``RungeKuttaMersonIntegrator.whyNotCompiledSteps`` says, that y
        holds a z (a tracked dissipated energy: the ensemble steps q and u only) or that it
        has constraints (the ensemble's kernel has no projection)."""
        if state.getNZ():
            return "its y holds a z (e.g. a tracked dissipated energy); members step q and u"
        if state.getNUErr():
            return "its constraints are projected after every step"
        return RungeKuttaMersonIntegrator(system)._compiledStepsObstacle(state)

    def setAccuracy(self, accuracy: float) -> None:
        """The relative accuracy of every member (as Integrator.setAccuracy); before the
        first advanceTo."""
        accuracy = float(accuracy)
        if not (accuracy > 0 and math.isfinite(accuracy)):
            raise InvalidArgumentError(f"setAccuracy: the accuracy must be > 0, got {accuracy}")
        if getattr(self, "_started", False):
            raise InvalidArgumentError("setAccuracy: the ensemble has already started")
        self._accuracy = accuracy

    def getAccuracyInUse(self) -> float:
        return self._accuracy

    def getNumMembers(self) -> int:
        return len(self._members)

    # -- stepping ---------------------------------------------------------------------------
    def _start(self) -> None:
        self._run["step_size"] = self._timeScales / 10  # as Integrator._methodInitialize
        self._run["first_step_size"] = math.nan
        self._started = True

    def _chunks(self, first: int = 0, last: int | None = None):
        last = len(self._members) if last is None else last
        m = last - first
        n = max(1, min(self._threads, m))
        bounds = [first + round(i * m / n) for i in range(n + 1)]
        return [(bounds[i], bounds[i + 1], i) for i in range(n)]

    def _parallel(self, fn, first: int = 0, last: int | None = None) -> None:
        chunks = self._chunks(first, last)
        self._cancelled = False
        if len(chunks) == 1:
            fn(*chunks[0])
            return
        with ThreadPoolExecutor(len(chunks)) as pool:
            try:
                for f in [pool.submit(fn, *c) for c in chunks]:
                    f.result()
            except BaseException:  # an interruption: the other threads stop at their next return
                self._cancelled = True
                raise

    def _in_bounded_calls(self, call) -> None:
        """``call(budget)`` (a stepping kernel limited to ``budget`` steps, True once done)
        again and again until it is done, each call sized to take about CALL_SECONDS of wall
        time, so that control returns to Python (signals, a cancellation) several times a
        second however long the members take; stops early if another thread of the same
        ``_parallel`` was interrupted."""
        budget = self._budget
        while True:
            start = time.perf_counter()
            if call(np.int64(budget)):
                break
            if self._cancelled:
                return
            took = time.perf_counter() - start
            if took < CALL_SECONDS / 2:
                budget = min(2 * budget, _MAX_BUDGET)
            elif took > 2 * CALL_SECONDS:
                budget = max(1, budget // 2)
            self._budget = budget

    def advanceTo(
        self, t: float, progress: Callable[[float], None] | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Advance every member to time ``t`` (s) and return ``(time, q, u)``: (M,), (M, nq)
        and (M, nu) arrays of each member at ``t`` (the end of its last step, or with
        ``interpolate`` from the dense output inside it). A member that failed
        (``getStatus``) stays where it failed and reports that time and its State there.
        ``progress(fraction)``, if given, is called about every ``PROGRESS_INTERVAL`` s of
        wall time and at the end with the fraction (0..1] of the members already at ``t``
        (the members then advance in blocks, which changes none of their steps)."""
        t = float(t)
        if not math.isfinite(t):
            raise InvalidArgumentError(f"advanceTo: the time must be finite, got {t}")
        if not self._started:
            self._start()
        if t < self._lastReport:
            raise InvalidArgumentError(
                f"advanceTo: {t} s is earlier than the time already reported; an integrator "
                "can only go forward"
            )
        target = self._accuracy / 10 * _OVERSHOOT
        acc = self._accuracy

        t_max = math.inf if self._interpolate else t

        def step(first, last, _):
            def call(budget):
                return advance_members(
                    t_max, t, first, last, acc, 0.0, math.inf, self._yPrev, self._fPrev,
                    self._qddPrev, self._uScale, np.zeros(0), self._work, self._euler,
                    self._addresses, self._shapes, self._wu, False, self._quaternions, target,
                    self._info, self._run, self._counts, self._status, self._need, budget,
                ) >= 0  # fmt: skip

            self._in_bounded_calls(call)

        if progress is None:
            self._parallel(step)
        else:
            self._advance_in_blocks(step, progress)
        out = np.empty((len(self._members), self._nq + self._nu))

        def report(first, last, k):
            rows, coef, ym, fm = self._scratch[k]
            interpolate_members(
                t, first, last, self._euler, self._addresses, self._shapes, self._yPrev,
                self._fPrev, self._run, self._need, _CUBIC, _QUARTIC, _THIRD, rows, coef, ym,
                fm, out,
            )  # fmt: skip

        self._parallel(report)
        self._lastReport = t
        reported = np.where(self._status == 0, t, np.minimum(self._run["time"], t))
        return reported, out[:, : self._nq], out[:, self._nq :]

    def advanceThrough(
        self, times, progress: Callable[[float], None] | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Advance every member through the report ``times`` (s, ascending, none earlier
        than a time already reported) and return ``(time, q, u)``: (T, M), (T, M, nq) and
        (T, M, nu) arrays, row j what ``advanceTo(times[j])`` returns, bit for bit. Each
        member goes through all the times before the next one starts (one pass over the
        members, each member's arrays in the cache for its whole run), so this is the fast
        way to sample a whole run. ``progress(fraction)``: the fraction of the members done,
        about every ``PROGRESS_INTERVAL`` s of wall time and at the end."""
        times = np.ascontiguousarray(times, dtype=np.float64).reshape(-1)
        if not np.isfinite(times).all():
            raise InvalidArgumentError("advanceThrough: the times must be finite")
        if len(times) and (np.diff(times) < 0).any():
            raise InvalidArgumentError("advanceThrough: the times must be ascending")
        m = len(self._members)
        out = np.empty((len(times), m, self._nq + self._nu))
        if not len(times):
            return np.empty((0, m)), out[:, :, : self._nq], out[:, :, self._nq :]
        if times[0] < self._lastReport:
            raise InvalidArgumentError(
                f"advanceThrough: {times[0]} s is earlier than the time already reported; an "
                "integrator can only go forward"
            )
        if not self._started:
            self._start()
        target = self._accuracy / 10 * _OVERSHOOT

        next_time = np.zeros(m, dtype=np.int64)

        def step(first, last, k):
            rows, coef, ym, fm = self._scratch[k]

            def call(budget):
                return advance_members_through(
                    times, self._interpolate, first, last, self._accuracy, self._yPrev,
                    self._fPrev, self._qddPrev, self._uScale, np.zeros(0), self._work,
                    self._euler, self._addresses, self._shapes, self._wu, self._quaternions,
                    target, self._info, self._run, self._counts, self._status, self._need,
                    _CUBIC, _QUARTIC, _THIRD, rows, coef, ym, fm, out, next_time, budget,
                )  # fmt: skip

            self._in_bounded_calls(call)

        if progress is None:
            self._parallel(step)
        else:
            self._advance_in_blocks(step, progress)
        self._lastReport = float(times[-1])
        failed = self._status != 0
        reported = np.where(
            failed[None, :], np.minimum(self._run["time"][None, :], times[:, None]), times[:, None]
        )
        return reported, out[:, :, : self._nq], out[:, :, self._nq :]

    def _advance_in_blocks(self, step, progress: Callable[[float], None]) -> None:
        """``step`` over consecutive blocks of members, each sized to take about
        ``PROGRESS_INTERVAL`` s by the time per member measured so far, and
        ``progress(fraction of members done)`` after each."""
        m = len(self._members)
        first, block = 0, max(1, self._threads)
        while first < m:
            last = min(m, first + block)
            start = time.perf_counter()
            self._parallel(step, first, last)
            per_member = (time.perf_counter() - start) / (last - first)
            progress(last / m)
            first = last
            block = max(self._threads, int(PROGRESS_INTERVAL / max(per_member, 1e-9)))

    # -- results ----------------------------------------------------------------------------
    def getTime(self) -> np.ndarray:
        """Each member's advanced time (s): the end of its last step."""
        return self._run["time"].copy()

    def getStatus(self) -> np.ndarray:
        """0 for each member that advances, else the kernel status that stopped it
        (``getStatusText``)."""
        return self._status.copy()

    def getStatusText(self, member: int) -> str:
        """Why member ``member`` stopped ("" if it did not)."""
        return STATUS_TEXT.get(int(self._status[member]), f"status {self._status[member]}")

    def getAdvancedY(self) -> np.ndarray:
        """(M, nq + nu): each member's q then u at its advanced time."""
        out = np.empty((len(self._members), self._nq + self._nu))
        read_members(0, len(self._members), self._addresses, self._shapes, out)
        return out

    def getMemberState(self, member: int) -> State:
        """A copy of member ``member``'s advanced State (time and y set, nothing
        realized)."""
        member = index_value(member, "getMemberState: member")
        if not 0 <= member < len(self._members):
            raise InvalidArgumentError(
                f"getMemberState: member {member} out of range 0..{len(self._members) - 1}"
            )
        y = self.getAdvancedY()[member]
        copy = State(self._members[member])  # of the member's System
        copy.setTime(float(self._run[member]["time"]))
        copy.setY(y)
        return copy

    def getNumStepsTaken(self) -> np.ndarray:
        """Steps each member took (int64, (M,))."""
        return self._counts[:, C_STEPS].astype(np.int64)

    def getNumStepsAttempted(self) -> np.ndarray:
        return self._counts[:, C_ATTEMPTS].astype(np.int64)

    def getNumErrorTestFailures(self) -> np.ndarray:
        return self._counts[:, C_FAILURES].astype(np.int64)

    def getNumRealizations(self) -> np.ndarray:
        """Derivative evaluations of each member: four per attempt and one per step start
        whose State was not at Acceleration stage (as Integrator.getNumRealizations)."""
        return (4 * self._counts[:, C_ATTEMPTS] + self._counts[:, C_REALIZATIONS]).astype(np.int64)
