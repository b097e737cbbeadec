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
    def _frames(self, state: State):
        """(R_GF, p_GF, R_GM, p_GM) in Ground (Position stage)."""
        p = self._params(state)
        X1, X2 = p["X_B1F"], p["X_B2M"]
        R1 = self._mobod1.getBodyRotation(state).asMat33()
        R2 = self._mobod2.getBodyRotation(state).asMat33()
        R_GF = R1 @ X1.R().asMat33()
        R_GM = R2 @ X2.R().asMat33()
        p_GF = self._mobod1.findStationLocationInGround(state, X1.p())
        p_GM = self._mobod2.findStationLocationInGround(state, X2.p())
        return R_GF, p_GF, R_GM, p_GM

    def getX_GF(self, state: State) -> Transform:
        R_GF, p_GF, _, _ = self._frames(state)
        return Transform(Rotation._from_matrix(R_GF), p_GF)

    def getX_GM(self, state: State) -> Transform:
        _, _, R_GM, p_GM = self._frames(state)
        return Transform(Rotation._from_matrix(R_GM), p_GM)

    def getX_FM(self, state: State) -> Transform:
        R_GF, p_GF, R_GM, p_GM = self._frames(state)
        return Transform(Rotation._from_matrix(R_GF.T @ R_GM), R_GF.T @ (p_GM - p_GF))

    def getQ(self, state: State) -> np.ndarray:
        """[qx, qy, qz, px, py, pz]: x-y-z angles of R_FM and p_FM in F (Position stage)."""
        R_GF, p_GF, R_GM, p_GM = self._frames(state)
        return np.concatenate((_xyz_angles(R_GF.T @ R_GM), R_GF.T @ (p_GM - p_GF)))

    def _velocities(self, state: State):
        """(V_GF, V_GM) of the frames (angular, linear of the origin) in G."""
        p = self._params(state)
        V1 = self._mobod1.getBodyVelocity(state)
        V2 = self._mobod2.getBodyVelocity(state)
        v_GF = self._mobod1.findStationVelocityInGround(state, p["X_B1F"].p())
        v_GM = self._mobod2.findStationVelocityInGround(state, p["X_B2M"].p())
        return np.array([V1[0], v_GF]), np.array([V2[0], v_GM])

    def getV_GF(self, state: State) -> np.ndarray:
        return self._velocities(state)[0]

    def getV_GM(self, state: State) -> np.ndarray:
        return self._velocities(state)[1]

    def getV_FM(self, state: State) -> np.ndarray:
        """[w_FM, v_FM] in F: M's velocity in F, the derivative taken in F (Velocity)."""
        R_GF, p_GF, _, p_GM = self._frames(state)
        V_GF, V_GM = self._velocities(state)
        w = V_GM[0] - V_GF[0]
        v = V_GM[1] - V_GF[1] - np.cross(V_GF[0], p_GM - p_GF)
        return np.array([R_GF.T @ w, R_GF.T @ v])

    def _W(self, q: np.ndarray) -> np.ndarray:
        W = _rates_matrix(q)
        if abs(math.cos(q[1])) < 1e-12:
            raise NonPhysicalError(
                f"Force.LinearBushing {self._index}: its middle angle is at 90 degrees, where "
                "its angle rates are undefined"
            )
        return W

    def getQDot(self, state: State) -> np.ndarray:
        """[angle rates, v_FM in F] (Velocity stage)."""
        q = self.getQ(state)
        V_FM = self.getV_FM(state)
        return np.concatenate((np.linalg.solve(self._W(q), V_FM[0]), V_FM[1]))

    # ---------------------------------------------------------------- forces
    def getF(self, state: State) -> np.ndarray:
        """The six generalized forces -(k q + c qdot) on body 2 (Velocity stage)."""
        p = self._params(state)
        return -(p["k"] * self.getQ(state) + p["c"] * self.getQDot(state))

    def getF_GM(self, state: State) -> np.ndarray:
        """Spatial force on body 2 at Mo, in G (Velocity stage)."""
        R_GF = self._frames(state)[0]
        f = self.getF(state)
        W = self._W(self.getQ(state))
        return np.array([R_GF @ np.linalg.solve(W.T, f[0:3]), R_GF @ f[3:6]])

    def getF_GF(self, state: State) -> np.ndarray:
        """Spatial force on body 1 at Fo, in G (equal and opposite to F_GM)."""
        _, p_GF, _, p_GM = self._frames(state)
        F = self.getF_GM(state)
        return -np.array([F[0] + np.cross(p_GM - p_GF, F[1]), F[1]])

    def calcForce(self, state: State, bodyForces, particleForces, mobilityForces) -> None:
        _, _, _, p_GM = self._frames(state)
        F = self.getF_GM(state)
        for mobod, sign in ((self._mobod2, 1.0), (self._mobod1, -1.0)):
            b = mobod.getMobilizedBodyIndex()
            r = p_GM - mobod.getBodyOriginLocation(state)
            bodyForces[b, 0] += sign * (F[0] + np.cross(r, F[1]))
            bodyForces[b, 1] += sign * F[1]

    def calcPotentialEnergy(self, state: State) -> float:
        q = self.getQ(state)
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
        if stage == Stage.Acceleration:
            zdot = state.updZDot(self._forces.getMySubsystemIndex())
            zdot[self._z_index] = self.getPowerDissipation(state)


Force.LinearBushing = LinearBushing  # type: ignore[attr-defined]
