"""AssemblyCondition: the base class of every Assembler goal or requirement.

A condition reports, for the q values in a State, either a vector of errors that the
Assembler drives to zero (``calcErrors``; usable as a requirement or, squared, as a goal)
or a scalar cost >= 0 that it minimizes (``calcGoal``; goal only). Derivatives are
optional: a method that is not overridden answers "not implemented" (status -1) and the
Assembler differentiates numerically.

Python form of Simbody's ``int method(const State&, T& out)``: each ``calc*`` method
returns the tuple ``(status, value)`` where ``status`` is Simbody's functional return
(0 success, -1 not implemented, > 0 could not evaluate here). A user override may also
return just the value (meaning status 0) or ``NotImplemented`` (meaning -1).

Derivatives are with respect to the Assembler's *free* q (``getNumFreeQs`` of them, in
FreeQIndex order; ``getQIndexOfFreeQ`` / ``getFreeQIndexOfQ`` translate), in the units of
those q.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from engine.common.exceptions import InvalidArgumentError, SimTKError

if TYPE_CHECKING:
    from engine.assembler.assembler import Assembler
    from engine.common.state import State

NOT_IMPLEMENTED = -1


def normalize_result(result, what: str) -> tuple[int, object]:
    """(status, value) from whatever a condition method returned (see module docstring)."""
    if result is NotImplemented or result is None:
        return NOT_IMPLEMENTED, None
    if isinstance(result, tuple):
        if len(result) != 2:
            raise InvalidArgumentError(
                f"{what} must return (status, value), a bare value or NotImplemented; "
                f"got a tuple of length {len(result)}"
            )
        status, value = result
        return int(status), value
    if isinstance(result, (int, np.integer)) and not isinstance(result, bool) and result < 0:
        # A bare negative status (-1 = not implemented) without a value.
        return int(result), None
    return 0, result


class AssemblyCondition:
    """One goal or requirement adopted by an :class:`~engine.assembler.Assembler`."""

    def __init__(self, name: str) -> None:
        self._name = str(name)
        self._assembler: Assembler | None = None
        self._index = -1

    # ------------------------------------------------------------- overridables
    def initializeCondition(self) -> int:
        """Called when the Assembler initializes; return 0 on success."""
        return 0

    def uninitializeCondition(self) -> None:
        """Called when the Assembler is uninitialized (e.g. a condition parameter changed)."""

    def getNumErrors(self, state: State) -> int:
        """Number of errors ``calcErrors`` returns; by default found by calling it."""
        status, err = normalize_result(self.calcErrors(state), f"{self._name}.calcErrors")
        if status != 0:
            return 0
        return int(np.asarray(err).size)

    def calcErrors(self, state: State):
        """One error per assembly equation for the q in ``state``: ``(status, err)``.

        Not implemented by default: such a condition can only be a goal."""
        return NOT_IMPLEMENTED, None

    def calcErrorJacobian(self, state: State):
        """``(status, J)`` with J = d err / d freeQ (nErr x nFreeQs); not implemented by
        default, so the Assembler differentiates ``calcErrors`` numerically."""
        return NOT_IMPLEMENTED, None

    def calcGoal(self, state: State):
        """``(status, goal)``: this condition's contribution (>= 0) to the minimized goal.

        Default: the mean sum of squares of ``calcErrors``, ``|err|^2 / m``."""
        status, err = normalize_result(self.calcErrors(state), f"{self._name}.calcErrors")
        if status != 0:
            return status, None
        err = np.asarray(err, dtype=np.float64).reshape(-1)
        return 0, float(err @ err) / max(1, err.size)

    def calcGoalGradient(self, state: State):
        """``(status, grad)`` with grad = d goal / d freeQ (length nFreeQs); not implemented
        by default, so the Assembler differentiates ``calcGoal`` numerically."""
        return NOT_IMPLEMENTED, None

    # ------------------------------------------------------------------ queries
    def getName(self) -> str:
        """The name given at construction."""
        return self._name

    def isInAssembler(self) -> bool:
        """True once an Assembler has adopted this condition."""
        return self._assembler is not None

    def getAssembler(self) -> Assembler:
        """The Assembler that adopted this condition."""
        if self._assembler is None:
            raise SimTKError(
                f"assembly condition '{self._name}' has not been adopted by an Assembler"
            )
        return self._assembler

    def getAssemblyConditionIndex(self) -> int:
        """This condition's AssemblyConditionIndex in its Assembler."""
        self.getAssembler()
        return self._index

    # -------------------------------------------- for subclasses (Simbody "protected")
    def getNumFreeQs(self) -> int:
        """How many free q the Assembler varies (valid after initialization)."""
        return self.getAssembler().getNumFreeQs()

    def getQIndexOfFreeQ(self, freeQIndex: int) -> int:
        """QIndex in the State of free q ``freeQIndex``."""
        return self.getAssembler().getQIndexOfFreeQ(freeQIndex)

    def getFreeQIndexOfQ(self, qIndex: int) -> int:
        """FreeQIndex of State q ``qIndex``, or -1 if that q is not free (locked)."""
        return self.getAssembler().getFreeQIndexOfQ(qIndex)

    def getMultibodySystem(self):
        """The MultibodySystem being assembled."""
        return self.getAssembler().getMultibodySystem()

    def getMatterSubsystem(self):
        """The SimbodyMatterSubsystem of the system being assembled."""
        return self.getAssembler().getMatterSubsystem()

    def initializeAssembler(self) -> None:
        """Initialize the Assembler now (if it is not already)."""
        self.getAssembler().initialize()

    def uninitializeAssembler(self) -> None:
        """Call after changing a parameter that needs the Assembler to re-initialize."""
        if self._assembler is not None:
            self._assembler.uninitialize()

    # ----------------------------------------------------------------- internal
    def _adopt(self, assembler: Assembler, index: int) -> None:
        if self._assembler is not None and self._assembler is not assembler:
            raise InvalidArgumentError(
                f"assembly condition '{self._name}' already belongs to another Assembler"
            )
        self._assembler = assembler
        self._index = index

    def _goal_error_weights(self, state: State) -> np.ndarray | None:
        """c such that calcGoal = sum_j c_j err_j^2 (lets the Assembler use Gauss-Newton),
        or None if the goal has no such form. True for the default calcGoal."""
        if type(self).calcGoal is not AssemblyCondition.calcGoal:
            return None
        status, err = normalize_result(self.calcErrors(state), f"{self._name}.calcErrors")
        if status != 0:
            return None
        m = int(np.asarray(err).size)
        return np.full(m, 1.0 / max(1, m))

    def _describe(self) -> str:
        """Extra words identifying this condition in messages ("" if none)."""
        return ""

    def _failure_details(self, state: State, tolerance: float) -> list[str]:
        """Lines saying which parts of this condition are unmet (for AssembleFailed)."""
        return []

    def _validate(self, assembler: Assembler) -> None:
        """Check the condition against the system at adoption (raise on bad indices)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}('{self._name}')"
