"""Build the reference models of chain_mixed.json / pendulum.json through the public engine API.

Applied forces: the matter-subsystem tests need the state's applied forces to be exactly the
ones Simbody reported (``applied_body_forces_G``, ``applied_mobility_forces``), independently
of the force elements (tested on their own against forces.json). ``ReplayForce`` is a
Force.Custom-style element that applies a given set of body and mobility forces.
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


class ReplayForce(Force):
    """Applies ``body_forces`` ((nb, 2, 3) at Bo in G) and ``mobility_forces`` (nu,) as given;
    no potential energy."""

    def __init__(self, forces: GeneralForceSubsystem) -> None:
        super().__init__(forces)
        self.body_forces = None
        self.mobility_forces = None

    def calcForce(self, state, bodyForces, particleForces, mobilityForces) -> None:
        if self.body_forces is not None:
            bodyForces[...] += np.asarray(self.body_forces, dtype=float).reshape(bodyForces.shape)
        if self.mobility_forces is not None:
            mobilityForces[...] += np.asarray(self.mobility_forces, dtype=float)

    def calcPotentialEnergy(self, state) -> float:
        return 0.0


def transform(d: dict) -> Transform:
    return Transform(Rotation(np.array(d["R"], dtype=float).reshape(3, 3)), d["p"])


def build(model: dict, real_forces: bool = False):
    """(system, matter, mobods, replay) for a reference model description. With
    ``real_forces`` the model's own force elements are built instead and ``replay`` is a
    function ``replay(state)`` that writes the DiscreteForces values into a new state."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    mobods = [matter.Ground()]
    for b in model["bodies"][1:]:
        body = Body.Rigid(
            MassProperties(b["mass"], b["mass_center"], Inertia(*b["inertia_about_body_origin"]))
        )
        cls = getattr(MobilizedBody, b["mobilizer"])
        options = b.get("mobilizer_params") or {}
        mobods.append(
            cls(mobods[b["parent"]], transform(b["X_PF"]), body, transform(b["X_BM"]), **options)
        )
    if not real_forces:
        return system, matter, mobods, ReplayForce(forces)
    return system, matter, mobods, add_model_forces(forces, matter, mobods, model)


def add_model_forces(forces, matter, mobods, model: dict):
    """Build the force elements of chain_mixed/pendulum models; returns ``set_discrete(state)``
    that stores the DiscreteForces values (State variables) in a state."""
    discrete = []
    for f in model["forces"]:
        kind = f["type"].removeprefix("Force::")
        if kind == "UniformGravity":
            Force.UniformGravity(forces, matter, f["g"], f["zero_height"])
        elif kind == "Gravity":
            Force.Gravity(forces, matter, f["down_direction"], f["magnitude"], f["zero_height"])
        elif kind == "MobilityConstantForce":
            Force.MobilityConstantForce(forces, mobods[f["body"]], f["which_u"], f["value"])
        elif kind == "MobilityLinearSpring":
            Force.MobilityLinearSpring(
                forces, mobods[f["body"]], f["which_q"], f["stiffness"], f["q_zero"]
            )
        elif kind == "ConstantForce":
            Force.ConstantForce(forces, mobods[f["body"]], f["station_B"], f["force_G"])
        elif kind == "ConstantTorque":
            Force.ConstantTorque(forces, mobods[f["body"]], f["torque_G"])
        elif kind == "DiscreteForces":
            discrete.append((Force.DiscreteForces(forces, matter), f))
        else:
            raise AssertionError(f"force type {kind} not handled by this test helper")

    def set_discrete(state) -> None:
        for element, f in discrete:
            F = np.zeros((len(mobods), 2, 3))
            for entry in f["body_forces_G"]:
                F[entry["body"]] += [entry["torque_G"], entry["force_G"]]
            element.setAllBodyForces(state, F)
            for entry in f["mobility_forces"]:
                element.setOneMobilityForce(
                    state, mobods[entry["body"]], entry["which_u"], entry["force"]
                )

    return set_discrete
