# ruff: noqa: N803, N806  (Simbody monogram names: X_PF, X_BM, R, W)
"""Build the engine System a ModelDocument describes.

``build(document_or_data) -> BuiltModel`` creates MultibodySystem, SimbodyMatterSubsystem and
GeneralForceSubsystem, adds the bodies parents-first, then the constraints and forces, the
contact surfaces and (when there are any) the contact subsystems (``contact_builder``), applies
the hints, realizes Topology and Model and sets the initial q/u. Engine errors while building
become ``BuildError`` naming the body or element.
"""

from __future__ import annotations

import itertools
import math
import operator
from dataclasses import dataclass, field

import numpy as np

from app.document.registry import (
    CONSTRAINT_TYPES,
    FORCE_TYPES,
    GEOMETRY_KINDS,
    MOBILIZER_TYPES,
    constraint_class,
)
from app.document.specs import GROUND, FrameSpec, GeometrySpec, Hints, ModelData


class BuildError(RuntimeError):
    """The engine refused part of a (valid) document; ``target`` names the part."""

    def __init__(self, target: str, message: str) -> None:
        self.target = target
        super().__init__(f"{target}: {message}")


@dataclass
class BuiltModel:
    """The engine objects of a built document. ``state`` is realized to Model stage with the
    document's initial q/u set; ``mobilized_bodies`` maps body names (and "Ground") to
    MobilizedBody handles; ``body_name_of_index[i]`` names MobilizedBodyIndex i."""

    system: object
    matter: object
    forces: object
    state: object
    mobilized_bodies: dict = field(default_factory=dict)
    body_name_of_index: list = field(default_factory=list)
    constraints: list = field(default_factory=list)  # engine constraint handles, document order
    force_elements: list = field(default_factory=list)  # engine force handles, document order
    data: ModelData | None = None
    measures: dict = field(default_factory=dict)  # engine Measures by name, document order
    #: ContactTrackerSubsystem and CompliantContactSubsystem (None without contact surfaces)
    contact_tracker: object = None
    contact_forces: object = None
    #: (body name, ordinal on that body) of each contact surface, in document order
    contact_surfaces: list = field(default_factory=list)
    #: the directory relative mesh file names were found from
    base_dir: object = None

    def index_of(self, name: str) -> int:
        return self.mobilized_bodies[name].getMobilizedBodyIndex()


# -- conversions ----------------------------------------------------------------------------------
def transform(frame: FrameSpec | dict):
    from engine.math.rotation import Rotation
    from engine.math.transform import Transform

    if isinstance(frame, dict):
        frame = FrameSpec.from_dict(frame)
    R = Rotation().setRotationToBodyFixedXYZ(np.asarray(frame.rpy, dtype=np.float64))
    return Transform(R, np.asarray(frame.p, dtype=np.float64))


def rotation(value: dict):
    from engine.math.rotation import Rotation

    return Rotation().setRotationToBodyFixedXYZ(
        np.asarray(value.get("rpy", (0, 0, 0)), dtype=float)
    )


def up_direction(up: str):
    from engine.math.coordinate_axis import CoordinateDirection

    axis = "XYZ".index(up[1])
    return CoordinateDirection(axis, -1 if up[0] == "-" else 1)


def make_geometry(g: GeometrySpec, base_dir=None):
    """The engine DecorativeGeometry of a GeometrySpec (placed at g.X, in its body frame).
    A mesh file name that is relative starts at ``base_dir`` (the document's directory)."""
    from engine.common import decorative_geometry as dg

    if g.kind == "mesh":
        from app.document.mesh_cache import mesh_decoration

        geom = mesh_decoration(
            g.params.get("file", ""), g.params.get("scale", (1.0, 1.0, 1.0)), base_dir
        )
    else:
        kind = GEOMETRY_KINDS[g.kind]
        cls = getattr(dg, kind.engine_class)
        args = []
        for a in kind.args:
            v = g.params.get(a.name, a.default)
            args.append(tuple(float(x) for x in v) if isinstance(v, (tuple, list)) else float(v))
        geom = cls(*args)
    geom.setTransform(transform(g.X))
    if g.color is not None:
        geom.setColor(tuple(g.color))
    if g.opacity != 1.0:
        geom.setOpacity(float(g.opacity))
    return geom


