"""SimbodyMatterSubsystem: the tree of mobilized bodies and its O(n) operators.

Bodies are numbered in the order they are added (Ground is 0; a parent always
has a lower index than its children). ``realizeTopology`` packs the tree into
flat arrays (``MatterTopology``); each stage's results live in one cache entry
per stage (``PositionCache``, ``VelocityCache``, ``AccelerationCache``), filled
by the numba kernels in ``engine.multibody.kernels``. Quantities are in SI
units; spatial vectors are [angular, linear] about body origins, in Ground.
"""

from __future__ import annotations

import itertools
import operator
from dataclasses import dataclass, field

import numpy as np

from engine.common.exceptions import IndexOutOfRangeError, InvalidArgumentError, StageTooLowError
from engine.common.index_arg import index_value
from engine.common.stage import Stage
from engine.common.state import State
from engine.common.subsystem import Subsystem
from engine.math.mass_properties import MassProperties
from engine.multibody import custom_mobilized_body as _custom  # noqa: F401  (MobilizedBody.Custom)
from engine.multibody import function_based_mobilized_body as _function_based  # noqa: F401
from engine.multibody.default_geometry import append_matter_geometry
from engine.multibody.kernels import layout
from engine.multibody.kernels.n_operators import N_OP, NDOT_OP, NINV_OP, apply_n_operator
from engine.multibody.matter.arguments import body_forces, vector
from engine.multibody.matter.constraints import MatterConstraintsMixin
from engine.multibody.matter.custom_support import MatterCustomSupportMixin
from engine.multibody.matter.dynamics_operators import DynamicsOperatorsMixin
from engine.multibody.matter.lazy_realization import LazyRealizationMixin
from engine.multibody.matter.model_stage import MatterModelStageMixin, custom_default_in_euler_mode
from engine.multibody.matter.momentum import MomentumMixin
from engine.multibody.matter.prescribed_motion import MatterPrescribedMotionMixin
from engine.multibody.matter.projection import MatterProjectionMixin
from engine.multibody.matter.reaction_forces import ReactionForcesMixin
from engine.multibody.matter.stage_realization import StageRealizationMixin
from engine.multibody.matter.task_jacobians import TaskJacobianMixin
from engine.multibody.matter.unilateral import MatterUnilateralMixin
from engine.multibody.mobilized_body import MobilizedBody
from engine.multibody.mobilizers.custom import TYPE_ID as _CUSTOM_TYPE_ID
from engine.multibody.mobilizers.dispatch import REVERSED_OFFSET

_MATTER = operator.attrgetter("_matter")
_DICT = operator.attrgetter("__dict__")
_FIRST, _SECOND, _THIRD = (operator.itemgetter(k) for k in range(3))
_MOTION = operator.attrgetter("_motion")
_INDEX = operator.attrgetter("_index")
_PARENT_INDEX = operator.attrgetter("_parent_index")
_CONTACT_SURFACES = operator.attrgetter("_body._contact_surfaces")
_MASS_PROPERTIES = operator.attrgetter("_body._mass_properties")


def _MASS_PROPERTIES_OR_NONE(m):  # noqa: N802  (a getter, as those above)
    return None if m is None else m._body._mass_properties


@dataclass
class MatterTopology:
    """The tree packed into flat per-body arrays (index = MobilizedBodyIndex); the arrays
    are the kernel layout's ``TOPOLOGY`` home (``engine.multibody.kernels.layout``)."""

    mtype: np.ndarray
    parent: np.ndarray
    qs: np.ndarray
    nqs: np.ndarray
    us: np.ndarray
    nus: np.ndarray
    params: np.ndarray
    R_PF: np.ndarray
    p_PF: np.ndarray
    R_BM: np.ndarray
    p_BM: np.ndarray
    mass: np.ndarray
    com_B: np.ndarray
    I_B: np.ndarray
    uses_quaternion: np.ndarray
    quaternion_pool_order: list[int]

    @property
    def nb(self) -> int:
        return self.parent.shape[0]

    @property
    def nq(self) -> int:
        return int(self.nqs.sum())

    @property
    def nu(self) -> int:
        return int(self.nus.sum())


@dataclass
class PositionCache:
    """Position-stage results per body (X_FM, X_GB, H in G, spatial inertias in G)."""

    R_FM: np.ndarray
    p_FM: np.ndarray
    H_FM: np.ndarray
    R_GF: np.ndarray
    p_MB_G: np.ndarray
    R_GB: np.ndarray
    p_GB: np.ndarray
    H_G: np.ndarray
    Phi_G: np.ndarray
    com_G: np.ndarray

    @staticmethod
    def empty(nb: int) -> PositionCache:
        return PositionCache(**layout.allocate(layout.POSITION, {"nb": nb}))


