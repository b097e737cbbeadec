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


def build(model: dict):
    """(system, matter, mobods, replay) for a reference model description."""
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
    replay = ReplayForce(forces)
    return system, matter, mobods, replay
