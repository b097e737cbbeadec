"""Build the compliant-contact models of ../shared/reference/contact.json in the engine."""

from __future__ import annotations

from dataclasses import dataclass

from engine import (
    CompliantContactSubsystem,
    ContactGeometry,
    ContactMaterial,
    ContactSurface,
    ContactTrackerSubsystem,
)
from tests.engine.reference_data import load_reference, model_by_name
from tests.engine.reference_models import ReferenceSystem, build, transform


def geometry(g: dict):
    kind = g["type"]
    if kind == "HalfSpace":
        return ContactGeometry.HalfSpace()
    if kind == "Sphere":
        return ContactGeometry.Sphere(g["radius"])
    if kind == "Ellipsoid":
        return ContactGeometry.Ellipsoid(g["radii"])
    if kind == "Brick":
        return ContactGeometry.Brick(g["half_lengths"])
    raise AssertionError(f"unexpected geometry {kind}")


def material(m: dict) -> ContactMaterial:
    return ContactMaterial(
        m["stiffness"],
        m["dissipation"],
        m["static_friction"],
        m["dynamic_friction"],
        m["viscous_friction"],
    )


@dataclass
class ContactReferenceSystem:
    ref: ReferenceSystem
    tracker: ContactTrackerSubsystem
    ccs: CompliantContactSubsystem


def build_compliant(model: dict) -> ContactReferenceSystem:
    """The model with its force elements, contact surfaces (cliques by their labels) and
    the tracker and compliant-contact subsystems configured as the generator did."""
    ref = build(model)
    spec = model["contact"]
    cliques = {c["id"]: ContactSurface.createNewContactClique() for c in spec.get("cliques", [])}
    for s in spec["surfaces"]:
        surface = ContactSurface(geometry(s["geometry"]), material(s["material"]), s["thickness"])
        for c in s["cliques"]:
            surface.joinClique(cliques[c])
        ordinal = ref.mobods[s["body"]].updBody().addContactSurface(transform(s["X_BS"]), surface)
        assert ordinal == s["index_on_body"]
    tracker = ContactTrackerSubsystem(ref.system)
    ccs = CompliantContactSubsystem(ref.system, tracker)
    ccs.setTransitionVelocity(spec["transition_velocity"])
    ccs.setTrackDissipatedEnergy(spec["track_dissipated_energy"])
    assert tracker.getMySubsystemIndex() == spec["tracker_subsystem_index"]
    assert ccs.getMySubsystemIndex() == spec["compliant_contact_subsystem_index"]
    return ContactReferenceSystem(ref, tracker, ccs)


def contact_model(name: str) -> dict:
    return model_by_name(load_reference("contact"), name)
