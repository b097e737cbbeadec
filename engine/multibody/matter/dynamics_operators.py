"""Dynamics operators of SimbodyMatterSubsystem built on the O(n) kernels: calcAcceleration,
calcResidualForce, calcBodyAccelerationFromUDot, calcTreeEquivalentMobilityForces, the
force-array helpers addInStationForce / addInBodyTorque / addInMobilityForce, and
getTotalCentrifugalForces.

Body forces are (nb, 2, 3) arrays of [torque, force] at each body origin Bo, in Ground (N m,
N); mobility forces and udot are u-space vectors. Constrained systems: calcAcceleration and
calcResidualForce reach the constraint code through ``_calc_constrained_acceleration`` and
``multiplyByGTranspose`` only when the subsystem has constraint equations.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import IndexOutOfRangeError, InvalidArgumentError
from engine.common.stage import Stage
from engine.common.state import State
from engine.multibody.kernels.task_jacobians import body_acceleration_from_udot
from engine.multibody.matter.arguments import (
    body_index,
    finite_array,
    optional_body_forces,
    optional_vector,
    vec3,
    writable_array,
)


class DynamicsOperatorsMixin:
    """Forward/inverse dynamics wrappers and force-array helpers."""

    def getGround(self):
        """The Ground mobilized body (index 0); the same handle as Ground()."""
        return self.Ground()

    def _num_constraint_equations(self, state: State) -> int:
        """m = mp + mv + ma of the active constraints (0 without constraints)."""
        return int(state.getNMultipliers(self.getMySubsystemIndex()))

    # --------------------------------------------------------------- forward
    def calcAcceleration(self, state: State, appliedMobilityForces, appliedBodyForces):
        """(udot (nu,), A_GB (nb, 2, 3)) for the given applied forces, the velocity-dependent
        inertial forces of the state and the constraints (Dynamics stage)."""
        what = "calcAcceleration"
        self._require(state, Stage.Dynamics, what)
        topo = self._topo()
        f = optional_vector(appliedMobilityForces, topo.nu, f"{what}: appliedMobilityForces")
        F = optional_body_forces(appliedBodyForces, topo.nb, f"{what}: appliedBodyForces")
        if self._num_constraint_equations(state) > 0:
            solve = getattr(self, "_calc_constrained_acceleration", None)
            if solve is None:
                raise InvalidArgumentError(
                    f"{what}: this system has constraint equations but no constraint solver"
                )
            return solve(state, f, F.reshape(topo.nb, 2, 3))
        return self.calcAccelerationIgnoringConstraints(state, f, F.reshape(topo.nb, 2, 3))

    def calcBodyAccelerationFromUDot(self, state: State, knownUDot) -> np.ndarray:
        """A_GB = J udot + JDot u (nb, 2, 3) at Bo in G; an empty knownUDot means zeros, giving
        only the velocity-dependent part (Velocity stage)."""
        what = "calcBodyAccelerationFromUDot"
        self._require_velocity_kinematics(state, what)
        topo = self._topo()
        udot = optional_vector(knownUDot, topo.nu, f"{what}: knownUDot")
        pc = self._position_cache(state)
        vc = self._velocity_cache(state)
        A = np.zeros((topo.nb, 6))
        body_acceleration_from_udot(
            topo.parent, topo.us, topo.nus, pc.H_G, pc.p_GB, vc.coriolis, udot, A
        )
        return A.reshape(topo.nb, 2, 3)

    # --------------------------------------------------------------- inverse
    def calcResidualForce(
        self, state: State, appliedMobilityForces, appliedBodyForces, knownUdot, knownLambda
    ) -> np.ndarray:
        """f_residual = M udot + G^T lambda + f_inertial - f_applied (Velocity stage). Empty
        arguments mean zeros; lambda has one entry per constraint equation."""
        what = "calcResidualForce"
        self._require_velocity_kinematics(state, what)
        topo = self._topo()
        m = self._num_constraint_equations(state)
        f = optional_vector(appliedMobilityForces, topo.nu, f"{what}: appliedMobilityForces")
        F = optional_body_forces(appliedBodyForces, topo.nb, f"{what}: appliedBodyForces")
        udot = optional_vector(knownUdot, topo.nu, f"{what}: knownUdot")
        lam = optional_vector(knownLambda, m, f"{what}: knownLambda")
        residual = self.calcResidualForceIgnoringConstraints(
            state, f, F.reshape(topo.nb, 2, 3), udot
        )
        if m > 0:
            residual = residual + self.multiplyByGTranspose(state, lam)
        return residual

    def calcTreeEquivalentMobilityForces(self, state: State, bodyForces) -> np.ndarray:
        """J^T F - bias: mobility forces replacing the body forces F (at Bo, in G) and the
        velocity-dependent inertial forces (Dynamics stage)."""
        what = "calcTreeEquivalentMobilityForces"
        self._require(state, Stage.Dynamics, what)
        topo = self._topo()
        F = optional_body_forces(bodyForces, topo.nb, f"{what}: bodyForces")
        zero = np.zeros(topo.nu)
        return -self.calcResidualForceIgnoringConstraints(
            state, zero, F.reshape(topo.nb, 2, 3), zero
        )

    # ----------------------------------------------------------- inertial terms
    def _velocity_term(self, state: State, mobod, name: str, what: str) -> np.ndarray:
        self._require_velocity_kinematics(state, what)
        b = body_index(self, mobod, f"{what}: mobod")
        return getattr(self._velocity_cache(state), name)[b].reshape(2, 3).copy()

    def getGyroscopicForce(self, state: State, mobod) -> np.ndarray:
        """b = [w x (I w), m w x (w x c)]: the body's gyroscopic force at Bo in G, (2, 3)
        (Velocity stage)."""
        return self._velocity_term(state, mobod, "gyroscopic", "getGyroscopicForce")

    def getTotalCoriolisAcceleration(self, state: State, mobod) -> np.ndarray:
        """The body's block of JDot u: its velocity-dependent acceleration at Bo in G, (2, 3)
        (Velocity stage)."""
        return self._velocity_term(state, mobod, "total_coriolis", "getTotalCoriolisAcceleration")

    def getMobilizerCoriolisAcceleration(self, state: State, mobod) -> np.ndarray:
        """The body's own increment of the Coriolis acceleration, given its parent's (the
        total is the parent's shifted to Bo plus this), at Bo in G, (2, 3) (Velocity stage)."""
        return self._velocity_term(state, mobod, "coriolis", "getMobilizerCoriolisAcceleration")

    def getTotalCentrifugalForces(self, state: State, mobod) -> np.ndarray:
        """Phi (JDot u)_B + b_B: the body's spatial inertia times its total Coriolis
        acceleration plus its gyroscopic force, at Bo in G (2, 3) (Velocity stage)."""
        what = "getTotalCentrifugalForces"
        self._require_velocity_kinematics(state, what)
        b = body_index(self, mobod, f"{what}: mobod")
        pc = self._position_cache(state)
        vc = self._velocity_cache(state)
        F = pc.Phi_G[b] @ vc.total_coriolis[b] + vc.gyroscopic[b]
        return F.reshape(2, 3)

    # ------------------------------------------------------------ force helpers
    def _writable_body_forces(self, bodyForcesInG, what: str) -> np.ndarray:
        nb = self.getNumBodies()
        return writable_array(bodyForcesInG, (nb, 2, 3), f"{what}: bodyForcesInG")

    def addInStationForce(
        self, state: State, bodyB, stationOnB, forceInG, bodyForcesInG: np.ndarray
    ) -> None:
        """Add a force (in G) applied at a station (in B) to body B's entry of bodyForcesInG
        (nb, 2, 3), as [(R_GB s) x f, f] at Bo (Position stage). Changes nothing else."""
        what = "addInStationForce"
        self._require_position_kinematics(state, what)
        b = body_index(self, bodyB, f"{what}: bodyB")
        s = vec3(stationOnB, f"{what}: stationOnB")
        f = vec3(forceInG, f"{what}: forceInG")
        out = self._writable_body_forces(bodyForcesInG, what)
        r = self._position_cache(state).R_GB[b] @ s
        out[b, 0] += np.cross(r, f)
        out[b, 1] += f

    def addInBodyTorque(self, state: State, mobodIx, torqueInG, bodyForcesInG) -> None:
        """Add a torque (in G) to the body's entry of bodyForcesInG (nb, 2, 3)."""
        what = "addInBodyTorque"
        self._require(state, Stage.Topology, what)
        b = body_index(self, mobodIx, f"{what}: mobodIx")
        t = vec3(torqueInG, f"{what}: torqueInG")
        self._writable_body_forces(bodyForcesInG, what)[b, 0] += t

    def addInMobilityForce(self, state: State, mobodIx, which: int, f: float, mobilityForces):
        """Add a scalar generalized force to mobility ``which`` of the body's mobilizer in
        mobilityForces (nu,) (Model stage, where the u layout is known)."""
        what = "addInMobilityForce"
        self._require(state, Stage.Model, what)
        b = body_index(self, mobodIx, f"{what}: mobodIx")
        topo = self._topo()
        nu_b = int(topo.nus[b])
        if isinstance(which, (bool, np.bool_)) or not isinstance(which, (int, np.integer)):
            raise InvalidArgumentError(
                f"{what}: which: expected a mobility index (int), got {type(which).__name__} "
                f"{which!r}"
            )
        if not 0 <= int(which) < nu_b:
            raise IndexOutOfRangeError(
                f"{what}: which: body {b} has {nu_b} mobilities, so which must be in "
                f"[0, {nu_b}), got {int(which)}"
            )
        value = float(finite_array(f, (), f"{what}: f"))
        writable_array(mobilityForces, (topo.nu,), f"{what}: mobilityForces")
        mobilityForces[int(topo.us[b]) + int(which)] += value
