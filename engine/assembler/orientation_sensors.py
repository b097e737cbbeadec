"""OrientationSensors: fit body-fixed frames to observed orientations (SimTK::OrientationSensors).

Each sensor is a rotation ``R_BO`` fixed on body B (an IMU, say) with a weight >= 0 and a
name. Observations are Ground-frame rotations ``R_GS`` given in an observation order
(``defineObservationOrder``; default: sensor order); an observation containing NaN (the
initial value) or a sensor of weight 0 is ignored.

With ``R_GO = R_GB R_BO`` and ``theta_i`` the angle of the rotation ``R_GO R_GS^T`` that
takes the observed frame to the current one:

    goal = sum_i w_i theta_i^2 / (2 sum_i w_i)

(the Markers form, with angles in radians). The gradient is analytic: the angle of
``exp(dw) E`` changes at ``k . dw`` (k = unit axis of E in G), so each sensor acts like a
torque ``w_i theta_i k_i / W`` on its body, mapped to q by N^-T J^T. As a requirement the
errors are the 3 components ``theta_i k_i`` (rotation vector in G) of each active sensor.
"""

from __future__ import annotations

import math

import numpy as np

from engine.assembler.observed_targets import ObservedTargets, _body, _weight
from engine.common.exceptions import InvalidArgumentError
from engine.math.rotation import Rotation


def _matrix(R, what: str) -> np.ndarray:
    if isinstance(R, Rotation):
        return R.asMat33().copy()
    m = np.asarray(R, dtype=np.float64)
    if m.shape != (3, 3):
        raise InvalidArgumentError(f"{what}: expected a Rotation or 3x3 matrix, got {m.shape}")
    return m.copy()


def rotation_vector(E: np.ndarray) -> np.ndarray:
    """theta * k of the rotation matrix E (theta in [0, pi])."""
    c = max(-1.0, min(1.0, 0.5 * (np.trace(E) - 1.0)))
    theta = math.acos(c)
    v = 0.5 * np.array([E[2, 1] - E[1, 2], E[0, 2] - E[2, 0], E[1, 0] - E[0, 1]])
    s = np.linalg.norm(v)  # = sin(theta)
    if theta < 1e-6:
        return v  # sin(theta) ~ theta
    if math.pi - theta > 1e-6:
        return v * (theta / s)
    # Near pi: axis from the symmetric part E + E^T = 2 k k^T (1 - cos) + 2 cos I.
    B = 0.5 * (E + E.T) - c * np.eye(3)
    k = B[:, int(np.argmax(np.diag(B)))]
    k = k / np.linalg.norm(k)
    if v @ k < 0:
        k = -k
    return theta * k


class OrientationSensor:
    """One sensor: name, body index, orientation R_BO in B, weight."""

    __slots__ = ("name", "bodyB", "orientationInB", "weight")

    def __init__(self, name: str, bodyB: int, orientationInB: np.ndarray, weight: float):
        self.name = name
        self.bodyB = bodyB
        self.orientationInB = orientationInB
        self.weight = weight


