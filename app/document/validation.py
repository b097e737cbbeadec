"""Checks that keep a document valid. Each failure is a ``DocumentError`` naming the field.

``validate(data)`` checks a whole ModelData; the document runs it on a candidate copy before
every edit, so an invalid edit changes nothing.
"""

from __future__ import annotations

import math
from itertools import compress, repeat
from operator import attrgetter, is_, not_

import numpy as np

from app.document.registry import (
    CONSTRAINT_TYPES,
    FORCE_TYPES,
    GEOMETRY_KINDS,
    GEOMETRY_ROLES,
    MOBILIZER_TYPES,
    Arg,
    positive_vec3_kinds,
)
from app.document.specs import (
    CONTACT_SHAPES,
    GROUND,
    UP_DIRECTIONS,
    BodySpec,
    ContactSurfaceSpec,
    ElementSpec,
    GeometrySpec,
    ModelData,
)

_NAME = attrgetter("name")
_PARENT = attrgetter("parent")


class DocumentError(ValueError):
    """An edit or a file that would make the document invalid.

    ``field`` names what is wrong (e.g. ``"mass"``, ``"bodies[2].inertia"``), ``target`` the
    object (a body name, ``"constraint 0"``...) when there is one.
    """

    def __init__(self, field: str, message: str, target: str = "") -> None:
        self.field = field
        self.target = target
        self.message = message
        where = f"{target}: " if target else ""
        super().__init__(f"{where}{field}: {message}")


def _finite(value, field: str, target: str = "") -> float:
    if type(value) is float and math.isfinite(value):  # the usual case
        return value
    if isinstance(value, bool):
        raise DocumentError(field, f"must be a number, got {value!r}", target)
    try:
        v = float(value)
    except OverflowError:
        raise DocumentError(field, "is a whole number too large for a float", target) from None
    except (TypeError, ValueError):
        raise DocumentError(field, f"must be a number, got {_short(value)}", target) from None
    if not math.isfinite(v):
        raise DocumentError(field, f"must be finite, got {v}", target)
    return v


def _short(value, limit: int = 60) -> str:
    """repr(value), cut to ``limit`` characters (a fuzzed file can hold huge values)."""
    try:
        text = repr(value)
    except ValueError:  # an int with more digits than Python prints
        return "a whole number with too many digits"
    return text if len(text) <= limit else text[: limit - 3] + "..."


_FLOAT = {float}


def _vector(value, n: int, field: str, target: str = "") -> tuple[float, ...]:
    if (
        type(value) is tuple
        and len(value) == n
        and set(map(type, value)) <= _FLOAT
        and all(map(math.isfinite, value))
    ):  # the usual case, checked at C speed
        return value
    if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__len__") or len(value) != n:
        raise DocumentError(field, f"must have {n} numbers, got {_short(value)}", target)
    return tuple(_finite(v, field, target) for v in value)


def check_name(name: str, field: str = "name") -> None:
    if not isinstance(name, str) or not name.strip():
        raise DocumentError(field, "a name must not be empty")
    if name != name.strip():
        raise DocumentError(field, "a name must not start or end with spaces")
    if name == GROUND:
        raise DocumentError(field, f"{GROUND!r} is reserved for the ground body")
    _check_text(name, field)


