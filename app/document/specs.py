"""Plain data of a model document: frames, geometry, bodies, constraints, forces, hints.

Everything here is Qt-free and engine-free: immutable dataclasses of floats, strings and
tuples that convert to and from JSON-ready dicts. Units: metres, kilograms, seconds, radians.
Validation lives in ``app.document.validation``; building the engine System in
``app.document.builder``.
"""

from __future__ import annotations

import marshal
from dataclasses import dataclass, field, fields, replace
from typing import Any

GROUND = "Ground"

Vec3 = tuple[float, float, float]

UP_DIRECTIONS = ("+X", "-X", "+Y", "-Y", "+Z", "-Z")

#: Contact shapes (Simbody's ContactGeometry kinds) and their size parameters.
CONTACT_SHAPES: dict[str, tuple[str, ...]] = {
    "halfspace": (),
    "sphere": ("radius",),
    "ellipsoid": ("radii",),
    "brick": ("half_lengths",),
    "mesh": ("file", "scale", "convex_hull"),
    "cylinder": ("radius",),
}
#: Default size of each contact shape (m).
CONTACT_SHAPE_DEFAULTS: dict[str, dict] = {
    "halfspace": {},
    "sphere": {"radius": 0.1},
    "ellipsoid": {"radii": (0.1, 0.15, 0.1)},
    "brick": {"half_lengths": (0.1, 0.1, 0.1)},
    "mesh": {"file": "", "scale": (1.0, 1.0, 1.0), "convex_hull": False},
    "cylinder": {"radius": 0.1},
}


def vec3(value, default: Vec3 = (0.0, 0.0, 0.0)) -> Vec3:
    if value is None:
        return default
    return tuple(float(v) for v in value)  # type: ignore[return-value]


