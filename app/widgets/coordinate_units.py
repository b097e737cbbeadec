"""What each generalized coordinate q and speed u of a mobilizer measures, for showing it with
its unit (see docs/conventions.md §3).

Kinds: ``"angle"`` (shown in degrees, stored in radians), ``"length"`` (m), ``"quat"`` (a
quaternion component, no unit), ``"rate"`` (angular speed, shown in deg/s, stored in rad/s),
``"speed"`` (m/s).
"""

from __future__ import annotations

import math

#: Mobilizers whose orientation is a quaternion (4 q slots) unless built with Euler angles.
QUATERNION_MOBILIZERS = {"Ball", "Ellipsoid", "LineOrientation", "Free", "FreeLine"}
_LINEAR_DISPLAY = {"angle": "deg", "length": "m", "quat": "", "rate": "deg/s", "speed": "m/s"}


def q_kinds(mobilizer: str, nq: int) -> list[str]:
    """The kind of each of the ``nq`` coordinates of a ``mobilizer``."""
    if mobilizer in QUATERNION_MOBILIZERS:
        orient = ["quat"] * 4 if nq in (4, 7) else ["angle"] * 3
        rest = nq - len(orient)
        return (orient + ["length"] * rest)[:nq]
    table = {
        "Pin": ["angle"],
        "Slider": ["length"],
        "Screw": ["angle"],
        "Universal": ["angle", "angle"],
        "Cylinder": ["angle", "length"],
        "BendStretch": ["angle", "length"],
        "Planar": ["angle", "length", "length"],
        "SphericalCoords": ["angle", "angle", "length"],
        "Gimbal": ["angle"] * 3,
        "Bushing": ["angle"] * 3 + ["length"] * 3,
        "Translation": ["length"] * 3,
    }
    kinds = table.get(mobilizer, ["angle"] * nq)
    return (kinds + ["angle"] * nq)[:nq]


#: Mobilizers whose length coordinates are the x, y (and z) components of the translation
#: p_FM of the mobilizer's M frame from F, expressed in F (Simbody's order).
_TRANSLATION_MOBILIZERS = {"Free", "FreeLine", "Bushing", "Translation", "Planar"}


def q_label(mobilizer: str, nq: int, which: int) -> str:
    """The label of coordinate ``which`` of a ``mobilizer`` with ``nq`` coordinates, with
    its unit: "x (m)", "y (m)", "z (m)" for the components of a translation p_FM (in F),
    else "q<which> (<unit>)"."""
    kinds = q_kinds(mobilizer, nq)
    kind = kinds[which]
    if mobilizer in _TRANSLATION_MOBILIZERS and kind == "length":
        lengths = [k for k, kd in enumerate(kinds) if kd == "length"]
        return f"{'xyz'[lengths.index(which)]} ({unit(kind)})"
    return f"q{which} ({unit(kind)})"


def u_kinds(mobilizer: str, nu: int) -> list[str]:
    """The kind of each of the ``nu`` speeds of a ``mobilizer``."""
    if mobilizer in ("Free", "FreeLine"):
        n_rot = 3 if mobilizer == "Free" else 2
        return (["rate"] * n_rot + ["speed"] * 3)[:nu]
    if mobilizer in QUATERNION_MOBILIZERS:
        return ["rate"] * nu
    rates = {"angle": "rate", "length": "speed", "quat": "rate"}
    return [rates[k] for k in q_kinds(mobilizer, nu)]


def unit(kind: str) -> str:
    """The unit a value of ``kind`` is shown in ('' for a quaternion component)."""
    return _LINEAR_DISPLAY[kind]


def to_display(kind: str, value: float) -> float:
    """SI (rad, rad/s, m) to the unit shown (deg, deg/s, m)."""
    return math.degrees(value) if kind in ("angle", "rate") else value


def from_display(kind: str, value: float) -> float:
    """The unit shown back to SI."""
    return math.radians(value) if kind in ("angle", "rate") else value


def units_label(kinds: list[str]) -> str:
    """'deg', 'deg, m, m', 'quaternion w, x, y, z; m, m, m' ... for a field's label."""
    if not kinds:
        return "none"
    parts = []
    if kinds[:4] == ["quat"] * 4:
        parts.append("quaternion w, x, y, z")
        kinds = kinds[4:]
    if kinds:
        shown = [unit(k) for k in kinds]
        parts.append(shown[0] if len(set(shown)) == 1 else ", ".join(shown))
    return "; ".join(parts)
