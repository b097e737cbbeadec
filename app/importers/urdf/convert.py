# ruff: noqa: N803, N806, E741  (monogram names: X_PF, X_BM, X_LI, I_C)
"""A URDF robot to an mbstudio ModelData.

One body per URDF link, named after it, parents first; the body frame is the link frame. The
root link is welded to Ground (``floating``: a Free mobilizer). Gravity 9.81 m/s^2 along -z
and the up direction +Z, as in ROS. Per joint: the mobilizer of ``joints.py``; a limited
revolute or prismatic joint gets a MobilityLinearStop at its limits, enabled (a joint whose
zero is outside its limits starts at the nearer limit), named after the joint and keeping
its effort and velocity limits; a damped joint a
MobilityLinearDamper; a <mimic> a LinearCoordinateCoupler constraint. Visual and collision
geometry both go in (collision geometry with role "collision", not drawn); a robot whose
moving links all have visual geometry is drawn without the default sketch.
"""

from __future__ import annotations

import logging
import math
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from app.document.specs import GROUND, BodySpec, ElementSpec, Hints, ModelData, replace
from app.importers.urdf import geometry, inertia, xml_check
from app.importers.urdf.errors import Finding, UrdfImportError
from app.importers.urdf.frames import frame_spec
from app.importers.urdf.joints import ONE_DOF, mobilizer_frames
from app.importers.urdf.packages import PackageResolver

GRAVITY = 9.81  # m/s^2, along -z
STOP_STIFFNESS = 1e4  # N m/rad (or N/m) per unit of excursion past a limit
STOP_DISSIPATION = 0.5  # s/rad


@dataclass
class ImportResult:
    """An imported model: ``data`` and what was noticed on the way (``warnings``: missing
    meshes, tiny masses...; ``fixed``: what ``fix_inertias`` changed). ``meshes`` lists the
    mesh files the model uses (absolute); ``joint_bodies`` maps each URDF joint name to the
    body it moves (its child link)."""

    data: ModelData
    warnings: list[Finding] = field(default_factory=list)
    fixed: list[Finding] = field(default_factory=list)
    meshes: list[Path] = field(default_factory=list)
    joint_bodies: dict[str, str] = field(default_factory=dict)

    @property
    def fixable(self) -> list[Finding]:
        return [w for w in self.warnings if w.fixable]


def _load(path: Path):
    import yourdfpy

    log = logging.getLogger("yourdfpy")
    level = log.level
    log.setLevel(logging.ERROR)  # its own notes (e.g. unknown tags) are not the user's problem
    try:
        return yourdfpy.URDF.load(
            str(path),
            build_scene_graph=False,
            build_collision_scene_graph=False,
            load_meshes=False,
            load_collision_meshes=False,
        ).robot
    except Exception as exc:  # noqa: BLE001  (the parser's own message is the best we have)
        raise UrdfImportError(path, [Finding("URDF", f"cannot be parsed: {exc}")]) from None
    finally:
        log.setLevel(level)


