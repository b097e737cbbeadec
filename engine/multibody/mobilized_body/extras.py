"""More MobilizedBody accessors and helpers (a mixin of MobilizedBody): single derivatives,
accelerations, stations and frames relative to another body, mass properties, force helpers.

Frames and units as Simbody: G = Ground, B = this body, A = another body; positions in m,
velocities in m/s, angular quantities in rad/s (rad/s^2), spatial vectors [angular, linear].
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.math.rotation import Rotation
from engine.math.transform import Transform
from engine.math.vec import as_vec3

if TYPE_CHECKING:
    from engine.common.state import State


class MobilizedBodyExtrasMixin:
    """Accessors of Simbody's MobilizedBody beyond the basic ones."""

    # ------------------------------------------------------------- topology
    def setDefaultInboardFrame(self, X_PF) -> MobilizedBodyExtrasMixin:
        """Change X_PF, the mobilizer's F frame on the parent (a topology change)."""
        self._set_frame("_X_PF", X_PF, "setDefaultInboardFrame")
        return self

    def setDefaultOutboardFrame(self, X_BM) -> MobilizedBodyExtrasMixin:
        """Change X_BM, the mobilizer's M frame on this body (a topology change)."""
        self._set_frame("_X_BM", X_BM, "setDefaultOutboardFrame")
        return self

    def _set_frame(self, attr: str, X, what: str) -> None:
        if self._module is None:
            raise InvalidArgumentError(f"{what}: Ground has no mobilizer frames")
        X = X if isinstance(X, Transform) else Transform(X)
        R, p = np.asarray(X.R().asMat33()), np.asarray(X.p())
        if not (np.all(np.isfinite(R)) and np.all(np.isfinite(p))):
            raise InvalidArgumentError(f"{what}: the transform must be finite")
        setattr(self, attr, Transform(X))  # its own copy, as the constructor keeps
        self._matter._invalidate_body_row(self._index)

    def getDefaultQ(self) -> np.ndarray:
        """Default values of this mobilizer's q slots (set by setDefaultQ, else the type's)."""
        if self._module is None:
            return np.zeros(0)
        default = self._default_q if self._default_q is not None else self._module.DEFAULT_Q
        return np.array(default, dtype=np.float64)

    # ------------------------------------------------------ whole q/u blocks
    def getFirstQIndex(self, state: State) -> int:
        """Index of this mobilizer's first q in the matter subsystem's q."""
        return int(self._matter._topo(state).qs[self._index])

    def getFirstUIndex(self, state: State) -> int:
        """Index of this mobilizer's first u in the matter subsystem's u."""
        return int(self._matter._topo(state).us[self._index])

    def getQAsVector(self, state: State) -> np.ndarray:
        return np.array(self.getQ(state))

    def getUAsVector(self, state: State) -> np.ndarray:
        return np.array(self.getU(state))

    def getQDotAsVector(self, state: State) -> np.ndarray:
        return np.array(self.getQDot(state))

    def getUDotAsVector(self, state: State) -> np.ndarray:
        return np.array(self.getUDot(state))

    def getQDotDotAsVector(self, state: State) -> np.ndarray:
        return np.array(self.getQDotDot(state))

    def setQFromVector(self, state: State, q) -> None:
        self.setQ(state, q)

    def setUFromVector(self, state: State, u) -> None:
        self.setU(state, u)

    # ------------------------------------------------------- one derivative
    def getOneQDot(self, state: State, which: int) -> float:
        """qdot[which] of this mobilizer (Velocity stage)."""
        qdot = self.getQDot(state)
        return float(qdot[self._check_which(which, qdot.shape[0], "q")])

    def getOneUDot(self, state: State, which: int) -> float:
        """udot[which] of this mobilizer (Acceleration stage)."""
        udot = self.getUDot(state)
        return float(udot[self._check_which(which, udot.shape[0], "u")])

    def getOneQDotDot(self, state: State, which: int) -> float:
        """qdotdot[which] of this mobilizer (Acceleration stage)."""
        qdd = self.getQDotDot(state)
        return float(qdd[self._check_which(which, qdd.shape[0], "q")])

    # --------------------------------------------------------- accelerations
    def getBodyAngularAcceleration(self, state: State) -> np.ndarray:
        """b_GB, angular acceleration of B in G (Acceleration stage)."""
        return self.getBodyAcceleration(state)[0].copy()

    def getBodyOriginAcceleration(self, state: State) -> np.ndarray:
        """a_GB, acceleration of Bo in G (Acceleration stage)."""
        return self.getBodyAcceleration(state)[1].copy()

    # ----------------------------------------------------------- mass props
    def getBodyMass(self, state: State) -> float:
        return float(self.getBodyMassProperties(state).getMass())

    def getBodyInertiaAboutBodyOrigin(self, state: State):
        """Inertia of the body about Bo, in B (kg m^2)."""
        return self.getBodyMassProperties(state).getInertia()

    def getBodyMassCenterStation(self, state: State) -> np.ndarray:
        """p_BC, the mass centre in B."""
        return np.array(self.getBodyMassProperties(state).getMassCenter(), dtype=np.float64)

    def findMassCenterLocationInGround(self, state: State) -> np.ndarray:
        """p_GC (Position stage)."""
        return self.findStationLocationInGround(state, self.getBodyMassCenterStation(state))

    def findMassCenterVelocityInGround(self, state: State) -> np.ndarray:
        """v_GC (Velocity stage)."""
        return self.findStationVelocityInGround(state, self.getBodyMassCenterStation(state))

    def findMassCenterAccelerationInGround(self, state: State) -> np.ndarray:
        """a_GC (Acceleration stage)."""
        return self.findStationAccelerationInGround(state, self.getBodyMassCenterStation(state))

    # ------------------------------------------------------------ stations
    def findStationLocationAndVelocityInGround(self, state: State, p_BS):
        """(p_GS, v_GS) (Velocity stage)."""
        return (
            self.findStationLocationInGround(state, p_BS),
            self.findStationVelocityInGround(state, p_BS),
        )

    def findStationLocationVelocityAndAccelerationInGround(self, state: State, p_BS):
        """(p_GS, v_GS, a_GS) (Acceleration stage)."""
        return (
            self.findStationLocationInGround(state, p_BS),
            self.findStationVelocityInGround(state, p_BS),
            self.findStationAccelerationInGround(state, p_BS),
        )

    def findStationAtGroundPoint(self, state: State, p_GS) -> np.ndarray:
        """p_BS, the station of B now at Ground point p_GS (Position stage)."""
        X = self.getBodyTransform(state)
        R = X.R().asMat33()
        return R.T @ (as_vec3(p_GS, "p_GS") - X.p())

    def findStationLocationInAnotherBody(self, state: State, p_BS, toBodyA) -> np.ndarray:
        """p_AS, station S of B measured from Ao, expressed in A (Position stage)."""
        A = self._other_body(toBodyA, "findStationLocationInAnotherBody: toBodyA")
        return A.findStationAtGroundPoint(state, self.findStationLocationInGround(state, p_BS))

    def findStationVelocityInAnotherBody(self, state: State, p_BS, toBodyA) -> np.ndarray:
        """v_AS, velocity of station S of B measured in A, expressed in A (Velocity stage)."""
        A = self._other_body(toBodyA, "findStationVelocityInAnotherBody: toBodyA")
        p_GS = self.findStationLocationInGround(state, p_BS)
        v_GS = self.findStationVelocityInGround(state, p_BS)
        p_GA = A.getBodyOriginLocation(state)
        w_GA, v_GA = A.getBodyVelocity(state)
        v_rel_G = v_GS - v_GA - np.cross(w_GA, p_GS - p_GA)
        return A.expressGroundVectorInBodyFrame(state, v_rel_G)

    # --------------------------------------------------- relative to a body
    def expressVectorInAnotherBodyFrame(self, state: State, v_B, inBodyA) -> np.ndarray:
        """v_A, vector v given in B re-expressed in A (Position stage)."""
        A = self._other_body(inBodyA, "expressVectorInAnotherBodyFrame: inBodyA")
        return A.expressGroundVectorInBodyFrame(state, self.expressVectorInGroundFrame(state, v_B))

    def findBodyTransformInAnotherBody(self, state: State, inBodyA) -> Transform:
        """X_AB (Position stage)."""
        A = self._other_body(inBodyA, "findBodyTransformInAnotherBody: inBodyA")
        X_GA = A.getBodyTransform(state)
        X_GB = self.getBodyTransform(state)
        R_GA = X_GA.R().asMat33()
        R = R_GA.T @ X_GB.R().asMat33()
        return Transform(Rotation._from_matrix(R), R_GA.T @ (X_GB.p() - X_GA.p()))

    def findBodyRotationInAnotherBody(self, state: State, inBodyA) -> Rotation:
        """R_AB (Position stage)."""
        return self.findBodyTransformInAnotherBody(state, inBodyA).R()

    def findBodyOriginLocationInAnotherBody(self, state: State, inBodyA) -> np.ndarray:
        """p_AB, Bo from Ao, in A (Position stage)."""
        return self.findBodyTransformInAnotherBody(state, inBodyA).p()

    def findBodyAngularVelocityInAnotherBody(self, state: State, inBodyA) -> np.ndarray:
        """w_AB, angular velocity of B in A, expressed in A (Velocity stage)."""
        A = self._other_body(inBodyA, "findBodyAngularVelocityInAnotherBody: inBodyA")
        w = self.getBodyAngularVelocity(state) - A.getBodyAngularVelocity(state)
        return A.expressGroundVectorInBodyFrame(state, w)

    def findBodyOriginVelocityInAnotherBody(self, state: State, inBodyA) -> np.ndarray:
        """v_AB, velocity of Bo measured in A, expressed in A (Velocity stage)."""
        A = self._other_body(inBodyA, "findBodyOriginVelocityInAnotherBody: inBodyA")
        return self.findStationVelocityInAnotherBody(state, np.zeros(3), A)

    def _other_body(self, body, what: str):
        """The MobilizedBody ``body`` (or MobilizedBodyIndex) of this body's matter subsystem,
        else InvalidArgumentError / IndexOutOfRangeError naming ``what``."""
        from engine.multibody.matter.arguments import body_index

        return self._matter.getMobilizedBody(body_index(self._matter, body, what))

    # ---------------------------------------------------------- force helpers
    def _force_rows(self, bodyForces, what: str) -> np.ndarray:
        """The writable (nb, 2, 3) view of a writable float64 body-force array of shape
        (nb, 2, 3) or a C-contiguous one of shape (nb, 6), after checking it."""
        nb = self._matter.getNumBodies()
        if (
            isinstance(bodyForces, np.ndarray)
            and bodyForces.dtype == np.float64
            and bodyForces.flags.writeable
        ):
            if bodyForces.shape == (nb, 2, 3):
                return bodyForces
            if bodyForces.shape == (nb, 6) and bodyForces.flags.c_contiguous:
                return bodyForces.reshape(nb, 2, 3)
        shape = getattr(bodyForces, "shape", type(bodyForces).__name__)
        raise InvalidArgumentError(
            f"{what}: bodyForces must be a writable float64 array of shape ({nb}, 2, 3) to add "
            f"into, got {shape}"
        )

    def applyBodyTorque(self, state: State, torque_G, bodyForces: np.ndarray) -> None:
        """Add a torque (in G, N m) on this body into bodyForces."""
        t = as_vec3(torque_G, "torque_G")
        self._force_rows(bodyForces, "applyBodyTorque")[self._index, 0] += t
