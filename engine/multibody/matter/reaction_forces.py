"""Mobilizer reaction forces of SimbodyMatterSubsystem (docs/conventions.md §5).

For each body B: the spatial force [torque, force] its mobilizer exerts on B, with the torque
about the outboard frame origin Mo, expressed in Ground (N m, N). The parent feels the
opposite; moved to Fo that is ``-[T + (p_Mo - p_Fo) x f, f]``. Entry 0 (Ground) is the sum of
the reactions of Ground's children about the Ground origin minus any force applied to Ground.
Mobility forces act between parent and child, so they are part of the reactions.
"""

from __future__ import annotations

import numpy as np

from engine.common.stage import Stage
from engine.common.state import State
from engine.multibody.kernels.reaction_forces import (
    reaction_forces_articulated,
    reaction_forces_freebody,
)


class ReactionForcesMixin:
    """calcMobilizerReactionForces (articulated-body method) and
    calcMobilizerReactionForcesUsingFreebodyMethod (Newton-Euler body by body)."""

    def _reaction_force_inputs(self, state: State) -> tuple[np.ndarray, np.ndarray]:
        """Every non-inertial force on the bodies: (body forces (nb, 6) at Bo in G, mobility
        forces (nu,)). These are the applied forces; a subsystem with constraints or prescribed
        motion adds their forces by defining ``_add_constraint_and_motion_forces(state,
        body_forces, mobility_forces)`` (called here, the single place reactions take forces
        from)."""
        body, mobility = self.getSystem().getAppliedForces(state)
        body = np.array(body, dtype=np.float64).reshape(-1, 6)
        mobility = np.array(mobility, dtype=np.float64)
        extra = getattr(self, "_add_constraint_and_motion_forces", None)
        if extra is not None:
            extra(state, body, mobility)
        return body, mobility

    def calcMobilizerReactionForces(self, state: State) -> np.ndarray:
        """Reaction on each body at Mo in G, shape (nb, 2, 3) (Acceleration stage). Uses the
        articulated body inertias of forward dynamics: F = P+ A+ + z+ (Jain 2011, eq. 7.34)."""
        self._require(state, Stage.Acceleration, "calcMobilizerReactionForces")
        topo = self._topo()
        pc = self._position_cache(state)
        vc = self._velocity_cache(state)
        ac = self._acceleration_cache(state)
        body, mobility = self._reaction_force_inputs(state)
        out = np.zeros((topo.nb, 6))
        reaction_forces_articulated(
            topo.parent,
            topo.us,
            topo.nus,
            pc.H_G,
            pc.p_GB,
            pc.p_MB_G,
            ac.P_abi,
            ac.D_inv,
            ac.U_cols,
            vc.coriolis,
            vc.gyroscopic,
            body,
            mobility,
            ac.A_GB,
            out,
        )
        return out.reshape(topo.nb, 2, 3)

    def calcMobilizerReactionForcesUsingFreebodyMethod(self, state: State) -> np.ndarray:
        """The same reactions as calcMobilizerReactionForces, from each body's free-body
        diagram (Newton-Euler from the tips inward) (Acceleration stage)."""
        self._require(state, Stage.Acceleration, "calcMobilizerReactionForcesUsingFreebodyMethod")
        topo = self._topo()
        pc = self._position_cache(state)
        vc = self._velocity_cache(state)
        ac = self._acceleration_cache(state)
        body, _ = self._reaction_force_inputs(state)
        out = np.zeros((topo.nb, 6))
        reaction_forces_freebody(
            topo.parent, pc.p_GB, pc.p_MB_G, pc.Phi_G, ac.A_GB, vc.gyroscopic, body, out
        )
        return out.reshape(topo.nb, 2, 3)
