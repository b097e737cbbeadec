"""Compliant contact in the fused realization (``engine.multibody.fused_realization``):
which contact models its kernel can realize, and the arrays it needs.

The fused kernel (``engine.contact.kernels.contact_stage_kernel``) finds the contacts and
applies their forces at Dynamics stage. It takes a System whose contact subsystems are
ContactTrackerSubsystems and CompliantContactSubsystems on them, any number of each, where

* the pairs that may touch are any the tracker has: half space-sphere, sphere-sphere,
  half space-ellipsoid, half space-brick, sphere-ellipsoid, ellipsoid-ellipsoid, half
  space-mesh, sphere-mesh and mesh-mesh;
* the generators of those contacts are the built-in HertzCircular, HertzElliptical,
  BrickHalfSpacePenalty and ElasticFoundation in every compliant subsystem;
* each compliant subsystem's dissipated energy, if tracked, is its only z (its
  derivative, the kernel's ``contact_power[g]``, is written after the kernel call). When
  the first compliant subsystem's is the State's only z, the integrators' kernels step it
  too: the table's ``contact_z``, ``contact_zdot`` and ``contact_z_weights`` are views of
  the State's.

As in Simbody, every tracker tracks every contact surface of the System (so all report the
same contacts) and every compliant subsystem applies the forces of all its tracker's
contacts: two compliant subsystems on one tracker, or two tracker-compliant pairs, apply
each contact's force twice (each with its own transition velocity); a tracker without a
compliant subsystem applies nothing. The kernel runs the contact work once per compliant
subsystem, in subsystem order, as the stage-by-stage path does.

Anything else realizes stage by stage (docs/contact.md). The kernel applies the forces
without a snapshot: each tracker makes its ContactSnapshot (ids, conditions) from the
positions when it is asked for, and its history variable's update value then.
"""

from __future__ import annotations

from dataclasses import dataclass

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


@dataclass(frozen=True)
class FusedContact:
    """What the fused realization does around the kernel call for a System with contact:
    ``snapshots`` each tracker's (subsystem index, snapshot entry), marked not realized
    after a realization of Position (made on request); ``dissipation`` (subsystem index,
    row g of ``power``) of each compliant subsystem that tracks its dissipated energy,
    whose zdot is ``power[g]`` after a realization of Acceleration; ``power`` the kernel's
    ``contact_power``."""

    snapshots: tuple[tuple[int, int], ...]
    dissipation: tuple[tuple[int, int], ...]
    power: np.ndarray

    def positions_realized(self, state) -> None:
        """After the kernel realized Position: the snapshots are made on request."""
        for sub, entry in self.snapshots:
            state.markCacheValueNotRealized(sub, entry)

    def accelerations_realized(self, state) -> None:
        """After the kernel realized Acceleration: the tracked energies' zdot."""
        for sub, g in self.dissipation:
            state.updZDot(sub)[0] = self.power[g]


def contact_obstacle(sub, hook: str) -> str:
    """Why the fused kernel cannot do the work of contact subsystem ``sub``'s stage hook
    ``hook`` (a ``realizeSubsystem*Impl`` name), "" if it can."""
    for base in CONTACT_SUBSYSTEMS:
        if isinstance(sub, base) and getattr(type(sub), hook) is not getattr(base, hook):
            return f"subsystem '{sub.getName()}' has its own {hook}"
    trackers, compliant = _contact_subsystems(sub.getSystem())
    if not trackers or any(all(c._tracker is not t for t in trackers) for c in compliant):
        return "a CompliantContactSubsystem's ContactTrackerSubsystem is not in this System"
    tracker = trackers[0]  # every tracker tracks the same surfaces
    for ccs in compliant:
        why = _generator_obstacle(tracker, ccs)
        if why:
            return why
    for t in trackers:
        why = t._fused_obstacle()
        if why:
            return why
    return ""


def _generator_obstacle(tracker, ccs) -> str:
    """Why the kernel cannot make the forces of compliant subsystem ``ccs`` ("" if every
    kind of contact the tracker can report has its built-in generator)."""
    if type(ccs._generators.get(CircularPointContact)) is not HertzCircular:
        return "circular contacts have a generator other than HertzCircular"
    for possible, contact_type, builtin in (
        (tracker._elliptical_pairs_possible(), EllipticalPointContact, HertzElliptical),
        (BRICK in tracker._half_space_kinds(), BrickHalfSpaceContact, BrickHalfSpacePenalty),
        (tracker._mesh_pairs_possible(), TriangleMeshContact, ElasticFoundation),
    ):
        if possible and type(ccs._generators.get(contact_type)) is not builtin:
            return f"{contact_type.__name__}s have a generator other than {builtin.__name__}"
    return ""


def contact_home(system, state) -> tuple[dict | None, FusedContact | None]:
    """(the ``contact_*`` arrays of ``state``'s kernel table, the ``FusedContact`` of the
    System) for a System whose contact the fused kernel does (see ``contact_obstacle``);
    (None, None) for a System without contact subsystems. ``contact_z``, ``contact_zdot``
    and ``contact_z_weights`` are views of the State's z, zdot and z weights when the first
    compliant subsystem's dissipated energy is its only z (``z_is_dissipated_energy``),
    else empty."""
    trackers, compliant = _contact_subsystems(system)
    if not trackers:
        return None, None
    home = trackers[0]._kernel_arrays([c.getTransitionVelocity() for c in compliant])
    info = FusedContact(
        tuple((t.getMySubsystemIndex(), t._snapshot_entry) for t in trackers),
        tuple((c.getMySubsystemIndex(), g) for g, c in enumerate(compliant) if c._track),
        home["contact_power"],
    )
    if z_is_dissipated_energy(state, info):
        nqu = state.getNQ() + state.getNU()
        home["contact_z"] = state._y[nqu:]
        home["contact_zdot"] = state._ydot[nqu:]
        home["contact_z_weights"] = state._zweights
    else:
        home["contact_z"] = home["contact_zdot"] = home["contact_z_weights"] = np.zeros(0)
    return home, info


def z_is_dissipated_energy(state, info: FusedContact | None) -> bool:
    """Whether ``state``'s z is exactly one entry, the dissipated energy of the first
    compliant subsystem (``contact_power[0]``, which the integrators' kernels read as its
    derivative): then y = [q, u, z]."""
    if info is None or len(info.dissipation) != 1 or info.dissipation[0][1] != 0:
        return False
    return state.getNZ() == 1 and state.getNZ(info.dissipation[0][0]) == 1
