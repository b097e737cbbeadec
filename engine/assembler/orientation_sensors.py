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

from engine.assembler.assembly_condition import AssemblyCondition
from engine.assembler.markers import _body, _weight
from engine.common.exceptions import IndexOutOfRangeError, InvalidArgumentError
from engine.common.stage import Stage
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


class OrientationSensors(AssemblyCondition):
    """A set of body-fixed orientation sensors and their observed Ground orientations."""

    def __init__(self) -> None:
        super().__init__("OrientationSensors")
        self._sensors: list[OrientationSensor] = []
        self._by_name: dict[str, int] = {}
        self._observation2sensor: list[int] = []
        self._sensor2observation: list[int] = []
        self._observations = np.zeros((0, 3, 3))
        self._order_defined = False

    # ---------------------------------------------------------- definition
    def addOSensor(self, *args) -> int:
        """``addOSensor(name, bodyB, orientationInB, weight=1)`` or
        ``addOSensor(bodyB, orientationInB, weight=1)``; returns the OSensorIx."""
        if args and isinstance(args[0], str):
            name, rest = args[0], args[1:]
        else:
            name, rest = "", args
        if len(rest) not in (2, 3):
            raise InvalidArgumentError(
                "addOSensor(name, bodyB, orientationInB, weight=1) or addOSensor(bodyB, "
                "orientationInB, weight=1)"
            )
        body = _body(rest[0], "addOSensor")
        R = _matrix(rest[1], "addOSensor orientationInB")
        weight = _weight(rest[2] if len(rest) == 3 else 1.0, "addOSensor")
        ix = len(self._sensors)
        if not name:
            name = f"_UNNAMED_{ix}"
        if name in self._by_name:
            raise InvalidArgumentError(f"addOSensor: there is already a sensor named '{name}'")
        if self.isInAssembler():
            nb = self.getMatterSubsystem().getNumBodies()
            if body >= nb:
                raise IndexOutOfRangeError(f"addOSensor: no mobilized body {body} (of {nb})")
        self._sensors.append(OrientationSensor(name, body, R, weight))
        self._by_name[name] = ix
        self._order_defined = False
        self.uninitializeAssembler()
        return ix

    def _validate(self, assembler) -> None:
        nb = assembler.getMatterSubsystem().getNumBodies()
        for s in self._sensors:
            if s.bodyB >= nb:
                raise IndexOutOfRangeError(
                    f"OrientationSensors: sensor '{s.name}' is on body {s.bodyB} but the "
                    f"system has {nb} bodies"
                )

    def _ix(self, ix, what: str) -> int:
        if isinstance(ix, str):
            return self.getOSensorIx(ix, required=True)
        if not isinstance(ix, (int, np.integer)) or not 0 <= int(ix) < len(self._sensors):
            raise IndexOutOfRangeError(
                f"{what}: there is no sensor {ix!r}; there are {len(self._sensors)}"
            )
        return int(ix)

    def getNumOSensors(self) -> int:
        return len(self._sensors)

    def getOSensorName(self, ix) -> str:
        return self._sensors[self._ix(ix, "getOSensorName")].name

    def getOSensorIx(self, name: str, required: bool = False) -> int:
        ix = self._by_name.get(str(name), -1)
        if ix < 0 and required:
            raise IndexOutOfRangeError(f"OrientationSensors: no sensor named '{name}'")
        return ix

    def getOSensorWeight(self, ix) -> float:
        return self._sensors[self._ix(ix, "getOSensorWeight")].weight

    def getOSensorBody(self, ix) -> int:
        return self._sensors[self._ix(ix, "getOSensorBody")].bodyB

    def getOSensorStation(self, ix) -> Rotation:
        """The sensor's orientation R_BO on its body."""
        return Rotation(self._sensors[self._ix(ix, "getOSensorStation")].orientationInB)

    def changeOSensorWeight(self, ix, weight: float) -> None:
        self._sensors[self._ix(ix, "changeOSensorWeight")].weight = _weight(
            weight, "changeOSensorWeight"
        )

    # -------------------------------------------------------- observations
    def defineObservationOrder(self, order=None) -> None:
        """Which sensor each observation belongs to (OSensorIx or names; -1 / "" to
        ignore an observation); None or empty = sensor order. Resets observations to NaN."""
        if order is None or len(order) == 0:
            o2s = list(range(len(self._sensors)))
        else:
            o2s = []
            for item in order:
                if isinstance(item, str):
                    o2s.append(self.getOSensorIx(item, required=True) if item else -1)
                elif isinstance(item, (int, np.integer)) and int(item) == -1:
                    o2s.append(-1)
                else:
                    o2s.append(self._ix(item, "defineObservationOrder"))
        used = [s for s in o2s if s >= 0]
        if len(used) != len(set(used)):
            raise InvalidArgumentError("defineObservationOrder: a sensor may be observed once")
        self._observation2sensor = o2s
        self._sensor2observation = [-1] * len(self._sensors)
        for ox, ix in enumerate(o2s):
            if ix >= 0:
                self._sensor2observation[ix] = ox
        self._observations = np.full((len(o2s), 3, 3), np.nan)
        self._order_defined = True
        self.uninitializeAssembler()

    def _ensure_order(self) -> None:
        if not self._order_defined:
            self.defineObservationOrder()

    def initializeCondition(self) -> int:
        self._ensure_order()
        return 0

    def getNumObservations(self) -> int:
        self._ensure_order()
        return len(self._observation2sensor)

    def _ox(self, ox, what: str) -> int:
        self._ensure_order()
        n = len(self._observation2sensor)
        if not isinstance(ox, (int, np.integer)) or not 0 <= int(ox) < n:
            raise IndexOutOfRangeError(f"{what}: there is no observation {ox!r}; there are {n}")
        return int(ox)

    def getObservationIxForOSensor(self, ix) -> int:
        self._ensure_order()
        return self._sensor2observation[self._ix(ix, "getObservationIxForOSensor")]

    def hasObservation(self, ix) -> bool:
        return self.getObservationIxForOSensor(ix) >= 0

    def getOSensorIxForObservation(self, ox) -> int:
        return self._observation2sensor[self._ox(ox, "getOSensorIxForObservation")]

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
        s = self._sensors[ix]
        mobod = self.getMatterSubsystem().getMobilizedBody(s.bodyB)
        return mobod.getBodyRotation(state).asMat33() @ s.orientationInB

    def findCurrentOSensorOrientation(self, ix) -> Rotation:
        """R_GO of sensor ``ix`` at the Assembler's internal State."""
        state = self.getAssembler().getInternalState()
        self.getMultibodySystem().realize(state, Stage.Position)
        return Rotation(self._R_GO(state, self._ix(ix, "findCurrentOSensorOrientation")))

    def findCurrentOSensorError(self, ix) -> float:
        """Angle (rad) between sensor ``ix`` and its observation (0 if not observed)."""
        ix = self._ix(ix, "findCurrentOSensorError")
        ox = self.getObservationIxForOSensor(ix)
        if ox < 0 or not np.all(np.isfinite(self._observations[ox])):
            return 0.0
        R_GO = self.findCurrentOSensorOrientation(ix).asMat33()
        return float(np.linalg.norm(rotation_vector(R_GO @ self._observations[ox].T)))

    # ------------------------------------------------------ the condition
    def _active(self) -> list[tuple[int, int]]:
        self._ensure_order()
        return [
            (ox, ix)
            for ox, ix in enumerate(self._observation2sensor)
            if ix >= 0
            and self._sensors[ix].weight > 0
            and np.all(np.isfinite(self._observations[ox]))
        ]

    def _rotation_vectors(self, state):
        active = self._active()
        v = np.zeros((len(active), 3))
        for k, (ox, ix) in enumerate(active):
            v[k] = rotation_vector(self._R_GO(state, ix) @ self._observations[ox].T)
        return active, v

    def _goal_error_weights(self, state) -> np.ndarray:
        w = np.array([self._sensors[i].weight for _, i in self._active()])
        if w.size == 0:
            return np.zeros(0)
        return np.repeat(w / (2.0 * w.sum()), 3)

    def getNumErrors(self, state) -> int:
        return 3 * len(self._active())

    def calcErrors(self, state):
        """``(0, [theta_i k_i for each active observation])`` (rotation vectors in G)."""
        _, v = self._rotation_vectors(state)
        return 0, v.reshape(-1)

    def calcGoal(self, state):
        """``(0, sum w_i theta_i^2 / (2 sum w_i))``."""
        active, v = self._rotation_vectors(state)
        if not active:
            return 0, 0.0
        w = np.array([self._sensors[ix].weight for _, ix in active])
        return 0, float(w @ np.einsum("ij,ij->i", v, v)) / (2.0 * w.sum())

    def calcGoalGradient(self, state):
        """Analytic: torques w_i theta_i k_i / W on the sensor bodies, through N^-T J^T."""
        matter = self.getMatterSubsystem()
        active, v = self._rotation_vectors(state)
        g = np.zeros(self.getNumFreeQs())
        if not active:
            return 0, g
        w = np.array([self._sensors[ix].weight for _, ix in active])
        F = np.zeros((matter.getNumBodies(), 2, 3))
        for k, (_, ix) in enumerate(active):
            F[self._sensors[ix].bodyB, 0] += w[k] * v[k] / w.sum()
        g_q = matter.multiplyByNInv(state, True, matter.multiplyBySystemJacobianTranspose(state, F))
        asm = self.getAssembler()
        for fx in range(g.size):
            g[fx] = g_q[asm.getQIndexOfFreeQ(fx)]
        return 0, g
