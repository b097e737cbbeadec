# ruff: noqa: N806  (monogram names: X_LG)
"""URDF <visual> and <collision> geometry to the document's GeometrySpecs.

box -> brick (half the size), sphere -> sphere, cylinder -> cylinder (URDF cylinders lie along
z, DecorativeCylinder along y: a +90 degree rotation about x), mesh -> ``mesh`` with the file
resolved to an absolute path and the URDF's scale. The colour is the visual's material (inline
or a robot-level material by name). A mesh file that cannot be found becomes a small magenta
sphere and a finding naming the file and the places searched. A negative scale (a mirrored
mesh, as in left/right limbs sharing one file) is kept.
"""

from __future__ import annotations

import numpy as np

from app.document.specs import GeometrySpec
from app.importers.urdf.errors import Finding
from app.importers.urdf.frames import frame_spec
from app.importers.urdf.packages import PackageResolver

PLACEHOLDER_RADIUS = 0.02  # m
PLACEHOLDER_COLOR = (1.0, 0.0, 1.0)

_RX90 = np.array([[1, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 0], [0, 0, 0, 1]], dtype=np.float64)


def _origin(item) -> np.ndarray:
    return np.eye(4) if item.origin is None else np.asarray(item.origin, dtype=np.float64)


def _color(visual, materials: dict):
    material = getattr(visual, "material", None)
    if material is None:
        return None, 1.0
    color = material.color
    if color is None and material.name in materials:
        color = materials[material.name].color
    if color is None or color.rgba is None:
        return None, 1.0
    rgba = np.clip(np.asarray(color.rgba, dtype=np.float64), 0.0, 1.0)
    return tuple(float(v) for v in rgba[:3]), float(rgba[3])


def convert(
    item,
    role: str,
    link: str,
    line: int,
    resolver: PackageResolver,
    materials: dict,
    findings: list[Finding],
) -> GeometrySpec | None:
    """The GeometrySpec of one URDF visual or collision of ``link`` (None: nothing to draw)."""
    X_LG = _origin(item)
    color, opacity = _color(item, materials) if role == "visual" else (None, 1.0)
    g = item.geometry
    what = f"link {link!r} {role}"
    if g is None:
        return None
    if g.box is not None:
        size = np.abs(np.asarray(g.box.size, dtype=np.float64))
        params = {"half_lengths": tuple(float(v) for v in np.maximum(size / 2, 1e-9))}
        return GeometrySpec("brick", params, frame_spec(X_LG), color, opacity, role)
    if g.sphere is not None:
        params = {"radius": max(float(g.sphere.radius), 1e-9)}
        return GeometrySpec("sphere", params, frame_spec(X_LG), color, opacity, role)
    if g.cylinder is not None:
        params = {
            "radius": max(float(g.cylinder.radius), 1e-9),
            "half_height": max(float(g.cylinder.length) / 2, 1e-9),
        }
        return GeometrySpec("cylinder", params, frame_spec(X_LG @ _RX90), color, opacity, role)
    if g.mesh is not None:
        path, searched = resolver.resolve(g.mesh.filename)
        if path is None:
            findings.append(
                Finding(
                    what,
                    f"mesh file {g.mesh.filename!r} not found (looked in "
                    + ", ".join(str(p) for p in searched[:6])
                    + (", ..." if len(searched) > 6 else "")
                    + "); a placeholder sphere stands in for it",
                    line,
                )
            )
            return GeometrySpec(
                "sphere",
                {"radius": PLACEHOLDER_RADIUS},
                frame_spec(X_LG),
                PLACEHOLDER_COLOR,
                1.0,
                role,
            )
        scale = np.ones(3) if g.mesh.scale is None else np.asarray(g.mesh.scale, dtype=float)
        scale = np.broadcast_to(scale.reshape(-1), (3,)).copy() if scale.size in (1, 3) else None
        if scale is None or np.any(scale == 0):
            findings.append(Finding(what, f"mesh scale {g.mesh.scale!r} is not usable; 1 used"))
            scale = np.ones(3)
        params = {"file": str(path), "scale": tuple(float(v) for v in scale)}
        return GeometrySpec("mesh", params, frame_spec(X_LG), color, opacity, role)
    return None
