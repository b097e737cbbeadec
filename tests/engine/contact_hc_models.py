"""Rebuild contact.json's HuntCrossleyForce and SmoothSphereHalfSpaceForce models.

``build_contact_model(model)`` is ``reference_models.build`` with the two contact elements
added to the force list in the model's order (the GeneralContactSubsystem of a
HuntCrossleyForce model is created with its contact set and surfaces first)."""

from __future__ import annotations

from engine import SmoothSphereHalfSpaceForce
from tests.engine.reference_models import ReferenceSystem, add_force, build, transform


def _geometry(g: dict):
    from engine import ContactGeometry

    if g["type"] == "HalfSpace":
        return ContactGeometry.HalfSpace()
    if g["type"] == "Sphere":
        return ContactGeometry.Sphere(g["radius"])
    raise AssertionError(f"unexpected geometry {g['type']}")


def add_smooth(forces, mobods, f: dict) -> SmoothSphereHalfSpaceForce:
    """A SmoothSphereHalfSpaceForce set up as Simbody's reference program does."""
    element = SmoothSphereHalfSpaceForce(forces)
    element.setParameters(
        f["stiffness"],
        f["dissipation"],
        f["static_friction"],
        f["dynamic_friction"],
        f["viscous_friction"],
        f["transition_velocity"],
        f["cf"],
        f["bd"],
        f["bv"],
    )
    element.setContactSphereBody(mobods[f["sphere_body"]])
    element.setContactSphereLocationInBody(f["sphere_location_B"])
    element.setContactSphereRadius(f["sphere_radius"])
    element.setContactHalfSpaceBody(mobods[f["half_space_body"]])
    element.setContactHalfSpaceFrame(transform(f["half_space_frame"]))
    return element


def add_contact_set(system, mobods, contact: dict):
    """(GeneralContactSubsystem, set index) holding the model's surfaces in order."""
    from engine import GeneralContactSubsystem

    gcs = GeneralContactSubsystem(system)
    contact_set = gcs.createContactSet()
    for s in contact["surfaces"]:
        index = gcs.addBody(
            contact_set, mobods[s["body"]], _geometry(s["geometry"]), transform(s["X_BS"])
        )
        assert index == s["index"]
    return gcs, contact_set


def add_hunt_crossley(forces, gcs, contact_set, f: dict):
    from engine import HuntCrossleyForce

    element = HuntCrossleyForce(forces, gcs, contact_set)
    for p in f["surface_parameters"]:
        element.setBodyParameters(
            p["surface"],
            p["stiffness"],
            p["dissipation"],
            p["static_friction"],
            p["dynamic_friction"],
            p["viscous_friction"],
        )
    element.setTransitionVelocity(f["transition_velocity"])
    return element


def build_contact_model(model: dict) -> ReferenceSystem:
    """The reference ``model`` with its force elements (contact ones included); for a
    HuntCrossleyForce model ``built.gcs`` / ``built.contact_set`` are the contact set."""
    built = build(model, forces=False)
    built.gcs = built.contact_set = None
    if "contact" in model and model["contact"]["kind"] == "general_contact_set":
        built.gcs, built.contact_set = add_contact_set(built.system, built.mobods, model["contact"])
    for f in model["forces"]:
        if f["type"] == "SmoothSphereHalfSpaceForce":
            element = add_smooth(built.forces, built.mobods, f)
        elif f["type"] == "HuntCrossleyForce":
            element = add_hunt_crossley(built.forces, built.gcs, built.contact_set, f)
        else:
            element = add_force(built.forces, built.matter, built.mobods, f)
        assert element.getForceIndex() == f["index"]
        built.elements.append(element)
    return built
