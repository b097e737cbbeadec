"""CompliantContactSubsystem: forces of the contacts a ContactTrackerSubsystem finds
(Simbody 3.7).

Each active contact is handed to the force generator of its kind (HertzCircular,
HertzElliptical, BrickHalfSpacePenalty; DoNothing otherwise), which returns a ContactForce
(point C, spatial force on surface 2) and its patch details. At Dynamics stage every force
is applied to surface 2's body at C and its negative to surface 1's body (CONVENTIONS 14.5).
``setTrackDissipatedEnergy(True)`` adds one z whose derivative is the total dissipated
power. The potential energy is the sum of the contacts' elastic energies; on a State
realized only to Position it is evaluated with the bodies at rest.
"""

from __future__ import annotations

import numpy as np

from engine.common.decorations.base import check_real
from engine.common.exceptions import IndexOutOfRangeError, InvalidArgumentError, StageTooLowError
from engine.common.stage import Stage
from engine.common.subsystem import Subsystem
from engine.contact.contact import (
    Condition,
)
from engine.contact.contact_force import ContactForce, ContactPatch
from engine.contact.generators import (
    BrickHalfSpacePenalty,
    ContactForceGenerator,
    DoNothing,
    HertzCircular,
    HertzElliptical,
)
from engine.contact.generators.base import MaterialKinematics

_ZERO3 = np.zeros(3)


class _Evaluation:
    """The forces of one State: per contact (ContactForce or None, details)."""

    __slots__ = ("contacts", "forces", "details", "by_id", "pe", "power")

    def __init__(self, contacts, forces, details) -> None:
        self.contacts = contacts
        self.forces = forces
        self.details = details
        self.by_id = {int(c.getContactId()): k for k, c in enumerate(contacts)}
        valid = [f for f in forces if f is not None]
        self.pe = float(sum(f.getPotentialEnergy() for f in valid))
        self.power = float(sum(f.getPowerDissipation() for f in valid))