class _SharedParts:
    """Engine objects of equal specs made once per build (a large model repeats a few frames,
    mass properties and decorations many times). A MobilizedBody copies the Transforms and
    clones the Body (with its decorations) it is given, so one template serves every body
    whose specs are equal."""

    def __init__(self, base_dir=None) -> None:
        self.base_dir = base_dir
        self._frames: dict = {}
        self._bodies: dict = {}
        #: templates by the identity of a body's geometry tuple (a file's repeated bodies
        #: share their specs) and its mass properties; the specs found by identity are
        #: kept alive in ``_kept`` (their ids are not reused meanwhile)
        self._by_geometry: dict = {}
        self._kept: list = []
        self._default_q: dict = {}
        self._frame_of_id: dict = {}

    def transform(self, frame: FrameSpec):
        """The Transform of ``frame``, shared: only for handing to a MobilizedBody. Found
        by the spec's identity first (a file's repeated bodies share their frame specs)."""
        X = self._frame_of_id.get(id(frame))
        if X is None:
            X = self._frames.get(frame)
            if X is None:
                X = self._frames[frame] = transform(frame)
            self._frame_of_id[id(frame)] = X
            self._kept.append(frame)  # (keeps its id from being reused)
        return X

    def body(self, b):
        """A Body template with ``b``'s mass properties and visual decorations, shared: only
        for handing to a MobilizedBody."""
        try:
            fast = (id(b.geometry), b.mass, b.com, b.inertia)
            template = self._by_geometry.get(fast)
        except TypeError:  # a value that cannot be a key
            fast = template = None
        if template is None:
            template = self._body(b)
            if fast is not None:
                self._by_geometry[fast] = template
                self._kept.append(b.geometry)
        return template

    def default_q(self, b) -> np.ndarray:
        """``b``'s initial q as an array (checked once per distinct q and mobilizer): only
        for handing to ``MobilizedBody.setDefaultQ``, which copies it."""
        try:
            key = (b.mobilizer, b.q)
            q = self._default_q.get(key)
        except TypeError:
            key = q = None
        if q is None:
            _check_quaternion(b)
            q = np.asarray(b.q, dtype=np.float64)
            if key is not None:
                self._default_q[key] = q
        return q

    def _body(self, b):
        from engine import Body

        visual = [g for g in b.geometry if g.role == "visual"]
        try:
            shapes = tuple(
                (g.kind, tuple(sorted(g.params.items())), g.X, g.color, g.opacity) for g in visual
            )
            key = (b.mass, b.com, b.inertia, shapes)
            hash(key)
        except TypeError:  # a parameter that cannot be a key (a list)
            key = None
        if any(g.kind == "mesh" for g in visual):
            key = None  # (mesh_decoration has a cache of its own)
        template = self._bodies.get(key) if key is not None else None
        if template is None:
            template = Body.Rigid(mass_properties(b))
            for g in visual:  # collision geometry is for contact, not drawn
                template.addDecoration(make_geometry(g, self.base_dir))
            if key is not None:
                self._bodies[key] = template
        return template


def mass_properties(b):
    from engine.math.inertia import Inertia
    from engine.math.mass_properties import MassProperties

    i = b.inertia
    return MassProperties(b.mass, b.com, Inertia(i[:3], i[3:]))


def _convert_arg(kind: str, value, mobods: dict):
    if kind == "body":
        return mobods[value]
    if kind in ("vec3", "direction"):
        return np.asarray(value, dtype=np.float64)
    if kind in ("real", "nonneg", "positive"):
        return float(value)
    if kind == "index":
        return int(value)
    if kind == "frame":
        return transform(value)
    if kind == "rotation":
        return rotation(value)
    return value


