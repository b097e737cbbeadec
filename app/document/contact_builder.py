# ruff: noqa: N806  (Simbody monogram names: X_BS)
"""Build a document's contact: ContactSurfaces on the bodies, and the System's
ContactTrackerSubsystem and CompliantContactSubsystem.

``add_contact_surfaces(data, mobods, draw_ground_half_spaces)`` adds every surface of the
document to its body (Ground's first, then the bodies in document order, each body's in its
own order) and the decorations of the surfaces shown; ``add_contact_subsystems(data, system)``
creates the two subsystems when the model has any surface. Clique names become one
``ContactSurface.createNewContactClique()`` each. Engine refusals become ``BuildError``s naming
the body and surface.
"""

from __future__ import annotations

import threading

import numpy as np

from app.document.specs import GROUND, ContactSurfaceSpec, ModelData

#: colour of a contact surface drawn with no colour of its own
DEFAULT_CONTACT_COLOR = (0.95, 0.75, 0.2)


def contact_api_missing() -> str:
    """The names this engine lacks for building contact ("" when it has them all)."""
    import engine

    needed = (
        "ContactGeometry",
        "ContactMaterial",
        "ContactSurface",
        "ContactTrackerSubsystem",
        "CompliantContactSubsystem",
    )
    return ", ".join(n for n in needed if not hasattr(engine, n))


_meshes: dict[tuple, tuple] = {}
_mesh_lock = threading.Lock()

#: what a mesh contact surface that is not closed is told
NOT_CLOSED = "is not closed; use its convex hull"


