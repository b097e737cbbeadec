"""Force.LinearBushing: a 6-dof linear spring-damper between two body-fixed frames."""

from __future__ import annotations

import math

import numpy as np

from engine.common.exceptions import InvalidArgumentError, NonPhysicalError
from engine.common.stage import Stage
from engine.common.state import State
from engine.forces.force import Force
from engine.math.rotation import Rotation
from engine.math.transform import Transform


def _xyz_angles(R: np.ndarray) -> np.ndarray:
    """Body-fixed x-y-z angles q with R = Rx(q0) Ry(q1) Rz(q2)."""
    return np.array(
        [
            math.atan2(-R[1, 2], R[2, 2]),
            math.atan2(R[0, 2], math.hypot(R[0, 0], R[0, 1])),
            math.atan2(-R[0, 1], R[0, 0]),
        ]
    )


def _rates_matrix(q: np.ndarray) -> np.ndarray:
    """W with w_F = W qdot for body-fixed x-y-z angles (angular velocity in F)."""
    s0, c0 = math.sin(q[0]), math.cos(q[0])
    s1, c1 = math.sin(q[1]), math.cos(q[1])
    return np.array([[1.0, 0.0, s1], [0.0, c0, -s0 * c1], [0.0, s0, c0 * c1]])


class LinearBushing(Force):
    """LinearBushing(forces, body1, X_B1F, body2, X_B2M, stiffness, damping) or
    LinearBushing(forces, body1, body2, stiffness, damping) (frames = body frames).

    From X_FM (F fixed on body 1, M on body 2) it infers q = [x-y-z body-fixed angles of
    R_FM, p_FM] and qdot = [W^-1 w_FM, v_FM] (in F); generalized forces
    f = -(k q + c qdot) (k, c: six values >= 0, rotations first). Body 2 gets the torque
    R_GF W^-T f[0:3] and the force R_GF f[3:6] at Mo; body 1 the opposite at the same
    point. Potential energy sum k_i q_i^2 / 2; it dissipates sum c_i qdot_i^2 (W), the
    time derivative of its one z variable (the dissipated energy, J). Frames, k and c
    live in the State: their setters invalidate Instance stage (the State falls back to
    Model). Singular where the middle angle is +-90 degrees.
    """

    _PARAMS_INVALIDATE = Stage.Instance

    def __init__(self, forces, body1, *args) -> None:
        self._bind(forces)
        if len(args) == 5:
            X_B1F, body2, X_B2M, stiffness, damping = args
        elif len(args) == 3:
            body2, stiffness, damping = args
            X_B1F, X_B2M = Transform(), Transform()
        else:
            raise InvalidArgumentError(
                "Force.LinearBushing(forces, body1, X_B1F, body2, X_B2M, stiffness, damping) "
                "or (forces, body1, body2, stiffness, damping)"
            )
        self._mobod1 = self._check_mobod(body1, "body1")
        self._mobod2 = self._check_mobod(body2, "body2")
        if body1.getMatterSubsystem() is not body2.getMatterSubsystem():
            raise InvalidArgumentError(
                "Force.LinearBushing: body1 and body2 belong to different matter subsystems"
            )
        defaults = {
            "X_B1F": self._transform(X_B1F, "X_B1F"),
            "X_B2M": self._transform(X_B2M, "X_B2M"),
            "k": self._vec(stiffness, 6, "stiffness", nonnegative=True),
            "c": self._vec(damping, 6, "damping", nonnegative=True),
        }
        self._z_index = -1
        self._position_entry = -1
        self._velocity_entry = -1
        super().__init__(forces, defaults)

    def _transform(self, X, what: str) -> Transform:
        if isinstance(X, Transform):
            return Transform(X)
        raise InvalidArgumentError(
            f"Force.LinearBushing: {what} must be a Transform, got {type(X).__name__}"
        )

    def _realize_topology(self, forces, state: State) -> None:
        super()._realize_topology(forces, state)
        self._z_index = forces.allocateZ(state, np.zeros(1))

    def getBody1(self):
        return self._mobod1

    def getBody2(self):
        return self._mobod2

    # -------------------------------------------------------------- defaults
    def setDefaultFrameOnBody1(self, X_B1F) -> LinearBushing:
        return self._set_default(X_B1F=self._transform(X_B1F, "X_B1F"))

    def setDefaultFrameOnBody2(self, X_B2M) -> LinearBushing:
        return self._set_default(X_B2M=self._transform(X_B2M, "X_B2M"))

    def setDefaultStiffness(self, stiffness) -> LinearBushing:
        return self._set_default(k=self._vec(stiffness, 6, "stiffness", nonnegative=True))

    def setDefaultDamping(self, damping) -> LinearBushing:
        return self._set_default(c=self._vec(damping, 6, "damping", nonnegative=True))

    def getDefaultFrameOnBody1(self) -> Transform:
        return Transform(self._defaults["X_B1F"])

    def getDefaultFrameOnBody2(self) -> Transform:
        return Transform(self._defaults["X_B2M"])

    def getDefaultStiffness(self) -> np.ndarray:
        return self._default("k")

    def getDefaultDamping(self) -> np.ndarray:
        return self._default("c")

    # --------------------------------------------------- Instance parameters
    def setFrameOnBody1(self, state: State, X_B1F) -> LinearBushing:
        self._update(state, X_B1F=self._transform(X_B1F, "X_B1F"))
        return self

    def setFrameOnBody2(self, state: State, X_B2M) -> LinearBushing:
        self._update(state, X_B2M=self._transform(X_B2M, "X_B2M"))
        return self

    def setStiffness(self, state: State, stiffness) -> LinearBushing:
        self._update(state, k=self._vec(stiffness, 6, "stiffness", nonnegative=True))
        return self

    def setDamping(self, state: State, damping) -> LinearBushing:
        self._update(state, c=self._vec(damping, 6, "damping", nonnegative=True))
        return self

    def getFrameOnBody1(self, state: State) -> Transform:
        return Transform(self._params(state)["X_B1F"])

    def getFrameOnBody2(self, state: State) -> Transform:
        return Transform(self._params(state)["X_B2M"])

    def getStiffness(self, state: State) -> np.ndarray:
        return self._param(state, "k")

    def getDamping(self, state: State) -> np.ndarray:
        return self._param(state, "c")

    # ------------------------------------------------------------ kinematics
    def _position(self, state: State) -> dict:
        """Frames F and M in Ground, X_FM and q (Position stage; a lazy cache entry)."""
        forces, entry = self._forces, self._position_entry
        if forces.isCacheValueRealized(state, entry):
            return forces.getCacheEntry(state, entry)
        pos = self._calc_position(state)
        state.setCacheEntryValue(forces.getMySubsystemIndex(), entry, pos)
        forces.markCacheValueRealized(state, entry)
        return pos

    def _calc_position(self, state: State) -> dict:
        p = self._params(state)
        X1, X2 = p["X_B1F"], p["X_B2M"]
        R_GF = self._mobod1.getBodyRotation(state).asMat33() @ X1.R().asMat33()
        R_GM = self._mobod2.getBodyRotation(state).asMat33() @ X2.R().asMat33()
        p_GF = self._mobod1.findStationLocationInGround(state, X1.p())
        p_GM = self._mobod2.findStationLocationInGround(state, X2.p())
        R_FM = R_GF.T @ R_GM
        p_FM = R_GF.T @ (p_GM - p_GF)
        q = np.concatenate((_xyz_angles(R_FM), p_FM))
        return {"R_GF": R_GF, "p_GF": p_GF, "R_GM": R_GM, "p_GM": p_GM, "R_FM": R_FM, "q": q}

    def _velocity(self, state: State, pos: dict) -> dict:
        """Frame velocities in G, V_FM in F, W and qdot (Velocity stage; lazy cache entry)."""
        forces, entry = self._forces, self._velocity_entry
        if forces.isCacheValueRealized(state, entry):
            return forces.getCacheEntry(state, entry)
        vel = self._calc_velocity(state, pos)
        state.setCacheEntryValue(forces.getMySubsystemIndex(), entry, vel)
        forces.markCacheValueRealized(state, entry)
        return vel

    def _calc_velocity(self, state: State, pos: dict) -> dict:
        p = self._params(state)
        w_GF = self._mobod1.getBodyAngularVelocity(state)
        w_GM = self._mobod2.getBodyAngularVelocity(state)
        v_GF = self._mobod1.findStationVelocityInGround(state, p["X_B1F"].p())
        v_GM = self._mobod2.findStationVelocityInGround(state, p["X_B2M"].p())
        R_FG = pos["R_GF"].T
        w_FM = R_FG @ (w_GM - w_GF)
        v_FM = R_FG @ (v_GM - v_GF - np.cross(w_GF, pos["p_GM"] - pos["p_GF"]))
        W = self._W(pos["q"])
        qdot = np.concatenate((np.linalg.solve(W, w_FM), v_FM))
        return {
            "V_GF": np.array([w_GF, v_GF]),
            "V_GM": np.array([w_GM, v_GM]),
            "V_FM": np.array([w_FM, v_FM]),
            "W": W,
            "qdot": qdot,
        }

    def _spatial_forces(self, state: State) -> tuple[dict, dict, np.ndarray, np.ndarray]:
        """(pos, vel, f, F_GM): generalized forces and the spatial force on body 2 at Mo."""
        p = self._params(state)
        pos = self._position(state)
        vel = self._velocity(state, pos)
        f = -(p["k"] * pos["q"] + p["c"] * vel["qdot"])
        R_GF = pos["R_GF"]
        F_GM = np.array([R_GF @ np.linalg.solve(vel["W"].T, f[0:3]), R_GF @ f[3:6]])
        return pos, vel, f, F_GM

    def _W(self, q: np.ndarray) -> np.ndarray:
        if abs(math.cos(q[1])) < 1e-12:
            raise NonPhysicalError(
                f"Force.LinearBushing {self._index}: its middle angle is at 90 degrees, where "
                "its angle rates are undefined"
            )
        return _rates_matrix(q)

    def getX_GF(self, state: State) -> Transform:
        pos = self._position(state)
        return Transform(Rotation._from_matrix(pos["R_GF"]), pos["p_GF"])

    def getX_GM(self, state: State) -> Transform:
        pos = self._position(state)
        return Transform(Rotation._from_matrix(pos["R_GM"]), pos["p_GM"])

    def getX_FM(self, state: State) -> Transform:
        pos = self._position(state)
        return Transform(Rotation._from_matrix(pos["R_FM"]), pos["q"][3:6])

    def getQ(self, state: State) -> np.ndarray:
        """[qx, qy, qz, px, py, pz]: x-y-z angles of R_FM and p_FM in F (Position stage)."""
        return self._position(state)["q"].copy()

    def getV_GF(self, state: State) -> np.ndarray:
        return self._velocity(state, self._position(state))["V_GF"].copy()

    def getV_GM(self, state: State) -> np.ndarray:
        return self._velocity(state, self._position(state))["V_GM"].copy()

    def getV_FM(self, state: State) -> np.ndarray:
        """[w_FM, v_FM] in F: M's velocity in F, the derivative taken in F (Velocity)."""
        return self._velocity(state, self._position(state))["V_FM"].copy()

    def getQDot(self, state: State) -> np.ndarray:
        """[angle rates, v_FM in F] (Velocity stage)."""
        return self._velocity(state, self._position(state))["qdot"].copy()

    # ---------------------------------------------------------------- forces
    def getF(self, state: State) -> np.ndarray:
        """The six generalized forces -(k q + c qdot) on body 2 (Velocity stage)."""
        return self._spatial_forces(state)[2]

    def getF_GM(self, state: State) -> np.ndarray:
        """Spatial force on body 2 at Mo, in G (Velocity stage)."""
        return self._spatial_forces(state)[3]

    def getF_GF(self, state: State) -> np.ndarray:
        """Spatial force on body 1 at Fo, in G (equal and opposite to F_GM)."""
        pos, _, _, F = self._spatial_forces(state)
        return -np.array([F[0] + np.cross(pos["p_GM"] - pos["p_GF"], F[1]), F[1]])

    def calcForce(self, state: State, bodyForces, particleForces, mobilityForces) -> None:
        pos, _, _, F = self._spatial_forces(state)
        for mobod, sign in ((self._mobod2, 1.0), (self._mobod1, -1.0)):
            b = mobod.getMobilizedBodyIndex()
            r = pos["p_GM"] - mobod.getBodyOriginLocation(state)
            bodyForces[b, 0] += sign * (F[0] + np.cross(r, F[1]))
            bodyForces[b, 1] += sign * F[1]

    def calcPotentialEnergy(self, state: State) -> float:
        q = self._position(state)["q"]
        return float(0.5 * np.sum(self._params(state)["k"] * q * q))

    def getPotentialEnergy(self, state: State) -> float:
        return self.calcPotentialEnergy(state)

    def getPowerDissipation(self, state: State) -> float:
        """sum c_i qdot_i^2, W (Velocity stage)."""
        qdot = self.getQDot(state)
        return float(np.sum(self._params(state)["c"] * qdot * qdot))

    def getDissipatedEnergy(self, state: State) -> float:
        return float(self._forces.getZ(state)[self._z_index])

    def setDissipatedEnergy(self, state: State, energy: float) -> None:
        e = self._nonnegative(energy, "dissipated energy")
        self._forces.updZ(state)[self._z_index] = e

    def _realize(self, stage: Stage, state: State) -> None:
        if stage == Stage.Model:
            name = f"LinearBushing {self._index}"
            self._position_entry = self._forces.allocateLazyCacheEntry(
                state, Stage.Position, None, name=f"{name} frames and q"
            )
            self._velocity_entry = self._forces.allocateLazyCacheEntry(
                state, Stage.Velocity, None, name=f"{name} velocities and qdot"
            )
        elif stage == Stage.Acceleration:
            zdot = state.updZDot(self._forces.getMySubsystemIndex())
            zdot[self._z_index] = self.getPowerDissipation(state)


Force.LinearBushing = LinearBushing  # type: ignore[attr-defined]