# -- building -------------------------------------------------------------------------------------
def apply_hints(system, hints: Hints) -> None:
    """Set the System's hints (no rebuild needed)."""
    system.setUpDirection(up_direction(hints.up))
    system.setUseUniformBackground(hints.uniform_background)
    system.setDefaultTimeScale(hints.time_scale)
    system.setDefaultLengthScale(hints.length_scale)
    matter = system.getMatterSubsystem()
    if hasattr(matter, "setShowDefaultGeometry"):
        matter.setShowDefaultGeometry(bool(hints.show_default_geometry))


def build(
    model, pull_force: bool = False, previous: BuiltModel | None = None, take: bool = False
) -> BuiltModel:
    """Build the engine System of a ModelDocument (or ModelData). An overflow or invalid
    floating-point operation while building (values too large to combine) is a BuildError.
    ``pull_force``: the System also gets the studio's mouse spring (``built.pull_force``,
    as ``app.body_puller.ensure_pull_force`` adds it) before its Topology is realized, so
    that Topology is realized once. The initial State is realized through Acceleration (the
    check that the System is not singular).

    ``previous``: a BuiltModel whose System has the values of its ``data`` (the model an
    edit replaces). Each body whose spec is the very object of ``previous.data`` (specs are
    immutable) is then that System's body copied (``MobilizedBody.cloneForNewParent``, with
    its topology row) instead of made from its spec; the System built is the same.

    ``take`` (with ``previous``, which is given up): those bodies are moved from
    ``previous``'s System (``SimbodyMatterSubsystem.takeMobilizedBodies``, a few attribute
    sets per body, where a copy makes two Transforms and a Body), which is then no longer
    usable; a build that fails gives them back, leaving ``previous`` as it was."""
    parents = previous.matter.parentIndices() if take and previous is not None else None
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        try:
            return _build(model, pull_force, previous, parents is not None)
        except ArithmeticError as exc:
            if parents is not None:
                previous.matter.giveBackMobilizedBodies(parents)
            raise BuildError("system", f"a value too large to compute with ({exc})") from exc
        except BaseException:
            if parents is not None:
                previous.matter.giveBackMobilizedBodies(parents)
            raise


def _reusable_bodies(previous: BuiltModel | None, base_dir) -> dict:
    """id(spec) -> (spec, MobilizedBody) of ``previous``'s bodies that a new build may copy:
    those without contact surfaces (added to the Body after it is made), if ``previous`` has
    its document and found its meshes from ``base_dir``."""
    data = getattr(previous, "data", None)
    if data is None or previous.base_dir != base_dir:
        return {}
    mobods = previous.mobilized_bodies
    return {id(b): (b, mobods[b.name]) for b in data.bodies if not b.contact_surfaces}


def _copied_body(mobod, parent):
    """The previous build's body ``mobod`` copied under ``parent``, or None (it cannot be
    copied: a Motion, a custom mobilizer; it is then made from its spec)."""
    from engine.common.exceptions import InvalidArgumentError

    try:
        return mobod.cloneForNewParent(parent)
    except InvalidArgumentError:
        return None


def _made_body(b, parent, shared: _SharedParts):
    """The MobilizedBody of spec ``b`` made under ``parent`` (a BuildError naming it)."""
    from engine import MobilizedBody
    from engine.common.exceptions import SimTKError

    try:
        body = shared.body(b)
        cls = getattr(MobilizedBody, b.mobilizer)
        options = b.mobilizer_params
        mb = cls(
            parent,
            shared.transform(b.X_PF),
            body,
            shared.transform(b.X_BM),
            **(dict(options) if options else {}),
        )
        if b.q is not None:
            mb.setDefaultQ(shared.default_q(b))
    except (SimTKError, ValueError, TypeError, ArithmeticError) as exc:
        raise BuildError(f"body {b.name!r}", str(exc)) from exc
    return mb


_NAME = operator.attrgetter("name")
_PARENT = operator.attrgetter("parent")
_SURFACES = operator.attrgetter("contact_surfaces")


