"""Assembler: find q that satisfy the requirements and best meet the goals (SimTK::Assembler).

The Assembler varies the *free* q of a MultibodySystem's matter subsystem (every q in use,
minus those locked with ``lockMobilizer`` / ``lockQ``) to

    minimize   sum_i w_i goal_i(q)          over the goals (0 < w_i < Infinity)
    subject to err_j(q) = 0                 for the requirements (weight Infinity)

The System's own position constraints are condition 0 ("System constraints", weight
Infinity unless ``setSystemConstraintsWeight`` says otherwise). Requirements are met
when their error norm (max abs by default, RMS with ``setUseRMSErrorNorm``) is at most
``getErrorToleranceInUse()``; otherwise ``assemble`` raises ``AssembleFailedError``
naming the unmet conditions and their errors, and leaves the caller's State unchanged.

Prescribed q (a Motion at Position level, or ``MobilizedBody.lock``) are set by
``System.prescribeQ`` at the State's time and held there like locked q.

Quaternions: the Assembler works in the State's own coordinates and keeps every
quaternion normalized after each change (Simbody works in Euler angles internally), so a
free Ball contributes 4 free q here.

The Assembler owns an internal copy of the State (``getInternalState``); ``assemble(state)``
copies ``state`` in, solves, and writes the resulting q back into ``state``.

Example (close a four-bar's loop with the crank at 1.2 rad, rocker as close to -2 as the
loop allows)::

    asm = Assembler(system).setAccuracy(1e-10)
    asm.adoptAssemblyError(QValue(crank, 0, 1.2))      # requirement
    asm.adoptAssemblyGoal(QValue(rocker, 0, -2.0), 1)  # goal, weight 1
    goal = asm.assemble(state)                         # state's q now assembled
"""

from __future__ import annotations

import math

import numpy as np

from engine.assembler.assembly_condition import AssemblyCondition, normalize_result
from engine.assembler.assembly_solver import AssemblySolver
from engine.assembler.built_in_constraints import BuiltInConstraints
from engine.common.exceptions import (
    AssembleFailedError,
    IndexOutOfRangeError,
    InvalidArgumentError,
    SimTKError,
)
from engine.common.stage import Stage
from engine.common.state import State

DEFAULT_ACCURACY = 1e-3


def _index(value, what: str) -> int:
    if hasattr(value, "getMobilizedBodyIndex"):
        return int(value.getMobilizedBodyIndex())
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    raise InvalidArgumentError(f"{what}: expected an int index, got {type(value).__name__}")


def _weight(weight, what: str) -> float:
    try:
        w = float(weight)
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"{what}: weight must be a number, got {weight!r}") from None
    if math.isnan(w) or w < 0:
        raise InvalidArgumentError(
            f"{what}: weight must be >= 0 (0 ignores the condition, Infinity makes it a "
            f"requirement), got {w}"
        )
    return w


