# ruff: noqa: N803, N806  (monogram names: X_LG)
"""Contact surfaces from an imported robot's <collision> geometry (``import --contact``).

Each collision geometry the import kept (role "collision") becomes a contact surface of its
body at the same place: box -> brick, sphere -> sphere, cylinder -> cylinder (Simbody's
ContactGeometry.Cylinder is infinitely long and no contact tracker handles it: it touches
nothing, and the report says so), mesh -> mesh (its convex hull when the mesh is not closed).
All the robot's surfaces join one clique ("robot"), so overlapping neighbouring links do not
push each other apart; a ground contact plane (the drawn floor) is added for them to land on.
Every surface gets the same ``material`` (the default ContactMaterialSpec unless given).
"""

from __future__ import annotations

import numpy as np

from app.document.specs import (
    ContactMaterialSpec,
    ContactSurfaceSpec,
    ModelData,
    ground_plane_frame,
    replace,
)
from app.importers.urdf.errors import Finding
from app.importers.urdf.frames import frame_spec

#: the clique every contact surface of an imported robot joins
ROBOT_CLIQUE = "robot"

#: the import's cylinders (DecorativeCylinder) lie along y; ContactGeometry.Cylinder along z:
#: X_GS = X_GD * Rx(-90 degrees) turns the contact cylinder's z onto the drawn one's y
_RX_MINUS_90 = np.array([[1, 0, 0, 0], [0, 0, 1, 0], [0, -1, 0, 0], [0, 0, 0, 1]], dtype=float)


def _matrix(X) -> np.ndarray:
    """The 4x4 transform of a FrameSpec (body-fixed x-y-z angles)."""
    a, b, c = X.rpy

    def rot(axis: int, t: float) -> np.ndarray:
        R = np.eye(3)
        i, j = [k for k in range(3) if k != axis]
        R[i, i] = R[j, j] = np.cos(t)
        R[i, j], R[j, i] = -np.sin(t), np.sin(t)
        return R

    M = np.eye(4)
    M[:3, :3] = rot(0, a) @ rot(1, b) @ rot(2, c)
    M[:3, 3] = X.p
    return M


def _surface(g, material: ContactMaterialSpec, what: str, notes: list[Finding]):
    from app.document.contact_builder import ContactMeshError, contact_mesh
    from app.importers.urdf.geometry import PLACEHOLDER_COLOR

    cliques = (ROBOT_CLIQUE,)
    if g.kind == "brick":
        return ContactSurfaceSpec("brick", dict(g.params), g.X, material, cliques)
    if g.kind == "sphere":
        if g.color == PLACEHOLDER_COLOR:  # stands in for a missing mesh (already reported)
            notes.append(Finding(what, "its mesh file is missing: no contact surface"))
            return None
        return ContactSurfaceSpec("sphere", dict(g.params), g.X, material, cliques)
    if g.kind == "cylinder":
        notes.append(
            Finding(
                what,
                "cylinder became a contact Cylinder, which Simbody has no contact tracker "
                "for (and which is infinitely long): it touches nothing",
            )
        )
        X = frame_spec(_matrix(g.X) @ _RX_MINUS_90)
        return ContactSurfaceSpec("cylinder", {"radius": g.params["radius"]}, X, material, cliques)
    if g.kind == "mesh":
        params = {"file": g.params["file"], "scale": g.params["scale"], "convex_hull": False}
        c = ContactSurfaceSpec("mesh", params, g.X, material, cliques)
        try:
            contact_mesh(c)
            return c
        except (ContactMeshError, ValueError) as exc:
            if getattr(exc, "field", "") == "file":
                notes.append(Finding(what, f"no contact surface: {exc}"))
                return None
        hull = replace(c, params={**params, "convex_hull": True})
        try:
            contact_mesh(hull)
        except ValueError as exc:
            notes.append(Finding(what, f"mesh is not closed and has no convex hull: {exc}"))
            return None
        notes.append(Finding(what, "mesh is not closed: its convex hull is the contact surface"))
        return hull
    return None


def add_collision_contact(
    data: ModelData, material: ContactMaterialSpec | None = None
) -> tuple[ModelData, list[Finding]]:
    """A copy of imported ``data`` with contact surfaces made of its collision geometry and a
    ground contact plane, and notes for the import report (cylinders, convex hulls, meshes
    skipped)."""
    material = material if material is not None else ContactMaterialSpec()
    notes: list[Finding] = []
    out = data.copy()
    bodies = []
    for b in out.bodies:
        surfaces = list(b.contact_surfaces)
        collisions = [g for g in b.geometry if g.role == "collision"]
        for k, g in enumerate(collisions):
            c = _surface(g, material, f"link {b.name!r} collision {k + 1}", notes)
            if c is not None:
                surfaces.append(c)
        bodies.append(replace(b, contact_surfaces=tuple(surfaces)))
    out.bodies = bodies
    plane = ContactSurfaceSpec("halfspace", {}, ground_plane_frame(out.hints.up), material)
    out.ground_contact_surfaces = [*out.ground_contact_surfaces, plane]
    return out, notes
