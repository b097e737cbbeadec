"""The reference models of chain_mixed.json / pendulum.json with replayed applied forces.

Applied forces: the matter-subsystem tests need the state's applied forces to be exactly the
ones Simbody reported (``applied_body_forces_G``, ``applied_mobility_forces``), independently
of the force elements (tested on their own against forces.json). ``ReplayForce`` is a
Force.Custom-style element that applies a given set of body and mobility forces.
"""

from __future__ import annotations

import numpy as np

from engine import Force, GeneralForceSubsystem
from tests.engine.reference_models import build


class ReplayForce(Force):
    """Applies ``body_forces`` ((nb, 2, 3) at Bo in G) and ``mobility_forces`` (nu,) as given;
    no potential energy."""

    def __init__(self, forces: GeneralForceSubsystem) -> None:
        super().__init__(forces)
        self.body_forces = None
        self.mobility_forces = None

    def replay(self, outputs: dict) -> None:
        """Apply the forces Simbody reported in a reference sample's ``outputs``."""
        self.body_forces = outputs["applied_body_forces_G"]
        self.mobility_forces = outputs["applied_mobility_forces"]

    def calcForce(self, state, bodyForces, particleForces, mobilityForces) -> None:
        if self.body_forces is not None:
            bodyForces[...] += np.asarray(self.body_forces, dtype=float).reshape(bodyForces.shape)
        if self.mobility_forces is not None:
            mobilityForces[...] += np.asarray(self.mobility_forces, dtype=float)

    def calcPotentialEnergy(self, state) -> float:
        return 0.0


def build_replayed(model: dict):
    """(built, replay): a reference model (tests/engine/reference_models.py) with a
    ``ReplayForce`` in place of its force elements."""
    built = build(model, forces=False)
    return built, ReplayForce(built.forces)
