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

import math

import numpy as np

from engine.common.decorations.base import check_real
from engine.common.exceptions import IndexOutOfRangeError, InvalidArgumentError, StageTooLowError
from engine.common.index_arg import index_value
from engine.common.stage import Stage
from engine.common.subsystem import Subsystem
from engine.contact.contact import (
    CircularPointContact,
    Condition,
)
from engine.contact.contact_force import ContactDetail, ContactForce, ContactPatch
from engine.contact.generators import (
    BrickHalfSpacePenalty,
    ContactForceGenerator,
    DoNothing,
    HertzCircular,
    HertzElliptical,
)
from engine.contact.generators.base import MaterialKinematics
from engine.contact.generators.elastic_foundation import ElasticFoundation
from engine.contact.kernels.hertz_circular_kernel import (
    OUT_COLUMNS,
    apply_point_forces,
    hertz_circular_forces,
)
from engine.contact.triangle_mesh_contact import TriangleMeshContact
from engine.contact.vec3 import cross3

_ZERO3 = np.zeros(3)


class _Evaluation:
    """The forces of one State. Contacts evaluated by the HertzCircular kernel keep their
    results as rows of ``out`` (layout in ``hertz_circular_kernel``; ``row_of[k]`` is
    contact k's row, -1 if none) and become ContactForce objects only when asked for; the
    others (``others``: their contact numbers) hold (ContactForce, details)."""

    __slots__ = (
        "contacts",
        "forces",
        "details",
        "has_force",
        "row_of",
        "others",
        "out",
        "s1",
        "s2",
    )

    def __init__(self, contacts) -> None:
        n = contacts.getNumContacts()
        self.contacts = contacts
        self.forces: list = [None] * n
        self.details: list = [()] * n
        self.has_force = np.zeros(n, dtype=bool)
        self.row_of = np.full(n, -1, dtype=np.int64)
        self.others: list[int] = []
        self.out = np.zeros((0, OUT_COLUMNS))
        self.s1 = np.zeros(0, dtype=np.int64)
        self.s2 = np.zeros(0, dtype=np.int64)

    def force(self, k: int) -> ContactForce | None:
        if not self.has_force[k]:
            return None
        if self.forces[k] is None:
            self._build(k)
        return self.forces[k]

    def patch_details(self, k: int):
        if self.has_force[k] and self.forces[k] is None:
            self._build(k)
        return self.details[k]

    def _build(self, k: int) -> None:
        row = self.out[self.row_of[k]]
        contact = self.contacts.getContact(k)
        C, F = row[0:3].copy(), row[3:6].copy()
        self.forces[k] = ContactForce(
            contact.getContactId(), C, np.array([_ZERO3, F]), row[6], row[7]
        )
        if row[12] == 0.0:
            n = contact.getNormalInGround()
            x = contact.getDepth()
            self.details[k] = (
                ContactDetail(
                    C, n, row[9:12].copy(), F, x, row[8], math.nan, math.nan, row[6], row[7]
                ),
            )

    def valid_indices(self) -> np.ndarray:
        return np.flatnonzero(self.has_force)

    def totals(self) -> tuple[float, float]:
        """(potential energy, dissipated power) summed over every ContactForce."""
        pe = float(np.sum(self.out[:, 6]))
        power = float(np.sum(self.out[:, 7]))
        for k in self.others:
            force = self.forces[k]
            pe += force.getPotentialEnergy()
            power += force.getPowerDissipation()
        return pe, power


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
        self._generators[TriangleMeshContact] = ElasticFoundation(self)
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
        if evaluation.out.shape[0]:
            apply_point_forces(
                evaluation.out,
                evaluation.s1,
                evaluation.s2,
                tracker._body,
                np.ascontiguousarray(pc.p_GB, dtype=np.float64),
                body,
            )
        for k in evaluation.others:
            force = evaluation.forces[k]
            contact = evaluation.contacts.getContact(k)
            spatial = force.getForceOnSurface2()
            M, F = spatial[0], spatial[1]
            if not (F.any() or M.any()):
                continue
            C = force.getContactPoint()
            b1 = tracker._body[int(contact.getSurface1())]
            b2 = tracker._body[int(contact.getSurface2())]
            body[b2, 0:3] += M + cross3(C - pc.p_GB[b2], F)
            body[b2, 3:6] += F
            body[b1, 0:3] -= M + cross3(C - pc.p_GB[b1], F)
            body[b1, 3:6] -= F

    def realizeSubsystemAccelerationImpl(self, state) -> None:
        if self._track:
            state.updZDot(self.getMySubsystemIndex())[0] = self._evaluation(state).totals()[1]

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
        nb = pc.p_GB.shape[0]
        V = np.zeros((nb, 6)) if at_rest else matter._velocity_cache(state).V_GB.reshape(nb, 6)
        evaluation = _Evaluation(snapshot)
        circular = self._generators.get(CircularPointContact)
        batched = type(circular) is HertzCircular
        m = snapshot._rows()
        if batched and not snapshot._any_objects:
            batch = None if m else np.zeros(0, dtype=np.int64)  # None: every row
            singles = []
        elif batched:
            batch = np.flatnonzero(snapshot._circular)
            singles = np.flatnonzero(~snapshot._circular).tolist()
        else:
            batch = np.zeros(0, dtype=np.int64)
            singles = list(range(m))
        singles += range(m, snapshot.getNumContacts())
        for k in singles:
            contact = snapshot.getContact(k)
            if contact.getCondition() == Condition.Broken:
                continue
            s1, s2 = int(contact.getSurface1()), int(contact.getSurface2())
            b1, b2 = int(tracker._body[s1]), int(tracker._body[s2])
            kin = MaterialKinematics(
                pc.p_GB[b1], V[b1, 0:3], V[b1, 3:6], pc.p_GB[b2], V[b2, 0:3], V[b2, 3:6]
            )
            generator = self._generators.get(type(contact), self._default)
            force, patch = generator.calcContactForce(
                contact,
                tracker.getContactSurface(s1).getMaterial(),
                tracker.getContactSurface(s2).getMaterial(),
                kin,
                self._vt,
            )
            if force is not None:
                evaluation.forces[k] = force
                evaluation.details[k] = tuple(patch)
                evaluation.has_force[k] = True
                evaluation.others.append(k)
        if batch is None:
            s1, s2 = snapshot._s1, snapshot._s2
            evaluation.row_of[:m] = np.arange(m)
            evaluation.has_force[:m] = True
            out = np.empty((m, OUT_COLUMNS))
            hertz_circular_forces(
                snapshot._origin,
                snapshot._normal,
                snapshot._depth,
                snapshot._radius,
                s1,
                s2,
                tracker._material,
                tracker._body,
                np.ascontiguousarray(pc.p_GB, dtype=np.float64),
                np.ascontiguousarray(V, dtype=np.float64),
                float(self._vt),
                out,
            )
            evaluation.out, evaluation.s1, evaluation.s2 = out, s1, s2
        elif batch.shape[0]:
            s1 = snapshot._s1[batch]
            s2 = snapshot._s2[batch]
            evaluation.row_of[batch] = np.arange(batch.shape[0])
            evaluation.has_force[batch] = True
            out = np.empty((batch.shape[0], OUT_COLUMNS))
            hertz_circular_forces(
                snapshot._origin[batch],
                snapshot._normal[batch],
                snapshot._depth[batch],
                snapshot._radius[batch],
                s1,
                s2,
                tracker._material,
                tracker._body,
                np.ascontiguousarray(pc.p_GB, dtype=np.float64),
                np.ascontiguousarray(V, dtype=np.float64),
                float(self._vt),
                out,
            )
            evaluation.out, evaluation.s1, evaluation.s2 = out, s1, s2
        return evaluation

    # ------------------------------------------------------------------ results
    def getNumContactForces(self, state) -> int:
        """Number of ContactForces (Velocity stage): one per contact with a force generator
        that produced one (a separating "yanked" Hertz contact still counts, with zero force)."""
        self._require(state, Stage.Velocity, "getNumContactForces")
        return int(np.count_nonzero(self._evaluation(state).has_force))

    def getContactForce(self, state, i: int) -> ContactForce:
        """The i-th ContactForce (Velocity stage)."""
        k = index_value(i, "getContactForce: i")
        self._require(state, Stage.Velocity, "getContactForce")
        evaluation = self._evaluation(state)
        valid = evaluation.valid_indices()
        if not 0 <= k < len(valid):
            raise IndexOutOfRangeError(
                f"getContactForce: i: no contact force {k}: there are {len(valid)}"
            )
        return evaluation.force(int(valid[k]))

    def getContactForceById(self, state, contactId) -> ContactForce:
        """The ContactForce of contact ``contactId``; an invalid one if it has none."""
        self._require(state, Stage.Velocity, "getContactForceById")
        evaluation = self._evaluation(state)
        k = self._index_of(evaluation, contactId)
        if k is None or not evaluation.has_force[k]:
            return ContactForce()
        return evaluation.force(k)

    def calcContactPatchDetailsById(self, state, contactId) -> ContactPatch:
        """The ContactForce of a contact with its patch details (Velocity stage)."""
        self._require(state, Stage.Velocity, "calcContactPatchDetailsById")
        evaluation = self._evaluation(state)
        k = self._index_of(evaluation, contactId)
        if k is None or not evaluation.has_force[k]:
            return ContactPatch()
        return ContactPatch(evaluation.force(k), evaluation.patch_details(k))

    def _index_of(self, evaluation: _Evaluation, contactId) -> int | None:
        return evaluation.contacts._index_of_id(contactId)

    def getDissipatedPower(self, state) -> float:
        """Sum of the contacts' dissipated power (W, Velocity stage)."""
        self._require(state, Stage.Velocity, "getDissipatedPower")
        return self._evaluation(state).totals()[1]

    def calcPotentialEnergy(self, state) -> float:
        """Elastic energy of all contacts (J). From Velocity stage the ContactForces' sum; at
        Position stage the contacts evaluated with the bodies at rest."""
        self._require(state, Stage.Position, "calcPotentialEnergy")
        if self.getStage(state) >= Stage.Velocity:
            return self._evaluation(state).totals()[0]
        return self._evaluation(state, at_rest=True).totals()[0]

    def calcDecorativeGeometryAndAppendImpl(self, state, stage, geometry) -> None:
        """Nothing: the studio draws contact points and forces itself."""