def _take_bodies(order: list, previous: BuiltModel, matter, mobods: dict, shared) -> None:
    """Add the bodies of ``order`` (specs, parents first) to ``matter``: each whose spec is
    the very object of ``previous.data`` (without contact surfaces) is ``previous``'s body,
    moved (``takeMobilizedBodies``, one call per run of such bodies), the others are made
    from their specs. ``mobods`` (name -> MobilizedBody, Ground in it) gets them all."""
    from engine.common.exceptions import InvalidArgumentError

    old_mobods = previous.mobilized_bodies
    known = set(map(id, previous.data.bodies))
    names = list(map(_NAME, order))
    index = dict(zip(names, range(1, len(names) + 1), strict=True))
    index[GROUND] = 0
    parents = list(map(index.__getitem__, map(_PARENT, order)))
    taken = list(
        map(
            operator.and_,
            map(known.__contains__, map(id, order)),
            map(operator.not_, map(_SURFACES, order)),
        )
    )
    at = 0
    for take, run in itertools.groupby(taken):
        end = at + len(list(run))
        if take:
            bodies = list(map(old_mobods.__getitem__, names[at:end]))
            try:
                matter.takeMobilizedBodies(bodies, parents[at:end])
            except InvalidArgumentError:  # (a Motion, a custom mobilizer: made anew)
                for k in range(at, end):
                    b = order[k]
                    mobods[b.name] = _made_body(b, mobods[b.parent], shared)
            else:
                mobods.update(zip(names[at:end], bodies, strict=True))
        else:
            for k in range(at, end):
                b = order[k]
                mobods[b.name] = _made_body(b, mobods[b.parent], shared)
        at = end


