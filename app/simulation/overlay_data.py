"""Plain data for the view's teaching overlays, computed by the worker under the State lock.

``compute_overlay_data(built, state, kinds)`` reads what the overlays in ``kinds`` need from a
State realized to Acceleration (a copy is realized when the live State is below it) and
returns an ``OverlayData`` of numpy arrays only, so the GUI thread never touches the State.
Every point and vector is in Ground, in the model's units (m, N).

Kinds: ``"mass_centers"`` (each body's and the system's mass centre), ``"forces"`` (gravity,
spring, other applied, mobilizer reaction and constraint forces, each as points and force
vectors), ``"springs"`` (the two stations of each two-point linear spring), ``"contacts"``
(each active contact's points with the normal and friction parts of the force on its second
surface, from the CompliantContactSubsystem's patch details). Trails use the mass centres;
body frames use the body poses every snapshot has.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.common.exceptions import SimTKError
from engine.common.stage import Stage
from engine.common.state import State

#: Kinds of overlay data the worker can compute.
KINDS = frozenset({"mass_centers", "forces", "springs", "contacts"})
#: Force categories, in drawing order.
FORCE_KINDS = ("gravity", "spring", "applied", "reaction", "constraint")
_EMPTY = np.zeros((0, 3))


@dataclass(frozen=True)
class ForceArrows:
    """Arrows of one category: ``points`` (n, 3) where each acts and ``forces`` (n, 3)."""

    points: np.ndarray = field(default_factory=lambda: _EMPTY)
    forces: np.ndarray = field(default_factory=lambda: _EMPTY)


@dataclass(frozen=True)
class ContactArrows:
    """Contact points (n, 3) and, at each, the normal and the friction (tangential) part of
    the force on the contact's second surface (n, 3), N; all in Ground."""

    points: np.ndarray = field(default_factory=lambda: _EMPTY)
    normal: np.ndarray = field(default_factory=lambda: _EMPTY)
    friction: np.ndarray = field(default_factory=lambda: _EMPTY)


@dataclass(frozen=True)
class OverlayData:
    """See the module docstring. Body 0 is Ground (its mass centre row is unused)."""

    kinds: frozenset
    mass_centers: np.ndarray = field(default_factory=lambda: _EMPTY)  # (nb, 3)
    masses: np.ndarray = field(default_factory=lambda: np.zeros(0))  # (nb,)
    system_mass_center: np.ndarray | None = None  # (3,)
    forces: dict = field(default_factory=dict)  # FORCE_KINDS -> ForceArrows
    springs: np.ndarray = field(default_factory=lambda: np.zeros((0, 2, 3)))  # (n, 2, 3)
    #: Weight of the heaviest body (N; 0 without gravity): a steady scale for force arrows.
    reference_force: float = 0.0
    contacts: ContactArrows = field(default_factory=ContactArrows)
    error: str = ""


def _realized(system, state: State) -> State:
    if state.getSystemStage() >= Stage.Acceleration:
        return state
    tmp = State(state)
    system.realize(tmp, Stage.Acceleration)
    return tmp


def _mass_centers(matter, state: State) -> tuple[np.ndarray, np.ndarray]:
    n = matter.getNumBodies()
    com = np.zeros((n, 3))
    mass = np.zeros(n)
    for b in range(1, n):
        mobod = matter.getMobilizedBody(b)
        com[b] = mobod.findMassCenterLocationInGround(state)
        mass[b] = mobod.getBodyMass(state)
    return com, mass


def _is_gravity(force) -> bool:
    return type(force).__name__ in ("Gravity", "UniformGravity")


def _is_spring(force) -> bool:
    return hasattr(force, "getStation1") and hasattr(force, "getBody1")


def _nonzero_rows(points: np.ndarray, forces: np.ndarray) -> ForceArrows:
    keep = np.linalg.norm(forces, axis=1) > 1e-12
    return ForceArrows(np.array(points[keep]), np.array(forces[keep]))


def _element_forces(built, state: State, com: np.ndarray) -> tuple[dict, np.ndarray]:
    """Per category, arrows at each body's mass centre (gravity, applied) or at the spring
    stations (spring) of what the enabled force elements apply; and the two stations of
    every two-point spring, (n, 2, 3)."""
    matter = built.matter
    subsystem = built.forces
    nb = matter.getNumBodies()
    nu = state.getNU()
    totals = {"gravity": np.zeros((nb, 2, 3)), "applied": np.zeros((nb, 2, 3))}
    spring_points, spring_forces = [], []
    for i in range(subsystem.getNumForces()):
        if subsystem.isForceDisabled(state, i):
            continue
        force = subsystem.getForce(i)
        body = np.zeros((nb, 2, 3))
        particles = np.zeros((0, 3))
        mobility = np.zeros(nu)
        force.calcForce(state, body, particles, mobility)
        if _is_spring(force) and not _is_gravity(force):
            p1 = force.getBody1().findStationLocationInGround(state, force.getStation1())
            p2 = force.getBody2().findStationLocationInGround(state, force.getStation2())
            b1 = force.getBody1().getMobilizedBodyIndex()
            b2 = force.getBody2().getMobilizedBodyIndex()
            spring_points += [p1, p2]
            spring_forces += [body[b1, 1].copy(), body[b2, 1].copy()]
        else:
            totals["gravity" if _is_gravity(force) else "applied"] += body
    out = {}
    for kind in ("gravity", "applied"):
        out[kind] = _nonzero_rows(com[1:], totals[kind][1:, 1])
    points = np.array(spring_points).reshape(-1, 3)
    out["spring"] = _nonzero_rows(points, np.array(spring_forces).reshape(-1, 3))
    return out, points.reshape(-1, 2, 3)