class CompliantContactSubsystem(Subsystem):
    """Compliant contact forces (a force subsystem of a MultibodySystem)."""

    def __init__(self, system, tracker) -> None:
        from engine.contact.contact_tracker_subsystem import ContactTrackerSubsystem

        if not isinstance(tracker, ContactTrackerSubsystem):
            raise InvalidArgumentError(
                "CompliantContactSubsystem(system, tracker) needs a ContactTrackerSubsystem, "
                f"got {type(tracker).__name__}"
            )
        super().__init__("CompliantContactSubsystem", "3.7")
        self._tracker = tracker
        self._vt = 0.01
        self._track = False
        self._generators: dict = {}
        self._default = DoNothing(self)
        for generator in (HertzCircular(self), HertzElliptical(self), BrickHalfSpacePenalty(self)):
            self._generators[generator.CONTACT_TYPE] = generator
        self._forces_entry = -1
        self._rest_entry = -1
        system.addForceSubsystem(self)

    # ------------------------------------------------------------------ settings
    def getContactTrackerSubsystem(self):
        return self._tracker

    def setTransitionVelocity(self, vt: float) -> CompliantContactSubsystem:
        """Slip speed (m/s, > 0) at which static friction is fully developed."""
        v = check_real(vt, "transition velocity")
        if v <= 0.0:
            raise InvalidArgumentError(f"the transition velocity must be > 0 m/s, got {v}")
        self._vt = v
        self.invalidateSubsystemTopologyCache()
        return self

    def getTransitionVelocity(self) -> float:
        return self._vt

    def setTrackDissipatedEnergy(self, shouldTrack: bool) -> CompliantContactSubsystem:
        """Add (or not) one z variable integrating the dissipated power (Topology change)."""
        if bool(shouldTrack) != self._track:
            self._track = bool(shouldTrack)
            self.invalidateSubsystemTopologyCache()
        return self

    def getTrackDissipatedEnergy(self) -> bool:
        return self._track

    def getDissipatedEnergy(self, state) -> float:
        """The dissipated energy z (J); 0 when not tracked."""
        return float(self.getZ(state)[0]) if self._track else 0.0

    def setDissipatedEnergy(self, state, energy: float) -> None:
        e = check_real(energy, "dissipated energy")
        if not self._track:
            raise InvalidArgumentError(
                "setDissipatedEnergy: call setTrackDissipatedEnergy(True) first"
            )
        self.updZ(state)[0] = e

    def adoptForceGenerator(self, generator: ContactForceGenerator) -> None:
        """Use ``generator`` for its CONTACT_TYPE of contact."""
        if not isinstance(generator, ContactForceGenerator) or generator.CONTACT_TYPE is None:
            raise InvalidArgumentError("adoptForceGenerator needs a ContactForceGenerator kind")
        generator._subsystem = self
        self._generators[generator.CONTACT_TYPE] = generator
        self.invalidateSubsystemTopologyCache()

    def adoptDefaultForceGenerator(self, generator: ContactForceGenerator) -> None:
        if not isinstance(generator, ContactForceGenerator):
            raise InvalidArgumentError("adoptDefaultForceGenerator needs a ContactForceGenerator")
        generator._subsystem = self
        self._default = generator
        self.invalidateSubsystemTopologyCache()

    def hasForceGenerator(self, contactType) -> bool:
        return contactType in self._generators

    def getForceGenerator(self, contactType) -> ContactForceGenerator:
        return self._generators.get(contactType, self._default)

    def getDefaultForceGenerator(self) -> ContactForceGenerator:
        return self._default

    # ------------------------------------------------------------------ realization
    def realizeSubsystemTopologyImpl(self, state) -> None:
        if self._track:
            self.allocateZ(state, np.zeros(1))

    def realizeSubsystemModelImpl(self, state) -> None:
        self._forces_entry = self.allocateLazyCacheEntry(
            state, Stage.Velocity, None, name="contact forces"
        )
        self._rest_entry = self.allocateLazyCacheEntry(
            state, Stage.Position, None, name="contact forces at rest"
        )

    def realizeSubsystemDynamicsImpl(self, state) -> None:
        evaluation = self._evaluation(state)
        body, _ = self.getSystem().getGlobalSubsystem().updForces(state)
        tracker = self._tracker
        pc = self.getSystem().getMatterSubsystem()._position_cache(state)
        for contact, force in zip(evaluation.contacts, evaluation.forces, strict=True):
            if force is None:
                continue
            spatial = force.getForceOnSurface2()
            M, F = spatial[0], spatial[1]
            if not (F.any() or M.any()):
                continue
            C = force.getContactPoint()
            b1 = tracker._body[int(contact.getSurface1())]
            b2 = tracker._body[int(contact.getSurface2())]
            body[b2, 0:3] += M + np.cross(C - pc.p_GB[b2], F)
            body[b2, 3:6] += F
            body[b1, 0:3] -= M + np.cross(C - pc.p_GB[b1], F)
            body[b1, 3:6] -= F

    def realizeSubsystemAccelerationImpl(self, state) -> None:
        if self._track:
            state.updZDot(self.getMySubsystemIndex())[0] = self._evaluation(state).power

    # ------------------------------------------------------------------ evaluation
    def _require(self, state, needed: Stage, what: str) -> None:
        current = self.getStage(state)
        if current < needed:
            raise StageTooLowError(
                f"{what} needs the State realized to {needed.getName()} stage, but the "
                f"CompliantContactSubsystem is at {current.getName()}",
                needed=needed,
                current=current,
            )

    def _evaluation(self, state, at_rest: bool = False) -> _Evaluation:
        entry = self._rest_entry if at_rest else self._forces_entry
        if self.isCacheValueRealized(state, entry):
            return self.getCacheEntry(state, entry)
        evaluation = self._evaluate(state, at_rest)
        state.setCacheEntryValue(self.getMySubsystemIndex(), entry, evaluation)
        self.markCacheValueRealized(state, entry)
        return evaluation

    def _evaluate(self, state, at_rest: bool) -> _Evaluation:
        tracker = self._tracker
        snapshot = tracker.getActiveContacts(state)
        matter = self.getSystem().getMatterSubsystem()
        pc = matter._position_cache(state)
        V = None if at_rest else matter._velocity_cache(state).V_GB
        contacts, forces, details = [], [], []
        for contact in snapshot:
            contacts.append(contact)
            if contact.getCondition() == Condition.Broken:
                forces.append(None)
                details.append([])
                continue
            s1, s2 = int(contact.getSurface1()), int(contact.getSurface2())
            b1, b2 = int(tracker._body[s1]), int(tracker._body[s2])
            if V is None:
                kin = MaterialKinematics(pc.p_GB[b1], _ZERO3, _ZERO3, pc.p_GB[b2], _ZERO3, _ZERO3)
            else:
                kin = MaterialKinematics(
                    pc.p_GB[b1], V[b1][0:3], V[b1][3:6], pc.p_GB[b2], V[b2][0:3], V[b2][3:6]
                )
            generator = self._generators.get(type(contact), self._default)
            force, patch = generator.calcContactForce(
                contact,
                tracker.getContactSurface(s1).getMaterial(),
                tracker.getContactSurface(s2).getMaterial(),
                kin,
                self._vt,
            )
            forces.append(force)
            details.append(patch)
        return _Evaluation(contacts, forces, details)

    # ------------------------------------------------------------------ results
    def getNumContactForces(self, state) -> int:
        """Number of ContactForces (Velocity stage): one per contact with a force generator
        that produced one (a separating "yanked" Hertz contact still counts, with zero force)."""
        self._require(state, Stage.Velocity, "getNumContactForces")
        return sum(1 for f in self._evaluation(state).forces if f is not None)

    def getContactForce(self, state, i: int) -> ContactForce:
        """The i-th ContactForce (Velocity stage)."""
        self._require(state, Stage.Velocity, "getContactForce")
        valid = [f for f in self._evaluation(state).forces if f is not None]
        if isinstance(i, bool) or not hasattr(i, "__index__") or not 0 <= i < len(valid):
            raise IndexOutOfRangeError(f"no contact force {i!r}: there are {len(valid)}")
        return valid[i.__index__()]

    def getContactForceById(self, state, contactId) -> ContactForce:
        """The ContactForce of contact ``contactId``; an invalid one if it has none."""
        self._require(state, Stage.Velocity, "getContactForceById")
        evaluation = self._evaluation(state)
        k = evaluation.by_id.get(int(contactId))
        if k is None or evaluation.forces[k] is None:
            return ContactForce()
        return evaluation.forces[k]

    def calcContactPatchDetailsById(self, state, contactId) -> ContactPatch:
        """The ContactForce of a contact with its patch details (Velocity stage)."""
        self._require(state, Stage.Velocity, "calcContactPatchDetailsById")
        evaluation = self._evaluation(state)
        k = evaluation.by_id.get(int(contactId))
        if k is None or evaluation.forces[k] is None:
            return ContactPatch()
        return ContactPatch(evaluation.forces[k], evaluation.details[k])

    def getDissipatedPower(self, state) -> float:
        """Sum of the contacts' dissipated power (W, Velocity stage)."""
        self._require(state, Stage.Velocity, "getDissipatedPower")
        return self._evaluation(state).power

    def calcPotentialEnergy(self, state) -> float:
        """Elastic energy of all contacts (J). From Velocity stage the ContactForces' sum; at
        Position stage the contacts evaluated with the bodies at rest."""
        self._require(state, Stage.Position, "calcPotentialEnergy")
        if self.getStage(state) >= Stage.Velocity:
            return self._evaluation(state).pe
        return self._evaluation(state, at_rest=True).pe

    def calcDecorativeGeometryAndAppendImpl(self, state, stage, geometry) -> None:
        """Nothing: the studio draws contact points and forces itself."""
