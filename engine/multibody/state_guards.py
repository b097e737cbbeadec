"""Installs the foreign-State check (engine.common.state_guard) on the multibody API.

Every public method of SimbodyMatterSubsystem, MobilizedBody (and each mobilizer class) and
Constraint (and each constraint class) that takes a State refuses one made for another System,
or for an earlier topology of its own, with TopologyMismatchError before it reads the State.
The System-protocol hooks (realizeSubsystem*Impl and the other *Impl methods) are left as they
are: only the System calls them, after it has checked the State itself.
"""

from __future__ import annotations

from engine.common.state_guard import guard_state_methods
from engine.multibody.constraints.constraint import Constraint
from engine.multibody.mobilized_body import MobilizedBody
from engine.multibody.simbody_matter_subsystem import SimbodyMatterSubsystem


def _matter_system(matter):
    return matter._system


def _owner_system(obj):
    matter = getattr(obj, "_matter", None)
    return None if matter is None else matter._system


def _subclasses(cls: type) -> list[type]:
    found, todo = [], list(cls.__subclasses__())
    while todo:
        sub = todo.pop()
        if sub not in found:
            found.append(sub)
            todo.extend(sub.__subclasses__())
    return found


def install() -> None:
    """Guard the classes defined so far (idempotent: a guarded method is not wrapped again)."""
    guard_state_methods(SimbodyMatterSubsystem, _matter_system)
    for base in (MobilizedBody, Constraint):
        guard_state_methods(base, _owner_system)
        for sub in _subclasses(base):
            guard_state_methods(sub, _owner_system, own_only=True)