class ContactMeshError(ValueError):
    """A mesh contact surface's file cannot be used: ``field`` is "file" (missing,
    unreadable, no file chosen) or "convex_hull" (the mesh is not closed)."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(message)


def contact_mesh(c: ContactSurfaceSpec, base_dir=None):
    """The ContactGeometry.TriangleMesh of mesh surface ``c``: its file (relative names start
    at ``base_dir``) read with trimesh (coincident vertices merged), scaled (a mirroring scale
    turns the faces back outward), or its convex hull when ``convex_hull`` is set. Cached per
    file version, scale and hull flag; raises ContactMeshError saying why it cannot."""
    from app.document.mesh_cache import resolve
    from engine import ContactGeometry

    file = str(c.params.get("file", ""))
    if not file.strip():
        raise ContactMeshError("file", "no mesh file chosen")
    path = resolve(file, base_dir)
    try:
        st = path.stat()
    except OSError:
        raise ContactMeshError("file", f"{file}: no such file") from None
    scale = tuple(float(v) for v in c.params.get("scale", (1.0, 1.0, 1.0)))
    hull = bool(c.params.get("convex_hull", False))
    key = (str(path), st.st_mtime_ns, st.st_size, scale, hull)
    with _mesh_lock:
        cached = _meshes.get(key)
    if cached is None:
        cached = _read_mesh(path, file, np.asarray(scale), hull)
        with _mesh_lock:
            _meshes[key] = cached
    vertices, faces = cached
    return ContactGeometry.TriangleMesh(vertices, faces)


def _read_mesh(path, file: str, scale: np.ndarray, hull: bool) -> tuple:
    import trimesh

    try:
        mesh = trimesh.load(str(path), force="mesh", process=True)
    except Exception as exc:  # noqa: BLE001  (every reader failure means: cannot be read)
        raise ContactMeshError("file", f"{file}: cannot be read as a mesh ({exc})") from None
    if len(getattr(mesh, "faces", ())) == 0:
        raise ContactMeshError("file", f"{file}: has no triangles")
    vertices = np.asarray(mesh.vertices, dtype=np.float64) * scale
    faces = np.asarray(mesh.faces, dtype=np.int64)
    if np.prod(np.sign(scale)) < 0:  # a reflection turns faces inside out
        faces = faces[:, ::-1]
    if hull:
        try:
            h = trimesh.Trimesh(vertices, faces, process=True).convex_hull
        except Exception as exc:  # noqa: BLE001  (qhull refuses flat or tiny point sets)
            raise ContactMeshError("convex_hull", f"no convex hull: {exc}") from None
        return np.asarray(h.vertices, dtype=np.float64), np.asarray(h.faces, dtype=np.int64)
    if not trimesh.Trimesh(vertices, faces, process=False).is_watertight:
        raise ContactMeshError("convex_hull", f"{file} {NOT_CLOSED}")
    return vertices, faces


def check_contact_mesh(c: ContactSurfaceSpec, field: str, target: str, base_dir=None) -> None:
    """Refuse (DocumentError on ``field``.file or .convex_hull) a mesh surface whose file is
    missing, unreadable or not closed (unless its convex hull is used)."""
    from app.document.validation import DocumentError
    from engine.common.exceptions import SimTKError

    try:
        contact_mesh(c, base_dir)
    except ContactMeshError as exc:
        raise DocumentError(f"{field}.{exc.field}", exc.message, target) from None
    except SimTKError as exc:
        name = "convex_hull" if "not closed" in str(exc) else "file"
        raise DocumentError(f"{field}.{name}", str(exc), target) from None


def contact_geometry(c: ContactSurfaceSpec, base_dir=None):
    """The engine ContactGeometry of a surface spec (in its frame S)."""
    from engine import ContactGeometry

    if c.shape == "mesh":
        return contact_mesh(c, base_dir)
    if c.shape == "cylinder":
        return ContactGeometry.Cylinder(float(c.params["radius"]))

    if c.shape == "halfspace":
        return ContactGeometry.HalfSpace()
    if c.shape == "sphere":
        return ContactGeometry.Sphere(float(c.params["radius"]))
    if c.shape == "ellipsoid":
        return ContactGeometry.Ellipsoid(np.asarray(c.params["radii"], dtype=np.float64))
    if c.shape == "brick":
        return ContactGeometry.Brick(np.asarray(c.params["half_lengths"], dtype=np.float64))
    raise ValueError(f"unknown contact shape {c.shape!r}")


def contact_material(c: ContactSurfaceSpec):
    from engine import ContactMaterial

    m = c.material
    return ContactMaterial(
        float(m.stiffness),
        float(m.dissipation),
        float(m.static_friction),
        float(m.dynamic_friction),
        float(m.viscous_friction),
    )


def contact_decoration(c: ContactSurfaceSpec, geometry):
    """The DecorativeGeometry drawing surface ``c`` (its shape's createDecorativeGeometry),
    placed in the body frame (X_BS times the shape's own placement)."""
    from app.document.builder import transform

    decoration = geometry.createDecorativeGeometry()
    decoration.setTransform(transform(c.X) * decoration.getTransform())
    decoration.setColor(tuple(c.color) if c.color is not None else DEFAULT_CONTACT_COLOR)
    if c.opacity != 1.0:
        decoration.setOpacity(float(c.opacity))
    return decoration


def _owners(data: ModelData):
    yield GROUND, data.ground_contact_surfaces
    for b in data.bodies:
        yield b.name, b.contact_surfaces


def add_contact_surfaces(
    data: ModelData, mobods: dict, draw_ground_half_spaces: bool, base_dir=None
) -> list:
    """Add the document's contact surfaces to the bodies in ``mobods`` (names ->
    MobilizedBody; relative mesh file names start at ``base_dir``) and draw the shown ones (a
    half space on Ground only with ``draw_ground_half_spaces``: the floor is drawn
    otherwise). Returns (body name, ordinal
    on that body) per surface, in document order."""
    from app.document.builder import BuildError, transform
    from engine.common.exceptions import SimTKError

    if not data.has_contact():
        return []
    missing = contact_api_missing()
    if missing:
        raise BuildError("contact", f"this engine has no {missing} yet")
    from engine import ContactSurface

    cliques: dict[str, object] = {}
    added = []
    for name, surfaces in _owners(data):
        body = mobods[name].updBody()
        for k, c in enumerate(surfaces):
            try:
                geometry = contact_geometry(c, base_dir)
                surface = ContactSurface(geometry, contact_material(c))
                for clique in c.cliques:
                    if clique not in cliques:
                        cliques[clique] = ContactSurface.createNewContactClique()
                    surface.joinClique(cliques[clique])
                ordinal = body.addContactSurface(transform(c.X), surface)
                if c.show and (draw_ground_half_spaces or name != GROUND or c.shape != "halfspace"):
                    body.addDecoration(contact_decoration(c, geometry))
            except (SimTKError, ValueError, TypeError, ArithmeticError) as exc:
                where = GROUND if name == GROUND else f"body {name!r}"
                raise BuildError(f"{where} contact surface {k + 1}", str(exc)) from exc
            added.append((name, int(ordinal)))
    return added


def add_contact_subsystems(data: ModelData, system) -> tuple[object, object]:
    """ContactTrackerSubsystem and CompliantContactSubsystem of ``system`` with the
    document's settings, or (None, None) when the model has no contact surface."""
    from app.document.builder import BuildError
    from engine.common.exceptions import SimTKError

    if not (data.ground_contact_surfaces or any(b.contact_surfaces for b in data.bodies)):
        return None, None
    from engine import CompliantContactSubsystem, ContactTrackerSubsystem

    try:
        tracker = ContactTrackerSubsystem(system)
        compliant = CompliantContactSubsystem(system, tracker)
        compliant.setTransitionVelocity(float(data.contact.transition_velocity))
        compliant.setTrackDissipatedEnergy(bool(data.contact.track_dissipated_energy))
    except (SimTKError, ValueError, TypeError) as exc:
        raise BuildError("contact", str(exc)) from exc
    return tracker, compliant