class SpecError(ValueError):
    """A value of the wrong type while reading a dict; ``field`` is its path (e.g.
    ``geometry[0].color``)."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")

    def within(self, prefix: str) -> SpecError:
        return SpecError(f"{prefix}.{self.field}", self.message)


def _float(value, key: str) -> float:
    """``value`` (an int or float) as a float; an integer too large for one is refused."""
    try:
        return float(value)
    except OverflowError:
        raise SpecError(key, "is a whole number too large for a floating-point value") from None


def _num(d: dict, key: str, default=None) -> float:
    value = d.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SpecError(key, f"must be a number, got {_short(value)}")
    return _float(value, key)


def _short(value, limit: int = 60) -> str:
    """repr(value), cut to ``limit`` characters (a fuzzed file can hold huge values)."""
    try:
        text = repr(value)
    except ValueError:  # an int with more digits than Python prints
        return "a whole number with too many digits"
    return text if len(text) <= limit else text[: limit - 3] + "..."


_FLOAT = {float}


def _nums(d: dict, key: str, n: int | None, default=None, optional: bool = False):
    value = d.get(key, default)
    if value is None and optional:
        return None
    if not isinstance(value, (list, tuple)) or (n is not None and len(value) != n):
        what = f"a list of {n} numbers" if n is not None else "a list of numbers"
        raise SpecError(key, f"must be {what}, got {_short(value)}")
    if set(map(type, value)) <= _FLOAT:  # the usual case, checked at C speed
        return tuple(value)
    for v in value:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise SpecError(key, f"must contain only numbers, got {_short(v)}")
    return tuple(_float(v, key) for v in value)


def _str(d: dict, key: str, default=None) -> str:
    value = d.get(key, default)
    if not isinstance(value, str):
        raise SpecError(key, f"must be a string, got {_short(value)}")
    return value


def _bool(d: dict, key: str, default: bool) -> bool:
    value = d.get(key, default)
    if not isinstance(value, bool):
        raise SpecError(key, f"must be true or false, got {_short(value)}")
    return value


def _obj(d: dict, key: str) -> dict:
    value = d.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise SpecError(key, f"must be an object, got {_short(value)}")
    return value


def _list(d: dict, key: str) -> list:
    value = d.get(key, [])
    if not isinstance(value, list):
        raise SpecError(key, f"must be a list, got {_short(value)}")
    return value


def _items(d: dict, key: str, reader) -> list:
    out = []
    for i, item in enumerate(_list(d, key)):
        if not isinstance(item, dict):
            raise SpecError(f"{key}[{i}]", "must be an object")
        try:
            out.append(reader(item))
        except SpecError as exc:
            raise exc.within(f"{key}[{i}]") from None
    return out


def _sub(d: dict, key: str, reader):
    try:
        return reader(_obj(d, key) if key in d else None)
    except SpecError as exc:
        raise exc.within(key) from None


@dataclass(frozen=True)
class FrameSpec:
    """A transform X_AB: origin ``p`` of B in A (m) and rotation given as body-fixed X-Y-Z
    angles ``rpy`` (rad) of B relative to A."""

    p: Vec3 = (0.0, 0.0, 0.0)
    rpy: Vec3 = (0.0, 0.0, 0.0)

    def to_dict(self) -> dict:
        return {"p": list(self.p), "rpy": list(self.rpy)}

    @classmethod
    def from_dict(cls, d: dict | None) -> FrameSpec:
        d = d or {}
        return cls(_nums(d, "p", 3, (0.0, 0.0, 0.0)), _nums(d, "rpy", 3, (0.0, 0.0, 0.0)))

    def is_identity(self) -> bool:
        return self == FrameSpec()


@dataclass(frozen=True)
class GeometrySpec:
    """One decoration fixed to a body: ``kind`` (see registry.GEOMETRY_KINDS), its ``params``
    (e.g. ``{"radius": 0.1}``), its placement ``X`` in the body frame, and appearance
    (``color`` RGB in [0, 1] or None for the renderer's default, ``opacity`` in [0, 1]), and
    its ``role``: "visual" (drawn) or "collision" (kept for contact, not drawn)."""

    kind: str = "sphere"
    params: dict = field(default_factory=dict)
    X: FrameSpec = FrameSpec()
    color: Vec3 | None = None
    opacity: float = 1.0
    role: str = "visual"

    def to_dict(self) -> dict:
        d: dict[str, Any] = {"kind": self.kind, "params": _jsonable(self.params)}
        if not self.X.is_identity():
            d["X"] = self.X.to_dict()
        if self.color is not None:
            d["color"] = list(self.color)
        if self.opacity != 1.0:
            d["opacity"] = self.opacity
        if self.role != "visual":
            d["role"] = self.role
        return d

    @classmethod
    def from_dict(cls, d: dict) -> GeometrySpec:
        return cls(
            kind=_str(d, "kind"),
            params=_tuplify(dict(_obj(d, "params"))),
            X=_sub(d, "X", FrameSpec.from_dict),
            color=_nums(d, "color", 3, optional=True),
            opacity=_num(d, "opacity", 1.0),
            role=_str(d, "role", "visual"),
        )


@dataclass(frozen=True)
class ContactMaterialSpec:
    """Simbody's ContactMaterial: ``stiffness`` (Pa, a Young's-modulus-like pressure per unit
    strain), ``dissipation`` (s/m, Hunt-Crossley), friction coefficients (static >= dynamic
    >= 0) and ``viscous_friction`` (s/m)."""

    stiffness: float = 1e7
    dissipation: float = 0.5
    static_friction: float = 0.8
    dynamic_friction: float = 0.5
    viscous_friction: float = 0.0

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, d: dict | None) -> ContactMaterialSpec:
        d = d or {}
        base = cls()
        return cls(**{f.name: _num(d, f.name, getattr(base, f.name)) for f in fields(cls)})


@dataclass(frozen=True)
class ContactSurfaceSpec:
    """A contact surface fixed to a body (Simbody's ContactSurface): ``shape`` (one of
    CONTACT_SHAPES), its size ``params`` (``radius``, ``radii`` or ``half_lengths``, m), its
    frame ``X`` (X_BS in the body frame; a half space is the x > 0 side of S, with its
    surface the x = 0 plane), its ``material``, the contact ``cliques`` it joins (names;
    surfaces sharing a clique never touch each other), and how it is drawn (``show``,
    ``color`` RGB in [0, 1] or None for the default, ``opacity``)."""

    shape: str = "sphere"
    params: dict = field(default_factory=dict)
    X: FrameSpec = FrameSpec()
    material: ContactMaterialSpec = ContactMaterialSpec()
    cliques: tuple[str, ...] = ()
    show: bool = True
    color: Vec3 | None = None
    opacity: float = 1.0

    def to_dict(self) -> dict:
        d: dict[str, Any] = {"shape": self.shape, "params": _jsonable(self.params)}
        if not self.X.is_identity():
            d["X"] = self.X.to_dict()
        d["material"] = self.material.to_dict()
        if self.cliques:
            d["cliques"] = list(self.cliques)
        if not self.show:
            d["show"] = False
        if self.color is not None:
            d["color"] = list(self.color)
        if self.opacity != 1.0:
            d["opacity"] = self.opacity
        return d

    @classmethod
    def from_dict(cls, d: dict) -> ContactSurfaceSpec:
        cliques = _list(d, "cliques")
        for i, c in enumerate(cliques):
            if not isinstance(c, str):
                raise SpecError(f"cliques[{i}]", f"must be a clique name, got {_short(c)}")
        return cls(
            shape=_str(d, "shape", "sphere"),
            params=_tuplify(dict(_obj(d, "params"))),
            X=_sub(d, "X", FrameSpec.from_dict),
            material=_sub(d, "material", ContactMaterialSpec.from_dict),
            cliques=tuple(cliques),
            show=_bool(d, "show", True),
            color=_nums(d, "color", 3, optional=True),
            opacity=_num(d, "opacity", 1.0),
        )


@dataclass(frozen=True)
class ContactSettings:
    """The System's compliant contact settings (CompliantContactSubsystem):
    ``transition_velocity`` (m/s, the slip speed below which friction is treated as
    stiction) and whether the dissipated energy is tracked."""

    transition_velocity: float = 0.01
    track_dissipated_energy: bool = False

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, d: dict | None) -> ContactSettings:
        d = d or {}
        base = cls()
        return cls(
            transition_velocity=_num(d, "transition_velocity", base.transition_velocity),
            track_dissipated_energy=_bool(
                d, "track_dissipated_energy", base.track_dissipated_energy
            ),
        )


def ground_plane_frame(up: str) -> FrameSpec:
    """X_GS of a ground half space whose surface is the drawn floor (the plane through the
    origin perpendicular to ``up``) and which fills the space below it: S's +x (into the
    half space) points along -up."""
    quarter = 0.5 * 3.141592653589793
    rpy = {
        "+Y": (0.0, 0.0, -quarter),
        "-Y": (0.0, 0.0, quarter),
        "+X": (0.0, 0.0, 2.0 * quarter),
        "-X": (0.0, 0.0, 0.0),
        "+Z": (0.0, quarter, 0.0),
        "-Z": (0.0, -quarter, 0.0),
    }[up]
    return FrameSpec((0.0, 0.0, 0.0), rpy)


@dataclass(frozen=True)
class BodySpec:
    """A body, its mass properties (kg; mass centre ``com`` in B, m; ``inertia`` about Bo in B
    as (xx, yy, zz, xy, xz, yz), kg m^2), its geometry, and the mobilizer connecting it to
    ``parent`` (a body name or "Ground"): type name as Simbody's (``Pin``, ``Ball``...),
    constructor options (``mobilizer_params``, e.g. Screw's ``{"pitch": 0.1}``), the inboard
    frame X_PF on the parent and the outboard frame X_BM on the body, and initial q and u
    (None: the mobilizer's defaults)."""

    name: str
    parent: str = GROUND
    mobilizer: str = "Pin"
    mobilizer_params: dict = field(default_factory=dict)
    X_PF: FrameSpec = FrameSpec()
    X_BM: FrameSpec = FrameSpec()
    mass: float = 1.0
    com: Vec3 = (0.0, 0.0, 0.0)
    inertia: tuple[float, ...] = (1.0, 1.0, 1.0, 0.0, 0.0, 0.0)
    geometry: tuple[GeometrySpec, ...] = ()
    q: tuple[float, ...] | None = None
    u: tuple[float, ...] | None = None
    #: contact surfaces (file version 3)
    contact_surfaces: tuple[ContactSurfaceSpec, ...] = ()

    def to_dict(self) -> dict:
        d: dict[str, Any] = {
            "name": self.name,
            "parent": self.parent,
            "mobilizer": self.mobilizer,
        }
        if self.mobilizer_params:
            d["mobilizer_params"] = _jsonable(self.mobilizer_params)
        d["X_PF"] = self.X_PF.to_dict()
        d["X_BM"] = self.X_BM.to_dict()
        d["mass"] = self.mass
        d["com"] = list(self.com)
        d["inertia"] = list(self.inertia)
        d["geometry"] = [g.to_dict() for g in self.geometry]
        if self.q is not None:
            d["q"] = list(self.q)
        if self.u is not None:
            d["u"] = list(self.u)
        if self.contact_surfaces:
            d["contact_surfaces"] = [c.to_dict() for c in self.contact_surfaces]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> BodySpec:
        return cls(
            name=_str(d, "name"),
            parent=_str(d, "parent", GROUND),
            mobilizer=_str(d, "mobilizer", "Pin"),
            mobilizer_params=_tuplify(dict(_obj(d, "mobilizer_params"))),
            X_PF=_sub(d, "X_PF", FrameSpec.from_dict),
            X_BM=_sub(d, "X_BM", FrameSpec.from_dict),
            mass=_num(d, "mass", 1.0),
            com=_nums(d, "com", 3, (0.0, 0.0, 0.0)),
            inertia=_nums(d, "inertia", 6, (1.0, 1.0, 1.0, 0.0, 0.0, 0.0)),
            geometry=tuple(_items(d, "geometry", GeometrySpec.from_dict)),
            q=_nums(d, "q", None, optional=True),
            u=_nums(d, "u", None, optional=True),
            contact_surfaces=tuple(_items(d, "contact_surfaces", ContactSurfaceSpec.from_dict)),
        )


class _BodyReader:
    """BodySpec.from_dict for the bodies of one file, reading each distinct content once:
    bodies that differ only in ``name`` and ``parent`` (a chain's repeated link) share the
    first one's specs (immutable), and within the others each frame, geometry list, vector or
    option dict equal to one read before is that same spec, so a large generated model costs
    a serialization (marshal) and a look-up per repeated body or part. What is new is read in
    full, with the same messages."""

    #: parts read once per distinct value (the others are strings and numbers)
    _PARTS = {
        "mobilizer_params": lambda d: _tuplify(dict(_obj(d, "mobilizer_params"))),
        "X_PF": lambda d: _sub(d, "X_PF", FrameSpec.from_dict),
        "X_BM": lambda d: _sub(d, "X_BM", FrameSpec.from_dict),
        "geometry": lambda d: tuple(_items(d, "geometry", GeometrySpec.from_dict)),
        "q": lambda d: _nums(d, "q", None, optional=True),
        "u": lambda d: _nums(d, "u", None, optional=True),
        "contact_surfaces": lambda d: tuple(
            _items(d, "contact_surfaces", ContactSurfaceSpec.from_dict)
        ),
    }

    def __init__(self) -> None:
        self._read: dict[bytes, BodySpec] = {}
        self._parts: dict[tuple[str, bytes], Any] = {}

    def __call__(self, d: dict) -> BodySpec:
        try:
            # equal bytes only for equal content (types included: 1, 1.0 and True differ)
            key = marshal.dumps([[k, v] for k, v in d.items() if k != "name" and k != "parent"])
        except (TypeError, ValueError, RecursionError):  # not plain JSON values: read in full
            return BodySpec.from_dict(d)
        template = self._read.get(key)
        if template is None:
            body = self._read_new(d)
            self._read[key] = body
            return body
        body = object.__new__(BodySpec)
        fields_of = vars(body)
        fields_of.update(vars(template))
        fields_of["name"] = _str(d, "name")
        fields_of["parent"] = _str(d, "parent", GROUND)
        return body

    def _part(self, d: dict, key: str):
        """Field ``key`` of body dict ``d`` read as BodySpec.from_dict reads it, shared with
        the bodies read before whose value was equal (absent counts as a value)."""
        value = d.get(key)
        if value is None:
            memo = (key, None)
        elif type(value) is list or type(value) is dict:
            memo = (key, marshal.dumps(value))  # plain JSON: the whole body was marshalled
        else:
            return self._PARTS[key](d)  # the wrong type: refused with its message
        part = self._parts.get(memo, _MISSING)
        if part is _MISSING:
            part = self._PARTS[key](d)
            self._parts[memo] = part
        return part

    def _read_new(self, d: dict) -> BodySpec:
        """BodySpec.from_dict(d) (same fields, order of checks and messages)."""
        name = _str(d, "name")
        parent = _str(d, "parent", GROUND)
        mobilizer = _str(d, "mobilizer", "Pin")
        part = self._part
        mobilizer_params = part(d, "mobilizer_params")
        X_PF = part(d, "X_PF")  # noqa: N806  (Simbody's monogram names)
        X_BM = part(d, "X_BM")  # noqa: N806
        mass = d.get("mass")
        if type(mass) is not float:
            mass = _num(d, "mass", 1.0)
        com = d.get("com")
        if type(com) is list and len(com) == 3 and set(map(type, com)) <= _FLOAT:
            com = tuple(com)
        else:
            com = _nums(d, "com", 3, (0.0, 0.0, 0.0))
        inertia = d.get("inertia")
        if type(inertia) is list and len(inertia) == 6 and set(map(type, inertia)) <= _FLOAT:
            inertia = tuple(inertia)
        else:
            inertia = _nums(d, "inertia", 6, (1.0, 1.0, 1.0, 0.0, 0.0, 0.0))
        geometry = part(d, "geometry")
        q = part(d, "q")
        u = part(d, "u")
        contact_surfaces = part(d, "contact_surfaces")
        body = object.__new__(BodySpec)
        vars(body).update(
            name=name,
            parent=parent,
            mobilizer=mobilizer,
            mobilizer_params=mobilizer_params,
            X_PF=X_PF,
            X_BM=X_BM,
            mass=mass,
            com=com,
            inertia=inertia,
            geometry=geometry,
            q=q,
            u=u,
            contact_surfaces=contact_surfaces,
        )
        return body


_MISSING = object()


@dataclass(frozen=True)
class ElementSpec:
    """A constraint or force element: ``type`` as Simbody's (``Rod``, ``TwoPointLinearSpring``
    ...), an optional display ``name`` and its arguments by name (see the registry)."""

    type: str
    args: dict = field(default_factory=dict)
    name: str = ""

    def to_dict(self) -> dict:
        d: dict[str, Any] = {"type": self.type}
        if self.name:
            d["name"] = self.name
        d["args"] = _jsonable(self.args)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> ElementSpec:
        return cls(
            type=_str(d, "type"),
            args=_tuplify(dict(_obj(d, "args"))),
            name=_str(d, "name", ""),
        )

    def label(self) -> str:
        return self.name or self.type


@dataclass(frozen=True)
class Hints:
    """System hints: up direction ("+Y"...), uniform background instead of a ground plane,
    time scale (s) and length scale (m), and whether to draw the default model sketch."""

    up: str = "+Y"
    uniform_background: bool = False
    time_scale: float = 0.1
    length_scale: float = 1.0
    show_default_geometry: bool = True

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, d: dict | None) -> Hints:
        d = d or {}
        base = cls()
        return cls(
            up=_str(d, "up", base.up),
            uniform_background=_bool(d, "uniform_background", base.uniform_background),
            time_scale=_num(d, "time_scale", base.time_scale),
            length_scale=_num(d, "length_scale", base.length_scale),
            show_default_geometry=_bool(d, "show_default_geometry", base.show_default_geometry),
        )


@dataclass
class ModelData:
    """The whole content of a document (what is saved)."""

    name: str = "Untitled"
    bodies: list[BodySpec] = field(default_factory=list)
    ground_geometry: list[GeometrySpec] = field(default_factory=list)
    constraints: list[ElementSpec] = field(default_factory=list)
    forces: list[ElementSpec] = field(default_factory=list)
    hints: Hints = Hints()
    #: Measures (file version 2): ElementSpecs whose ``name`` is required and unique; an
    #: operand argument names an earlier measure (see ``app.document.measure_types``).
    measures: list[ElementSpec] = field(default_factory=list)
    #: Contact (file version 3): surfaces fixed to Ground and the System's contact settings.
    ground_contact_surfaces: list[ContactSurfaceSpec] = field(default_factory=list)
    contact: ContactSettings = ContactSettings()

    def copy(self) -> ModelData:
        # The specs are immutable, so copying the lists is a full copy.
        return ModelData(
            self.name,
            list(self.bodies),
            list(self.ground_geometry),
            list(self.constraints),
            list(self.forces),
            self.hints,
            list(self.measures),
            list(self.ground_contact_surfaces),
            self.contact,
        )

    def has_contact(self) -> bool:
        """True when the model has contact surfaces or contact settings (file version 3)."""
        return (
            bool(self.ground_contact_surfaces)
            or self.contact != ContactSettings()
            or any(b.contact_surfaces for b in self.bodies)
        )

    def contact_surfaces_of(self, body: str) -> list[ContactSurfaceSpec]:
        """The contact surfaces of ``body`` (or of Ground)."""
        if body == GROUND:
            return list(self.ground_contact_surfaces)
        return list(self.body(body).contact_surfaces)

    def to_dict(self) -> dict:
        d = {
            "name": self.name,
            "hints": self.hints.to_dict(),
            "ground_geometry": [g.to_dict() for g in self.ground_geometry],
            "bodies": [b.to_dict() for b in self.bodies],
            "constraints": [c.to_dict() for c in self.constraints],
            "forces": [f.to_dict() for f in self.forces],
        }
        if self.measures:
            d["measures"] = [m.to_dict() for m in self.measures]
        if self.ground_contact_surfaces:
            d["ground_contact_surfaces"] = [c.to_dict() for c in self.ground_contact_surfaces]
        if self.contact != ContactSettings():
            d["contact"] = self.contact.to_dict()
        return d

    @classmethod
    def from_dict(cls, d: dict) -> ModelData:
        return cls(
            name=_str(d, "name", "Untitled"),
            bodies=_items(d, "bodies", _BodyReader()),
            ground_geometry=_items(d, "ground_geometry", GeometrySpec.from_dict),
            constraints=_items(d, "constraints", ElementSpec.from_dict),
            forces=_items(d, "forces", ElementSpec.from_dict),
            hints=_sub(d, "hints", Hints.from_dict),
            measures=_items(d, "measures", ElementSpec.from_dict),
            ground_contact_surfaces=_items(
                d, "ground_contact_surfaces", ContactSurfaceSpec.from_dict
            ),
            contact=_sub(d, "contact", ContactSettings.from_dict),
        )

    def body(self, name: str) -> BodySpec:
        for b in self.bodies:
            if b.name == name:
                return b
        raise KeyError(name)

    def body_index(self, name: str) -> int:
        for i, b in enumerate(self.bodies):
            if b.name == name:
                return i
        raise KeyError(name)


def _jsonable(value):
    """Tuples to lists, recursively (JSON has only lists)."""
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, FrameSpec):
        return value.to_dict()
    return value


def _tuplify(value):
    """Lists to tuples, recursively, so specs stay hashable and immutable."""
    if isinstance(value, dict):
        return {k: _tuplify(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return tuple(_tuplify(v) for v in value)
    return value


__all__ = [
    "GROUND",
    "UP_DIRECTIONS",
    "BodySpec",
    "CONTACT_SHAPES",
    "CONTACT_SHAPE_DEFAULTS",
    "ContactMaterialSpec",
    "ContactSettings",
    "ContactSurfaceSpec",
    "ElementSpec",
    "FrameSpec",
    "GeometrySpec",
    "Hints",
    "ModelData",
    "SpecError",
    "replace",
    "ground_plane_frame",
    "vec3",
]
