"""What a document can contain, as data: mobilizer types, geometry kinds, constraint and force
types with their arguments.

Adding a constraint or force type the engine gained is one ``ElementType`` entry: the builder
calls ``Constraint.<engine_name>(*args)`` or ``Force.<engine_name>(forces, [matter,] *args)``
with the arguments in the order listed, converting each by its kind. Types the running engine
does not provide yet are listed but reported as unavailable (``is_available``).

Argument kinds: ``body`` (a body name or "Ground" -> MobilizedBody), ``vec3`` (3 floats, m or
N...), ``direction`` (non-zero 3-vector), ``real``, ``nonneg`` (>= 0), ``positive`` (> 0),
``index`` (a mobility number of the argument's ``of`` body), ``frame`` ({"p", "rpy"} ->
Transform), ``rotation`` ({"rpy"} -> Rotation), ``bool``, ``path`` (a file name; relative ones are
relative to the document's directory).

An element type with a ``switch`` argument (a ``bool``) is built with that argument left out of
the constructor call and is disabled by default when it is false. A type with a ``factory``
is built by calling it (with the same leading and user arguments) instead of the engine
attribute.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from engine.multibody.mobilizers.dispatch import MOBILIZER_MODULES
from engine.multibody.mobilizers.params import OPTION_NAMES


# -- mobilizers -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class MobilizerType:
    name: str
    nq: int  # q slots with default (quaternion) orientation coordinates
    nu: int
    options: tuple[str, ...]


MOBILIZER_TYPES: dict[str, MobilizerType] = {
    m.NAME: MobilizerType(m.NAME, int(m.NQ_SLOTS), int(m.NU), tuple(OPTION_NAMES.get(m.NAME, ())))
    for m in sorted(MOBILIZER_MODULES.values(), key=lambda m: m.NAME)
}

MOBILIZER_DEFAULT_OPTIONS: dict[str, dict] = {
    "Screw": {"pitch": 0.1},
    "Ellipsoid": {"radii": (0.5, 1.0 / 3.0, 0.25)},
}


# -- arguments ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Arg:
    name: str
    kind: str
    default: object = None
    of: str = ""  # for kind "index": the body argument whose mobilities it numbers
    unit: str = ""
    #: kept in the model and shown in the tree, not passed to the engine (an imported
    #: joint's effort limit, say); a file without it reads as its default
    info: bool = False


@dataclass(frozen=True)
class ElementType:
    """A constraint or force type: the engine attribute, the implicit leading arguments
    (``forces``/``matter``) and the user arguments in constructor order."""

    name: str
    args: tuple[Arg, ...]
    prefix: tuple[str, ...] = ()
    engine_name: str = ""
    doc: str = ""
    distinct_bodies: bool = True
    switch: str = ""  # a bool argument: False builds the element disabled by default
    factory: Callable | None = None  # builds the element instead of the engine attribute

    @property
    def attr(self) -> str:
        return self.engine_name or self.name

    def constructor_args(self) -> tuple[Arg, ...]:
        """The arguments passed to the constructor (all but the switch and the info)."""
        return tuple(a for a in self.args if a.name != self.switch and not a.info)

    def body_args(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.args if a.kind == "body")

    def default_args(self, bodies: tuple[str, ...] = ()) -> dict:
        """Default arguments, with the body arguments taken from ``bodies`` in order."""
        picked = iter(bodies)
        out = {}
        for a in self.args:
            if a.kind == "body":
                out[a.name] = next(picked, "Ground")
            else:
                out[a.name] = a.default
        return out


def _b(name: str) -> Arg:
    return Arg(name, "body")


def _v(name: str, default=(0.0, 0.0, 0.0), unit: str = "m") -> Arg:
    return Arg(name, "vec3", tuple(default), unit=unit)


IDENTITY_FRAME = {"p": (0.0, 0.0, 0.0), "rpy": (0.0, 0.0, 0.0)}


def _linear_coordinate_coupler(leader, leader_q, follower, follower_q, multiplier, offset):
    """Constraint.CoordinateCoupler keeping q_follower = multiplier * q_leader + offset (a URDF
    <mimic>): the function multiplier * x0 - x1 + offset is held at zero."""
    import engine
    from engine.math.function import Function

    coupling = Function.Linear([float(multiplier), -1.0, float(offset)])
    return engine.Constraint.CoordinateCoupler(
        leader.getMatterSubsystem(), coupling, [leader, follower], [int(leader_q), int(follower_q)]
    )


CONSTRAINT_TYPES: dict[str, ElementType] = {
    t.name: t
    for t in (
        ElementType(
            "Rod",
            (
                _b("body1"),
                _v("point1"),
                _b("body2"),
                _v("point2"),
                Arg("length", "positive", 1.0, unit="m"),
            ),
            doc="Keeps point1 on body1 and point2 on body2 a fixed distance apart.",
        ),
        ElementType(
            "Ball",
            (_b("body1"), _v("point1"), _b("body2"), _v("point2")),
            doc="Makes point1 on body1 and point2 on body2 coincide.",
        ),
        ElementType(
            "Weld",
            (
                _b("body1"),
                Arg("frame1", "frame", IDENTITY_FRAME),
                _b("body2"),
                Arg("frame2", "frame", IDENTITY_FRAME),
            ),
            doc="Makes frame1 on body1 and frame2 on body2 coincide.",
        ),
        ElementType(
            "PointInPlane",
            (
                _b("plane_body"),
                Arg("plane_normal", "direction", (0.0, 1.0, 0.0)),
                Arg("plane_height", "real", 0.0, unit="m"),
                _b("follower_body"),
                _v("follower_point"),
            ),
            doc="Keeps a point of the follower body in a plane fixed on the plane body.",
        ),
        ElementType(
            "PointOnLine",
            (
                _b("line_body"),
                Arg("line_direction", "direction", (1.0, 0.0, 0.0)),
                _v("point_on_line"),
                _b("follower_body"),
                _v("follower_point"),
            ),
            doc="Keeps a point of the follower body on a line fixed on the line body.",
        ),
        ElementType(
            "ConstantAngle",
            (
                _b("base_body"),
                Arg("base_axis", "direction", (1.0, 0.0, 0.0)),
                _b("follower_body"),
                Arg("follower_axis", "direction", (0.0, 1.0, 0.0)),
                Arg("angle", "real", math.pi / 2, unit="rad"),
            ),
            doc="Keeps the angle between an axis on each body constant.",
        ),
        ElementType(
            "ConstantOrientation",
            (
                _b("base_body"),
                Arg("base_rotation", "rotation", {"rpy": (0.0, 0.0, 0.0)}),
                _b("follower_body"),
                Arg("follower_rotation", "rotation", {"rpy": (0.0, 0.0, 0.0)}),
            ),
            doc="Keeps the relative orientation of two frames constant.",
        ),
        ElementType(
            "NoSlip1D",
            (
                _b("case_body"),
                _v("contact_point"),
                Arg("no_slip_direction", "direction", (1.0, 0.0, 0.0)),
                _b("body1"),
                _b("body2"),
            ),
            doc="Two bodies roll without slipping along a direction at a point of the case.",
        ),
        ElementType(
            "LinearCoordinateCoupler",
            (
                _b("leader"),
                Arg("leader_q", "index", 0, of="leader"),
                _b("follower"),
                Arg("follower_q", "index", 0, of="follower"),
                Arg("multiplier", "real", 1.0),
                Arg("offset", "real", 0.0),
            ),
            engine_name="CoordinateCoupler",
            factory=_linear_coordinate_coupler,
            doc="Keeps follower_q = multiplier * leader_q + offset (a URDF mimic joint).",
        ),
    )
}

FORCE_TYPES: dict[str, ElementType] = {
    t.name: t
    for t in (
        ElementType(
            "Gravity",
            (
                Arg("down", "direction", (0.0, -1.0, 0.0)),
                Arg("magnitude", "nonneg", 9.81, unit="m/s²"),
            ),
            prefix=("forces", "matter"),
            doc="Uniform gravity on every body.",
        ),
        ElementType(
            "UniformGravity",
            (_v("gravity", (0.0, -9.81, 0.0), unit="m/s²"),),
            prefix=("forces", "matter"),
            doc="Uniform gravity given as a vector.",
        ),
        ElementType(
            "GlobalDamper",
            (Arg("damping", "nonneg", 0.1, unit="N·m·s"),),
            prefix=("forces", "matter"),
            doc="Damping on every mobility.",
        ),
        ElementType(
            "TwoPointLinearSpring",
            (
                _b("body1"),
                _v("station1"),
                _b("body2"),
                _v("station2"),
                Arg("stiffness", "nonneg", 100.0, unit="N/m"),
                Arg("rest_length", "nonneg", 1.0, unit="m"),
            ),
            prefix=("forces",),
            doc="A linear spring between a point on each body.",
        ),
        ElementType(
            "TwoPointLinearDamper",
            (
                _b("body1"),
                _v("station1"),
                _b("body2"),
                _v("station2"),
                Arg("damping", "nonneg", 1.0, unit="N·s/m"),
            ),
            prefix=("forces",),
            doc="A linear damper between a point on each body.",
        ),
        ElementType(
            "TwoPointConstantForce",
            (
                _b("body1"),
                _v("station1"),
                _b("body2"),
                _v("station2"),
                Arg("force", "real", 1.0, unit="N"),
            ),
            prefix=("forces",),
            doc="A constant force along the line between a point on each body.",
        ),
        ElementType(
            "MobilityLinearSpring",
            (
                _b("body"),
                Arg("which_q", "index", 0, of="body"),
                Arg("stiffness", "nonneg", 10.0),
                Arg("q_zero", "real", 0.0),
            ),
            prefix=("forces",),
            doc="A linear spring on one generalized coordinate of a mobilizer.",
            distinct_bodies=False,
        ),
        ElementType(
            "MobilityLinearDamper",
            (_b("body"), Arg("which_u", "index", 0, of="body"), Arg("damping", "nonneg", 1.0)),
            prefix=("forces",),
            doc="A linear damper on one mobility of a mobilizer.",
            distinct_bodies=False,
        ),
        ElementType(
            "MobilityLinearStop",
            (
                _b("body"),
                Arg("which_q", "index", 0, of="body"),
                Arg("stiffness", "nonneg", 1e4),
                Arg("dissipation", "nonneg", 0.1),
                Arg("q_low", "real", -1.0),
                Arg("q_high", "real", 1.0),
                Arg("enabled", "bool", False),
                Arg("effort_limit", "nonneg", 0.0, info=True),
                Arg("velocity_limit", "nonneg", 0.0, info=True),
            ),
            prefix=("forces",),
            doc="A compliant stop keeping one coordinate in [q_low, q_high] (a joint limit); "
            "off unless enabled. The joint's effort limit (N m or N) and velocity limit "
            "(rad/s or m/s) are kept with it for reference (0: not given); the stop does not "
            "enforce them.",
            distinct_bodies=False,
            switch="enabled",
        ),
        ElementType(
            "MobilityConstantForce",
            (_b("body"), Arg("which_u", "index", 0, of="body"), Arg("force", "real", 1.0)),
            prefix=("forces",),
            doc="A constant generalized force on one mobility of a mobilizer.",
            distinct_bodies=False,
        ),
        ElementType(
            "ConstantForce",
            (_b("body"), _v("station"), _v("force", (0.0, 0.0, 0.0), unit="N")),
            prefix=("forces",),
            doc="A constant force (in Ground) at a point of a body.",
            distinct_bodies=False,
        ),
        ElementType(
            "ConstantTorque",
            (_b("body"), _v("torque", (0.0, 0.0, 0.0), unit="N·m")),
            prefix=("forces",),
            doc="A constant torque (in Ground) on a body.",
            distinct_bodies=False,
        ),
    )
}


# -- geometry -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GeometryKind:
    """A decoration kind: the engine class name and its constructor arguments in order."""

    name: str
    engine_class: str
    args: tuple[Arg, ...]


GEOMETRY_KINDS: dict[str, GeometryKind] = {
    k.name: k
    for k in (
        GeometryKind("sphere", "DecorativeSphere", (Arg("radius", "positive", 0.1, unit="m"),)),
        GeometryKind(
            "brick", "DecorativeBrick", (Arg("half_lengths", "vec3", (0.1, 0.1, 0.1), unit="m"),)
        ),
        GeometryKind(
            "cylinder",
            "DecorativeCylinder",
            (
                Arg("radius", "positive", 0.05, unit="m"),
                Arg("half_height", "positive", 0.2, unit="m"),
            ),
        ),
        GeometryKind(
            "ellipsoid", "DecorativeEllipsoid", (Arg("radii", "vec3", (0.2, 0.1, 0.05), unit="m"),)
        ),
        GeometryKind(
            "torus",
            "DecorativeTorus",
            (
                Arg("torus_radius", "positive", 0.2, unit="m"),
                Arg("tube_radius", "positive", 0.03, unit="m"),
            ),
        ),
        GeometryKind(
            "cone",
            "DecorativeCone",
            (
                _v("origin"),
                Arg("direction", "direction", (0.0, 0.0, 1.0)),
                Arg("height", "positive", 0.2, unit="m"),
                Arg("base_radius", "positive", 0.1, unit="m"),
            ),
        ),
        GeometryKind("frame", "DecorativeFrame", (Arg("axis_length", "positive", 0.2, unit="m"),)),
        GeometryKind("line", "DecorativeLine", (_v("point1"), _v("point2", (0.0, 0.1, 0.0)))),
        GeometryKind("point", "DecorativePoint", (_v("point"),)),
        GeometryKind("circle", "DecorativeCircle", (Arg("radius", "positive", 0.1, unit="m"),)),
        GeometryKind(
            "mesh",
            "DecorativeMeshFile",
            (Arg("file", "path", ""), Arg("scale", "vec3", (1.0, 1.0, 1.0))),
        ),
    )
}

#: What a GeometrySpec is for: drawn ("visual") or kept for contact ("collision", not drawn).
GEOMETRY_ROLES = ("visual", "collision")


def positive_vec3_kinds() -> set[tuple[str, str]]:
    """(kind, arg) pairs whose 3-vector must be strictly positive (sizes)."""
    return {("brick", "half_lengths"), ("ellipsoid", "radii")}


# -- engine lookup --------------------------------------------------------------------------------
def constraint_class():
    """The engine's ``Constraint`` class, or None while the engine has none."""
    import engine

    cls = getattr(engine, "Constraint", None)
    if cls is not None:
        return cls
    for module_name in ("engine.multibody.constraints", "engine.multibody.constraint"):
        try:
            module = __import__(module_name, fromlist=["Constraint"])
        except ImportError:
            continue
        cls = getattr(module, "Constraint", None)
        if cls is not None:
            return cls
    return None


def engine_factory(section: str, type_name: str):
    """The engine constructor of constraint or force type ``type_name``, or None."""
    if section == "constraints":
        owner = constraint_class()
        spec = CONSTRAINT_TYPES.get(type_name)
    else:
        from engine import Force

        owner = Force
        spec = FORCE_TYPES.get(type_name)
    if spec is not None and spec.factory is not None:
        return spec.factory
    if owner is None or spec is None:
        return None
    return getattr(owner, spec.attr, None)


def is_available(section: str, type_name: str) -> bool:
    if section == "measures":
        from app.document.measure_types import MEASURE_TYPES

        return type_name in MEASURE_TYPES
    return engine_factory(section, type_name) is not None


def element_types(section: str) -> dict[str, ElementType]:
    if section == "measures":
        from app.document.measure_types import MEASURE_TYPES

        return MEASURE_TYPES
    return CONSTRAINT_TYPES if section == "constraints" else FORCE_TYPES