def import_urdf(
    path,
    floating: bool = False,
    package_paths=(),
    fix_inertias: bool = False,
    height: float = 0.0,
) -> ImportResult:
    """Import the URDF at ``path``. Raises UrdfImportError (element and line of each problem)
    for malformed XML, unknown joint types, kinematic loops and non-physical inertias (the
    last are repaired with ``fix_inertias``, which also raises tiny masses). The root link's
    origin is placed ``height`` metres above the ground origin (along +z)."""
    path = Path(path)
    outline = xml_check.check(path)
    robot = _load(path)
    resolver = PackageResolver(path, package_paths)
    materials = {m.name: m for m in (robot.materials or []) if m.name}
    links = {link.name: link for link in robot.links}
    joints = {j.name: j for j in robot.joints}
    joint_of_child = {j.child: j for j in robot.joints}
    children: dict[str, list] = {name: [] for name in links}
    for j in robot.joints:
        children[j.parent].append(j)

    errors: list[Finding] = []
    warnings: list[Finding] = []
    fixed: list[Finding] = []
    order: list[str] = []
    queue = deque([outline.root])
    while queue:
        name = queue.popleft()
        order.append(name)
        queue.extend(j.child for j in children[name])

    # -- mass properties
    mass_props: dict[str, tuple[float, tuple, tuple]] = {}
    for name in order:
        link = links[name]
        line = outline.line("link", name)
        I = link.inertial
        if I is None:
            mass_props[name] = (0.0, (0.0, 0.0, 0.0), (0.0,) * 6)
            continue
        m = float(I.mass or 0.0)
        X_LI = np.eye(4) if I.origin is None else np.asarray(I.origin, dtype=np.float64)
        I_C = np.zeros((3, 3)) if I.inertia is None else np.asarray(I.inertia, dtype=np.float64)
        if m < 0:
            errors.append(Finding(f"link {name!r}", f"negative mass {m:g} kg", line))
            continue
        com, inertia_B = inertia.about_body_origin(m, X_LI, I_C)
        problem = inertia.physical_problem(m, com, inertia_B)
        if problem is not None:
            finding = Finding(
                f"link {name!r}",
                f"non-physical inertia: {problem}",
                line,
                fixable=True,
            )
            if not fix_inertias:
                errors.append(finding)
                continue
            com, inertia_B = inertia.about_body_origin(m, X_LI, inertia.nearest_physical(I_C))
            fixed.append(replace(finding, message=finding.message + " -> nearest physical used"))
        mass_props[name] = (m, com, inertia_B)
    if errors:
        raise UrdfImportError(path, errors)

    # tiny masses: a joint moving a subtree (with everything welded to it) of almost no mass
    subtree_mass: dict[str, float] = {}
    for name in reversed(order):
        subtree_mass[name] = mass_props[name][0] + sum(
            subtree_mass[j.child] for j in children[name]
        )
    for name in order:
        j = joint_of_child.get(name)
        moved = (j is not None and j.type != "fixed") or (j is None and floating)
        if not moved or subtree_mass[name] >= inertia.TINY_MASS:
            continue
        finding = Finding(
            f"link {name!r}",
            f"it and the links it carries have mass {subtree_mass[name]:g} kg although joint "
            f"{j.name if j is not None else '(floating base)'!r} moves them: the mass matrix is "
            "singular and the model cannot be simulated",
            outline.line("link", name),
            fixable=True,
        )
        if fix_inertias:
            m0, com, _ = mass_props[name]
            m = inertia.FIX_MASS
            c = np.asarray(com)
            I_B = inertia.FIX_INERTIA * np.eye(3) + m * (float(c @ c) * np.eye(3) - np.outer(c, c))
            mass_props[name] = (
                m,
                com,
                (I_B[0, 0], I_B[1, 1], I_B[2, 2], I_B[0, 1], I_B[0, 2], I_B[1, 2]),
            )
            fixed.append(replace(finding, message=finding.message + f" -> mass set to {m:g} kg"))
            subtree_mass[name] = m
        else:
            warnings.append(finding)

    # -- bodies
    bodies: list[BodySpec] = []
    constraints: list[ElementSpec] = []
    forces: list[ElementSpec] = [
        ElementSpec("Gravity", {"down": (0.0, 0.0, -1.0), "magnitude": GRAVITY}, "gravity")
    ]
    meshes: list[Path] = []
    unknown_friction = []
    for name in order:
        link = links[name]
        line = outline.line("link", name)
        j = joint_of_child.get(name)
        if j is None:
            parent, jtype, X_PJ, axis = GROUND, "floating" if floating else "fixed", np.eye(4), None
            X_PJ[2, 3] = float(height)
        else:
            parent, jtype, axis = j.parent, j.type, j.axis
            X_PJ = np.eye(4) if j.origin is None else np.asarray(j.origin, dtype=np.float64)
        mobilizer, X_PF, X_BM = mobilizer_frames(jtype, X_PJ, axis)
        geom = []
        for role, items in (("visual", link.visuals), ("collision", link.collisions)):
            for item in items or ():
                g = geometry.convert(item, role, name, line, resolver, materials, warnings)
                if g is not None:
                    geom.append(g)
                    if g.kind == "mesh":
                        meshes.append(Path(g.params["file"]))
        m, com, inertia_B = mass_props[name]
        limits = _limits(j)
        bodies.append(
            BodySpec(
                name=name,
                parent=parent,
                mobilizer=mobilizer,
                X_PF=frame_spec(X_PF),
                X_BM=frame_spec(X_BM),
                mass=m,
                com=com,
                inertia=inertia_B,
                geometry=tuple(geom),
                q=_start_within(limits),
            )
        )
        if j is None:
            continue
        if limits is not None:
            lo, hi = limits
            forces.append(
                ElementSpec(
                    "MobilityLinearStop",
                    {
                        "body": name,
                        "which_q": 0,
                        "stiffness": STOP_STIFFNESS,
                        "dissipation": STOP_DISSIPATION,
                        "q_low": lo,
                        "q_high": hi,
                        "enabled": True,
                        "effort_limit": _limit(j.limit.effort),
                        "velocity_limit": _limit(j.limit.velocity),
                    },
                    f"{j.name} limits",
                )
            )
        dyn = j.dynamics
        if dyn is not None and j.type in ONE_DOF:
            damping = float(dyn.damping or 0.0)
            if damping > 0:
                forces.append(
                    ElementSpec(
                        "MobilityLinearDamper",
                        {"body": name, "which_u": 0, "damping": damping},
                        f"{j.name} damping",
                    )
                )
            if float(dyn.friction or 0.0) > 0:
                unknown_friction.append(j.name)
        if j.mimic is not None:
            leader = joints.get(j.mimic.joint)
            jline = outline.line("joint", j.name)
            if leader is None:
                what = f"joint {j.name!r}"
                raise UrdfImportError(
                    path, [Finding(what, f"mimics unknown joint {j.mimic.joint!r}", jline)]
                )
            if j.type not in ONE_DOF or leader.type not in ONE_DOF:
                warnings.append(
                    Finding(
                        f"joint {j.name!r}",
                        f"mimic between {j.type} and {leader.type} joints is not supported; "
                        "the joint moves freely",
                        jline,
                    )
                )
            else:
                constraints.append(
                    ElementSpec(
                        "LinearCoordinateCoupler",
                        {
                            "leader": leader.child,
                            "leader_q": 0,
                            "follower": name,
                            "follower_q": 0,
                            "multiplier": float(j.mimic.multiplier or 1.0),
                            "offset": float(j.mimic.offset or 0.0),
                        },
                        f"{j.name} mimics {leader.name}",
                    )
                )
    if unknown_friction:
        warnings.append(
            Finding(
                "joints " + ", ".join(map(repr, unknown_friction)),
                "have dry friction, which the import does not model",
            )
        )
    data = ModelData(
        name=robot.name or path.stem,
        bodies=bodies,
        constraints=constraints,
        forces=forces,
        hints=Hints(
            up="+Z",
            length_scale=_length_scale(bodies),
            show_default_geometry=not _moving_links_drawn(bodies),
        ),
    )
    from app.document.validation import DocumentError, validate

    try:
        validate(data)
    except DocumentError as exc:
        where = f"{exc.target or 'model'} {exc.field}"
        raise UrdfImportError(path, [Finding(where, exc.message)]) from None
    joint_bodies = {j.name: j.child for j in robot.joints}
    return ImportResult(data, warnings, fixed, sorted(set(meshes)), joint_bodies)


