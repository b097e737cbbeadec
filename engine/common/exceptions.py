"""Typed exceptions raised by the engine.

Every error the engine raises on bad input derives from :class:`SimTKError` and
from the matching Python built-in (``ValueError``, ``IndexError``, ...), so both
``except SimTKError`` and ordinary Python idioms work. Messages always say what
was expected and what was received, in words a person can act on.
"""

from __future__ import annotations


class SimTKError(Exception):
    """Base class of every error raised by the engine."""


class InvalidArgumentError(SimTKError, ValueError):
    """An argument has the wrong value, length, or is not finite."""


class IndexOutOfRangeError(SimTKError, IndexError):
    """An index (subsystem, body, q, u, cache entry, ...) does not exist."""


class NonPhysicalError(InvalidArgumentError):
    """Mass properties or other physical parameters that cannot exist."""


class StageTooLowError(SimTKError, RuntimeError):
    """A quantity was requested before the State was realized far enough.

    Attributes ``needed`` and ``current`` are the required and actual stages.
    """

    def __init__(self, message: str, needed=None, current=None) -> None:
        super().__init__(message)
        self.needed = needed
        self.current = current


class StageOutOfRangeError(SimTKError, ValueError):
    """A stage argument is outside the range an operation accepts."""


class CacheEntryOutOfDateError(SimTKError, RuntimeError):
    """A cache entry was read while it is not valid (not realized)."""


class TopologyMismatchError(SimTKError, RuntimeError):
    """A State was used with a System whose topology changed since the State was made."""


class StateLayoutError(SimTKError, RuntimeError):
    """Allocation or layout access at a stage where it is not allowed."""


class StepFailedError(SimTKError, RuntimeError):
    """An integrator could not take a step; the message says why."""


class ProjectionFailedError(SimTKError, RuntimeError):
    """Constraint projection could not reach the requested tolerance."""


class ComputationInterruptedError(SimTKError, RuntimeError):
    """A long computation (a projection, an assembly, an acceleration realization) saw
    the interrupt request it watches (``Integrator.interruptStep``) and stopped before
    writing its result; the message names what was interrupted."""


class AssembleFailedError(SimTKError, RuntimeError):
    """The Assembler could not satisfy its requirements."""


class UnsupportedOperationError(SimTKError, NotImplementedError):
    """A Simbody call that Simbody itself declares but does not implement (so a ported
    program learns it did nothing instead of going on as if it had)."""


class InvalidObjectError(SimTKError, RuntimeError):
    """A value was asked of an invalid object (a ContactForce for a contact that has no
    force, say): check its isValid() first."""
