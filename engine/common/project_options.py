"""ProjectOptions and ProjectResults: controls and outcome of constraint projection."""

from __future__ import annotations

from enum import IntEnum, IntFlag

from engine.common.exceptions import InvalidArgumentError
from engine.common.index_arg import index_value


class ProjectOptions:
    """Options for System.projectQ/projectU (Simbody's ProjectOptions).

    ``accuracy`` is the required accuracy of the weighted constraint errors (default
    1e-3); ``overshootFactor`` (default 0.1) makes a projection aim for
    ``accuracy*overshootFactor``; ``projectionLimit`` (default 10) is the largest
    weighted error that a *local* projection is allowed to attempt.
    """

    class Option(IntFlag):
        NoOptions = 0
        UseInfinityNorm = 1
        AbsoluteAccuracyOnly = 2
        LocalOnly = 4
        DontThrow = 8
        ForceProjection = 16
        ForceFullNewton = 32

    UseInfinityNorm = Option.UseInfinityNorm
    AbsoluteAccuracyOnly = Option.AbsoluteAccuracyOnly
    LocalOnly = Option.LocalOnly
    DontThrow = Option.DontThrow
    ForceProjection = Option.ForceProjection
    ForceFullNewton = Option.ForceFullNewton

    def __init__(self, accuracy: float = 1e-3, options: Option | int = 0) -> None:
        self.clear()
        self.setRequiredAccuracy(accuracy)
        self._options = ProjectOptions.Option(index_value(options, "ProjectOptions: options"))

    def clear(self) -> ProjectOptions:
        self._accuracy = 1e-3
        self._overshoot = 0.1
        self._limit = 10.0
        self._options = ProjectOptions.Option.NoOptions
        return self

    def setRequiredAccuracy(self, accuracy: float) -> ProjectOptions:
        accuracy = float(accuracy)
        if not accuracy > 0:
            raise InvalidArgumentError(f"projection accuracy must be positive, got {accuracy}")
        self._accuracy = accuracy
        return self

    setAccuracy = setRequiredAccuracy

    def setOvershootFactor(self, factor: float) -> ProjectOptions:
        if not 0 < float(factor) <= 1:
            raise InvalidArgumentError(f"overshoot factor must be in (0, 1], got {factor}")
        self._overshoot = float(factor)
        return self

    def setProjectionLimit(self, limit: float) -> ProjectOptions:
        if not float(limit) > 0:
            raise InvalidArgumentError(f"projection limit must be positive, got {limit}")
        self._limit = float(limit)
        return self

    def setOption(self, option: Option) -> ProjectOptions:
        self._options |= option
        return self

    def clearOption(self, option: Option) -> ProjectOptions:
        self._options &= ~option
        return self

    def isOptionSet(self, option: Option) -> bool:
        return bool(self._options & option)

    def getRequiredAccuracy(self) -> float:
        return self._accuracy

    def getOvershootFactor(self) -> float:
        return self._overshoot

    def getProjectionLimit(self) -> float:
        return self._limit


class ProjectResults:
    """What a projection did (Simbody's ProjectResults)."""

    class Status(IntEnum):
        Invalid = -1
        Succeeded = 0
        FailedToAchieveAccuracy = 1
        FailedToConverge = 2

    Invalid = Status.Invalid
    Succeeded = Status.Succeeded
    FailedToAchieveAccuracy = Status.FailedToAchieveAccuracy
    FailedToConverge = Status.FailedToConverge

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> ProjectResults:
        self._status = ProjectResults.Status.Invalid
        self._any_change = False
        self._limit_exceeded = False
        self._num_iterations = 0
        self._message = ""
        return self

    def isValid(self) -> bool:
        return self._status != ProjectResults.Status.Invalid

    def setExitStatus(self, status: Status) -> ProjectResults:
        self._status = ProjectResults.Status(status)
        return self

    def getExitStatus(self) -> Status:
        return self._status

    def setAnyChangeMade(self, changed: bool) -> ProjectResults:
        self._any_change = bool(changed)
        return self

    def getAnyChangeMade(self) -> bool:
        return self._any_change

    def setProjectionLimitExceeded(self, exceeded: bool) -> ProjectResults:
        self._limit_exceeded = bool(exceeded)
        return self

    def getProjectionLimitExceeded(self) -> bool:
        return self._limit_exceeded

    def setNumIterations(self, n: int) -> ProjectResults:
        self._num_iterations = index_value(n, "setNumIterations: n")
        return self

    def getNumIterations(self) -> int:
        return self._num_iterations

    def setMessage(self, message: str) -> ProjectResults:
        self._message = str(message)
        return self

    def getMessage(self) -> str:
        return self._message