def _moving_links_drawn(bodies: list[BodySpec]) -> bool:
    """Whether every link that moves (not welded) has visual geometry, on itself or on a
    link welded to it (ANYmal's legs are drawn on fixed child links): the robot is then
    drawn by its meshes and shapes, without Simbody's default sketch (frames and bones).
    ``bodies`` are parents first."""
    mover: dict[str, str] = {}  # link -> the moving link (or Ground's weld) it rides on
    drawn: set[str] = set()
    for b in bodies:
        mover[b.name] = mover.get(b.parent, b.parent) if b.mobilizer == "Weld" else b.name
        if any(g.role == "visual" for g in b.geometry):
            drawn.add(mover[b.name])
    return all(b.name in drawn for b in bodies if b.mobilizer != "Weld")


def _limits(j) -> tuple[float, float] | None:
    """(lower, upper) of a limited revolute or prismatic joint ``j`` (rad or m), or None."""
    if j is None or j.type not in ("revolute", "prismatic") or j.limit is None:
        return None
    lo, hi = j.limit.lower, j.limit.upper
    if lo is None or hi is None or not float(lo) <= float(hi):
        return None
    return float(lo), float(hi)


def _start_within(limits: tuple[float, float] | None) -> tuple[float, ...] | None:
    """The initial q of a joint with ``limits``: None (the URDF zero) when zero is within
    them, else the limit nearest zero (Panda's joint 4 has [-3.07, -0.07]), so that the
    stop does not throw the robot at t = 0."""
    if limits is None or limits[0] <= 0.0 <= limits[1]:
        return None
    return (limits[0] if limits[0] > 0.0 else limits[1],)


def _limit(v) -> float:
    """A URDF effort or velocity limit as kept in the model: 0 when not given (or not a
    usable non-negative number)."""
    try:
        x = float(v)
    except (TypeError, ValueError):
        return 0.0
    return x if math.isfinite(x) and x > 0 else 0.0


def _length_scale(bodies: list[BodySpec]) -> float:
    """A typical link length (m): the median non-zero joint offset, for the view's scale."""
    offsets = [math.dist(b.X_PF.p, (0, 0, 0)) for b in bodies]
    offsets = [o for o in offsets if o > 1e-6]
    return float(np.median(offsets)) if offsets else 1.0


def relative_to(data: ModelData, base_dir) -> ModelData:
    """``data`` with its (absolute) mesh file names relative to ``base_dir``, where the
    document is saved (``mesh_cache.mesh_names_for``)."""
    from app.document.mesh_cache import mesh_names_for

    return mesh_names_for(data, base_dir)
