"""MobilizedBodyHandle: the base class of MobilizedBody that argument checks test against.

A function that takes "a MobilizedBody or a MobilizedBodyIndex" (the matter subsystem's
operators, a Motion's body) needs to tell a body handle from an index without importing
MobilizedBody, whose package imports those functions' modules. Every MobilizedBody is a
MobilizedBodyHandle; nothing else is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.multibody.simbody_matter_subsystem import SimbodyMatterSubsystem


class MobilizedBodyHandle:
    """A handle to one body of a matter subsystem: its index there and the subsystem."""

    __slots__ = ()

    def getMobilizedBodyIndex(self) -> int:
        """The body's MobilizedBodyIndex in its matter subsystem (0 = Ground)."""
        raise NotImplementedError

    def getMatterSubsystem(self) -> SimbodyMatterSubsystem:
        """The SimbodyMatterSubsystem the body belongs to."""
        raise NotImplementedError
