"""The Measures a document can hold, as data (like the constraint and force registry).

Each entry is an ``ElementType``: its arguments in order, converted by kind as in
``registry`` plus kind ``measure`` (the name of another measure of the document, defined
earlier in the list, so there are no cycles). ``app.document.measure_builder`` turns a spec
into an engine ``Measure`` in the System's default subsystem.

Engine measures: Time, Constant, Sinusoid (a sin(w t + p)), Integrate (of another measure,
starting at ``initial``), Differentiate, Plus, Minus, Scale, Minimum, Maximum, MinAbs,
MaxAbs. Probes (``app.document.probes``): a station's height along the System's up
direction, a station's speed, one generalized coordinate q or speed u of a mobilizer.
"""

from __future__ import annotations

from app.document.registry import Arg, ElementType


def _m(name: str) -> Arg:
    return Arg(name, "measure", "")


def _r(name: str, default: float = 0.0, unit: str = "") -> Arg:
    return Arg(name, "real", default, unit=unit)


_EXTREMES = {
    "Minimum": "The smallest value the operand has taken during the run.",
    "Maximum": "The largest value the operand has taken during the run.",
    "MinAbs": "The operand's value of smallest magnitude during the run.",
    "MaxAbs": "The operand's value of largest magnitude during the run.",
}

MEASURE_TYPES: dict[str, ElementType] = {
    t.name: t
    for t in (
        ElementType("Time", (), doc="The simulated time t (s)."),
        ElementType("Constant", (_r("value", 1.0),), doc="A constant value."),
        ElementType(
            "Sinusoid",
            (_r("amplitude", 1.0), _r("frequency", 1.0, "rad/s"), _r("phase", 0.0, "rad")),
            doc="amplitude · sin(frequency · t + phase).",
        ),
        ElementType(
            "Integrate",
            (_m("derivative"), _r("initial", 0.0)),
            doc="The time integral of another measure, starting at 'initial' when a run starts.",
        ),
        ElementType("Differentiate", (_m("operand"),), doc="The time derivative of a measure."),
        ElementType("Plus", (_m("left"), _m("right")), doc="left + right."),
        ElementType("Minus", (_m("left"), _m("right")), doc="left − right."),
        ElementType("Scale", (_r("factor", 1.0), _m("operand")), doc="factor · operand."),
        *(ElementType(name, (_m("operand"),), doc=doc) for name, doc in _EXTREMES.items()),
        ElementType(
            "StationHeight",
            (Arg("body", "body"), Arg("station", "vec3", (0.0, 0.0, 0.0), unit="m")),
            doc="Height (m) of a point of a body along the System's up direction.",
            distinct_bodies=False,
        ),
        ElementType(
            "StationSpeed",
            (Arg("body", "body"), Arg("station", "vec3", (0.0, 0.0, 0.0), unit="m")),
            doc="Speed (m/s) of a point of a body in Ground.",
            distinct_bodies=False,
        ),
        ElementType(
            "JointCoordinate",
            (Arg("body", "body"), Arg("which_q", "index", 0, of="body")),
            doc="One generalized coordinate q of a body's mobilizer (a joint angle in rad).",
            distinct_bodies=False,
        ),
        ElementType(
            "JointSpeed",
            (Arg("body", "body"), Arg("which_u", "index", 0, of="body")),
            doc="One generalized speed u of a body's mobilizer.",
            distinct_bodies=False,
        ),
    )
}


def measure_args(spec: ElementType) -> tuple[str, ...]:
    """Names of the arguments of ``spec`` that name another measure."""
    return tuple(a.name for a in spec.args if a.kind == "measure")


def default_measure_args(type_name: str, bodies: tuple[str, ...], measures: list[str]) -> dict:
    """Default arguments: bodies from ``bodies`` (else the first body), operands the last
    measures defined (the most recently added first)."""
    spec = MEASURE_TYPES[type_name]
    args = spec.default_args(bodies)
    operands = list(reversed(measures))
    for k, name in enumerate(measure_args(spec)):
        args[name] = operands[k % len(operands)] if operands else ""
    return args