def _check_text(text: str, field: str, target: str = "") -> None:
    """Refuse a string that cannot be saved as UTF-8 (it holds a lone surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise DocumentError(
            field, "contains a lone surrogate (not a character); use real characters", target
        ) from None


def check_frame(frame, field: str, target: str = "") -> None:
    _vector(frame.p, 3, f"{field}.p", target)
    _vector(frame.rpy, 3, f"{field}.rpy", target)


def check_mass_properties(mass, com, inertia, target: str = "") -> None:
    """Refuse a negative or non-finite mass and a non-physical inertia (about Bo, in B)."""
    from engine.common.exceptions import SimTKError
    from engine.math.inertia import Inertia
    from engine.math.mass_properties import MassProperties

    m = _finite(mass, "mass", target)
    if m < 0:
        raise DocumentError("mass", f"mass must be >= 0, got {m:g} kg", target)
    c = _vector(com, 3, "com", target)
    i = _vector(inertia, 6, "inertia", target)
    # values so large that products overflow (or an eigen-decomposition that does not
    # converge) are refused like a non-physical inertia
    failures = (SimTKError, FloatingPointError, np.linalg.LinAlgError, ValueError)
    with np.errstate(all="raise"):
        try:
            inertia_obj = Inertia(i[:3], i[3:])
        except failures as exc:
            raise DocumentError("inertia", f"not a physical inertia: {exc}", target) from None
        try:
            mp = MassProperties(m, c, inertia_obj)
        except failures as exc:
            raise DocumentError(
                "inertia", f"not physical with this mass and com: {exc}", target
            ) from None
        if m > 0:
            try:
                mp.calcCentralInertia()
            except failures as exc:
                raise DocumentError(
                    "inertia", f"about the mass centre this inertia is not physical: {exc}", target
                ) from None


def _check_arg(arg: Arg, value, field: str, target: str) -> None:
    kind = arg.kind
    if kind in ("vec3", "direction"):
        v = _vector(value, 3, field, target)
        if kind == "direction" and not any(v):
            raise DocumentError(field, "a direction must not be the zero vector", target)
    elif kind in ("real", "nonneg", "positive"):
        v = _finite(value, field, target)
        if kind == "nonneg" and v < 0:
            raise DocumentError(field, f"must be >= 0, got {v:g}", target)
        if kind == "positive" and v <= 0:
            raise DocumentError(field, f"must be > 0, got {v:g}", target)
    elif kind == "index":
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or (isinstance(value, float) and not math.isfinite(value))
            or int(value) != value
        ):
            raise DocumentError(field, f"must be a whole number, got {_short(value)}", target)
        if value < 0:
            raise DocumentError(field, f"must be >= 0, got {value}", target)
    elif kind == "frame":
        if not isinstance(value, dict):
            raise DocumentError(field, "a frame needs 'p' and 'rpy'", target)
        _vector(value.get("p", (0, 0, 0)), 3, f"{field}.p", target)
        _vector(value.get("rpy", (0, 0, 0)), 3, f"{field}.rpy", target)
    elif kind == "rotation":
        if not isinstance(value, dict):
            raise DocumentError(field, "a rotation needs 'rpy'", target)
        _vector(value.get("rpy", (0, 0, 0)), 3, f"{field}.rpy", target)
    elif kind == "bool":
        if not isinstance(value, bool):
            raise DocumentError(field, f"must be true or false, got {_short(value)}", target)
    elif kind == "body":
        if not isinstance(value, str):
            raise DocumentError(field, f"must be a body name, got {_short(value)}", target)
    elif kind == "measure":
        if not isinstance(value, str):
            raise DocumentError(field, f"must be a measure name, got {_short(value)}", target)
    elif kind == "path":
        if not isinstance(value, str) or not value.strip():
            raise DocumentError(field, f"must be a file name, got {_short(value)}", target)


def check_geometry(g: GeometrySpec, field: str, target: str = "") -> None:
    kind = GEOMETRY_KINDS.get(g.kind)
    if kind is None:
        raise DocumentError(
            f"{field}.kind",
            f"unknown geometry kind {g.kind!r}; known: {sorted(GEOMETRY_KINDS)}",
            target,
        )
    unknown = set(g.params) - {a.name for a in kind.args}
    if unknown:
        raise DocumentError(
            f"{field}.params", f"unknown parameter(s) {sorted(unknown)} for {g.kind}", target
        )
    for a in kind.args:
        value = g.params.get(a.name, a.default)
        _check_arg(a, value, f"{field}.{a.name}", target)
        if (g.kind, a.name) in positive_vec3_kinds() and min(value) <= 0:
            raise DocumentError(f"{field}.{a.name}", "sizes must be > 0", target)
        if (g.kind, a.name) == ("mesh", "scale") and min(abs(v) for v in value) == 0:
            raise DocumentError(f"{field}.{a.name}", "scale factors must not be 0", target)
    check_frame(g.X, f"{field}.X", target)
    if g.color is not None:
        c = _vector(g.color, 3, f"{field}.color", target)
        if min(c) < 0 or max(c) > 1:
            raise DocumentError(f"{field}.color", "colour components must be in [0, 1]", target)
    op = _finite(g.opacity, f"{field}.opacity", target)
    if not 0 <= op <= 1:
        raise DocumentError(f"{field}.opacity", "opacity must be in [0, 1]", target)
    if g.role not in GEOMETRY_ROLES:
        raise DocumentError(
            f"{field}.role", f"must be one of {list(GEOMETRY_ROLES)}, got {g.role!r}", target
        )


def _check_mesh_params(params: dict, field: str, target: str) -> None:
    """A mesh contact surface: ``file`` a string ("" while none is chosen: the build refuses
    it), ``scale`` three non-zero factors, ``convex_hull`` true or false. Whether the file
    exists and is closed is checked when it is set (``contact_builder.check_contact_mesh``)."""
    if not isinstance(params.get("file", ""), str):
        raise DocumentError(f"{field}.file", "must be a mesh file name", target)
    scale = _vector(params.get("scale", (1.0, 1.0, 1.0)), 3, f"{field}.scale", target)
    if min(abs(v) for v in scale) == 0:
        raise DocumentError(f"{field}.scale", "scale factors must not be 0", target)
    if not isinstance(params.get("convex_hull", False), bool):
        raise DocumentError(f"{field}.convex_hull", "must be true or false", target)


def check_contact_surface(c: ContactSurfaceSpec, field: str, target: str = "") -> None:
    """A known shape with positive finite sizes, a finite frame, a physical material
    (stiffness > 0, dissipation >= 0, static >= dynamic >= 0 friction, viscous >= 0), clique
    names that are not empty, and a drawable colour and opacity."""
    names = CONTACT_SHAPES.get(c.shape)
    if names is None:
        raise DocumentError(
            f"{field}.shape",
            f"unknown contact shape {_short(c.shape)}; known: {list(CONTACT_SHAPES)}",
            target,
        )
    unknown = set(c.params) - set(names)
    if unknown:
        raise DocumentError(
            f"{field}.params",
            f"unknown size parameter(s) {sorted(unknown)} for a {c.shape}",
            target,
        )
    if c.shape == "mesh":
        _check_mesh_params(c.params, field, target)
    for name in () if c.shape == "mesh" else names:
        if name not in c.params:
            raise DocumentError(f"{field}.{name}", f"a {c.shape} needs its {name}", target)
        value = c.params[name]
        values = (
            (_finite(value, f"{field}.{name}", target),)
            if name == "radius"
            else _vector(value, 3, f"{field}.{name}", target)
        )
        if min(values) <= 0:
            raise DocumentError(
                f"{field}.{name}", f"sizes must be > 0 m, got {_short(value)}", target
            )
    check_frame(c.X, f"{field}.X", target)
    m = c.material
    stiffness = _finite(m.stiffness, f"{field}.stiffness", target)
    if stiffness <= 0:
        raise DocumentError(f"{field}.stiffness", f"must be > 0 Pa, got {stiffness:g}", target)
    for name in ("dissipation", "static_friction", "dynamic_friction", "viscous_friction"):
        v = _finite(getattr(m, name), f"{field}.{name}", target)
        if v < 0:
            raise DocumentError(f"{field}.{name}", f"must be >= 0, got {v:g}", target)
    if m.dynamic_friction > m.static_friction:
        raise DocumentError(
            f"{field}.dynamic_friction",
            f"must not exceed the static friction ({m.static_friction:g}), got "
            f"{m.dynamic_friction:g}",
            target,
        )
    for i, clique in enumerate(c.cliques):
        if not isinstance(clique, str) or not clique.strip():
            raise DocumentError(f"{field}.cliques", f"clique {i + 1} has no name", target)
        _check_text(clique, f"{field}.cliques", target)
    if c.color is not None:
        rgb = _vector(c.color, 3, f"{field}.color", target)
        if min(rgb) < 0 or max(rgb) > 1:
            raise DocumentError(f"{field}.color", "colour components must be in [0, 1]", target)
    op = _finite(c.opacity, f"{field}.opacity", target)
    if not 0 <= op <= 1:
        raise DocumentError(f"{field}.opacity", "opacity must be in [0, 1]", target)
    if not isinstance(c.show, bool):
        raise DocumentError(f"{field}.show", "must be true or false", target)


def check_contact_settings(data: ModelData) -> None:
    s = data.contact
    v = _finite(s.transition_velocity, "transition_velocity", "contact")
    if v <= 0:
        raise DocumentError("transition_velocity", f"must be > 0 m/s, got {v:g}", "contact")
    if not isinstance(s.track_dissipated_energy, bool):
        raise DocumentError("track_dissipated_energy", "must be true or false", "contact")


def check_body(
    b: BodySpec, mass_properties_checked: bool = False, passed: set | None = None
) -> None:
    """Refuse a body whose fields are not valid (``DocumentError`` naming the field).

    ``passed``: a set, kept by the caller for one validation, of the parts (frames, geometry,
    vectors, options; keyed by object identity) of bodies checked before that passed; such
    a part (shared by bodies read from equal values, see specs._BodyReader) is not checked
    again, and the parts of ``b`` that pass are added."""
    t = b.name
    mob = MOBILIZER_TYPES.get(b.mobilizer)
    if mob is None:
        raise DocumentError(
            "mobilizer",
            f"unknown mobilizer type {b.mobilizer!r}; known: {sorted(MOBILIZER_TYPES)}",
            t,
        )
    done = set() if passed is None else passed
    key = (b.mobilizer, id(b.mobilizer_params))
    if key not in done:
        from engine.multibody.mobilizers.params import params_for

        try:
            params_for(b.mobilizer, dict(b.mobilizer_params))
        except (ValueError, TypeError) as exc:
            raise DocumentError("mobilizer_params", str(exc), t) from None
        done.add(key)
    if id(b.X_PF) not in done:
        check_frame(b.X_PF, "X_PF", t)
        done.add(id(b.X_PF))
    if id(b.X_BM) not in done:
        check_frame(b.X_BM, "X_BM", t)
        done.add(id(b.X_BM))
    if not mass_properties_checked:
        check_mass_properties(b.mass, b.com, b.inertia, t)
    if id(b.geometry) not in done:
        for k, g in enumerate(b.geometry):
            check_geometry(g, f"geometry[{k}]", t)
        done.add(id(b.geometry))
    if id(b.contact_surfaces) not in done:
        for k, c in enumerate(b.contact_surfaces):
            check_contact_surface(c, f"contact_surfaces[{k}]", t)
        done.add(id(b.contact_surfaces))
    if b.q is not None and ("q", b.mobilizer, id(b.q)) not in done:
        if len(b.q) != mob.nq:
            raise DocumentError("q", f"a {b.mobilizer} mobilizer has {mob.nq} q, got {len(b.q)}", t)
        _vector(b.q, mob.nq, "q", t)
        done.add(("q", b.mobilizer, id(b.q)))
    if b.u is not None and ("u", b.mobilizer, id(b.u)) not in done:
        if len(b.u) != mob.nu:
            raise DocumentError("u", f"a {b.mobilizer} mobilizer has {mob.nu} u, got {len(b.u)}", t)
        _vector(b.u, mob.nu, "u", t)
        done.add(("u", b.mobilizer, id(b.u)))


def check_element(
    section: str,
    index: int,
    e: ElementSpec,
    nus: dict[str, int],
    earlier_measures: set[str] | None = None,
) -> None:
    from app.document.measure_types import MEASURE_TYPES

    types = {"constraints": CONSTRAINT_TYPES, "forces": FORCE_TYPES}.get(section, MEASURE_TYPES)
    what = {"constraints": "constraint", "forces": "force"}.get(section, "measure")
    target = f"{what} {index} ({e.label()})"
    spec = types.get(e.type)
    if spec is None:
        raise DocumentError(
            "type", f"unknown {what} type {e.type!r}; known: {sorted(types)}", target
        )
    names = {a.name for a in spec.args}
    unknown = set(e.args) - names
    if unknown:
        raise DocumentError("args", f"unknown argument(s) {sorted(unknown)} for {e.type}", target)
    missing = [a.name for a in spec.args if a.name not in e.args and not a.info]
    if missing:
        raise DocumentError(missing[0], "missing argument", target)
    bodies = []
    for a in spec.args:
        if a.name not in e.args:  # an info argument the file leaves out
            continue
        value = e.args[a.name]
        _check_arg(a, value, a.name, target)
        if a.kind == "body":
            if value not in nus:
                raise DocumentError(a.name, f"no body named {_short(value)}", target)
            bodies.append(value)
        if a.kind == "measure" and value not in (earlier_measures or set()):
            if value == e.name:
                raise DocumentError(a.name, "a measure cannot use itself", target)
            raise DocumentError(
                a.name,
                f"no measure named {_short(value)} before this one (an operand must be "
                "defined first)",
                target,
            )
        if a.kind == "index":
            body = e.args[a.of]
            n = nus.get(body, 0)
            if int(value) >= n:
                raise DocumentError(
                    a.name,
                    f"{body!r} has {n} mobilities; index {int(value)} is out of range",
                    target,
                )
    if spec.distinct_bodies and len(bodies) != len(set(bodies)):
        raise DocumentError(
            spec.body_args()[-1], f"a {what} cannot connect a body to itself ({bodies})", target
        )


def check_parents(data: ModelData) -> None:
    """Every parent exists and no body is its own ancestor (O(n), at C speed when every
    parent comes before its children, the order the document keeps)."""
    bodies = data.bodies
    names = list(map(_NAME, bodies))
    parent_list = list(map(_PARENT, bodies))
    parents = dict(zip(names, parent_list, strict=True))
    if not set(parent_list) <= parents.keys() | {GROUND}:
        for b in bodies:
            if b.parent != GROUND and b.parent not in parents:
                raise DocumentError("parent", f"no body named {b.parent!r}", b.name)
    position = dict(zip(names, range(len(names)), strict=True))
    before = np.fromiter(map(position.get, parent_list, repeat(-1)), np.int64, len(names))
    if not len(names) or bool(np.all(before < np.arange(len(names)))):
        return  # each parent is Ground or an earlier body: no loop
    # each body's chain is walked only until it meets a body already known to reach Ground
    reaches_ground = {GROUND}
    for b in bodies:
        path = [b.name]
        on_path = {b.name}
        p = b.parent
        while p not in reaches_ground:
            if p in on_path:
                raise DocumentError(
                    "parent",
                    f"{p!r} would be its own ancestor (a loop in the parent chain)",
                    b.name,
                )
            path.append(p)
            on_path.add(p)
            p = parents[p]
        reaches_ground.update(path)


def check_hints(data: ModelData) -> None:
    h = data.hints
    if h.up not in UP_DIRECTIONS:
        raise DocumentError("up", f"must be one of {UP_DIRECTIONS}, got {h.up!r}", "hints")
    for name in ("time_scale", "length_scale"):
        v = _finite(getattr(h, name), name, "hints")
        if v <= 0:
            raise DocumentError(name, f"must be > 0, got {v:g}", "hints")


def _clearly_physical(bodies: list[BodySpec]) -> np.ndarray:
    """For each body, True when its finite mass properties are physical by a clear margin
    (inertia about Bo and about the mass centre: eigenvalues >= 0 and each at most the sum of
    the other two, with a relative margin of 1e-9). All bodies in a few vectorized numpy
    calls; the others get the engine's exact check (and message)."""
    n = len(bodies)
    ok = np.zeros(n, dtype=bool)
    try:
        mass = np.array([b.mass for b in bodies], dtype=np.float64)
        com = np.array([b.com for b in bodies], dtype=np.float64).reshape(n, 3)
        ine = np.array([b.inertia for b in bodies], dtype=np.float64).reshape(n, 6)
    except (TypeError, ValueError, OverflowError):
        return ok
    with np.errstate(all="ignore"):
        finite = (
            np.isfinite(mass)
            & np.all(np.isfinite(com), axis=1)
            & np.all(np.isfinite(ine), axis=1)
            & (mass > 0)  # massless bodies get the exact check (no inertia allowed)
            & (np.max(np.abs(ine), axis=1) < 1e150)
            & (np.max(np.abs(com), axis=1) < 1e75)
            & (mass < 1e150)
        )
        xx, yy, zz, xy, xz, yz = ine.T
        inertia = np.stack(
            [np.stack([xx, xy, xz], -1), np.stack([xy, yy, yz], -1), np.stack([xz, yz, zz], -1)],
            1,
        )
        c2 = np.einsum("ni,ni->n", com, com)
        central = inertia - mass[:, None, None] * (
            c2[:, None, None] * np.eye(3) - np.einsum("ni,nj->nij", com, com)
        )
        ok = finite.copy()
        for matrix in (inertia, central):
            safe = np.where(finite[:, None, None], matrix, 0.0)
            lam = np.linalg.eigvalsh(safe)
            scale = np.maximum(np.max(np.abs(lam), axis=1), 1e-300)
            margin = 1e-9 * scale
            total = lam.sum(axis=1)
            ok &= np.all(lam >= margin[:, None], axis=1)
            ok &= np.all(2 * lam <= total[:, None] - margin[:, None], axis=1)
    return ok