@dataclass
class VelocityCache:
    """Velocity-stage results: body and mobilizer velocities, velocity-dependent terms."""

    V_GB: np.ndarray
    V_FM: np.ndarray
    coriolis: np.ndarray
    total_coriolis: np.ndarray
    gyroscopic: np.ndarray
    kinetic_energy: float = 0.0

    @staticmethod
    def empty(nb: int) -> VelocityCache:
        return VelocityCache(**layout.allocate(layout.VELOCITY, {"nb": nb}))


@dataclass
class AccelerationCache:
    """Acceleration-stage results: body accelerations and articulated-body data."""

    A_GB: np.ndarray
    P_abi: np.ndarray
    D_inv: np.ndarray
    U_cols: np.ndarray

    @staticmethod
    def empty(nb: int) -> AccelerationCache:
        return AccelerationCache(**layout.allocate(layout.ACCELERATION, {"nb": nb}))


@dataclass
class _Indices:
    use_euler: int = -1
    position: int = -1
    velocity: int = -1
    acceleration: int = -1
    composite: int = -1
    articulated: int = -1
    extra: dict = field(default_factory=dict)


class SimbodyMatterSubsystem(
    MatterConstraintsMixin,
    MatterUnilateralMixin,
    MatterPrescribedMotionMixin,
    MatterProjectionMixin,
    StageRealizationMixin,
    MatterModelStageMixin,
    MatterCustomSupportMixin,
    TaskJacobianMixin,
    MomentumMixin,
    ReactionForcesMixin,
    DynamicsOperatorsMixin,
    LazyRealizationMixin,
    Subsystem,
):
    """The multibody tree: bodies, mobilizers and the operators on them."""

    def __init__(self, system=None) -> None:
        super().__init__("SimbodyMatterSubsystem", "3.7")
        self._mobods: list[MobilizedBody] = [MobilizedBody._ground(self)]
        self._topology: MatterTopology | None = None
        #: the last topology built and the bodies whose own row of it changed since (their
        #: frames, mass properties or default q): realizeTopology rebuilds only those rows
        #: when nothing else changed (None: rebuild every row)
        self._built_topology: MatterTopology | None = None
        self._changed_rows: set[int] | None = None
        #: bodies copied from another matter subsystem's realized body
        #: (``MobilizedBody.cloneForNewParent``): index -> (that matter's topology, the body's
        #: row in it, the copied Body's mass properties), dropped when the body changes
        self._row_sources: dict[int, tuple[MatterTopology, int, MassProperties]] = {}
        #: runs of bodies moved here from another matter's realized topology
        #: (``takeMobilizedBodies``): (first index here, that topology, the bodies' rows in
        #: it, their Bodies' mass properties then), and the bodies of those runs changed
        #: since (their rows made anew)
        self._taken_rows: list[tuple[int, MatterTopology, np.ndarray, list]] = []
        self._untaken: set[int] = set()
        self._ix = _Indices()
        self._show_default_geometry = True
        if system is not None:
            system.setMatterSubsystem(self)

    # ----------------------------------------------------------- construction
    def Ground(self) -> MobilizedBody:
        """The Ground mobilized body (index 0)."""
        return self._mobods[0]

    updGround = Ground

    def adoptMobilizedBody(self, parent, child: MobilizedBody | None = None) -> int:
        """Simbody's ``adoptMobilizedBody(parent, child)``: attach ``child`` to ``parent`` (a
        MobilizedBodyIndex or MobilizedBody) and return the child's MobilizedBodyIndex. The
        MobilizedBody constructors adopt the body they make (``adoptMobilizedBody(child)``),
        so a constructed handle is already owned: adopting it again under its own parent
        returns its index, and anything else is refused, as Simbody refuses a handle that
        does not own its implementation."""
        if child is None:  # a constructor adopting the handle it makes
            self._mobods.append(parent)
            self.invalidateSubsystemTopologyCache()
            return len(self._mobods) - 1
        from engine.multibody.matter.arguments import body_index

        p = body_index(self, parent, "adoptMobilizedBody")
        if not isinstance(child, MobilizedBody):
            raise InvalidArgumentError(
                f"adoptMobilizedBody: the child must be a MobilizedBody, got {type(child).__name__}"
            )
        owned = child.getMatterSubsystem() is self and 0 < child.getMobilizedBodyIndex()
        if owned and child.getParentMobilizedBody().getMobilizedBodyIndex() == p:
            return child.getMobilizedBodyIndex()
        raise InvalidArgumentError(
            "adoptMobilizedBody: this MobilizedBody already belongs to "
            + (
                f"this matter subsystem as body {child.getMobilizedBodyIndex()} with parent "
                f"{child.getParentMobilizedBody().getMobilizedBodyIndex()}, not {p}"
                if owned
                else "another matter subsystem"
            )
        )

    def _adopt_clone(self, clone: MobilizedBody, source: MobilizedBody) -> int:
        """Adopt ``clone``, a copy of ``source`` (``MobilizedBody.cloneForNewParent``);
        its topology row is then ``source``'s row of its matter's topology, if realized."""
        self._mobods.append(clone)
        index = len(self._mobods) - 1
        origin = source._matter
        topology = origin._topology
        if topology is not None and topology.nb == len(origin._mobods):
            row = source._index
            self._row_sources[index] = (topology, row, clone._body._mass_properties)
        if self._topology is not None or self._changed_rows is not None:
            self.invalidateSubsystemTopologyCache()
        elif self.subsystemTopologyHasBeenRealized():  # (else nothing is valid to forget)
            Subsystem.invalidateSubsystemTopologyCache(self)
        return index

    def takeMobilizedBodies(self, bodies: list[MobilizedBody], parents: list[int]) -> None:
        """Move ``bodies`` (MobilizedBodies of one other matter subsystem, which gives them
        up) here, appended in order, body k under the body of index ``parents[k]`` here (an
        earlier one). Not Simbody's: a System rebuilt from the one it replaces takes that
        one's unchanged bodies instead of copying them (``cloneForNewParent``); the source
        subsystem still lists them but no longer owns them (``giveBackMobilizedBodies``
        undoes the move). Each body keeps its values and Body; its topology row is its row
        of the source's topology arrays, if realized. A body with a Motion, a custom
        mobilizer or contact surfaces is refused (nothing is moved)."""
        if len(bodies) != len(parents):
            raise InvalidArgumentError(
                f"takeMobilizedBodies: {len(bodies)} bodies and {len(parents)} parents"
            )
        if not bodies:
            return
        origin = bodies[0]._matter
        start = len(self._mobods)
        given = np.asarray(parents, dtype=np.intp)
        if (
            origin is self
            or not all(map(operator.is_, map(_MATTER, bodies), itertools.repeat(origin)))
            or bool(np.any(given < 0))
            or bool(np.any(given >= np.arange(start, start + len(bodies))))
        ):
            raise InvalidArgumentError(
                "takeMobilizedBodies: the bodies must belong to one other matter subsystem and "
                "each parent must be a body added before it"
            )
        if (
            not all(map(operator.is_, map(_MOTION, bodies), itertools.repeat(None)))
            or any(map(_CONTACT_SURFACES, bodies))
            or any(map(operator.contains, map(_DICT, bodies), itertools.repeat("_impl")))
            or not all(map(_INDEX, bodies))
        ):
            raise InvalidArgumentError(
                "takeMobilizedBodies: a body with a Motion, a custom mobilizer or contact "
                "surfaces, or Ground, belongs to its own System"
            )
        topology = origin._topology
        if topology is not None and topology.nb == len(origin._mobods):
            rows = np.fromiter(map(_INDEX, bodies), dtype=np.intp, count=len(bodies))
            self._taken_rows.append((start, topology, rows, list(map(_MASS_PROPERTIES, bodies))))
        for index, (m, p) in enumerate(zip(bodies, parents, strict=True), start):
            m._matter = self
            m._index = index
            m._parent_index = p
        self._mobods.extend(bodies)
        if self._topology is not None or self._changed_rows is not None:
            self.invalidateSubsystemTopologyCache()
        elif self.subsystemTopologyHasBeenRealized():
            Subsystem.invalidateSubsystemTopologyCache(self)

    def giveBackMobilizedBodies(self, parents: list[int]) -> None:
        """Own again every body this subsystem lists (some were moved to another one by its
        ``takeMobilizedBodies``), body i under the body of index ``parents[i]`` (what
        ``parentIndices`` gave before the move)."""
        mobods = self._mobods
        for index in range(1, len(mobods)):
            m = mobods[index]
            m._matter = self
            m._index = index
            m._parent_index = parents[index]

    def parentIndices(self) -> list[int]:
        """Each body's parent's index (-1 for Ground), by MobilizedBodyIndex."""
        return [-1, *map(_PARENT_INDEX, self._mobods[1:])]

    def getNumBodies(self) -> int:
        """Number of mobilized bodies including Ground."""
        return len(self._mobods)

    def getMobilizedBody(self, index: int) -> MobilizedBody:
        i = index_value(index, "the mobilized body index")
        if not 0 <= i < len(self._mobods):
            raise IndexOutOfRangeError(
                f"there is no mobilized body {i}; this matter subsystem has "
                f"{len(self._mobods)} bodies (0 = Ground)"
            )
        return self._mobods[i]

    updMobilizedBody = getMobilizedBody

    def setShowDefaultGeometry(self, show: bool) -> None:
        self._show_default_geometry = bool(show)

    def getShowDefaultGeometry(self) -> bool:
        return self._show_default_geometry

    def calcDecorativeGeometryAndAppendImpl(self, state: State, stage: Stage, geometry) -> None:
        """Body decorations and, if shown, the default sketch (all at Topology stage)."""
        append_matter_geometry(self, state, stage, geometry)
        self._append_constraint_geometry(state, stage, geometry)

    def invalidateSubsystemTopologyCache(self) -> None:
        self._topology = None
        self._changed_rows = None
        super().invalidateSubsystemTopologyCache()

    def _invalidate_body_row(self, index: int) -> None:
        """A topology change confined to body ``index``'s own values (its frames, mass
        properties or default q): the System must be realizeTopology()'d again, which
        rebuilds only the changed bodies' rows if nothing else changed meanwhile."""
        rows = self._changed_rows if self._topology is None else set()
        self._row_sources.pop(int(index), None)
        self._untaken.add(int(index))
        self._topology = None
        if rows is not None:
            rows.add(int(index))
        self._changed_rows = rows
        Subsystem.invalidateSubsystemTopologyCache(self)

    # --------------------------------------------------------------- topology
    def _build_topology(self) -> MatterTopology:
        last, rows = self._built_topology, self._changed_rows
        self._changed_rows = None
        if self._topology is not None and self._topology is last:
            rows = set()  # only another subsystem changed: the bodies' rows are as they were
        if last is not None and rows is not None and last.nb == len(self._mobods):
            topology = self._topology_with_rows(last, sorted(rows))
        else:
            topology = self._topology_of_all()
        self._built_topology = topology
        self._row_sources = {}  # (every row is in ``topology`` now)
        self._taken_rows, self._untaken = [], set()
        return topology

    def _topology_with_rows(self, last: MatterTopology, rows: list[int]) -> MatterTopology:
        """A copy of ``last`` with the rows of bodies ``rows`` made again (their frames and
        mass properties; the tree and the mobilizer types are ``last``'s)."""
        fields = {
            name: np.array(getattr(last, name))
            for name in (
                "mtype", "parent", "qs", "nqs", "us", "nus", "params", "R_PF", "p_PF",
                "R_BM", "p_BM", "mass", "com_B", "I_B", "uses_quaternion",
            )
        }  # fmt: skip
        for b in rows:
            m = self._mobods[b]
            fields["params"][b] = m._params
            fields["R_PF"][b] = m._X_PF.R().asMat33()
            fields["p_PF"][b] = m._X_PF.p()
            fields["R_BM"][b] = m._X_BM.R().asMat33()
            fields["p_BM"][b] = m._X_BM.p()
            mp = m.getBody().getDefaultRigidBodyMassProperties()
            fields["mass"][b] = mp.getMass()
            fields["com_B"][b] = mp.getMassCenter()
            fields["I_B"][b] = mp.getInertia().toMat33()
        return MatterTopology(**fields, quaternion_pool_order=list(last.quaternion_pool_order))

    def _topology_of_all(self) -> MatterTopology:
        nb = len(self._mobods)
        arrays = layout.allocate(layout.TOPOLOGY, {"nb": nb})
        uses_quat = np.zeros(nb, dtype=bool)
        arrays["parent"][0] = -1
        arrays["parent"][1:] = [m._parent_index for m in self._mobods[1:]]
        made = self._copy_source_rows(arrays, uses_quat)
        mobods = [self._mobods[b] for b in made]
        if mobods:  # one whole-array assignment per field (the bodies in ``made``)
            modules = [m._module for m in mobods]
            # (a reversed Custom body keeps its type: its Python kinematics do the reversal)
            arrays["mtype"][made] = [
                mod.TYPE_ID
                + (REVERSED_OFFSET if m._reversed and mod.TYPE_ID != _CUSTOM_TYPE_ID else 0)
                for m, mod in zip(mobods, modules, strict=True)
            ]
            arrays["nqs"][made] = [mod.NQ_SLOTS for mod in modules]
            arrays["nus"][made] = [mod.NU for mod in modules]
            uses_quat[made] = [mod.USES_QUATERNION for mod in modules]
            arrays["params"][made] = [m._params for m in mobods]
            # (the frames' and inertias' own read-only arrays, read without copies)
            arrays["R_PF"][made] = [m._X_PF._R._m for m in mobods]
            arrays["p_PF"][made] = [m._X_PF._p for m in mobods]
            arrays["R_BM"][made] = [m._X_BM._R._m for m in mobods]
            arrays["p_BM"][made] = [m._X_BM._p for m in mobods]
            props = [m._body.getDefaultRigidBodyMassProperties() for m in mobods]
            arrays["mass"][made] = [mp.getMass() for mp in props]
            arrays["com_B"][made] = [mp.getMassCenter() for mp in props]
            arrays["I_B"][made] = [mp.getInertia()._m for mp in props]
        arrays["qs"][1:] = np.cumsum(arrays["nqs"])[:-1]
        arrays["us"][1:] = np.cumsum(arrays["nus"])[:-1]
        return MatterTopology(
            **arrays,
            uses_quaternion=uses_quat,
            quaternion_pool_order=self._pool_order(arrays["parent"], uses_quat),
        )

    _SOURCE_ROW_FIELDS = (
        "mtype", "nqs", "nus", "params", "R_PF", "p_PF", "R_BM", "p_BM", "mass", "com_B", "I_B",
    )  # fmt: skip

    def _copy_source_rows(self, arrays: dict, uses_quat: np.ndarray) -> np.ndarray:
        """Fill the topology rows of the bodies copied from another matter's realized body
        (``_row_sources``) from that matter's topology, one gather per field and source;
        returns the other bodies' indices (1..nb-1), whose rows are to be made."""
        nb = len(self._mobods)
        todo = np.ones(nb, dtype=bool)
        todo[0] = False
        sources = self._row_sources
        if sources:
            mobods = self._mobods
            bodies = list(sources)
            entries = list(sources.values())
            # (a Body whose mass properties were set since it was copied is made anew)
            # (whole-sequence maps: a gather of 20,000 rows checks no body in Python)
            if max(bodies) < nb:
                present = map(_MASS_PROPERTIES, map(mobods.__getitem__, bodies))
            else:
                present = map(
                    _MASS_PROPERTIES_OR_NONE, [mobods[b] if b < nb else None for b in bodies]
                )
            kept = list(map(operator.is_, present, map(_THIRD, entries)))
            groups: dict[int, tuple[MatterTopology, list, list]] = {}
            if len(set(map(id, map(_FIRST, entries)))) == 1:  # one source (the usual case)
                groups[0] = (
                    entries[0][0],
                    list(itertools.compress(bodies, kept)),
                    list(map(_SECOND, itertools.compress(entries, kept))),
                )
            else:
                for b, (topology, row, _), keep in zip(bodies, entries, kept, strict=True):
                    if keep:
                        group = groups.setdefault(id(topology), (topology, [], []))
                        group[1].append(b)
                        group[2].append(row)
            for topology, to, rows in groups.values():
                to_b = np.asarray(to, dtype=np.intp)
                from_b = np.asarray(rows, dtype=np.intp)
                for name in self._SOURCE_ROW_FIELDS:
                    arrays[name][to_b] = getattr(topology, name)[from_b]
                uses_quat[to_b] = topology.uses_quaternion[from_b]
                todo[to_b] = False
        mobods = self._mobods
        for start, topology, rows, props in self._taken_rows:
            stop = start + len(rows)
            # (a Body whose mass properties were set since it was taken is made anew, as is
            # a body whose own values changed through its handle)
            kept = np.fromiter(
                map(operator.is_, map(_MASS_PROPERTIES, mobods[start:stop]), props),
                dtype=bool,
                count=len(rows),
            )
            for b in self._untaken:
                if start <= b < stop:
                    kept[b - start] = False
            to_b = np.arange(start, stop)[kept]
            from_b = rows[kept]
            for name in self._SOURCE_ROW_FIELDS:
                arrays[name][to_b] = getattr(topology, name)[from_b]
            uses_quat[to_b] = topology.uses_quaternion[from_b]
            todo[to_b] = False
        return np.flatnonzero(todo)

    @staticmethod
    def _pool_order(parent: np.ndarray, uses_quat: np.ndarray) -> list[int]:
        """Quaternion bodies in tree-level order (Ground's children first, ...)."""
        level = [0] * parent.shape[0]
        for b, p in enumerate(parent[1:].tolist(), start=1):
            level[b] = level[p] + 1
        bodies = np.flatnonzero(uses_quat[1:]) + 1
        order = np.lexsort((bodies, np.asarray(level, dtype=np.int64)[bodies]))
        return bodies[order].tolist()

    def _topo(self, state: State | None = None) -> MatterTopology:
        if self._topology is None:
            raise StageTooLowError(
                "the matter subsystem's topology has changed; call system.realizeTopology()",
                needed=Stage.Topology,
                current=Stage.Empty,
            )
        return self._topology

    def realizeSubsystemTopologyImpl(self, state: State) -> None:
        self._topology = self._build_topology()
        self._ix = _Indices()
        self._ix.use_euler = self.allocateDiscreteVariable(
            state, Stage.Model, False, name="useEulerAngles"
        )
        self._constraints_realize_topology(state)
        self._prescribed_realize_topology(state)
        self._unilateral_realize_topology(state)

    def realizeSubsystemModelImpl(self, state: State) -> None:
        topo = self._topo()
        euler = bool(self.getDiscreteVariable(state, self._ix.use_euler))
        self.allocateQ(state, self._initial_q(topo, euler))
        self.allocateU(state, np.zeros(topo.nu))
        # qErr (constraints, then quaternions) is allocated at Instance stage.
        nb = topo.nb
        ix = self._ix
        ix.position = self.allocateCacheEntry(
            state, Stage.Position, PositionCache.empty(nb), name="position kinematics"
        )
        ix.velocity = self.allocateCacheEntry(
            state, Stage.Velocity, VelocityCache.empty(nb), name="velocity kinematics"
        )
        ix.acceleration = self.allocateCacheEntry(
            state, Stage.Acceleration, AccelerationCache.empty(nb), name="accelerations"
        )
        ix.composite = self.allocateLazyCacheEntry(
            state, Stage.Position, np.zeros((nb, 6, 6)), name="composite body inertias"
        )
        self._allocate_lazy_operator_entries(state)

    def _initial_q(self, topo: MatterTopology, euler: bool) -> np.ndarray:
        """Every body's default q (its own, else its mobilizer type's, with a quaternion's
        slots as x-y-z angles in Euler-angle mode), in q order. A type's default is made
        once and shared by the bodies without their own (each Custom body has its own
        type)."""
        typed: dict[int, np.ndarray] = {}

        def type_default(b: int, t: int) -> np.ndarray:
            mobod = self._mobods[b]
            default = mobod._module.DEFAULT_Q.copy()
            if euler and topo.uses_quaternion[b] and mobod._module.NAME == "Custom":
                return custom_default_in_euler_mode(default)
            if euler and topo.uses_quaternion[b]:
                default[0:4] = 0.0
            if t != _CUSTOM_TYPE_ID:
                typed[t] = default
            return default

        pieces = [
            d if d is not None else typed[t] if t in typed else type_default(b, t)
            for b, d, t in zip(
                range(1, len(self._mobods)),
                [m._default_q for m in self._mobods[1:]],
                np.asarray(topo.mtype)[1:].tolist(),
                strict=True,
            )
        ]
        return np.concatenate(pieces) if pieces else np.zeros(0)

    # ------------------------------------------------------------ Model stage
    def setUseEulerAngles(self, state: State, useEuler: bool) -> None:
        """Choose x-y-z angles (True) or quaternions for ball-like mobilizers (a Model-stage
        change: the State goes back to Topology stage)."""
        self.setDiscreteVariable(state, self._ix.use_euler, bool(useEuler))

    def getUseEulerAngles(self, state: State) -> bool:
        return bool(self.getDiscreteVariable(state, self._ix.use_euler))

    def isUsingQuaternion(self, state: State, mobod: MobilizedBody | int) -> bool:
        """Whether the body (a MobilizedBody or its MobilizedBodyIndex) uses a quaternion."""
        from engine.multibody.matter.arguments import body_index

        self._require(state, Stage.Model, "isUsingQuaternion")
        b = body_index(self, mobod, "isUsingQuaternion: mobod")
        return bool(self._topo().uses_quaternion[b]) and not self.getUseEulerAngles(state)

    def getNumQuaternionsInUse(self, state: State) -> int:
        self._require(state, Stage.Model, "getNumQuaternionsInUse")
        return 0 if self.getUseEulerAngles(state) else len(self._topo().quaternion_pool_order)

    def getQuaternionPoolIndex(self, state: State, mobod: MobilizedBody | int) -> int:
        """Position of this body's (a MobilizedBody or its MobilizedBodyIndex) quaternion in
        the pool (-1 if it has none in use)."""
        from engine.multibody.matter.arguments import body_index

        b = body_index(self, mobod, "getQuaternionPoolIndex: mobod")
        if not self.isUsingQuaternion(state, b):
            return -1
        return self._topo().quaternion_pool_order.index(b)

    def _num_q_in_use(self, state: State, b: int) -> int:
        topo = self._topo()
        n = int(topo.nqs[b])
        if topo.uses_quaternion[b] and self.getUseEulerAngles(state):
            n -= 1
        return n

    # --------------------------------------------------------------- checking
    def _require(self, state: State, stage: Stage, what: str) -> None:
        current = state.getSubsystemStage(self.getMySubsystemIndex())
        if current < stage:
            raise StageTooLowError(
                f"{what} needs the State realized to {stage.getName()} stage, but the matter "
                f"subsystem is only at {current.getName()}; call system.realize(state, "
                f"Stage.{stage.getName()}) first",
                needed=stage,
                current=current,
            )

    def _position_cache(self, state: State) -> PositionCache:
        """Position-stage cache: Position stage, or (as Simbody) position kinematics realized
        explicitly with realizePositionKinematics."""
        sx = self.getMySubsystemIndex()
        if state.getSubsystemStage(sx) < Stage.Position and not (
            self.isPositionKinematicsRealized(state)
        ):
            self._require(state, Stage.Position, "this position-level quantity")
        return state.updCacheEntry(sx, self._ix.position)

    def _velocity_cache(self, state: State) -> VelocityCache:
        """Velocity-stage cache: Velocity stage, or (as Simbody) velocity kinematics realized
        explicitly with realizeVelocityKinematics."""
        sx = self.getMySubsystemIndex()
        if state.getSubsystemStage(sx) < Stage.Velocity and not (
            self.isVelocityKinematicsRealized(state)
        ):
            self._require(state, Stage.Velocity, "this velocity-level quantity")
        return state.updCacheEntry(sx, self._ix.velocity)

    def _acceleration_cache(self, state: State) -> AccelerationCache:
        self._require(state, Stage.Acceleration, "this acceleration-level quantity")
        return state.updCacheEntry(self.getMySubsystemIndex(), self._ix.acceleration)

    def _vector(self, values, n: int, what: str) -> np.ndarray:
        """A Vector argument of length n, finite (``arguments.vector``)."""
        return vector(values, n, what)

    def _body_forces(self, F, what: str) -> np.ndarray:
        """Finite body forces (nb, 2, 3) or (nb, 6) as an (nb, 6) array
        (``arguments.body_forces``)."""
        nb = self.getNumBodies()
        return np.ascontiguousarray(body_forces(F, nb, what)).reshape(nb, 6)

    # ------------------------------------------------------------ realization
    # ------------------------------------------------------- kinematic N operators
    def _apply_n(self, state: State, op: int, transpose: bool, x, out) -> None:
        topo = self._topo()
        pc = state.updCacheEntry(self.getMySubsystemIndex(), self._ix.position)
        qdot = state.updQDot(self.getMySubsystemIndex()) if op == NDOT_OP else np.zeros(topo.nq)
        apply_n_operator(
            op,
            transpose,
            topo.mtype,
            topo.qs,
            topo.nqs,
            topo.us,
            topo.nus,
            topo.params,
            self.getUseEulerAngles(state),
            pc.R_FM,
            self.getQ(state),
            qdot,
            np.ascontiguousarray(x, dtype=np.float64),
            out,
        )
        if self._custom_bodies():
            self._custom_n(state, op, transpose, x, out)

    def _n_times(self, state: State, op: int, transpose: bool, x) -> np.ndarray:
        topo = self._topo()
        q_out = (op != NINV_OP) != transpose
        out = np.zeros(topo.nq if q_out else topo.nu)
        self._apply_n(state, op, transpose, x, out)
        return out

    def multiplyByNImpl(self, state, transpose, inp, out) -> None:
        out[:] = self._n_times(state, N_OP, transpose, inp)

    def multiplyByNPInvImpl(self, state, transpose, inp, out) -> None:
        out[:] = self._n_times(state, NINV_OP, transpose, inp)

    def multiplyByN(self, state: State, transpose: bool, x) -> np.ndarray:
        """N x (u-like in, q-like out) or N^T x (Position stage)."""
        self._require_position_kinematics(state, "multiplyByN")
        topo = self._topo()
        x = self._vector(x, topo.nq if transpose else topo.nu, "multiplyByN: x")
        return self._n_times(state, N_OP, transpose, x)

    def multiplyByNInv(self, state: State, transpose: bool, x) -> np.ndarray:
        """NInv x (q-like in, u-like out) or its transpose (Position stage)."""
        self._require_position_kinematics(state, "multiplyByNInv")
        topo = self._topo()
        x = self._vector(x, topo.nu if transpose else topo.nq, "multiplyByNInv: x")
        return self._n_times(state, NINV_OP, transpose, x)

    def multiplyByNDot(self, state: State, transpose: bool, x) -> np.ndarray:
        """NDot x or NDot^T x (Velocity stage)."""
        self._require(state, Stage.Velocity, "multiplyByNDot")
        topo = self._topo()
        x = self._vector(x, topo.nq if transpose else topo.nu, "multiplyByNDot: x")
        return self._n_times(state, NDOT_OP, transpose, x)

    def calcQDot(self, state: State, u) -> np.ndarray:
        """qdot = N u (Position stage)."""
        self._vector(u, self._topo().nu, "calcQDot: u")
        return self.multiplyByN(state, False, u)

    def calcQDotDot(self, state: State, udot) -> np.ndarray:
        """qdotdot = N udot + NDot u (Velocity stage)."""
        self._require(state, Stage.Velocity, "calcQDotDot")
        udot = self._vector(udot, self._topo().nu, "calcQDotDot: udot")
        return self._n_times(state, N_OP, False, udot) + self._n_times(
            state, NDOT_OP, False, self.getU(state)
        )

    # --------------------------------------------------------- mass matrix
    def _composite(self, state: State) -> np.ndarray:
        """Composite body inertias (nb, 6, 6), from the lazy entry that a change of q makes
        stale (so position kinematics suffice, as in Simbody)."""
        return self._cbi_matrices(state, "calcM")

    def calcMInv(self, state: State) -> np.ndarray:
        """M^-1, column by column with the O(n) operator (Position stage)."""
        n = self._topo().nu
        return (
            np.column_stack([self.multiplyByMInv(state, e) for e in np.eye(n)])
            if n
            else (np.zeros((0, 0)))
        )

    # --------------------------------------------------------- inverse dynamics
    # --------------------------------------------------------------- Jacobians
    # (calcM, calcSystemJacobian and the Jacobian products: StageRealizationMixin)

    # ------------------------------------------------------ energies/momenta
    def calcKineticEnergy(self, state: State) -> float:
        """0.5 u^T M u (Velocity stage), J."""
        return float(self._velocity_cache(state).kinetic_energy)

    def calcSystemMass(self, state: State) -> float:
        """Total mass of the bodies (kg); needs Instance stage, as Simbody."""
        self._require(state, Stage.Instance, "calcSystemMass")
        return float(self._topo().mass[1:].sum())

    def calcSystemMassCenterLocationInGround(self, state: State) -> np.ndarray:
        pc = self._position_cache(state)
        m = self._topo().mass
        total = m[1:].sum()
        if total == 0:
            raise InvalidArgumentError("the system has no mass, so no mass center")
        return (m[1:, None] * (pc.p_GB[1:] + pc.com_G[1:])).sum(axis=0) / total

    def calcSystemMassPropertiesInGround(self, state: State) -> MassProperties:
        """Total mass, mass center and inertia about the Ground origin, in G."""
        from engine.math.inertia import Inertia

        R = self._composite(state)[0] if self.getNumBodies() > 1 else np.zeros((6, 6))
        m = R[3, 3]
        mc = np.array([R[2, 4], R[0, 5], R[1, 3]])
        return MassProperties(m, mc / m if m > 0 else np.zeros(3), Inertia(R[0:3, 0:3]))

    # ------------------------------------------------------- accessors for state
    def getQ(self, state: State) -> np.ndarray:
        return state.getQ(self.getMySubsystemIndex())

    def getU(self, state: State) -> np.ndarray:
        return state.getU(self.getMySubsystemIndex())

    def updQ(self, state: State) -> np.ndarray:
        return state.updQ(self.getMySubsystemIndex())

    def updU(self, state: State) -> np.ndarray:
        return state.updU(self.getMySubsystemIndex())

    def getQDot(self, state: State) -> np.ndarray:
        return state.getQDot(self.getMySubsystemIndex())

    def getUDot(self, state: State) -> np.ndarray:
        return state.getUDot(self.getMySubsystemIndex())

    def getQDotDot(self, state: State) -> np.ndarray:
        return state.getQDotDot(self.getMySubsystemIndex())

    def getNumMobilities(self) -> int:
        return self._topo().nu

    def getTotalQAlloc(self) -> int:
        return self._topo().nq
