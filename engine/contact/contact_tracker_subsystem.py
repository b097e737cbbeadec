"""ContactTrackerSubsystem: finds which contact surfaces touch (Simbody 3.7).

At Topology stage it collects every ContactSurface on the matter subsystem's bodies
(``ContactSurfaceIndex`` = by MobilizedBodyIndex, then in the order added to the body) and
builds the pair table: pairs on different bodies, sharing no clique, with a tracker
(HalfSpace-Sphere, Sphere-Sphere, HalfSpace-Ellipsoid, HalfSpace-Brick, and those of
``mesh_trackers.PAIR_TRACKERS``: the TriangleMesh pairs, Sphere-Ellipsoid and
Ellipsoid-Ellipsoid, listed in ``_mesh_pairs`` and run in Python; the fused kernel has a
compiled form of each). Half-space pairs
are listed once there (O(N) per half space); Sphere-Sphere pairs are found at each
Position realization by a sweep-and-prune broad phase (``broad_phase``).

At Position stage it computes the active contacts (``getActiveContacts``): every pair whose
undeformed shapes overlap, as NewContact, or Ongoing if it was active at the previous step
(an auto-update discrete variable holds that history), plus each contact that was active
then and has separated, reported once as a BrokenContact.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import IndexOutOfRangeError, StageTooLowError
from engine.common.index_arg import index_value
from engine.common.stage import Stage
from engine.common.subsystem import Subsystem
from engine.contact import mesh_trackers, pair_trackers
from engine.contact.broad_phase import sweep_and_prune_array
from engine.contact.contact import BrokenContact, Condition, ContactId, _new_ids
from engine.contact.contact_surface import ContactSurfaceIndex
from engine.contact.kernels.mesh_queries import mesh_query_arrays
from engine.math.transform import Transform

HALF_SPACE, SPHERE, ELLIPSOID, BRICK, CYLINDER = 0, 1, 2, 3, 4


#: the per-mesh arrays of ``mesh_query_arrays`` the fused kernel's table holds
_MESH_QUERY_ARRAYS = (
    "vertices",
    "vertex_normals",
    "faces",
    "face_normals",
    "face_boxes",
    "edges",
    "nodes",
    "links",
    "tree_faces",
)
_INT_ARRAYS = {"faces", "edges", "links", "tree_faces"}


def _empty(shape, dtype) -> np.ndarray:
    a = np.zeros(shape, dtype=dtype)
    a.flags.writeable = False
    return a


_EMPTY_I = _empty(0, np.int64)
_EMPTY_C = _empty(0, np.int8)
_EMPTY_B = _empty(0, bool)
_EMPTY_F = _empty(0, np.float64)
_EMPTY_3 = _empty((0, 3), np.float64)
_EMPTY_HISTORY = (_EMPTY_I, _EMPTY_I, _EMPTY_C)


def _found_capacity(half_space_pairs: int, spheres: int) -> int:
    """Rows of the fused kernel's found-contact buffers: every half space-sphere pair and
    four contacts per sphere (more are applied in chunks)."""
    return half_space_pairs + 4 * spheres + 16


def _i0() -> np.ndarray:
    return np.zeros(0, dtype=np.int64)


class ContactSnapshot:
    """The active contacts of one State (Simbody's ContactSnapshot).

    The tracker fills it with flat arrays, one row per contact found (sorted by surface
    pair): surfaces, id, condition and, for CircularPointContacts, depth, radii, origin and
    normal in Ground. A Contact object is built only when asked for (``getContact``,
    iteration); the few other kinds (elliptical, brick, broken contacts) are held as
    objects. ``ContactSnapshot(time, contacts)`` makes one from a list of Contacts.
    """

    def __init__(self, time: float, contacts: list) -> None:
        self._time = float(time)
        self._ns = 0
        self._keys = self._s1 = self._s2 = self._ids = _EMPTY_I
        self._cond = _EMPTY_C
        self._circular = _EMPTY_B
        self._depth = self._radius = self._radius1 = self._radius2 = _EMPTY_F
        self._origin = self._normal = _EMPTY_3
        self._objects: list = []  # one per row: the Contact once built (or given), else None
        self._extra = list(contacts)  # contacts after the rows (broken ones, or given ones)
        self._R = self._p = None  # surfaces' frames in G, for building circular contacts
        self._history = _EMPTY_HISTORY
        self._any_objects = False  # some row holds an object from the start

    def _rows(self) -> int:
        return self._keys.shape[0]

    def getTime(self) -> float:
        return self._time

    def getNumContacts(self) -> int:
        return self._rows() + len(self._extra)

    def getContact(self, i: int):
        k = index_value(i, "getContact: i")
        n = self.getNumContacts()
        if not 0 <= k < n:
            raise IndexOutOfRangeError(
                f"getContact: i: no contact {k}: the snapshot has {n} contacts"
            )
        return self._contact(k)

    def _contact(self, k: int):
        m = self._rows()
        if k >= m:
            return self._extra[k - m]
        contact = self._objects[k]
        if contact is None:
            s1, s2 = int(self._s1[k]), int(self._s2[k])
            R, p = self._R, self._p
            contact = pair_trackers.circular(
                s1,
                s2,
                R[s1],
                p[s1],
                R[s2],
                p[s2],
                float(self._radius1[k]),
                float(self._radius2[k]),
                float(self._radius[k]),
                float(self._depth[k]),
                self._origin[k].copy(),
                self._normal[k].copy(),
            )
            contact._id = int(self._ids[k])
            contact._condition = Condition(int(self._cond[k]))
            self._objects[k] = contact
        return contact

    def _index_of_id(self, contactId) -> int | None:
        """The number of the contact with this id, or None."""
        target = index_value(contactId, "contactId")
        hits = np.flatnonzero(self._ids == target)
        if hits.size:
            return int(hits[0])
        for k, c in enumerate(self._extra):
            if int(c._id) == target:
                return self._rows() + k
        return None

    def hasContact(self, contactId) -> bool:
        return self._index_of_id(contactId) is not None

    def getContactById(self, contactId):
        k = self._index_of_id(contactId)
        if k is None:
            raise IndexOutOfRangeError(f"no contact with id {contactId!r} in this snapshot")
        return self._contact(k)

    def getContactIdForSurfacePair(self, surf1, surf2):
        """The id of the contact between two surfaces (either order), or None."""
        a, b = index_value(surf1, "surf1"), index_value(surf2, "surf2")
        for x, y in ((a, b), (b, a)):
            hits = np.flatnonzero((self._s1 == x) & (self._s2 == y))
            if hits.size:
                return ContactId(int(self._ids[hits[0]]))
        for x, y in ((a, b), (b, a)):
            for c in self._extra:
                if int(c._surface1) == x and int(c._surface2) == y:
                    return ContactId(c._id)
        return None

    def __iter__(self):
        return (self._contact(k) for k in range(self.getNumContacts()))


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
            state,
            Stage.Position,
            _EMPTY_HISTORY,
            Stage.Position,
            name="contacts active at the last step (pair keys, ids, conditions)",
        )
        # realized at every step when the System realizes stage by stage; on request (from
        # the snapshot) when the fused realization does the contact forces in its kernel
        state._dv(self.getMySubsystemIndex(), self._prior_index).updated_on_request = True

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
        self._mesh_pairs = mesh_trackers.tracked_pairs(kind, self._may_interact)
        # the Sphere-Ellipsoid and Ellipsoid-Ellipsoid pairs among them, in pair-key order
        self._implicit_pairs = np.array(
            [
                (a, b)
                for a, b, _ in self._mesh_pairs
                if kind[a] in (SPHERE, ELLIPSOID) and kind[b] in (SPHERE, ELLIPSOID)
            ],
            dtype=np.int64,
        ).reshape(-1, 2)
        # the HalfSpace-TriangleMesh and Sphere-TriangleMesh pairs, in pair-key order
        self._mesh_kernel_pairs = np.array(
            [
                (a, b)
                for a, b, _ in self._mesh_pairs
                if kind[a] in (HALF_SPACE, SPHERE) and kind[b] == mesh_trackers.TRIANGLE_MESH
            ],
            dtype=np.int64,
        ).reshape(-1, 2)
        # the TriangleMesh-TriangleMesh pairs, in pair-key order
        self._mesh_mesh_pairs = np.array(
            [
                (a, b)
                for a, b, _ in self._mesh_pairs
                if kind[a] == mesh_trackers.TRIANGLE_MESH and kind[b] == mesh_trackers.TRIANGLE_MESH
            ],
            dtype=np.int64,
        ).reshape(-1, 2)
        self._sphere_cliques = any(self._cliques[s] for s in self._spheres)

    # ------------------------------------------------------------------ fused realization
    def _fused_obstacle(self) -> str:
        """Why the fused kernel cannot find this tracker's contacts ("" if it can: every
        pair a Python tracker handles has a kernel)."""
        kernel_pairs = (
            self._implicit_pairs.shape[0]
            + self._mesh_kernel_pairs.shape[0]
            + self._mesh_mesh_pairs.shape[0]
        )
        if len(self._mesh_pairs) > kernel_pairs:
            return "a pair of surfaces has a Python tracker only"
        return ""

    def _mesh_pairs_possible(self) -> bool:
        """Whether a half space, a sphere or a triangle mesh may touch a triangle mesh (a
        TriangleMeshContact the fused kernel finds)."""
        return self._mesh_kernel_pairs.shape[0] + self._mesh_mesh_pairs.shape[0] > 0

    def _mesh_kernel_arrays(self) -> dict[str, np.ndarray]:
        """The ``contact_mesh_*`` arrays: the half space-mesh and sphere-mesh pairs, the
        mesh-mesh pairs, and for each mesh surface in one of them its face centroids and
        areas, its bounding sphere and its query arrays (``mesh_queries.mesh_query_arrays``:
        vertices, faces, pseudo-normals, edges, AABB tree), with the scratch the mesh-mesh
        kernel needs (nothing for the other surfaces)."""
        ns = len(self._surfaces)
        used = set(self._mesh_kernel_pairs[:, 1].tolist()) | set(
            self._mesh_mesh_pairs.ravel().tolist()
        )
        counts = np.zeros((ns + 1, 4), dtype=np.int64)  # faces, vertices, edges, nodes
        parts = {name: [] for name in _MESH_QUERY_ARRAYS}
        centroids, areas = [np.zeros((0, 3))], [np.zeros(0)]
        bounds = np.zeros((ns, 4))
        for k in sorted(used):
            mesh = self._surfaces[k][3].getShape()
            centroids.append(mesh.faceCentroids())
            areas.append(mesh.faceAreas())
            query = mesh_query_arrays(mesh)
            for name in _MESH_QUERY_ARRAYS:
                parts[name].append(query[name])
            counts[k + 1] = (
                query["faces"].shape[0],
                query["vertices"].shape[0],
                query["edges"].shape[0],
                query["nodes"].shape[0],
            )
            centre, radius = mesh.getBoundingSphere()
            bounds[k, :3], bounds[k, 3] = centre, radius
        starts = np.cumsum(counts, axis=0, dtype=np.int64)
        faces, vertices = int(starts[-1, 0]), int(starts[-1, 1])
        widest = int(counts[:, 1].max()) if ns else 0
        deepest = int(counts[:, 3].max()) if ns else 0
        shapes = {
            "vertices": (0, 3),
            "vertex_normals": (0, 3),
            "faces": (0, 3),
            "face_normals": (0, 4, 3),
            "face_boxes": (0, 6),
            "edges": (0, 2),
            "nodes": (0, 6),
            "links": (0, 3),
            "tree_faces": (0,),
        }
        arrays = {
            f"contact_mesh_{name}": np.ascontiguousarray(
                np.concatenate(parts[name])
                if parts[name]
                else np.zeros(shapes[name], dtype=np.int64 if name in _INT_ARRAYS else float)
            )
            for name in _MESH_QUERY_ARRAYS
        }
        return {
            "contact_mesh_pairs": np.ascontiguousarray(self._mesh_kernel_pairs, dtype=np.int64),
            "contact_mesh_face_starts": np.ascontiguousarray(starts[:, 0]),
            "contact_mesh_centroids": np.ascontiguousarray(np.concatenate(centroids)),
            "contact_mesh_areas": np.ascontiguousarray(np.concatenate(areas)),
            "contact_mesh_bounds": bounds,
            "contact_mesh_mesh_pairs": np.ascontiguousarray(self._mesh_mesh_pairs, dtype=np.int64),
            "contact_mesh_starts": np.ascontiguousarray(starts[:, 1:]),
            **arrays,
            "contact_mesh_vertex_flags": np.zeros(vertices, dtype=np.int64),
            "contact_mesh_face_flags": np.zeros(faces, dtype=np.int64),
            "contact_mesh_candidates": np.zeros(faces, dtype=np.int64),
            "contact_mesh_work": np.zeros((widest, 3)),
            "contact_mesh_stack": np.zeros(deepest + 2, dtype=np.int64),
        }

    def _half_space_kinds(self) -> set[int]:
        """The kinds (ELLIPSOID, BRICK) some half space may touch."""
        return {
            kind
            for _, lists in self._half_space_pairs
            for kind in (ELLIPSOID, BRICK)
            if lists[kind].size
        }

    def _elliptical_pairs_possible(self) -> bool:
        """Whether an EllipticalPointContact can occur: a half space may touch an
        ellipsoid, or a Sphere-Ellipsoid or Ellipsoid-Ellipsoid pair may touch."""
        return ELLIPSOID in self._half_space_kinds() or self._implicit_pairs.shape[0] > 0

    def _kernel_arrays(self, transition_velocities: list[float]) -> dict[str, np.ndarray]:
        """The ``contact_*`` arrays of the fused kernel's table (layout CONTACT home): the
        surfaces, the half spaces' candidate spheres, the cliques, the transition velocity
        of each CompliantContactSubsystem that makes forces of the contacts (m/s, in
        subsystem order; none for a tracker alone), and fresh scratch sized for the
        contacts this model can have (see ``contact_stage_kernel``)."""
        ns = len(self._surfaces)
        kind = self._kind
        radius = np.where(kind == SPHERE, self._size[:, 0], 0.0) if ns else np.zeros(0)
        halves = [h for h, _ in self._half_space_pairs]
        lists = [lists[SPHERE] for _, lists in self._half_space_pairs]
        starts = np.zeros(len(halves) + 1, dtype=np.int64)
        starts[1:] = np.cumsum([c.shape[0] for c in lists], dtype=np.int64)
        clique_starts = np.zeros(ns + 1, dtype=np.int64)
        clique_starts[1:] = np.cumsum([len(c) for c in self._cliques], dtype=np.int64)
        cliques = [sorted(c) for c in self._cliques]
        others = [
            np.sort(np.concatenate((lists[ELLIPSOID], lists[BRICK])))
            for _, lists in self._half_space_pairs
        ]
        other_starts = np.zeros(len(halves) + 1, dtype=np.int64)
        other_starts[1:] = np.cumsum([c.shape[0] for c in others], dtype=np.int64)
        stiffness = [s[3].getMaterial().getStiffness() for s in self._surfaces]
        nsph = self._spheres.shape[0]
        capacity = _found_capacity(int(starts[-1]), nsph)
        i64, f64 = np.int64, np.float64
        return {
            "contact_body": np.ascontiguousarray(self._body, dtype=i64),
            "contact_R_BS": np.ascontiguousarray(self._R_BS, dtype=f64).reshape(ns, 3, 3),
            "contact_p_BS": np.ascontiguousarray(self._p_BS, dtype=f64).reshape(ns, 3),
            "contact_radius": np.ascontiguousarray(radius, dtype=f64),
            "contact_material": np.ascontiguousarray(self._material, dtype=f64).reshape(ns, 5),
            "contact_halves": np.array(halves, dtype=i64),
            "contact_half_starts": starts,
            "contact_half_spheres": np.concatenate(lists).astype(i64) if lists else _i0(),
            "contact_spheres": np.ascontiguousarray(self._spheres, dtype=i64),
            "contact_clique_starts": clique_starts,
            "contact_cliques": np.array([c for cs in cliques for c in cs], dtype=i64),
            "contact_settings": np.array(transition_velocities, dtype=f64).reshape(-1),
            "contact_R_GS": np.zeros((ns, 3, 3)),
            "contact_p_GS": np.zeros((ns, 3)),
            "contact_order": np.arange(nsph, dtype=i64),
            "contact_lo": np.zeros(nsph),
            "contact_found": np.zeros((capacity, 2), dtype=i64),
            "contact_found_geometry": np.zeros((capacity, 8)),
            "contact_keys": np.zeros(capacity, dtype=i64),
            "contact_perm": np.zeros(capacity, dtype=i64),
            "contact_s1": np.zeros(capacity, dtype=i64),
            "contact_s2": np.zeros(capacity, dtype=i64),
            "contact_depth": np.zeros(capacity),
            "contact_eff_radius": np.zeros(capacity),
            "contact_origin": np.zeros((capacity, 3)),
            "contact_normal": np.zeros((capacity, 3)),
            "contact_out": np.zeros((capacity, 13)),
            "contact_counts": np.zeros(2, dtype=i64),
            "contact_power": np.zeros(max(1, len(transition_velocities))),
            "contact_kind": np.ascontiguousarray(self._kind, dtype=i64),
            "contact_size": np.ascontiguousarray(self._size, dtype=f64).reshape(ns, 3),
            "contact_stiffness": np.array(stiffness, dtype=f64),
            "contact_half_other_starts": other_starts,
            "contact_half_others": np.concatenate(others).astype(i64) if others else _i0(),
            "contact_implicit_pairs": np.ascontiguousarray(self._implicit_pairs, dtype=i64),
            **self._mesh_kernel_arrays(),
        }

    # ------------------------------------------------------------------ accessors
    def hasContactTracker(self, surface1, surface2) -> bool:
        """Whether a tracker handles the pair of ContactGeometry type ids (either order);
        pairs without one are ignored, as in Simbody."""
        pair = tuple(sorted((index_value(surface1, "surface1"), index_value(surface2, "surface2"))))
        builtin = {
            (HALF_SPACE, SPHERE),
            (SPHERE, SPHERE),
            (HALF_SPACE, ELLIPSOID),
            (HALF_SPACE, BRICK),
        }
        return pair in builtin or pair in mesh_trackers.PAIR_TRACKERS

    def getNumSurfaces(self) -> int:
        self._require_topology()
        return len(self._surfaces)

    def _require_topology(self) -> None:
        if not self.subsystemTopologyHasBeenRealized():
            raise StageTooLowError(
                "the ContactTrackerSubsystem's surfaces are known after realizeTopology",
                needed=Stage.Topology,
            )

    def _check_surface(self, i, what: str) -> int:
        """Surface index ``i`` (a ContactSurfaceIndex or integer) checked against the
        surfaces; ``what`` is the method, for the message."""
        self._require_topology()
        k = index_value(i, f"{what}: surface")
        if not 0 <= k < len(self._surfaces):
            raise IndexOutOfRangeError(
                f"{what}: surface: no contact surface {k}: there are {len(self._surfaces)} surfaces"
            )
        return k

    def getContactSurfaceIndex(self, mobodIx, contactSurfaceOrdinal) -> ContactSurfaceIndex:
        """The ContactSurfaceIndex of surface ``ordinal`` on body ``mobodIx``."""
        self._require_topology()
        b = index_value(mobodIx, "mobodIx")
        k = index_value(contactSurfaceOrdinal, "contactSurfaceOrdinal")
        for i, s in enumerate(self._surfaces):
            if s[0] == b and s[1] == k:
                return ContactSurfaceIndex(i)
        raise IndexOutOfRangeError(f"body {b} has no contact surface {k}")

    def getMobilizedBody(self, surface):
        k = self._check_surface(surface, "getMobilizedBody")
        matter = self.getSystem().getMatterSubsystem()
        return matter.getMobilizedBody(int(self._body[k]))

    def getMobilizedBodyIndex(self, surface) -> int:
        return int(self._body[self._check_surface(surface, "getMobilizedBodyIndex")])

    def getContactSurface(self, surface):
        return self._surfaces[self._check_surface(surface, "getContactSurface")][3]

    def getContactSurfaceTransform(self, surface) -> Transform:
        """X_BS of the surface on its body."""
        return self._surfaces[self._check_surface(surface, "getContactSurfaceTransform")][2]

    def getContactGeometry(self, surface):
        return self._surfaces[self._check_surface(surface, "getContactGeometry")][3].getShape()

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
        self._realize_snapshot(state)

    def _realize_snapshot(self, state) -> ContactSnapshot:
        """Find this State's contacts, match them against the history and store the
        snapshot (marked realized); returns it."""
        ns = len(self._surfaces)
        if ns:
            R, p = self.surfaceTransformsInGround(state)
        else:
            R, p = np.zeros((0, 3, 3)), np.zeros((0, 3))
        snapshot = ContactSnapshot(state.getTime(), [])
        snapshot._ns = ns
        snapshot._R, snapshot._p = R, p
        self._find_contacts(R, p, snapshot)
        prior_keys, prior_ids, prior_cond = self.getDiscreteVariable(state, self._prior_index)
        keys = snapshot._keys
        m = keys.shape[0]
        np_ = prior_keys.shape[0]
        if np_ == 0 and m == 0:
            return self._store(state, snapshot)
        cond = np.full(m, int(Condition.NewContact), dtype=np.int8)
        if np_ == 0:
            ids = _new_ids(m)
        else:
            ids = np.empty(m, dtype=np.int64)
            hit = np.zeros(m, dtype=bool)
            if m:
                pos = np.minimum(np.searchsorted(prior_keys, keys), np_ - 1)
                hit = (prior_keys[pos] == keys) & (prior_cond[pos] != int(Condition.Broken))
                ids[hit] = prior_ids[pos[hit]]
                cond[hit] = int(Condition.Ongoing)
            fresh = np.flatnonzero(~hit)
            ids[fresh] = _new_ids(fresh.shape[0])
        snapshot._ids, snapshot._cond = ids, cond
        if snapshot._any_objects:
            for k, contact in enumerate(snapshot._objects):
                if contact is not None:
                    contact._id = int(ids[k])
                    contact._condition = Condition(int(cond[k]))
        if np_ == 0:
            snapshot._history = (keys, ids, cond)
            return self._store(state, snapshot)
        # contacts active at the last step and separated now: one BrokenContact each
        gone = prior_cond != int(Condition.Broken)
        if m:
            pos = np.minimum(np.searchsorted(keys, prior_keys), m - 1)
            gone &= keys[pos] != prior_keys
        if not gone.any():
            snapshot._history = (keys, ids, cond)
            return self._store(state, snapshot)
        broken_keys = prior_keys[gone]
        broken_ids = prior_ids[gone]
        for key, cid in zip(broken_keys.tolist(), broken_ids.tolist(), strict=True):
            s1, s2 = divmod(key, ns)
            X1 = pair_trackers._transform(R[s1], p[s1])
            X2 = pair_trackers._transform(R[s2], p[s2])
            broken = BrokenContact(s1, s2, ~X1 * X2, self._separation(s1, s2, R, p))
            broken.setContactId(cid)
            broken._set_ground_frame(X1, X2)
            snapshot._extra.append(broken)
        all_keys = np.concatenate((keys, broken_keys))
        all_ids = np.concatenate((ids, broken_ids))
        all_cond = np.concatenate(
            (cond, np.full(broken_keys.shape[0], int(Condition.Broken), dtype=np.int8))
        )
        order = np.argsort(all_keys, kind="stable")
        snapshot._history = (all_keys[order], all_ids[order], all_cond[order])
        return self._store(state, snapshot)

    def _store(self, state, snapshot: ContactSnapshot) -> ContactSnapshot:
        sx = self.getMySubsystemIndex()
        state.setCacheEntryValue(sx, self._snapshot_entry, snapshot)
        return snapshot

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

    def _find_contacts(self, R, p, snapshot: ContactSnapshot) -> None:
        """Fill the snapshot's rows with every overlapping pair of the table, sorted by
        (surface 1, surface 2): circular contacts as arrays, the other kinds as objects."""
        ns = len(self._surfaces)
        if not ns:
            return
        size = self._size
        # circular rows: lists of arrays, concatenated once
        c_s1, c_s2, c_x, c_R, c_r1, c_r2, c_o, c_n = ([] for _ in range(8))
        others: list = []  # (s1, s2, Contact)
        for h, lists in self._half_space_pairs:
            spheres = lists[SPHERE]
            if spheres.size:
                mask, x, origin, n = pair_trackers.half_space_spheres(
                    h, R[h], p[h], spheres, p[spheres], size[spheres, 0]
                )
                chosen = spheres[mask]
                k = chosen.shape[0]
                if k:
                    r = size[chosen, 0]
                    c_s1.append(np.full(k, h, dtype=np.int64))
                    c_s2.append(chosen)
                    c_x.append(x[mask])
                    c_R.append(r)
                    c_r1.append(np.full(k, np.inf))
                    c_r2.append(r)
                    c_o.append(origin[mask])
                    c_n.append(np.tile(n, (k, 1)))
            for e in lists[ELLIPSOID]:
                e = int(e)
                c = pair_trackers.half_space_ellipsoid(h, e, R[h], p[h], R[e], p[e], size[e])
                if c is not None:
                    others.append((h, e, c))
            for b in lists[BRICK]:
                b = int(b)
                c = pair_trackers.half_space_brick(h, b, R[h], p[h], R[b], p[b], size[b])
                if c is not None:
                    others.append((h, b, c))
        for a, b, track in self._mesh_pairs:
            shape_a, shape_b = self._surfaces[a][3].getShape(), self._surfaces[b][3].getShape()
            c = track(a, b, R[a], p[a], R[b], p[b], shape_a, shape_b)
            if c is not None:
                others.append((a, b, c))
        spheres = self._spheres
        if spheres.size > 1:
            pairs = sweep_and_prune_array(p[spheres], size[spheres, 0])
            if pairs.shape[0]:
                i = spheres[pairs[:, 0]]
                j = spheres[pairs[:, 1]]
                i, j = np.minimum(i, j), np.maximum(i, j)
                keep = self._body[i] != self._body[j]
                if self._sphere_cliques:
                    cliques = self._cliques
                    keep &= np.array(
                        [
                            not (cliques[a] & cliques[b])
                            for a, b in zip(i.tolist(), j.tolist(), strict=True)
                        ],
                        dtype=bool,
                    )
                i, j = i[keep], j[keep]
                d = p[j] - p[i]
                dist = np.sqrt(np.einsum("ki,ki->k", d, d))
                ri, rj = size[i, 0], size[j, 0]
                x = ri + rj - dist
                touch = (x > 0.0) & (dist != 0.0)
                if touch.any():
                    i, j, d, dist, ri, rj, x = (a[touch] for a in (i, j, d, dist, ri, rj, x))
                    n = d / dist[:, None]
                    c_s1.append(i)
                    c_s2.append(j)
                    c_x.append(x)
                    c_R.append(ri * rj / (ri + rj))
                    c_r1.append(ri)
                    c_r2.append(rj)
                    c_o.append(p[i] + (ri - 0.5 * x)[:, None] * n)
                    c_n.append(n)
        if not others and not c_s1:
            return
        if not others and len(c_s1) == 1 and c_r1[0].shape[0] and np.isinf(c_r1[0][0]):
            # one half space's spheres: already in pair order, used as they are
            m = c_s1[0].shape[0]
            snapshot._keys = c_s1[0] * ns + c_s2[0]
            snapshot._s1, snapshot._s2 = c_s1[0], c_s2[0]
            snapshot._circular = np.ones(m, dtype=bool)
            snapshot._depth, snapshot._radius = c_x[0], c_R[0]
            snapshot._radius1, snapshot._radius2 = c_r1[0], c_r2[0]
            snapshot._origin, snapshot._normal = c_o[0], c_n[0]
            snapshot._objects = [None] * m
            return
        nc = sum(a.shape[0] for a in c_s1)
        m = nc + len(others)
        s1 = np.empty(m, dtype=np.int64)
        s2 = np.empty(m, dtype=np.int64)
        circular = np.zeros(m, dtype=bool)
        depth, radius = np.zeros(m), np.zeros(m)
        radius1, radius2 = np.zeros(m), np.zeros(m)
        origin, normal = np.zeros((m, 3)), np.zeros((m, 3))
        if nc:
            s1[:nc] = np.concatenate(c_s1)
            s2[:nc] = np.concatenate(c_s2)
            circular[:nc] = True
            depth[:nc] = np.concatenate(c_x)
            radius[:nc] = np.concatenate(c_R)
            radius1[:nc] = np.concatenate(c_r1)
            radius2[:nc] = np.concatenate(c_r2)
            origin[:nc] = np.concatenate(c_o)
            normal[:nc] = np.concatenate(c_n)
        objects: list = [None] * m
        for k, (a, b, c) in enumerate(others):
            s1[nc + k], s2[nc + k] = a, b
            depth[nc + k] = c._depth
            objects[nc + k] = c
        keys = s1 * ns + s2
        order = np.argsort(keys, kind="stable")
        snapshot._keys = keys[order]
        snapshot._s1, snapshot._s2 = s1[order], s2[order]
        snapshot._circular = circular[order]
        snapshot._depth, snapshot._radius = depth[order], radius[order]
        snapshot._radius1, snapshot._radius2 = radius1[order], radius2[order]
        snapshot._origin, snapshot._normal = origin[order], normal[order]
        snapshot._objects = [objects[k] for k in order.tolist()] if others else objects
        snapshot._any_objects = bool(others)

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
        if self.isCacheValueRealized(state, self._snapshot_entry):
            return self.getCacheEntry(state, self._snapshot_entry)
        # realized by the fused kernel, which applies the forces without a snapshot: the
        # snapshot is made now from the positions, and becomes the history the next step
        # starts from (the update value of the history variable)
        snapshot = self._realize_snapshot(state)
        self.markCacheValueRealized(state, self._snapshot_entry)
        sx = self.getMySubsystemIndex()
        entry = state.getDiscreteVarUpdateIndex(sx, self._prior_index)
        state.setCacheEntryValue(sx, entry, snapshot._history)
        self.markDiscreteVarUpdateValueRealized(state, self._prior_index)
        return snapshot