def _build(
    model, pull_force: bool = False, previous: BuiltModel | None = None, take: bool = False
) -> BuiltModel:
    from engine import (
        GeneralForceSubsystem,
        MultibodySystem,
        SimbodyMatterSubsystem,
    )
    from engine.common.exceptions import SimTKError

    data: ModelData = model.data if hasattr(model, "data") else model
    base_dir = getattr(model, "base_dir", None)
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    ground = matter.Ground()
    mobods = {GROUND: ground}
    try:
        for g in data.ground_geometry:
            if g.role == "visual":
                ground.addBodyDecoration(make_geometry(g, base_dir))
    except (SimTKError, ValueError, ArithmeticError) as exc:
        raise BuildError(GROUND, str(exc)) from exc

    from app.document.document import _parents_first

    shared = _SharedParts(base_dir)
    data_of_previous = getattr(previous, "data", None)
    ordered = _parents_first(data.bodies)
    if take and data_of_previous is not None and previous.base_dir == base_dir:
        _take_bodies(ordered, previous, matter, mobods, shared)
        reusable, order = {}, ()
    else:
        reusable, order = _reusable_bodies(previous, base_dir), ordered
    for b in order:
        found = reusable.get(id(b)) if reusable else None
        if found is not None and found[0] is b:
            mb = _copied_body(found[1], mobods[b.parent])
            if mb is not None:
                mobods[b.name] = mb
                continue
        mobods[b.name] = _made_body(b, mobods[b.parent], shared)

    built_constraints = []
    for i, e in enumerate(data.constraints):
        spec = CONSTRAINT_TYPES[e.type]
        owner = constraint_class()
        factory = getattr(owner, spec.attr, None) if owner is not None else None
        if spec.factory is not None and factory is not None:
            factory = spec.factory
        if factory is None:
            raise BuildError(
                f"constraint {i} ({e.label()})", f"this engine has no Constraint.{spec.attr} yet"
            )
        args = [_convert_arg(a.kind, e.args[a.name], mobods) for a in spec.constructor_args()]
        try:
            built_constraints.append(factory(*args))
        except (SimTKError, ValueError, TypeError, ArithmeticError) as exc:
            raise BuildError(f"constraint {i} ({e.label()})", str(exc)) from exc

    from engine import Force

    built_forces = []
    for i, e in enumerate(data.forces):
        spec = FORCE_TYPES[e.type]
        factory = getattr(Force, spec.attr, None)
        if factory is None:
            raise BuildError(
                f"force {i} ({e.label()})", f"this engine has no Force.{spec.attr} yet"
            )
        if spec.factory is not None:
            factory = spec.factory
        prefix = [{"forces": forces, "matter": matter}[p] for p in spec.prefix]
        args = [_convert_arg(a.kind, e.args[a.name], mobods) for a in spec.constructor_args()]
        try:
            force = factory(*prefix, *args)
            if spec.switch and not e.args[spec.switch]:
                force.setDisabledByDefault(True)
            built_forces.append(force)
        except (SimTKError, ValueError, TypeError, ArithmeticError) as exc:
            raise BuildError(f"force {i} ({e.label()})", str(exc)) from exc

    from app.document.contact_builder import add_contact_subsystems, add_contact_surfaces

    contact_surfaces = add_contact_surfaces(data, mobods, data.hints.uniform_background, base_dir)
    tracker, compliant = add_contact_subsystems(data, system)

    from app.document.measure_builder import build_measures

    measures = build_measures(data, system, mobods)
    pull = None
    if pull_force:
        from app.body_puller import PullForce

        pull = PullForce(forces, matter)
    apply_hints(system, data.hints)
    try:
        # the System's default State itself becomes the model's initial State (no copy of
        # its cache): later realizeTopology() calls copy it with the initial u set
        state = system.realizeDefaultState()
        system.realizeModel(state)
        for b in data.bodies:
            if b.u is not None:
                mobods[b.name].setU(state, np.asarray(b.u, dtype=np.float64))
    except SimTKError as exc:
        raise BuildError("system", str(exc)) from exc
    _check_dynamics(data, system, state, realize_copy=False)
    names = [GROUND, *map(_NAME, ordered)]  # (bodies are added parents first, in order)
    built = BuiltModel(
        system=system,
        matter=matter,
        forces=forces,
        state=state,
        mobilized_bodies=mobods,
        body_name_of_index=names,
        constraints=built_constraints,
        force_elements=built_forces,
        data=data.copy(),
        measures=measures,
        contact_tracker=tracker,
        contact_forces=compliant,
        contact_surfaces=contact_surfaces,
        base_dir=base_dir,
    )
    if pull is not None:
        built.pull_force = pull
    return built


def _check_quaternion(b) -> None:
    """Refuse an initial q whose quaternion (q[0:4] of a quaternion mobilizer) has no length."""
    mob = MOBILIZER_TYPES.get(b.mobilizer)
    if mob is None or mob.nq == mob.nu or len(b.q) < 4:
        return
    try:
        length2 = math.fsum(float(v) * float(v) for v in b.q[:4])
    except (OverflowError, TypeError, ValueError):
        length2 = math.nan
    if not (0.0 < length2 < math.inf):
        raise BuildError(
            f"body {b.name!r}",
            f"initial q: the quaternion q[0:4] = {list(b.q[:4])} has no usable length (it "
            "must not be zero); the identity orientation is [1, 0, 0, 0]",
        )


def _massless_subtree(data: ModelData) -> str | None:
    """The first body (parents first) that carries no mass at all: it and every body outboard
    of it have mass 0, so nothing resists its mobilizer's motion (O(n))."""
    from app.document.document import _parents_first

    order = list(_parents_first(data.bodies))
    carried = {b.name: float(b.mass) for b in order}
    for b in reversed(order):  # children before parents: add each subtree into its parent
        if b.parent in carried:
            carried[b.parent] += carried[b.name]
    for b in order:
        if carried[b.name] == 0.0:
            return b.name
    return None