def _reactions(matter, state: State) -> ForceArrows:
    """The force each body's mobilizer applies to it, at the outboard frame's origin Mo."""
    reactions = np.asarray(matter.calcMobilizerReactionForces(state))
    n = matter.getNumBodies()
    points = np.zeros((n, 3))
    for b in range(1, n):
        mobod = matter.getMobilizedBody(b)
        station = np.asarray(mobod.getDefaultOutboardFrame().p(), dtype=float)  # p_BM
        points[b] = mobod.findStationLocationInGround(state, station)
    return _nonzero_rows(points[1:], reactions[1:, 1])


def _constraint_forces(matter, state: State) -> ForceArrows:
    """The force the constraints apply to each body (at its origin), from the multipliers."""
    if matter.getNumConstraints() == 0:
        return ForceArrows()
    body, _mobility = matter.findConstraintForces(state)
    body = -np.asarray(body)  # findConstraintForces gives what balances them
    n = matter.getNumBodies()
    origins = np.array(
        [matter.getMobilizedBody(b).getBodyOriginLocation(state) for b in range(1, n)]
    ).reshape(-1, 3)
    return _nonzero_rows(origins, body[1:, 1])


def contact_arrows(built, state: State) -> ContactArrows:
    """The active contacts' points and forces (see ContactArrows) of a State realized to
    Dynamics; empty without contact. A contact whose patch has details (a brick's touching
    vertices...) gives one point per detail, else one at its ContactForce's point."""
    compliant = getattr(built, "contact_forces", None)
    if compliant is None:
        return ContactArrows()
    points, normal, friction = [], [], []
    for i in range(compliant.getNumContactForces(state)):
        force = compliant.getContactForce(state, i)
        if not force.isValid():
            continue
        patch = compliant.calcContactPatchDetailsById(state, force.getContactId())
        details = (
            [patch.getContactDetail(k) for k in range(patch.getNumDetails())]
            if patch is not None and patch.isValid()
            else []
        )
        for d in details:
            f = np.asarray(d.getForceOnSurface2(), dtype=float).reshape(3)
            n = np.asarray(d.getContactNormal(), dtype=float).reshape(3)
            fn = float(f @ n) * n
            points.append(np.asarray(d.getContactPoint(), dtype=float).reshape(3))
            normal.append(fn)
            friction.append(f - fn)
        if not details:
            f = np.asarray(force.getForceOnSurface2(), dtype=float).reshape(2, 3)[1]
            points.append(np.asarray(force.getContactPoint(), dtype=float).reshape(3))
            normal.append(f)
            friction.append(np.zeros(3))
    if not points:
        return ContactArrows()
    return ContactArrows(np.array(points), np.array(normal), np.array(friction))


def compute_overlay_data(built, state: State, kinds) -> OverlayData:
    """The overlay data of ``kinds`` (see the module docstring); the caller holds the lock."""
    kinds = frozenset(kinds) & KINDS
    system, matter = built.system, built.matter
    try:
        state = _realized(system, state)
        com, mass = _mass_centers(matter, state)
        data: dict = {"mass_centers": com, "masses": mass}
        if "mass_centers" in kinds and mass.sum() > 0:
            data["system_mass_center"] = np.asarray(
                matter.calcSystemMassCenterLocationInGround(state), dtype=float
            )
        if kinds & {"forces", "springs", "contacts"}:
            forces, data["springs"] = _element_forces(built, state, com)
            weights = forces["gravity"].forces
            data["reference_force"] = (
                float(np.linalg.norm(weights, axis=1).max()) if len(weights) else 0.0
            )
            if "forces" in kinds:
                forces["reaction"] = _reactions(matter, state)
                forces["constraint"] = _constraint_forces(matter, state)
                data["forces"] = forces
        if "contacts" in kinds:
            data["contacts"] = contact_arrows(built, state)
        return OverlayData(kinds=kinds, **data)
    except (SimTKError, ArithmeticError, ValueError, AttributeError) as exc:
        return OverlayData(kinds=kinds, error=str(exc))
