"""Compliant contact in the fused realization (``engine.multibody.fused_realization``):
which contact models its kernel can realize, and the arrays it needs.

The fused kernel (``engine.contact.kernels.contact_stage_kernel``) finds half space-sphere
and sphere-sphere contacts and applies their HertzCircular forces at Dynamics stage. It
takes a System whose contact subsystems are one ContactTrackerSubsystem and one
CompliantContactSubsystem on it, where

* the pairs that may touch are half space-sphere, sphere-sphere, half space-ellipsoid and
  half space-brick (no triangle mesh, no sphere-ellipsoid or ellipsoid-ellipsoid pair:
  their trackers are Python);
* the generators of those contacts are the built-in HertzCircular, HertzElliptical and
  BrickHalfSpacePenalty;
* the dissipated energy, if tracked, is the CompliantContactSubsystem's only z (its
  derivative, the kernel's ``contact_power``, is written after the kernel call).

Anything else realizes stage by stage (docs/contact.md). The kernel applies the forces
without a snapshot: the tracker makes the ContactSnapshot (ids, conditions) from the
positions when it is asked for, and the history variable's update value then.
"""

from __future__ import annotations

from engine.contact.compliant_contact_subsystem import CompliantContactSubsystem
from engine.contact.contact import (
    BrickHalfSpaceContact,
    CircularPointContact,
    EllipticalPointContact,
)
from engine.contact.contact_tracker_subsystem import BRICK, ELLIPSOID, ContactTrackerSubsystem
from engine.contact.generators import BrickHalfSpacePenalty, HertzCircular, HertzElliptical

CONTACT_SUBSYSTEMS = (ContactTrackerSubsystem, CompliantContactSubsystem)


def _contact_subsystems(system) -> tuple[list, list]:
    trackers, compliant = [], []
    for sub in system._subsystems:
        if isinstance(sub, ContactTrackerSubsystem):
            trackers.append(sub)
        elif isinstance(sub, CompliantContactSubsystem):
            compliant.append(sub)
    return trackers, compliant


def contact_obstacle(sub, hook: str) -> str:
    """Why the fused kernel cannot do the work of contact subsystem ``sub``'s stage hook
    ``hook`` (a ``realizeSubsystem*Impl`` name), "" if it can."""
    for base in CONTACT_SUBSYSTEMS:
        if isinstance(sub, base) and getattr(type(sub), hook) is not getattr(base, hook):
            return f"subsystem '{sub.getName()}' has its own {hook}"
    trackers, compliant = _contact_subsystems(sub.getSystem())
    if len(trackers) != 1 or len(compliant) != 1 or compliant[0]._tracker is not trackers[0]:
        return "contact needs one ContactTrackerSubsystem and one CompliantContactSubsystem on it"
    ccs = compliant[0]
    if type(ccs._generators.get(CircularPointContact)) is not HertzCircular:
        return "circular contacts have a generator other than HertzCircular"
    kinds = trackers[0]._half_space_kinds()
    for kind, contact_type, builtin in (
        (ELLIPSOID, EllipticalPointContact, HertzElliptical),
        (BRICK, BrickHalfSpaceContact, BrickHalfSpacePenalty),
    ):
        if kind in kinds and type(ccs._generators.get(contact_type)) is not builtin:
            return f"{contact_type.__name__}s have a generator other than {builtin.__name__}"
    return trackers[0]._fused_obstacle()


def contact_home(system) -> tuple[dict | None, tuple | None]:
    """(the ``contact_*`` arrays of the kernel table, (the tracker's subsystem index, its
    snapshot entry, the CompliantContactSubsystem's index if it tracks the dissipated
    energy else -1, the kernel's ``contact_power`` array)) of a System whose contact the
    fused kernel does (see ``contact_obstacle``); (None, None) for a System without
    contact subsystems."""
    trackers, compliant = _contact_subsystems(system)
    if not trackers:
        return None, None
    tracker, ccs = trackers[0], compliant[0]
    home = tracker._kernel_arrays(ccs.getTransitionVelocity())
    z_owner = ccs.getMySubsystemIndex() if ccs._track else -1
    info = (tracker.getMySubsystemIndex(), tracker._snapshot_entry, z_owner, home["contact_power"])
    return home, info
