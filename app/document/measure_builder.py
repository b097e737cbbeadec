"""Build a document's Measures into engine Measures of the System's default subsystem.

``build_measures(data, system, mobods) -> dict[name, Measure]`` in document order (an
operand is always built before the measures that use it). Engine refusals become
``BuildError`` naming the measure.
"""

from __future__ import annotations

import numpy as np

from app.document.measure_types import MEASURE_TYPES
from app.document.probes import PROBES
from app.document.specs import ModelData


def _make(type_name: str, ds, args: dict, built: dict, mobods: dict):
    from engine.measures import Measure

    def m(name: str):
        return built[args[name]]

    if type_name == "Time":
        return Measure.Time(ds)
    if type_name == "Constant":
        return Measure.Constant(ds, float(args["value"]))
    if type_name == "Sinusoid":
        return Measure.Sinusoid(
            ds, float(args["amplitude"]), float(args["frequency"]), float(args["phase"])
        )
    if type_name == "Integrate":
        ic = Measure.Constant(ds, float(args["initial"]))
        return Measure.Integrate(ds, m("derivative"), ic, float(args["initial"]))
    if type_name == "Differentiate":
        return Measure.Differentiate(ds, m("operand"))
    if type_name in ("Plus", "Minus"):
        return getattr(Measure, type_name)(ds, m("left"), m("right"))
    if type_name == "Scale":
        return Measure.Scale(ds, float(args["factor"]), m("operand"))
    if type_name in ("Minimum", "Maximum", "MinAbs", "MaxAbs"):
        return getattr(Measure, type_name)(ds, m("operand"))
    if type_name in ("StationHeight", "StationSpeed"):
        return PROBES[type_name](
            ds, mobods[args["body"]], np.asarray(args["station"], dtype=np.float64)
        )
    if type_name == "JointCoordinate":
        return PROBES[type_name](ds, mobods[args["body"]], int(args["which_q"]))
    if type_name == "JointSpeed":
        return PROBES[type_name](ds, mobods[args["body"]], int(args["which_u"]))
    raise KeyError(type_name)


def build_measures(data: ModelData, system, mobods: dict) -> dict:
    """The engine Measures of ``data.measures`` by name (see the module docstring)."""
    from app.document.builder import BuildError
    from engine.common.exceptions import SimTKError

    ds = system.updDefaultSubsystem()
    built: dict = {}
    for i, e in enumerate(data.measures):
        if e.type not in MEASURE_TYPES:
            raise BuildError(f"measure {i} ({e.label()})", f"unknown measure type {e.type!r}")
        try:
            built[e.name] = _make(e.type, ds, dict(e.args), built, mobods)
        except (SimTKError, ValueError, TypeError, KeyError, ArithmeticError) as exc:
            raise BuildError(f"measure {i} ({e.label()})", str(exc)) from exc
    return built