def _content_of(b: BodySpec) -> tuple:
    """Every field of ``b`` that ``check_body`` checks, but its name."""
    return (
        b.mobilizer,
        b.mobilizer_params,
        b.X_PF,
        b.X_BM,
        b.mass,
        b.com,
        b.inertia,
        b.geometry,
        b.q,
        b.u,
        b.contact_surfaces,
    )


def _same_tree(data: ModelData, previous: ModelData | None, fresh: list) -> bool:
    """Whether ``data``'s bodies have ``previous``'s names and parents in the same order:
    each body is ``previous``'s at its place, or one of the ``fresh`` ones (a few) with the
    name and parent of the body it replaces (an edit of a body's other fields). The names
    are then unique and the parents form a tree, as in ``previous``."""
    if previous is None or len(fresh) > 8 or len(data.bodies) != len(previous.bodies):
        return False
    old = previous.bodies
    differ = list(compress(range(len(old)), map(not_, map(is_, data.bodies, old))))
    if len(differ) != len(fresh):
        return False
    new = data.bodies
    return all(new[i].name == old[i].name and new[i].parent == old[i].parent for i in differ)


def validate(data: ModelData, previous: ModelData | None = None) -> None:
    """Raise DocumentError for the first problem found in ``data`` (O(n) in the bodies).

    ``previous``: a valid version ``data`` was edited from. A body spec (immutable) that is the
    very object ``previous`` holds is valid on its own and only checked against the others
    (name clashes, parents, element arguments), so an edit of one body in a large model costs
    a few set and dict look-ups per body instead of the full per-body checks."""
    known = set(map(id, previous.bodies)) if previous is not None else set()
    # the bodies that are not ``previous``'s very objects, picked at C speed
    fresh = list(compress(data.bodies, map(not_, map(known.__contains__, map(id, data.bodies)))))
    for b in fresh:
        check_name(b.name)
    if not _same_tree(data, previous, fresh):
        names = list(map(_NAME, data.bodies))
        if len(set(names)) != len(names):
            seen: set[str] = set()
            for name in names:
                if name in seen:
                    raise DocumentError("name", f"two bodies are named {name!r}", name)
                seen.add(name)
        check_parents(data)
    physical = _clearly_physical(fresh)
    # A body whose specs are the very objects of one checked before (a repeated link read
    # once, see specs._BodyReader) passes the same checks: only its name differs.
    checked: set[tuple] = set()
    passed: set = set()  # parts of the bodies checked so far (see check_body)
    for b, fine in zip(fresh, physical, strict=True):
        same = (bool(fine), *map(id, _content_of(b)))
        if same in checked:
            continue
        check_body(b, mass_properties_checked=bool(fine), passed=passed)
        checked.add(same)
    for k, g in enumerate(data.ground_geometry):
        check_geometry(g, f"geometry[{k}]", GROUND)
    for k, c in enumerate(data.ground_contact_surfaces):
        check_contact_surface(c, f"contact_surfaces[{k}]", GROUND)
    check_contact_settings(data)
    nus = {GROUND: 0}
    if data.constraints or data.forces or data.measures:  # (only elements name bodies)
        nus.update({b.name: MOBILIZER_TYPES[b.mobilizer].nu for b in data.bodies})
    for section in ("constraints", "forces"):
        for i, e in enumerate(getattr(data, section)):
            check_element(section, i, e, nus)
    check_measures(data, nus)
    check_hints(data)


