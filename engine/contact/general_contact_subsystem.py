"""GeneralContactSubsystem: Simbody 3.7's contact sets of bodies with contact geometry, and
the point contacts between them (the input of HuntCrossleyForce)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.common.exceptions import IndexOutOfRangeError, InvalidArgumentError, StageTooLowError
from engine.common.index_arg import index_value
from engine.common.stage import Stage
from engine.common.state import State
from engine.common.subsystem import Subsystem
from engine.math.transform import Transform


@dataclass
class _Surface:
    """One entry of a contact set: geometry on a body at X_BS."""

    mobod: object
    geometry: object
    X_BS: Transform


def _type_name(geometry) -> str:
    return geometry.getTypeName()


class GeneralContactSubsystem(Subsystem):
    """GeneralContactSubsystem(system): contact sets, each a list of surfaces (a
    ContactGeometry at a frame S fixed on a MobilizedBody); ``getContacts(state, set)`` finds
    the touching pairs of one set at Position stage.

    Every pair of surfaces of a set on different bodies is tested (there are no cliques).
    HalfSpace-Sphere (the half space is surface 1) and Sphere-Sphere (the lower surface index
    is surface 1) give a ``PointContact`` whose ``location`` is halfway between the two
    undeformed surfaces, ``normal`` points from surface 1 into surface 2, ``depth`` > 0 is the
    overlap and ``effective_radius`` is r (HalfSpace-Sphere) or r1 r2/(r1 + r2). Other pairs of
    shapes never touch here. Surfaces are numbered per set in the order added.

    Broad phase: a single-axis sweep and prune over the finite surfaces' bounding spheres, on
    the axis along which their centres spread most (cost about O(N) plus the candidate pairs
    for N surfaces in a set, not O(N^2)); each infinite surface (a half space) is tested
    against every finite one. Detection runs in a kernel
    (``engine.contact.kernels.general_contact_kernel``, the one HuntCrossleyForce's compiled
    force term runs inside the fused realization), except for a set holding a TriangleMesh
    (Python). The kernel reads the surfaces' shapes as they were when the System's Model
    stage was last realized. The contacts of every set are computed together when first
    asked for and kept until q changes.
    """

    def __init__(self, system=None) -> None:
        super().__init__("GeneralContactSubsystem", "3.7")
        self._sets: list[list[_Surface]] = []
        self._contacts_entry = -1
        self._kernel_templates: dict[int, tuple | None] = {}  # set -> rows, made at Model
        if system is not None:
            system.adoptSubsystem(self)

    # ------------------------------------------------------------------ model building
    def createContactSet(self) -> int:
        """A new empty contact set; returns its ContactSetIndex (0, 1, ...)."""
        self._sets.append([])
        self.invalidateSubsystemTopologyCache()
        return len(self._sets) - 1

    def getNumContactSets(self) -> int:
        return len(self._sets)

    def _set_number(self, set_index, what: str) -> int:
        """Contact set ``set_index`` (an integer) checked against the sets; ``what`` is the
        method, for the message."""
        i = index_value(set_index, f"GeneralContactSubsystem.{what}: set_index")
        if not 0 <= i < len(self._sets):
            raise IndexOutOfRangeError(
                f"GeneralContactSubsystem.{what}: set_index: no contact set {i}; there are "
                f"{len(self._sets)} (create one with createContactSet())"
            )
        return i

    def _set(self, set_index, what: str = "contact set") -> list[_Surface]:
        return self._sets[self._set_number(set_index, what)]

    def _entry(self, set_index, index, what: str) -> _Surface:
        s = self._set_number(set_index, what)
        surfaces = self._sets[s]
        i = index_value(index, f"GeneralContactSubsystem.{what}: index")
        if not 0 <= i < len(surfaces):
            raise IndexOutOfRangeError(
                f"GeneralContactSubsystem.{what}: index: contact set {s} has {len(surfaces)} "
                f"bodies; index {i} is out of range"
            )
        return surfaces[i]

    def addBody(self, set_index, body, geometry, transform: Transform | None = None) -> int:
        """Add ``geometry`` (a ContactGeometry) at frame S = ``transform`` (X_BS, default
        identity) on MobilizedBody ``body`` to contact set ``set_index``; returns the new
        surface's index within the set."""
        from engine.contact.contact_geometry import ContactGeometry
        from engine.multibody.mobilized_body import MobilizedBody

        surfaces = self._set(set_index, "addBody")
        if not isinstance(body, MobilizedBody):
            raise InvalidArgumentError(
                f"GeneralContactSubsystem.addBody: body must be a MobilizedBody, "
                f"got {type(body).__name__}"
            )
        matter = body.getMatterSubsystem()
        if matter.isInSystem() and self.isInSystem() and not matter.isInSameSystem(self):
            raise InvalidArgumentError(
                f"GeneralContactSubsystem.addBody: mobilized body "
                f"{body.getMobilizedBodyIndex()} belongs to a different System"
            )
        if not isinstance(geometry, ContactGeometry):
            raise InvalidArgumentError(
                "GeneralContactSubsystem.addBody: geometry must be a ContactGeometry "
                f"(e.g. ContactGeometry.Sphere(0.1)), got {type(geometry).__name__}"
            )
        X_BS = Transform() if transform is None else transform
        if not isinstance(X_BS, Transform):
            raise InvalidArgumentError(
                "GeneralContactSubsystem.addBody: the surface frame must be a Transform X_BS, "
                f"got {type(X_BS).__name__}"
            )
        surfaces.append(_Surface(body, geometry, Transform(X_BS)))
        self.invalidateSubsystemTopologyCache()
        return len(surfaces) - 1

    def getNumBodies(self, set_index) -> int:
        return len(self._set(set_index, "getNumBodies"))

    def getBody(self, set_index, index):
        """The MobilizedBody of surface ``index`` of the set."""
        return self._entry(set_index, index, "getBody").mobod

    def getBodyGeometry(self, set_index, index):
        return self._entry(set_index, index, "getBodyGeometry").geometry

    def getBodyTransform(self, set_index, index) -> Transform:
        """X_BS of surface ``index`` of the set (a copy)."""
        return Transform(self._entry(set_index, index, "getBodyTransform").X_BS)

    # ------------------------------------------------------------------ realization
    def realizeSubsystemModelImpl(self, state: State) -> None:
        self._contacts_entry = self.allocateLazyCacheEntry(
            state, Stage.Position, [], name="contacts of each contact set"
        )
        self._kernel_templates = {
            i: self._kernel_rows(self._kernel_surfaces(i)) for i in range(len(self._sets))
        }

    def getContacts(self, state: State, set_index) -> tuple:
        """The PointContacts of contact set ``set_index`` in ``state`` (Position stage)."""
        s = self._set_number(set_index, "getContacts")
        current = self.getStage(state)
        if current < Stage.Position:
            raise StageTooLowError(
                "GeneralContactSubsystem.getContacts needs the State realized to Position "
                f"stage, but it is at {current.getName()}; call "
                "system.realize(state, Stage.Position)",
                needed=Stage.Position,
                current=current,
            )
        entry = self._contacts_entry
        if not self.isCacheValueRealized(state, entry):
            contacts = [self._find_contacts(state, s) for s in range(len(self._sets))]
            state.setCacheEntryValue(self.getMySubsystemIndex(), entry, contacts)
            self.markCacheValueRealized(state, entry)
        return self.getCacheEntry(state, entry)[s]

    def calcDecorativeGeometryAndAppendImpl(self, state: State, stage: Stage, geometry) -> None:
        """At Topology stage: every surface's shape (``createDecorativeGeometry``) on its
        body, placed at X_BS."""
        if Stage(stage) != Stage.Topology:
            return
        for surfaces in self._sets:
            for s in surfaces:
                drawing = s.geometry.createDecorativeGeometry()
                drawing.setBodyId(s.mobod.getMobilizedBodyIndex())
                drawing.setTransform(s.X_BS * drawing.getTransform())
                geometry.append(drawing)

    # ------------------------------------------------------------------ detection
    def _frames(self, state: State, surfaces: list[_Surface]):
        """(R_GS (n, 3, 3), p_GS (n, 3), body index (n,)) of every surface of a set."""
        matter = self.getSystem().getMatterSubsystem()
        pc = matter._position_cache(state)
        n = len(surfaces)
        R_GS = np.empty((n, 3, 3))
        p_GS = np.empty((n, 3))
        bodies = np.empty(n, dtype=np.int64)
        for i, s in enumerate(surfaces):
            b = s.mobod.getMobilizedBodyIndex()
            R_GB = pc.R_GB[b]
            R_GS[i] = R_GB @ s.X_BS.R().asMat33()
            p_GS[i] = pc.p_GB[b] + R_GB @ s.X_BS.p()
            bodies[i] = b
        return R_GS, p_GS, bodies

    def _kernel_surfaces(self, set_index: int, meshes: bool = False) -> list[tuple] | None:
        """Set ``set_index``'s surfaces as the detection kernel reads them: per surface
        (body index, kind, (x axis of S in B, origin of S in B, radius or bounding radius));
        None if the set holds a TriangleMesh, unless ``meshes``: a mesh is then a finite
        shape of the sweep (OTHER_FINITE, its bounding radius about S's origin), which is
        all HuntCrossleyForce needs (its point contacts come out in the same order; the
        mesh's contacts are not found)."""
        from engine.contact.kernels.general_contact_kernel import (
            HALF_SPACE,
            OTHER_FINITE,
            OTHER_INFINITE,
            SPHERE,
        )

        rows = []
        for s in self._sets[int(set_index)]:
            name = _type_name(s.geometry)
            if name == "TriangleMesh" and not meshes:
                return None
            if name == "HalfSpace":
                kind = HALF_SPACE
            elif name == "Sphere":
                kind = SPHERE
            else:
                kind = OTHER_FINITE if s.geometry.isFinite() else OTHER_INFINITE
            finite = kind in (SPHERE, OTHER_FINITE)
            radius = self._bounding_radius(s.geometry) if finite else 0.0
            axis = s.X_BS.R().asMat33()[:, 0]
            geometry = (*(float(a) for a in axis), *(float(p) for p in s.X_BS.p()), radius)
            rows.append((int(s.mobod.getMobilizedBodyIndex()), kind, geometry))
        return rows

    @staticmethod
    def _kernel_rows(surfaces: list[tuple] | None):
        """(ints, floats, number of finite surfaces) rows of ``_kernel_surfaces``'s list
        for ``general_contact_kernel.set_contacts`` (the order column holds the finite
        surfaces ascending), or None."""
        from engine.contact.kernels.general_contact_kernel import (
            OTHER_FINITE,
            ROW_FLOATS,
            ROW_INTS,
            SPHERE,
        )

        if surfaces is None:
            return None
        n = len(surfaces)
        ti = np.zeros((n, ROW_INTS), dtype=np.int64)
        tf = np.zeros((n, ROW_FLOATS))
        finite = [s for s, row in enumerate(surfaces) if row[1] in (SPHERE, OTHER_FINITE)]
        for s, (body, kind, geometry) in enumerate(surfaces):
            ti[s, 1], ti[s, 2] = body, kind
            tf[s, : len(geometry)] = geometry
        ti[: len(finite), 3] = finite
        return ti, tf, len(finite)

    def _find_contacts(self, state: State, set_index: int) -> tuple:
        surfaces = self._sets[set_index]
        if len(surfaces) < 2:
            return ()
        template = self._kernel_templates.get(set_index)
        if template is not None and template[0].shape[0] == len(surfaces):
            return self._kernel_contacts(state, template)
        return self._find_contacts_python(state, set_index)

    def _find_contacts_python(self, state: State, set_index: int) -> tuple:
        """The contacts of a set found in Python (a set with a TriangleMesh), in the
        detection kernel's order."""
        surfaces = self._sets[set_index]
        if len(surfaces) < 2:
            return ()
        R_GS, p_GS, bodies = self._frames(state, surfaces)
        kinds = [_type_name(s.geometry) for s in surfaces]
        infinite = [i for i, s in enumerate(surfaces) if not s.geometry.isFinite()]
        finite = [i for i, s in enumerate(surfaces) if s.geometry.isFinite()]
        contacts = []
        for h in infinite:
            for j in finite:
                if bodies[h] != bodies[j]:
                    self._narrow_phase(h, j, kinds, surfaces, R_GS, p_GS, contacts)
        for i, j in self._sweep_and_prune(finite, surfaces, p_GS):
            if bodies[i] != bodies[j]:
                self._narrow_phase(i, j, kinds, surfaces, R_GS, p_GS, contacts)
        return tuple(contacts)

    def _kernel_contacts(self, state: State, template: tuple) -> tuple:
        """The PointContacts of one set found by the detection kernel (RECORD mode)."""
        from engine.contact.contact import PointContact
        from engine.contact.kernels.general_contact_kernel import RECORD, set_contacts

        matter = self.getSystem().getMatterSubsystem()
        pc = matter._position_cache(state)
        ti, tf, nf = template[0].copy(), template[1].copy(), template[2]
        n = ti.shape[0]
        none = np.zeros((0, 6))
        out_i = np.zeros((n, 2), dtype=np.int64)
        out_f = np.zeros((n, 8))
        while True:
            m = set_contacts(
                RECORD, ti, tf, 0, n, nf, 1.0, pc.p_GB, pc.R_GB, none, none, out_i, out_f
            )
            if m <= out_i.shape[0]:
                break
            out_i = np.zeros((m, 2), dtype=np.int64)
            out_f = np.zeros((m, 8))
        return tuple(
            PointContact(
                int(out_i[c, 0]),
                int(out_i[c, 1]),
                out_f[c, 0:3].copy(),
                out_f[c, 3:6].copy(),
                float(out_f[c, 6]),
                float(out_f[c, 7]),
            )
            for c in range(m)
        )

    @staticmethod
    def _bounding_radius(geometry) -> float:
        kind = _type_name(geometry)
        if kind == "Sphere":
            return geometry.getRadius()
        if kind == "Ellipsoid":
            return float(np.max(geometry.getRadii()))
        if kind == "Brick":
            return float(np.linalg.norm(geometry.getHalfLengths()))
        if kind == "TriangleMesh":
            centre, radius = geometry.getBoundingSphere()
            return float(np.linalg.norm(centre)) + radius
        return np.inf  # a shape without a known bound is tested against everything

    def _sweep_and_prune(self, finite: list[int], surfaces, p_GS) -> list[tuple[int, int]]:
        """Candidate pairs (i < j) of finite surfaces whose bounding spheres overlap along
        the axis of largest spread of their centres."""
        if len(finite) < 2:
            return []
        idx = np.asarray(finite, dtype=np.int64)
        centres = p_GS[idx]
        radii = np.array([self._bounding_radius(surfaces[i].geometry) for i in finite])
        axis = int(np.argmax(np.var(centres, axis=0)))
        lo = centres[:, axis] - radii
        hi = centres[:, axis] + radii
        order = np.argsort(lo, kind="stable")
        pairs = []
        active: list[int] = []  # positions into idx whose interval may still overlap
        for k in order:
            start = lo[k]
            active = [a for a in active if hi[a] >= start]
            for a in active:
                i, j = int(idx[a]), int(idx[k])
                pairs.append((i, j) if i < j else (j, i))
            active.append(int(k))
        return pairs

    @staticmethod
    def _narrow_phase(i, j, kinds, surfaces, R_GS, p_GS, contacts: list) -> None:
        from engine.contact.contact import PointContact

        pair = (kinds[i], kinds[j])
        if pair == ("Sphere", "HalfSpace"):
            i, j = j, i
            pair = ("HalfSpace", "Sphere")
        if pair == ("HalfSpace", "Sphere"):
            n = -R_GS[i][:, 0]
            r = surfaces[j].geometry.getRadius()
            c = p_GS[j]
            d = float(np.dot(c - p_GS[i], n))
            depth = r - d
            if depth > 0.0:
                location = c - (d + 0.5 * depth) * n
                contacts.append(PointContact(i, j, location, n, r, depth))
        elif pair == ("Sphere", "Sphere"):
            r1 = surfaces[i].geometry.getRadius()
            r2 = surfaces[j].geometry.getRadius()
            delta = p_GS[j] - p_GS[i]
            dist = float(np.sqrt(np.dot(delta, delta)))
            depth = r1 + r2 - dist
            if depth > 0.0 and dist > 0.0:
                n = delta / dist
                location = p_GS[i] + (r1 - 0.5 * depth) * n
                contacts.append(PointContact(i, j, location, n, r1 * r2 / (r1 + r2), depth))
        elif "TriangleMesh" in pair:
            from engine.contact.mesh_trackers import track_pair

            contact = track_pair(i, j, surfaces[i].geometry, surfaces[j].geometry, R_GS, p_GS)
            if contact is not None:
                contacts.append(contact)
