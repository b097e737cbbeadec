"""Compliant contact in the fused realization (``engine.multibody.fused_realization``):
which contact models its kernel can realize, and the arrays it needs.

The fused kernel (``engine.contact.kernels.contact_stage_kernel``) finds the contacts and
applies their forces at Dynamics stage. It takes a System whose contact subsystems are one
ContactTrackerSubsystem and one CompliantContactSubsystem on it, where

* the pairs that may touch are any the tracker has: half space-sphere, sphere-sphere,
  half space-ellipsoid, half space-brick, sphere-ellipsoid, ellipsoid-ellipsoid, half
  space-mesh, sphere-mesh and mesh-mesh;
* the generators of those contacts are the built-in HertzCircular, HertzElliptical,
  BrickHalfSpacePenalty and ElasticFoundation;
* the dissipated energy, if tracked, is the CompliantContactSubsystem's only z (its
  derivative, the kernel's ``contact_power``, is written after the kernel call). When it
  is the State's only z, the integrators' kernels step it too: the table's ``contact_z``,
  ``contact_zdot`` and ``contact_z_weights`` are views of the State's.

Anything else realizes stage by stage (docs/contact.md). The kernel applies the forces
without a snapshot: the tracker makes the ContactSnapshot (ids, conditions) from the
positions when it is asked for, and the history variable's update value then.
"""

from __future__ import annotations

import numpy as np

from engine.contact.compliant_contact_subsystem import CompliantContactSubsystem
from engine.contact.contact import (
    BrickHalfSpaceContact,
    CircularPointContact,
    EllipticalPointContact,
)
from engine.contact.contact_tracker_subsystem import BRICK, ContactTrackerSubsystem
from engine.contact.generators import BrickHalfSpacePenalty, HertzCircular, HertzElliptical
from engine.contact.generators.elastic_foundation import ElasticFoundation
from engine.contact.triangle_mesh_contact import TriangleMeshContact

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
    tracker = trackers[0]
    for possible, contact_type, builtin in (
        (tracker._elliptical_pairs_possible(), EllipticalPointContact, HertzElliptical),
        (BRICK in tracker._half_space_kinds(), BrickHalfSpaceContact, BrickHalfSpacePenalty),
    ):
        if possible and type(ccs._generators.get(contact_type)) is not builtin:
            return f"{contact_type.__name__}s have a generator other than {builtin.__name__}"
    if tracker._mesh_pairs_possible():
        if type(ccs._generators.get(TriangleMeshContact)) is not ElasticFoundation:
            return "TriangleMeshContacts have a generator other than ElasticFoundation"
    return tracker._fused_obstacle()


def contact_home(system, state) -> tuple[dict | None, tuple | None]:
    """(the ``contact_*`` arrays of ``state``'s kernel table, (the tracker's subsystem
    index, its snapshot entry, the CompliantContactSubsystem's index if it tracks the
    dissipated energy else -1, the kernel's ``contact_power`` array)) of a System whose
    contact the fused kernel does (see ``contact_obstacle``); (None, None) for a System
    without contact subsystems. ``contact_z``, ``contact_zdot`` and ``contact_z_weights``
    are views of the State's z, zdot and z weights when the dissipated energy is its only
    z (``z_is_dissipated_energy``), else empty."""
    trackers, compliant = _contact_subsystems(system)
    if not trackers:
        return None, None
    tracker, ccs = trackers[0], compliant[0]
    home = tracker._kernel_arrays(ccs.getTransitionVelocity())
    z_owner = ccs.getMySubsystemIndex() if ccs._track else -1
    info = (tracker.getMySubsystemIndex(), tracker._snapshot_entry, z_owner, home["contact_power"])
    if z_is_dissipated_energy(state, info):
        nqu = state.getNQ() + state.getNU()
        home["contact_z"] = state._y[nqu:]
        home["contact_zdot"] = state._ydot[nqu:]
        home["contact_z_weights"] = state._zweights
    else:
        home["contact_z"] = home["contact_zdot"] = home["contact_z_weights"] = np.zeros(0)
    return home, info


def z_is_dissipated_energy(state, info: tuple | None) -> bool:
    """Whether ``state``'s z is exactly one entry, the dissipated energy of the compliant
    subsystem of ``info`` (``contact_home``'s second value): then y = [q, u, z] and its
    derivative is the kernel's ``contact_power``."""
    return info is not None and info[2] >= 0 and state.getNZ() == 1 and state.getNZ(info[2]) == 1