#: longest chain of measures each using the one before (the engine evaluates operands
#: recursively)
MAX_MEASURE_DEPTH = 200


def check_measures(data: ModelData, nus: dict[str, int]) -> None:
    """Measures have unique non-empty names, use only measures defined before them, and no
    chain of operands is longer than MAX_MEASURE_DEPTH."""
    from app.document.measure_types import MEASURE_TYPES

    earlier: set[str] = set()
    depth: dict[str, int] = {}
    for i, m in enumerate(data.measures):
        target = f"measure {i} ({m.label()})"
        if not isinstance(m.name, str) or not m.name.strip():
            raise DocumentError("name", "a measure needs a name (it labels its plot)", target)
        if m.name != m.name.strip():
            raise DocumentError("name", "a name must not start or end with spaces", target)
        if m.name in earlier:
            raise DocumentError("name", f"two measures are named {m.name!r}", target)
        _check_text(m.name, "name", target)
        check_element("measures", i, m, nus, earlier)
        operands = [m.args[a.name] for a in MEASURE_TYPES[m.type].args if a.kind == "measure"]
        depth[m.name] = 1 + max((depth[o] for o in operands), default=0)
        if depth[m.name] > MAX_MEASURE_DEPTH:
            raise DocumentError(
                "args",
                f"this measure ends a chain of {depth[m.name]} measures, each the operand of "
                f"the next; at most {MAX_MEASURE_DEPTH} are allowed",
                target,
            )
        earlier.add(m.name)
