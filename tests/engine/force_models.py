"""Rebuild reference models (bodies and force elements) from ../shared/reference JSON.

Motions, locks and constraints are not built: the force tests only need the tree and
the force elements, whose outputs are functions of the stored (t, q, u, z).
"""

from __future__ import annotations

import numpy as np

from engine import (
    Body,
    Force,
    GeneralForceSubsystem,
    Inertia,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    Rotation,
    SimbodyMatterSubsystem,
    Transform,
)


def transform(d: dict) -> Transform:
    return Transform(Rotation(np.array(d["R"], dtype=float).reshape(3, 3)), d["p"])


def build_tree(model: dict):
    """(system, matter, forces, mobods) with the model's bodies and no force elements."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    mobods = [matter.Ground()]
    for b in model["bodies"][1:]:
        Ixx, Iyy, Izz, Ixy, Ixz, Iyz = b["inertia_about_body_origin"]
        body = Body.Rigid(
            MassProperties(b["mass"], b["mass_center"], Inertia(Ixx, Iyy, Izz, Ixy, Ixz, Iyz))
        )
        cls = getattr(MobilizedBody, b["mobilizer"])
        mobods.append(cls(mobods[b["parent"]], transform(b["X_PF"]), body, transform(b["X_BM"])))
    return system, matter, forces, mobods


def add_force(forces, matter, mobods, f: dict):
    """Create the force element described by ``f`` (one entry of model["forces"])."""
    kind = f["type"].removeprefix("Force::")
    if kind == "Gravity":
        g = Force.Gravity(forces, matter, f["down_direction"], f["magnitude"], f["zero_height"])
        for b in f["excluded_bodies"]:
            g.setDefaultBodyIsExcluded(mobods[b], True)
        return g
    if kind == "UniformGravity":
        return Force.UniformGravity(forces, matter, f["g"], f["zero_height"])
    if kind.startswith("TwoPoint"):
        args = (forces, mobods[f["body1"]], f["station1_B"], mobods[f["body2"]], f["station2_B"])
        if kind == "TwoPointLinearSpring":
            return Force.TwoPointLinearSpring(*args, f["stiffness"], f["rest_length"])
        if kind == "TwoPointLinearDamper":
            return Force.TwoPointLinearDamper(*args, f["damping"])
        return Force.TwoPointConstantForce(*args, f["force"])
    if kind == "MobilityLinearSpring":
        return Force.MobilityLinearSpring(
            forces, mobods[f["body"]], f["which_q"], f["stiffness"], f["q_zero"]
        )
    if kind == "MobilityLinearDamper":
        return Force.MobilityLinearDamper(forces, mobods[f["body"]], f["which_u"], f["damping"])
    if kind == "MobilityConstantForce":
        return Force.MobilityConstantForce(forces, mobods[f["body"]], f["which_u"], f["value"])
    if kind == "MobilityLinearStop":
        return Force.MobilityLinearStop(
            forces,
            mobods[f["body"]],
            f["which_q"],
            f["stiffness"],
            f["dissipation"],
            f["q_low"],
            f["q_high"],
        )
    if kind == "MobilityDiscreteForce":
        return Force.MobilityDiscreteForce(
            forces, mobods[f["body"]], f["which_u"], f["default_force"]
        )
    if kind == "ConstantForce":
        return Force.ConstantForce(forces, mobods[f["body"]], f["station_B"], f["force_G"])
    if kind == "ConstantTorque":
        return Force.ConstantTorque(forces, mobods[f["body"]], f["torque_G"])
    if kind == "GlobalDamper":
        return Force.GlobalDamper(forces, matter, f["damping"])
    if kind == "LinearBushing":
        return Force.LinearBushing(
            forces,
            mobods[f["body1"]],
            transform(f["X_B1F"]),
            mobods[f["body2"]],
            transform(f["X_B2M"]),
            f["stiffness"],
            f["damping"],
        )
    if kind == "DiscreteForces":
        return Force.DiscreteForces(forces, matter)
    raise KeyError(f["type"])


def set_discrete_values(element, mobods, f: dict, state) -> None:
    """Store a DiscreteForces element's reference values in ``state``."""
    for bf in f["body_forces_G"]:
        element.setOneBodyForce(state, mobods[bf["body"]], [bf["torque_G"], bf["force_G"]])
    for mf in f["mobility_forces"]:
        element.setOneMobilityForce(state, mobods[mf["body"]], mf["which_u"], mf["force"])


def build(model: dict):
    """(system, matter, forces, mobods, elements) for a reference model."""
    system, matter, forces, mobods = build_tree(model)
    elements = [add_force(forces, matter, mobods, f) for f in model["forces"]]
    for element, f in zip(elements, model["forces"], strict=True):
        assert element.getForceIndex() == f["index"]
    return system, matter, forces, mobods, elements


def sample_state(system, model: dict, elements, mobods, sample_state: dict):
    """A new State holding a sample's t, q, u (and z), with DiscreteForces values set."""
    state = system.realizeTopology()
    state.setTime(sample_state["t"])
    state.setQ(sample_state["q"])
    state.setU(sample_state["u"])
    if sample_state.get("z"):
        state.setZ(sample_state["z"])
    for element, f in zip(elements, model["forces"], strict=False):
        if f["type"] == "Force::DiscreteForces":
            set_discrete_values(element, mobods, f, state)
    return state
