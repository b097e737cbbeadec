"""Pack each mobilizer type's constructor options into its float64[NUM_PARAMS] params vector.

Every mobilizer kernel takes a ``params`` vector of NUM_PARAMS float64 (unused entries 0).
Only three types read it; for every other type it is all zeros. Layouts:

=================  ==================================================================
Type               params
=================  ==================================================================
Screw              [0] pitch (translation along Fz per radian of rotation about Fz)
SphericalCoords    [0] azimuth offset az0 (rad)     [1] 1 if the azimuth is negated else 0
                   [2] zenith offset ze0 (rad)      [3] 1 if the zenith is negated else 0
                   [4] 1 if the radial axis is Mx, 0 if it is Mz (default)
                   [5] 1 if the radius is negated else 0
                   (all zeros = Simbody's default SphericalCoords)
Ellipsoid          [0:3] semi-axes (a, b, c) along Fx, Fy, Fz
=================  ==================================================================

``params_for(name, options)`` builds the vector from a mobilizer type name and an options
mapping shaped like the reference JSON's ``mobilizer_params`` (``{"pitch": ...}``,
``{"radii": [a, b, c]}``, ``{"azimuth_offset": ..., "azimuth_negated": ..., ...}``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

NUM_PARAMS = 8

# Indices into the params vector.
SCREW_PITCH = 0
SPHERICAL_AZIMUTH_OFFSET = 0
SPHERICAL_AZIMUTH_NEGATED = 1
SPHERICAL_ZENITH_OFFSET = 2
SPHERICAL_ZENITH_NEGATED = 3
SPHERICAL_RADIAL_AXIS_IS_X = 4
SPHERICAL_RADIAL_NEGATED = 5
ELLIPSOID_RADII = slice(0, 3)
#: Simbody's default semi-axes of MobilizedBody::Ellipsoid when no radii are given
DEFAULT_ELLIPSOID_RADII = (0.5, 1.0 / 3.0, 0.25)


def empty_params() -> np.ndarray:
    """The all-zero params vector (every type without options; default SphericalCoords)."""
    return np.zeros(NUM_PARAMS)


def screw_params(pitch: float) -> np.ndarray:
    """Screw: ``pitch`` = translation along z per radian of rotation (may be negative)."""
    out = empty_params()
    out[SCREW_PITCH] = float(pitch)
    return out


def _axis_is_x(radial_axis) -> bool:
    """Accept a CoordinateAxis (XAxis/ZAxis, as Simbody's signature), 'x'/'z' (any case,
    optionally 'XAxis'/'ZAxis') or the axis index 0/2."""
    from engine.math.coordinate_axis import CoordinateAxis, CoordinateDirection

    if isinstance(radial_axis, CoordinateDirection) and radial_axis.getDirection() > 0:
        radial_axis = radial_axis.getAxis()
    if isinstance(radial_axis, CoordinateAxis):
        radial_axis = int(radial_axis)
    if isinstance(radial_axis, str):
        key = radial_axis.strip().lower()
        if key in ("x", "xaxis", "mx"):
            return True
        if key in ("z", "zaxis", "mz"):
            return False
    elif not isinstance(radial_axis, bool) and radial_axis in (0, 2):
        return radial_axis == 0
    raise ValueError(f"SphericalCoords radial axis must be x or z, got {radial_axis!r}")


def spherical_coords_params(
    azimuth_offset: float = 0.0,
    azimuth_negated: bool = False,
    zenith_offset: float = 0.0,
    zenith_negated: bool = False,
    radial_axis="z",
    radial_negated: bool = False,
) -> np.ndarray:
    """SphericalCoords, with Simbody's constructor options in Simbody's order.

    az = s0 q0 + azimuth_offset, ze = s1 q1 + zenith_offset, radius = s2 q2 along the chosen
    axis of M (x or z), where s_i = -1 for a negated coordinate, else +1.
    """
    out = empty_params()
    out[SPHERICAL_AZIMUTH_OFFSET] = float(azimuth_offset)
    out[SPHERICAL_AZIMUTH_NEGATED] = 1.0 if azimuth_negated else 0.0
    out[SPHERICAL_ZENITH_OFFSET] = float(zenith_offset)
    out[SPHERICAL_ZENITH_NEGATED] = 1.0 if zenith_negated else 0.0
    out[SPHERICAL_RADIAL_AXIS_IS_X] = 1.0 if _axis_is_x(radial_axis) else 0.0
    out[SPHERICAL_RADIAL_NEGATED] = 1.0 if radial_negated else 0.0
    return out


def ellipsoid_params(radii: Sequence[float]) -> np.ndarray:
    """Ellipsoid: semi-axis lengths (a, b, c) along Fx, Fy, Fz."""
    r = np.asarray(radii, dtype=np.float64).reshape(-1)
    if r.shape != (3,):
        raise ValueError(f"Ellipsoid radii must have 3 entries, got {r.shape[0]}")
    out = empty_params()
    out[ELLIPSOID_RADII] = r
    return out


OPTION_NAMES = {
    "Screw": ("pitch",),
    "SphericalCoords": (
        "azimuth_offset",
        "azimuth_negated",
        "zenith_offset",
        "zenith_negated",
        "radial_axis",
        "radial_negated",
    ),
    "Ellipsoid": ("radii",),
}


def params_for(name: str, options: Mapping | None = None) -> np.ndarray:
    """The params vector for mobilizer type ``name`` (e.g. "Screw") with ``options``.

    ``options`` uses the keyword names of the helpers above (the reference JSON's
    ``mobilizer_params``); a type without options accepts only an empty mapping. Screw needs
    ``pitch``; Ellipsoid ``radii`` and the SphericalCoords options default to Simbody's.
    """
    options = dict(options or {})
    allowed = OPTION_NAMES.get(name, ())
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(f"unknown option(s) {unknown} for mobilizer {name!r}")
    if name == "Screw":
        if "pitch" not in options:
            raise ValueError("Screw needs a pitch")
        return screw_params(options["pitch"])
    if name == "SphericalCoords":
        return spherical_coords_params(**options)
    if name == "Ellipsoid":
        return ellipsoid_params(options.get("radii", DEFAULT_ELLIPSOID_RADII))
    return empty_params()
