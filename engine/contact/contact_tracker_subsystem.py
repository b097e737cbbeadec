"""ContactTrackerSubsystem: finds which contact surfaces touch (Simbody 3.7).

At Topology stage it collects every ContactSurface on the matter subsystem's bodies
(``ContactSurfaceIndex`` = by MobilizedBodyIndex, then in the order added to the body) and
builds the pair table: pairs on different bodies, sharing no clique, with a tracker
(HalfSpace-Sphere, Sphere-Sphere, HalfSpace-Ellipsoid, HalfSpace-Brick). Half-space pairs
are listed once there (O(N) per half space); Sphere-Sphere pairs are found at each
Position realization by a sweep-and-prune broad phase (``broad_phase``).

At Position stage it computes the active contacts (``getActiveContacts``): every pair whose
undeformed shapes overlap, as NewContact, or Ongoing if it was active at the previous step
(an auto-update discrete variable holds that history), plus each contact that was active
then and has separated, reported once as a BrokenContact.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import IndexOutOfRangeError, InvalidArgumentError, StageTooLowError
from engine.common.stage import Stage
from engine.common.subsystem import Subsystem
from engine.contact import pair_trackers
from engine.contact.broad_phase import sweep_and_prune
from engine.contact.contact import BrokenContact, Condition, ContactId, _new_id
from engine.contact.contact_surface import ContactSurfaceIndex
from engine.math.transform import Transform

HALF_SPACE, SPHERE, ELLIPSOID, BRICK, CYLINDER = 0, 1, 2, 3, 4


class ContactSnapshot:
    """The active contacts of one State (Simbody's ContactSnapshot)."""

    def __init__(self, time: float, contacts: list) -> None:
        self._time = float(time)
        self._contacts = list(contacts)
        self._history: dict = {}
        self._by_id: dict | None = None
        self._by_pair: dict | None = None

    def _index(self) -> None:
        if self._by_id is None:
            self._by_id = {int(c._id): c for c in self._contacts}
            self._by_pair = {
                (int(c._surface1), int(c._surface2)): ContactId(c._id) for c in self._contacts
            }

    def getTime(self) -> float:
        return self._time

    def getNumContacts(self) -> int:
        return len(self._contacts)

    def getContact(self, i: int):
        if isinstance(i, bool) or not hasattr(i, "__index__"):
            raise InvalidArgumentError(f"a contact number must be an int, got {i!r}")
        k = i.__index__()
        if not 0 <= k < len(self._contacts):
            raise IndexOutOfRangeError(
                f"no contact {k}: the snapshot has {len(self._contacts)} contacts"
            )
        return self._contacts[k]

    def hasContact(self, contactId) -> bool:
        self._index()
        return int(contactId) in self._by_id

    def getContactById(self, contactId):
        self._index()
        try:
            return self._by_id[int(contactId)]
        except KeyError:
            raise IndexOutOfRangeError(
                f"no contact with id {int(contactId)} in this snapshot"
            ) from None

    def getContactIdForSurfacePair(self, surf1, surf2):
        """The id of the contact between two surfaces (either order), or None."""
        self._index()
        a, b = int(surf1), int(surf2)
        return self._by_pair.get((a, b), self._by_pair.get((b, a)))

    def __iter__(self):
        return iter(self._contacts)


class ContactTrackerSubsystem(Subsystem):
    """Tracks contacts between the ContactSurfaces attached to a MultibodySystem's bodies."""

    def __init__(self, system) -> None:
        super().__init__("ContactTrackerSubsystem", "3.7")
        self._surfaces: list = []  # (mobod index, ordinal, X_BS, ContactSurface)
        self._prior_index = -1
        self._snapshot_entry = -1
        system.adoptSubsystem(self)

    # ------------------------------------------------------------------ topology
    def realizeSubsystemTopologyImpl(self, state) -> None:
        matter = self.getSystem().getMatterSubsystem()
        surfaces = []
        for b in range(matter.getNumBodies()):
            body = matter.getMobilizedBody(b).getBody()
            for k in range(body.getNumContactSurfaces()):
                surfaces.append(
                    (b, k, body.getContactSurfaceTransform(k), body.getContactSurface(k))
                )
        self._surfaces = surfaces
        n = len(surfaces)
        self._body = np.array([s[0] for s in surfaces], dtype=np.int64)
        self._kind = np.array([s[3].getShape().getTypeId() for s in surfaces], dtype=np.int64)
        self._R_BS = np.array([s[2].R().asMat33() for s in surfaces]).reshape(n, 3, 3)
        self._p_BS = np.array([s[2].p() for s in surfaces], dtype=float).reshape(n, 3)
        self._size = np.array([s[3].getShape().sizes() for s in surfaces]).reshape(n, 3)
        self._material = np.array(
            [
                (
                    m.getStiffness23(),
                    m.getDissipation(),
                    m.getStaticFriction(),
                    m.getDynamicFriction(),
                    m.getViscousFriction(),
                )
                for m in (s[3].getMaterial() for s in surfaces)
            ],
            dtype=np.float64,
        ).reshape(n, 5)
        self._cliques = [frozenset(int(c) for c in s[3].getCliques()) for s in surfaces]
        self._build_pair_table()
        self._prior_index = self.allocateAutoUpdateDiscreteVariable(
            state, Stage.Position, {}, Stage.Position, name="contacts active at the last step"
        )

    def _may_interact(self, i: int, j: int) -> bool:
        return self._body[i] != self._body[j] and not (self._cliques[i] & self._cliques[j])

    def _build_pair_table(self) -> None:
        """Half space - X candidates per half space; the spheres for the broad phase."""
        kind = self._kind
        halves = np.flatnonzero(kind == HALF_SPACE)
        self._half_space_pairs = []
        for h in halves:
            lists = {}
            for other in (SPHERE, ELLIPSOID, BRICK):
                cand = [int(j) for j in np.flatnonzero(kind == other) if self._may_interact(h, j)]
                lists[other] = np.array(cand, dtype=np.int64)
            self._half_space_pairs.append((int(h), lists))
        self._spheres = np.flatnonzero(kind == SPHERE)

    # ------------------------------------------------------------------ accessors
    def getNumSurfaces(self) -> int:
        self._require_topology()
        return len(self._surfaces)

    def _require_topology(self) -> None:
        if not self.subsystemTopologyHasBeenRealized():
            raise StageTooLowError(
                "the ContactTrackerSubsystem's surfaces are known after realizeTopology",
                needed=Stage.Topology,
            )

    def _check_surface(self, i) -> int:
        self._require_topology()
        if isinstance(i, bool) or not hasattr(i, "__index__"):
            raise InvalidArgumentError(f"a ContactSurfaceIndex must be an int, got {i!r}")
        k = i.__index__()
        if not 0 <= k < len(self._surfaces):
            raise IndexOutOfRangeError(
                f"no contact surface {k}: there are {len(self._surfaces)} surfaces"
            )
        return k

    def getContactSurfaceIndex(self, mobodIx, contactSurfaceOrdinal) -> ContactSurfaceIndex:
        """The ContactSurfaceIndex of surface ``ordinal`` on body ``mobodIx``."""
        self._require_topology()
        b, k = int(mobodIx), int(contactSurfaceOrdinal)
        for i, s in enumerate(self._surfaces):
            if s[0] == b and s[1] == k:
                return ContactSurfaceIndex(i)
        raise IndexOutOfRangeError(f"body {b} has no contact surface {k}")

    def getMobilizedBody(self, surface):
        k = self._check_surface(surface)
        matter = self.getSystem().getMatterSubsystem()
        return matter.getMobilizedBody(int(self._body[k]))

    def getMobilizedBodyIndex(self, surface) -> int:
        return int(self._body[self._check_surface(surface)])

    def getContactSurface(self, surface):
        return self._surfaces[self._check_surface(surface)][3]

    def getContactSurfaceTransform(self, surface) -> Transform:
        """X_BS of the surface on its body."""
        return self._surfaces[self._check_surface(surface)][2]

    def getContactGeometry(self, surface):
        return self.getContactSurface(surface).getShape()

    def surfaceTransformsInGround(self, state) -> tuple[np.ndarray, np.ndarray]:
        """(R_GS (n, 3, 3), p_GS (n, 3)) of every surface (Position stage)."""
        matter = self.getSystem().getMatterSubsystem()
        pc = matter._position_cache(state)
        R_GB = pc.R_GB[self._body]
        R = np.einsum("kij,kjl->kil", R_GB, self._R_BS)
        p = pc.p_GB[self._body] + np.einsum("kij,kj->ki", R_GB, self._p_BS)
        return R, p

    # ------------------------------------------------------------------ realization
    def realizeSubsystemModelImpl(self, state) -> None:
        self._snapshot_entry = self.allocateCacheEntry(
            state, Stage.Position, None, name="active contacts"
        )

    def realizeSubsystemPositionImpl(self, state) -> None:
        found = self._find_contacts(state)
        prior = self.getDiscreteVariable(state, self._prior_index)
        contacts = []
        current = {}
        for key in sorted(found):
            contact = found[key]
            previous = prior.get(key)
            if previous is not None and previous[1] != Condition.Broken:
                contact._id = previous[0]
                contact._condition = Condition.Ongoing
            else:
                contact._id = _new_id()
                contact._condition = Condition.NewContact
            current[key] = (contact._id, contact._condition)
            contacts.append(contact)
        R, p = None, None
        for key, (cid, condition) in sorted(prior.items()):
            if condition == Condition.Broken or key in found:
                continue
            if R is None:
                R, p = self.surfaceTransformsInGround(state)
            s1, s2 = key
            X1 = pair_trackers._transform(R[s1], p[s1])
            X2 = pair_trackers._transform(R[s2], p[s2])
            broken = BrokenContact(s1, s2, ~X1 * X2, self._separation(s1, s2, R, p))
            broken.setContactId(cid)
            broken._set_ground_frame(X1, X2)
            current[key] = (cid, Condition.Broken)
            contacts.append(broken)
        sx = self.getMySubsystemIndex()
        snapshot = ContactSnapshot(state.getTime(), contacts)
        snapshot._history = current
        state.setCacheEntryValue(sx, self._snapshot_entry, snapshot)

    def realizeSubsystemVelocityImpl(self, state) -> None:
        """Record this State's contacts as the history the next step starts from (the
        update value can be marked from Position stage on, so it is done here)."""
        sx = self.getMySubsystemIndex()
        snapshot = self.getCacheEntry(state, self._snapshot_entry)
        entry = state.getDiscreteVarUpdateIndex(sx, self._prior_index)
        state.setCacheEntryValue(sx, entry, snapshot._history)
        self.markDiscreteVarUpdateValueRealized(state, self._prior_index)

    def _separation(self, s1: int, s2: int, R, p) -> float:
        """Gap between two separated surfaces (sphere pairs; 0 where not computed)."""
        k1, k2 = self._kind[s1], self._kind[s2]
        if k2 == SPHERE and k1 == SPHERE:
            gap = np.linalg.norm(p[s2] - p[s1]) - self._size[s1, 0] - self._size[s2, 0]
            return max(float(gap), 0.0)
        if k1 == HALF_SPACE and k2 == SPHERE:
            gap = float((p[s2] - p[s1]) @ (-R[s1][:, 0])) - self._size[s2, 0]
            return max(gap, 0.0)
        return 0.0

    def _find_contacts(self, state) -> dict:
        """{(surface1, surface2): Contact} of every overlapping pair in the table."""
        found: dict = {}
        if not self._surfaces:
            return found
        R, p = self.surfaceTransformsInGround(state)
        size = self._size
        for h, lists in self._half_space_pairs:
            spheres = lists[SPHERE]
            if spheres.size:
                mask, x, origin, n = pair_trackers.half_space_spheres(
                    h, R[h], p[h], spheres, p[spheres], size[spheres, 0]
                )
                for a in np.flatnonzero(mask):
                    s = int(spheres[a])
                    r = float(size[s, 0])
                    found[(h, s)] = pair_trackers.circular(
                        h, s, R[h], p[h], R[s], p[s], np.inf, r, r, float(x[a]), origin[a], n
                    )
            for e in lists[ELLIPSOID]:
                e = int(e)
                c = pair_trackers.half_space_ellipsoid(h, e, R[h], p[h], R[e], p[e], size[e])
                if c is not None:
                    found[(h, e)] = c
            for b in lists[BRICK]:
                b = int(b)
                c = pair_trackers.half_space_brick(h, b, R[h], p[h], R[b], p[b], size[b])
                if c is not None:
                    found[(h, b)] = c
        spheres = self._spheres
        if spheres.size > 1:
            for a, b in sweep_and_prune(p[spheres], size[spheres, 0]):
                i, j = int(spheres[a]), int(spheres[b])
                if i > j:
                    i, j = j, i
                if not self._may_interact(i, j):
                    continue
                c = pair_trackers.sphere_sphere(
                    i, j, R[i], p[i], float(size[i, 0]), R[j], p[j], float(size[j, 0])
                )
                if c is not None:
                    found[(i, j)] = c
        return found

    def getActiveContacts(self, state) -> ContactSnapshot:
        """The contacts of this State (Position stage)."""
        current = self.getStage(state)
        if current < Stage.Position:
            raise StageTooLowError(
                "getActiveContacts needs the State realized to Position stage, but the "
                f"ContactTrackerSubsystem is at {current.getName()}",
                needed=Stage.Position,
                current=current,
            )
        return self.getCacheEntry(state, self._snapshot_entry)
