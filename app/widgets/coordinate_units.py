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


#: What each (non-quaternion) coordinate of a mobilizer is, in Simbody's order: a short name
#: for the Joints row and a description (frames F and M of the mobilizer) for its tooltip.
#: Rotations are named by their axis ("z angle"), translations by their direction.
_COORDINATES: dict[str, list[tuple[str, str]]] = {
    "Pin": [("z angle", "rotation angle about the common z axis of F and M")],
    "Slider": [("x", "displacement of M along F's x axis")],
    "Screw": [("z angle", "rotation angle about z (M also advances along z by pitch x angle)")],
    "Universal": [
        ("x angle", "rotation angle about F's x axis"),
        ("y angle", "rotation angle about the rotated y axis"),
    ],
    "Cylinder": [
        ("z angle", "rotation angle about the common z axis"),
        ("z", "displacement along the common z axis"),
    ],
    "BendStretch": [
        ("z angle", "rotation angle about F's z axis"),
        ("stretch", "displacement along M's x axis"),
    ],
    "Planar": [
        ("z angle", "rotation angle about the common z axis"),
        ("x", "x component of the translation p_FM in F"),
        ("y", "y component of the translation p_FM in F"),
    ],
    "SphericalCoords": [
        ("azimuth", "azimuth angle about F's z axis"),
        ("zenith", "zenith angle about the rotated y axis"),
        ("radius", "displacement along the radial axis of M"),
    ],
}
_XYZ_ANGLES = [(f"{a} angle", f"body-fixed {a} angle of the x-y-z sequence") for a in "xyz"]
_XYZ_SHIFTS = [(a, f"{a} component of the translation p_FM in F") for a in "xyz"]
for _name in ("Gimbal", "Ball", "Ellipsoid", "LineOrientation"):
    _COORDINATES[_name] = _XYZ_ANGLES
for _name in ("Bushing", "Free", "FreeLine"):
    _COORDINATES[_name] = _XYZ_ANGLES + _XYZ_SHIFTS
_COORDINATES["Translation"] = _XYZ_SHIFTS


def _coordinate(mobilizer: str, nq: int, which: int) -> tuple[str, str] | None:
    """(name, description) of coordinate ``which`` of a ``mobilizer`` with ``nq`` coordinates,
    or None when it has no name (a quaternion component, an unknown mobilizer)."""
    kinds = q_kinds(mobilizer, nq)
    if kinds[which] == "quat":
        return None
    named = _COORDINATES.get(mobilizer)
    if named is None:
        return None
    position = sum(k != "quat" for k in kinds[:which])  # the quaternion has no names
    if mobilizer in QUATERNION_MOBILIZERS and kinds[:1] == ["quat"]:
        position += len(named) - sum(k != "quat" for k in kinds)  # names after the angles
    return named[position] if 0 <= position < len(named) else None


def q_label(mobilizer: str, nq: int, which: int) -> str:
    """The label of coordinate ``which`` of a ``mobilizer`` with ``nq`` coordinates, with
    its unit: what it is ("z angle (deg)" for a Pin, "x (m)" for a translation's component),
    else "q<which> (<unit>)"."""
    kind = q_kinds(mobilizer, nq)[which]
    named = _coordinate(mobilizer, nq, which)
    name = named[0] if named is not None else f"q{which}"
    return f"{name} ({unit(kind)})" if unit(kind) else name


def q_tooltip(mobilizer: str, nq: int, which: int) -> str:
    """What coordinate ``which`` of a ``mobilizer`` is, with its index q<which> and unit."""
    kind = q_kinds(mobilizer, nq)[which]
    named = _coordinate(mobilizer, nq, which)
    what = f", the {named[1]}" if named is not None else ""
    return f"q{which}{what}" + (f" ({unit(kind)})" if unit(kind) else "")


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