class OrientationSensors(ObservedTargets):
    """A set of body-fixed orientation sensors and their observed Ground orientations."""

    _NOUN = "sensor"
    _OBSERVATION_SHAPE = (3, 3)

    def __init__(self) -> None:
        super().__init__("OrientationSensors")

    # ---------------------------------------------------------- definition
    def addOSensor(self, *args) -> int:
        """``addOSensor(name, bodyB, orientationInB, weight=1)`` or
        ``addOSensor(bodyB, orientationInB, weight=1)``; returns the OSensorIx."""
        name, rest = self._split_add_args(
            args,
            "addOSensor(name, bodyB, orientationInB, weight=1) or addOSensor(bodyB, "
            "orientationInB, weight=1)",
        )
        body = _body(rest[0], "addOSensor")
        R = _matrix(rest[1], "addOSensor orientationInB")
        weight = _weight(rest[2] if len(rest) == 3 else 1.0, "addOSensor")
        return self._add_target(OrientationSensor(name, body, R, weight), "addOSensor")

    def getNumOSensors(self) -> int:
        return len(self._targets)

    def getOSensorName(self, ix) -> str:
        return self._target(ix, "getOSensorName").name

    def getOSensorIx(self, name: str, required: bool = False) -> int:
        return self._index_of(name, required)

    def getOSensorWeight(self, ix) -> float:
        return self._target(ix, "getOSensorWeight").weight

    def getOSensorBody(self, ix) -> int:
        return self._target(ix, "getOSensorBody").bodyB

    def getOSensorStation(self, ix) -> Rotation:
        """The sensor's orientation R_BO on its body."""
        return Rotation(self._target(ix, "getOSensorStation").orientationInB)

    def changeOSensorWeight(self, ix, weight: float) -> None:
        self._change_weight(ix, weight, "changeOSensorWeight")

    # -------------------------------------------------------- observations
    def getObservationIxForOSensor(self, ix) -> int:
        return self._observation_of(ix, "getObservationIxForOSensor")

    def hasObservation(self, ix) -> bool:
        return self.getObservationIxForOSensor(ix) >= 0

    def getOSensorIxForObservation(self, ox) -> int:
        return self._target_of_observation(ox, "getOSensorIxForObservation")

    def moveOneObservation(self, ox, observation) -> None:
        """Set observation ``ox`` (a Rotation R_GS, or a 3x3 matrix; NaN = not seen)."""
        ox = self._ox(ox, "moveOneObservation")
        self._observations[ox] = _matrix(observation, "moveOneObservation")

    def moveAllObservations(self, observations) -> None:
        self._ensure_order()
        mats = [_matrix(R, "moveAllObservations") for R in observations]
        if len(mats) != self._observations.shape[0]:
            raise InvalidArgumentError(
                f"moveAllObservations: expected {self._observations.shape[0]} observations, "
                f"got {len(mats)}"
            )
        self._observations = np.array(mats).reshape(-1, 3, 3)

    def getObservation(self, ox) -> Rotation:
        return Rotation(self._observations[self._ox(ox, "getObservation")])

    def getAllObservations(self) -> list[Rotation]:
        self._ensure_order()
        return [Rotation(R) for R in self._observations]

    # ---------------------------------------------------- current values
    def _R_GO(self, state, ix: int) -> np.ndarray:
        s = self._targets[ix]
        mobod = self.getMatterSubsystem().getMobilizedBody(s.bodyB)
        return mobod.getBodyRotation(state).asMat33() @ s.orientationInB

    def findCurrentOSensorOrientation(self, ix) -> Rotation:
        """R_GO of sensor ``ix`` at the Assembler's internal State."""
        ix = self._target_index(ix, "findCurrentOSensorOrientation")
        return Rotation(self._R_GO(self._realized_internal_state(), ix))

    def findCurrentOSensorError(self, ix) -> float:
        """Angle (rad) between sensor ``ix`` and its observation (0 if not observed)."""
        ix = self._target_index(ix, "findCurrentOSensorError")
        observed = self._observed_value(ix)
        if observed is None:
            return 0.0
        R_GO = self.findCurrentOSensorOrientation(ix).asMat33()
        return float(np.linalg.norm(rotation_vector(R_GO @ observed.T)))

    # ------------------------------------------------------ the condition
    def _residuals(self, state):
        """Active pairs and the rotation vectors theta_i k_i (in G) of R_GO R_GS^T."""
        active = self._active()
        v = np.zeros((len(active), 3))
        for k, (ox, ix) in enumerate(active):
            v[k] = rotation_vector(self._R_GO(state, ix) @ self._observations[ox].T)
        return active, v

    def calcGoalGradient(self, state):
        """Analytic: torques w_i theta_i k_i / W on the sensor bodies, through N^-T J^T."""
        active, v = self._residuals(state)
        if not active:
            return 0, np.zeros(self.getNumFreeQs())
        w = self._weights(active)
        F = np.zeros((self.getMatterSubsystem().getNumBodies(), 2, 3))
        for k, (_, ix) in enumerate(active):
            F[self._targets[ix].bodyB, 0] += w[k] * v[k] / w.sum()
        return 0, self._free_q_gradient(state, F)