def _check_dynamics(data: ModelData, system, state, realize_copy: bool = True) -> None:
    """Realize a copy of the initial State (``realize_copy=False``: the State itself)
    through Acceleration: a System whose mass matrix is singular (a body carrying no mass) or
    whose initial State is not finite is refused here, naming the body where that can be
    told, instead of failing later in a simulation."""
    from engine.common.exceptions import SimTKError
    from engine.common.stage import Stage

    probe = state.copy() if realize_copy else state
    try:
        with np.errstate(all="ignore"):
            system.realize(probe, Stage.Acceleration)
        values = (probe.getQ(), probe.getU(), probe.getUDot())
        finite = all(bool(np.all(np.isfinite(v))) for v in values)
        problem = "" if finite else "the initial state is not finite (NaN or infinity)"
    except (SimTKError, ArithmeticError, np.linalg.LinAlgError) as exc:
        problem = str(exc) or type(exc).__name__
    if not problem:
        return
    name = _massless_subtree(data)
    if name is not None:
        raise BuildError(
            f"body {name!r}",
            "has mass 0 and carries no massive body, so its mobilizer's motion has no inertia "
            f"(the System is singular: {problem}); give it a mass or weld it to its parent",
        )
    raise BuildError(
        "system",
        f"the initial state cannot be realized through accelerations: {problem}; check very "
        "large or very small masses, inertias and frame offsets",
    )


def carry_state(old: BuiltModel, old_state, new: BuiltModel, same_layout: bool = False):
    """A State of ``new`` (a copy of its initial state) with time, and the q/u of every body
    whose name and mobilizer type are unchanged, copied from ``old_state``. With
    ``same_layout`` (a "parameters" change) the whole q and u vectors are copied."""
    state = new.state.copy()
    state.setTime(old_state.getTime())
    if same_layout:
        q_old, u_old = old.matter.getQ(old_state), old.matter.getU(old_state)
        if (
            q_old.shape == new.matter.getQ(state).shape
            and u_old.shape == new.matter.getU(state).shape
        ):
            new.matter.updQ(state)[:] = q_old
            new.matter.updU(state)[:] = u_old
            return state
    for name, mb in new.mobilized_bodies.items():
        if name == GROUND or name not in old.mobilized_bodies:
            continue
        ob = old.mobilized_bodies[name]
        if ob.getMobilizerTypeName() != mb.getMobilizerTypeName():
            continue
        q, u = ob.getQ(old_state), ob.getU(old_state)
        if q.size == mb.getNumQ(state) and u.size == mb.getNumU(state):
            mb.setQ(state, q)
            mb.setU(state, u)
    return state


def model_geometry(built: BuiltModel, state, first=None, last=None) -> list:
    """The decorations the System produces at the stages ``first`` (default Topology) through
    ``last`` (default Position; the State must be realized that far). Body decorations are
    added here when the matter subsystem does not emit them itself.

    Topology..Time items are fixed to their bodies (draw once, then move with the poses);
    Position and later ones depend on the State (rubber bands...): redraw them every frame.
    """
    from engine.common.stage import Stage
    from engine.common.subsystem import Subsystem

    first = Stage.Topology if first is None else Stage(first)
    last = Stage.Position if last is None else Stage(last)
    geometry: list = []
    for stage in range(int(first), int(last) + 1):
        built.system.calcDecorativeGeometryAndAppend(state, Stage(stage), geometry)
    impl = type(built.matter).calcDecorativeGeometryAndAppendImpl
    if first <= Stage.Topology <= last and impl is Subsystem.calcDecorativeGeometryAndAppendImpl:
        for index, name in enumerate(built.body_name_of_index):
            body = built.mobilized_bodies[name].getBody()
            for k, (X_BD, g) in enumerate(body.getDecorations()):
                c = g.clone()
                c.setBodyId(index)
                c.setIndexOnBody(k)
                c.setTransform(X_BD * g.getTransform())
                geometry.append(c)
    return geometry


def body_poses(built: BuiltModel, state) -> np.ndarray:
    """X_GB of every body as an (nbodies, 4, 4) array (State realized to Position)."""
    n = built.matter.getNumBodies()
    out = np.empty((n, 4, 4))
    for b in range(n):
        out[b] = built.matter.getMobilizedBody(b).getBodyTransform(state).toMat44()
    return out