class Assembler:
    """Assembles (and tracks) a MultibodySystem by adjusting its free q."""

    AssembleFailed = AssembleFailedError

    def __init__(self, system) -> None:
        if not hasattr(system, "getMatterSubsystem"):
            raise InvalidArgumentError(
                f"Assembler(system): expected a MultibodySystem, got {type(system).__name__}"
            )
        self._system = system
        self._matter = system.getMatterSubsystem()
        self._accuracy = 0.0
        self._tolerance = 0.0
        self._force_numerical_gradient = False
        self._force_numerical_jacobian = False
        self._use_rms = False
        self._conditions: list[AssemblyCondition] = []
        self._weights: list[float] = []
        self._locked_mobods: set[int] = set()
        self._locked_q: set[tuple[int, int]] = set()
        self._restricted: dict[tuple[int, int], tuple[float, float]] = {}
        self._initialized = False
        self._free_q = np.zeros(0, dtype=np.int64)
        self._free_of_q = np.zeros(0, dtype=np.int64)
        self._lower = np.zeros(0)
        self._upper = np.zeros(0)
        self.resetStats()
        self._num_initializations = 0
        if not system.systemTopologyHasBeenRealized():
            system.realizeTopology()
        self._internal = State(system.getDefaultState())
        system.realize(self._internal, Stage.Instance)
        self._system_constraints = self.adoptAssemblyError(BuiltInConstraints())

    # ------------------------------------------------------------ parameters
    def setAccuracy(self, accuracy: float = 0) -> Assembler:
        """Relative accuracy of the goal's optimum (0 = default 1e-3)."""
        a = float(accuracy)
        if math.isnan(a) or a < 0:
            raise InvalidArgumentError(f"setAccuracy: accuracy must be >= 0, got {a}")
        self._accuracy = a
        return self

    def unsetAccuracy(self) -> Assembler:
        return self.setAccuracy(0)

    def getAccuracyInUse(self) -> float:
        return self._accuracy if self._accuracy > 0 else DEFAULT_ACCURACY

    def setErrorTolerance(self, tolerance: float = 0) -> Assembler:
        """Largest acceptable requirement error norm (0 = default: accuracy / 10)."""
        t = float(tolerance)
        if math.isnan(t) or t < 0:
            raise InvalidArgumentError(f"setErrorTolerance: tolerance must be >= 0, got {t}")
        self._tolerance = t
        return self

    def unsetErrorTolerance(self) -> Assembler:
        return self.setErrorTolerance(0)

    def getErrorToleranceInUse(self) -> float:
        return self._tolerance if self._tolerance > 0 else 0.1 * self.getAccuracyInUse()

    def setSystemConstraintsWeight(self, weight: float) -> Assembler:
        """Infinity (default): the System's constraints are requirements; finite: a goal;
        0: ignored."""
        self.setAssemblyConditionWeight(self._system_constraints, weight)
        return self

    def getSystemConstraintsWeight(self) -> float:
        return self._weights[self._system_constraints]

    def setForceNumericalGradient(self, force: bool) -> Assembler:
        self._force_numerical_gradient = bool(force)
        return self

    def setForceNumericalJacobian(self, force: bool) -> Assembler:
        self._force_numerical_jacobian = bool(force)
        return self

    def setUseRMSErrorNorm(self, useRMS: bool) -> Assembler:
        """Use the RMS of the requirement errors instead of their max abs."""
        self._use_rms = bool(useRMS)
        return self

    def isUsingRMSErrorNorm(self) -> bool:
        return self._use_rms

    # ------------------------------------------------------------ conditions
    def _adopt(self, condition: AssemblyCondition, weight: float, what: str) -> int:
        if not isinstance(condition, AssemblyCondition):
            raise InvalidArgumentError(
                f"{what}: expected an AssemblyCondition (QValue, Markers, ...), got "
                f"{type(condition).__name__}"
            )
        if any(c is condition for c in self._conditions):
            raise InvalidArgumentError(f"{what}: '{condition.getName()}' was already adopted")
        condition._validate(self)
        index = len(self._conditions)
        condition._adopt(self, index)
        self._conditions.append(condition)
        self._weights.append(weight)
        self.uninitialize()
        return index

    def adoptAssemblyGoal(self, goal: AssemblyCondition, weight: float = 1) -> int:
        """Add a goal with ``weight`` (Infinity makes it a requirement); returns its
        AssemblyConditionIndex."""
        return self._adopt(goal, _weight(weight, "adoptAssemblyGoal"), "adoptAssemblyGoal")

    def adoptAssemblyError(self, error: AssemblyCondition) -> int:
        """Add a requirement (weight Infinity); returns its AssemblyConditionIndex."""
        return self._adopt(error, math.inf, "adoptAssemblyError")

    def _check_cx(self, cx, what: str) -> int:
        cx = _index(cx, what)
        if not 0 <= cx < len(self._conditions):
            raise IndexOutOfRangeError(
                f"{what}: there is no assembly condition {cx}; this Assembler has "
                f"{len(self._conditions)} (0 = the System constraints)"
            )
        return cx

    def setAssemblyConditionWeight(self, cx, weight: float) -> Assembler:
        cx = self._check_cx(cx, "setAssemblyConditionWeight")
        w = _weight(weight, "setAssemblyConditionWeight")
        if (w == math.inf) != (self._weights[cx] == math.inf):
            self.uninitialize()
        self._weights[cx] = w
        return self

    def getAssemblyConditionWeight(self, cx) -> float:
        return self._weights[self._check_cx(cx, "getAssemblyConditionWeight")]

    def getNumAssemblyConditions(self) -> int:
        return len(self._conditions)

    def getAssemblyCondition(self, cx) -> AssemblyCondition:
        return self._conditions[self._check_cx(cx, "getAssemblyCondition")]

    updAssemblyCondition = getAssemblyCondition

    # --------------------------------------------------------- locks/bounds
    def _check_body(self, mbx, what: str) -> int:
        b = _index(mbx, what)
        if not 0 <= b < self._matter.getNumBodies():
            raise IndexOutOfRangeError(
                f"{what}: there is no mobilized body {b}; the system has "
                f"{self._matter.getNumBodies()} bodies (0 = Ground)"
            )
        return b

    def _check_q(self, mbx, qx, what: str) -> tuple[int, int]:
        b = self._check_body(mbx, what)
        q = _index(qx, what)
        n = self._matter.getMobilizedBody(b).getNumQ(self._internal)
        if not 0 <= q < n:
            raise IndexOutOfRangeError(f"{what}: body {b} has {n} q; there is no q {q}")
        return b, q

    def lockMobilizer(self, mbx) -> Assembler:
        """Keep every q of this mobilizer at its value in the initial State."""
        self._locked_mobods.add(self._check_body(mbx, "lockMobilizer"))
        self.uninitialize()
        return self

    def unlockMobilizer(self, mbx) -> Assembler:
        b = self._check_body(mbx, "unlockMobilizer")
        self._locked_mobods.discard(b)
        self._locked_q = {k for k in self._locked_q if k[0] != b}
        self.uninitialize()
        return self

    def unlockAllMobilizers(self) -> Assembler:
        self._locked_mobods.clear()
        self._locked_q.clear()
        self.uninitialize()
        return self

    def isMobilizerLocked(self, mbx) -> bool:
        return self._check_body(mbx, "isMobilizerLocked") in self._locked_mobods

    def lockQ(self, mbx, qx) -> Assembler:
        """Keep one q at its value in the initial State."""
        self._locked_q.add(self._check_q(mbx, qx, "lockQ"))
        self.uninitialize()
        return self

    def unlockQ(self, mbx, qx) -> Assembler:
        self._locked_q.discard(self._check_q(mbx, qx, "unlockQ"))
        self.uninitialize()
        return self

    def isQLocked(self, mbx, qx) -> bool:
        b, q = self._check_q(mbx, qx, "isQLocked")
        return b in self._locked_mobods or (b, q) in self._locked_q

    def restrictQ(self, mbx, qx, lowerBound: float, upperBound: float) -> Assembler:
        """Keep one q within [lowerBound, upperBound] during assembly."""
        key = self._check_q(mbx, qx, "restrictQ")
        lo, hi = float(lowerBound), float(upperBound)
        if math.isnan(lo) or math.isnan(hi) or lo > hi:
            raise InvalidArgumentError(
                f"restrictQ: need lowerBound <= upperBound, got [{lo}, {hi}]"
            )
        self._restricted[key] = (lo, hi)
        self.uninitialize()
        return self

    def unrestrictQ(self, mbx, qx) -> Assembler:
        self._restricted.pop(self._check_q(mbx, qx, "unrestrictQ"), None)
        self.uninitialize()
        return self

    def unrestrictAllQ(self) -> Assembler:
        self._restricted.clear()
        self.uninitialize()
        return self

    def isQRestricted(self, mbx, qx) -> bool:
        return self._check_q(mbx, qx, "isQRestricted") in self._restricted

    # -------------------------------------------------------- initialization
    def uninitialize(self) -> None:
        """Forget the free-q set; the next use initializes again."""
        if not self._initialized:
            return
        self._initialized = False
        for c in self._conditions:
            c.uninitializeCondition()

    def isInitialized(self) -> bool:
        return self._initialized

    def initialize(self, state: State | None = None) -> None:
        """Work out the free q and initialize every condition (optionally first taking
        ``state`` as the internal State)."""
        if state is not None:
            self.setInternalState(state)
        if self._initialized:
            return
        s = self._internal
        topo = self._matter._topo(s)
        prescribed = self._prescribed_q(s)
        free, lower, upper = [], [], []
        for b in range(1, self._matter.getNumBodies()):
            n = self._matter._num_q_in_use(s, b)
            for k in range(n):
                if b in self._locked_mobods or (b, k) in self._locked_q:
                    continue
                if int(topo.qs[b]) + k in prescribed:
                    continue
                free.append(int(topo.qs[b]) + k)
                lo, hi = self._restricted.get((b, k), (-math.inf, math.inf))
                lower.append(lo)
                upper.append(hi)
        self._free_q = np.asarray(free, dtype=np.int64)
        self._free_of_q = np.full(topo.nq, -1, dtype=np.int64)
        self._free_of_q[self._free_q] = np.arange(self._free_q.size)
        self._lower = np.asarray(lower, dtype=np.float64)
        self._upper = np.asarray(upper, dtype=np.float64)
        self._initialized = True
        self._num_initializations += 1
        for cx, c in enumerate(self._conditions):
            status = c.initializeCondition()
            if status not in (0, None):
                self._initialized = False
                raise AssembleFailedError(
                    f"Assembler.initialize: condition {cx} '{c.getName()}' failed to "
                    f"initialize (status {status})"
                )
        self._system.realize(s, Stage.Position)
        for cx in self._requirement_indices():
            status, _ = normalize_result(
                self._conditions[cx].calcErrors(s), f"{self._conditions[cx].getName()}.calcErrors"
            )
            if status == -1:
                self._initialized = False
                raise InvalidArgumentError(
                    f"assembly condition {cx} '{self._conditions[cx].getName()}' has no "
                    "calcErrors(), so it can only be a goal (finite weight), not a requirement"
                )

    def _prescribed_q(self, s: State) -> set[int]:
        """Matter q set by prescribed motion (Motion at Position level, MobilizedBody.lock):
        they are given their prescribed values (System.prescribeQ at the State's time)
        and held there like locked q."""
        system = self._system
        system.realize(s, Stage.Time)
        all_q = set(range(s.getNQ()))
        prescribed_sys = all_q - {int(i) for i in system.getFreeQIndex(s)}
        if not prescribed_sys:
            return set()
        system.prescribeQ(s)
        q0 = s.getQStart(self._matter.getMySubsystemIndex())
        nq = self._matter._topo(s).nq
        return {i - q0 for i in prescribed_sys if 0 <= i - q0 < nq}

    def _requirement_indices(self) -> list[int]:
        return [i for i, w in enumerate(self._weights) if w == math.inf]

    def _goal_indices(self) -> list[int]:
        return [i for i, w in enumerate(self._weights) if 0 < w < math.inf]

    # ----------------------------------------------------------- free q maps
    def getNumFreeQs(self) -> int:
        self._require_initialized("getNumFreeQs")
        return int(self._free_q.size)

    def getQIndexOfFreeQ(self, freeQIndex: int) -> int:
        self._require_initialized("getQIndexOfFreeQ")
        fx = _index(freeQIndex, "getQIndexOfFreeQ")
        if not 0 <= fx < self._free_q.size:
            raise IndexOutOfRangeError(
                f"getQIndexOfFreeQ: there are {self._free_q.size} free q; no free q {fx}"
            )
        return int(self._free_q[fx])

    def getFreeQIndexOfQ(self, qIndex: int) -> int:
        """FreeQIndex of q ``qIndex`` or -1 if it is locked (or not in use)."""
        self._require_initialized("getFreeQIndexOfQ")
        qx = _index(qIndex, "getFreeQIndexOfQ")
        if not 0 <= qx < self._free_of_q.size:
            raise IndexOutOfRangeError(
                f"getFreeQIndexOfQ: the system has {self._free_of_q.size} q; no q {qx}"
            )
        return int(self._free_of_q[qx])

    def _require_initialized(self, what: str) -> None:
        if not self._initialized:
            raise SimTKError(
                f"{what}: the Assembler is not initialized; call initialize() (or assemble()) first"
            )

    # -------------------------------------------------------------- access
    def getMultibodySystem(self):
        return self._system

    def getMatterSubsystem(self):
        return self._matter

    def getInternalState(self) -> State:
        return self._internal

    def setInternalState(self, state: State) -> None:
        """Take a copy of ``state`` as the starting point (uninitializes)."""
        self._check_state(state, "setInternalState")
        self.uninitialize()
        self._internal = State(state)
        self._system.realize(self._internal, Stage.Instance)

    def _check_state(self, state: State, what: str) -> None:
        if not isinstance(state, State):
            raise InvalidArgumentError(f"{what}: expected a State, got {type(state).__name__}")
        self._system._check_state(state, what)
        if state.getSystemStage() < Stage.Model:
            raise InvalidArgumentError(
                f"{what}: the State must be realized through Model stage (use "
                "system.realizeTopology() / realizeModel(state))"
            )

    def updateFromInternalState(self, state: State) -> None:
        """Copy the internal State's q into ``state`` (nothing else changes)."""
        self._check_state(state, "updateFromInternalState")
        q = np.array(self._matter.getQ(self._internal))
        dst = self._matter.getQ(state)
        if dst.shape != q.shape:
            raise InvalidArgumentError(
                f"updateFromInternalState: the State has {dst.size} matter q but the "
                f"Assembler's has {q.size}; was the State made by another system or mode?"
            )
        self._matter.updQ(state)[:] = q

    # ------------------------------------------------------------ assembling
    def _solver(self) -> AssemblySolver:
        return AssemblySolver(self)

    def assemble(self, state: State | None = None) -> float:
        """Solve from ``state`` (or the internal State) and return the final goal value.

        With ``state``, its q are replaced by the result (only on success). Raises
        AssembleFailedError if the requirements cannot be met to tolerance."""
        if state is not None:
            self.setInternalState(state)
        self.initialize()
        self._num_assembly_steps += 1
        goal = self._solver().solve(max_iterations=100)
        if state is not None:
            self.updateFromInternalState(state)
        return goal

    def track(self, frameTime: float = -1) -> float:
        """Continue from the current internal State (e.g. after moving marker
        observations or QValue values) with a small effort; returns the goal.
        ``frameTime`` is accepted for Simbody compatibility and ignored."""
        self.initialize()
        self._num_assembly_steps += 1
        return self._solver().solve(max_iterations=20)

    def calcCurrentGoal(self) -> float:
        """Weighted sum of the goals at the internal State's q."""
        self.initialize()
        return self._solver().current_goal()

    def calcCurrentErrorNorm(self) -> float:
        """Norm (max abs, or RMS) of all requirement errors at the internal State's q."""
        self.initialize()
        solver = self._solver()
        return solver.norm(solver.current_errors())

    # ------------------------------------------------------------ statistics
    def getNumInitializations(self) -> int:
        return self._num_initializations

    def getNumAssemblySteps(self) -> int:
        """Calls of assemble() / track()."""
        return self._num_assembly_steps

    def getNumGoalEvals(self) -> int:
        return self._num_goal_evals

    def getNumErrorEvals(self) -> int:
        return self._num_error_evals

    def getNumGoalGradientEvals(self) -> int:
        return self._num_goal_gradient_evals

    def getNumErrorJacobianEvals(self) -> int:
        return self._num_error_jacobian_evals

    def resetStats(self) -> None:
        self._num_assembly_steps = 0
        self._num_goal_evals = 0
        self._num_error_evals = 0
        self._num_goal_gradient_evals = 0
        self._num_error_jacobian_evals = 0

    def __repr__(self) -> str:
        return (
            f"Assembler({len(self._conditions)} conditions, accuracy "
            f"{self.getAccuracyInUse()}, tolerance {self.getErrorToleranceInUse()})"
        )
