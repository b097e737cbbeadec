# ruff: noqa: N802, N803, N806, N815  (Simbody names: calcForce, p_BS, R_GB, w_GB)
"""Pulling a body with the mouse (MuJoCo's perturbation), the engine side (Qt-free).

The GUI posts ``PullRequest``s to a session's ``BodyPull`` mailbox and queues a ``pull``
command; the worker applies the latest request between batches (``BodyPull.apply``), under
the State lock, never the GUI thread:

* while the simulation runs, a ``PullForce`` element (a force in the engine, disabled by
  default, so it costs nothing when nobody pulls) acts as a spring-damper between the grabbed
  station of the body and the target point under the mouse (``mode="force"``), or as a
  rotational spring-damper toward a target orientation (``mode="torque"``);
* while paused, the request poses the model instead: an Assembler moves the grabbed station
  to the target (or turns the body to the target orientation), keeping every constraint
  satisfied.

The spring's stiffness is ``m * (2 pi PULL_FREQUENCY)^2`` with ``m`` the mass of the body and
everything outboard of it (what the pull has to move), and it is critically damped, so a
ragdoll and a molecule feel the same. The torque spring uses that subtree's largest moment of
inertia about the body's inboard joint the same way. Units are the model's (N, m, kg, s).
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field

import numpy as np

from engine.common.exceptions import SimTKError
from engine.common.stage import Stage
from engine.forces.compiled_terms import ORIENTATION_SPRING, STATION_SPRING
from engine.forces.compiled_terms import rotation_vector as compiled_rotation_vector
from engine.forces.force import Force

#: Natural frequency (Hz) of a pulled subtree on the pull spring.
PULL_FREQUENCY = 2.0
#: Damping ratio of the pull spring (1: critically damped).
PULL_DAMPING_RATIO = 1.0

FORCE = "force"
TORQUE = "torque"


@dataclass(frozen=True)
class PullRequest:
    """What the mouse asks: pull ``body`` (MobilizedBodyIndex) at station ``p_BS`` (in B)
    toward ``p_G`` (in ground), or (``mode="torque"``) turn it toward ``R_G_target``.
    ``active=False`` ends the pull. ``drag`` numbers the mouse drag it belongs to."""

    drag: int
    body: int
    mode: str = FORCE
    p_BS: tuple = (0.0, 0.0, 0.0)
    p_G: tuple = (0.0, 0.0, 0.0)
    R_G_target: tuple = field(default_factory=lambda: tuple(np.eye(3).reshape(-1)))
    active: bool = True


class PullForce(Force):
    """PullForce(forces, matter): the mouse's spring on one body, with its parameters in the
    State (changing them invalidates Dynamics stage). Disabled by default.

    Force mode: ``f = k (p_target - p_GS) - c v_GS`` at station S of body b.
    Torque mode: ``t = k_r theta - c_r w_GB`` with ``theta`` the rotation vector taking the
    body's orientation to the target one.
    """

    _PARAMS_INVALIDATE = Stage.Dynamics

    def __init__(self, forces, matter) -> None:
        self._bind(forces)
        self._matter = matter
        super().__init__(
            forces,
            {
                "mode": FORCE,
                "body": 0,
                "station": np.zeros(3),
                "target": np.zeros(3),
                "R_target": np.eye(3),
                "k": 0.0,
                "c": 0.0,
            },
        )
        self.setDisabledByDefault(True)

    def setPull(self, state, body: int, mode: str, station, target, R_target, k, c) -> None:
        """Set what the spring pulls and how hard (a Dynamics-stage change)."""
        self._update(
            state,
            mode=str(mode),
            body=int(body),
            station=np.asarray(station, dtype=np.float64).reshape(3).copy(),
            target=np.asarray(target, dtype=np.float64).reshape(3).copy(),
            R_target=np.asarray(R_target, dtype=np.float64).reshape(3, 3).copy(),
            k=float(k),
            c=float(c),
        )

    def getPull(self, state) -> dict:
        return self._copy_params(self._params(state))

    def _spring(self, state):
        p = self._params(state)
        b = int(p["body"])
        if b <= 0 or p["k"] <= 0.0:
            return None
        return p, self._matter.getMobilizedBody(b)

    def calcForce(self, state, bodyForces, particleForces, mobilityForces) -> None:
        spring = self._spring(state)
        if spring is None:
            return
        p, mobod = spring
        b = mobod.getMobilizedBodyIndex()
        if p["mode"] == TORQUE:
            R_GB = mobod.getBodyRotation(state).asMat33()
            theta = rotation_vector(p["R_target"] @ R_GB.T)
            bodyForces[b, 0] += p["k"] * theta - p["c"] * mobod.getBodyAngularVelocity(state)
            return
        p_GS = mobod.findStationLocationInGround(state, p["station"])
        v_GS = mobod.findStationVelocityInGround(state, p["station"])
        f = p["k"] * (p["target"] - p_GS) - p["c"] * v_GS
        r = mobod.expressVectorInGroundFrame(state, p["station"])
        bodyForces[b, 0] += np.cross(r, f)
        bodyForces[b, 1] += f

    def _compiled_term(self, state, excluded: list[int]):
        """The pull as a compiled force term (``engine.forces.compiled_terms``), so that a
        model being pulled keeps its one-call realization and compiled steps."""
        p = self._params(state)
        b, k, c = int(p["body"]), float(p["k"]), float(p["c"])
        if b <= 0 or k <= 0.0:  # no spring: a term that adds nothing
            return STATION_SPRING, (0,), (0.0,) * 8
        if p["mode"] == TORQUE:
            return ORIENTATION_SPRING, (b,), (*np.asarray(p["R_target"]).reshape(9), k, c)
        return STATION_SPRING, (b,), (*p["station"], *p["target"], k, c)

    def calcPotentialEnergy(self, state) -> float:
        spring = self._spring(state)
        if spring is None:
            return 0.0
        p, mobod = spring
        if p["mode"] == TORQUE:
            R_GB = mobod.getBodyRotation(state).asMat33()
            theta = rotation_vector(p["R_target"] @ R_GB.T)
            return 0.5 * p["k"] * float(theta @ theta)
        d = p["target"] - mobod.findStationLocationInGround(state, p["station"])
        return 0.5 * p["k"] * float(d @ d)


def rotation_vector(R: np.ndarray) -> np.ndarray:
    """The rotation vector (axis times angle, rad) of rotation matrix ``R``: the compiled
    force term's ``rotation_vector``, so the pull's Python and compiled paths agree."""
    return np.array(compiled_rotation_vector(*np.asarray(R, dtype=np.float64).reshape(9)))


def rotation_from_vector(theta) -> np.ndarray:
    """The rotation matrix of rotation vector ``theta`` (Rodrigues)."""
    theta = np.asarray(theta, dtype=np.float64)
    angle = float(np.linalg.norm(theta))
    if angle < 1e-15:
        return np.eye(3)
    k = theta / angle
    K = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + math.sin(angle) * K + (1.0 - math.cos(angle)) * (K @ K)


def ensure_pull_force(built) -> PullForce:
    """Give ``built`` (a BuiltModel) its PullForce once: the element is added to its force
    subsystem, Topology is realized again and ``built.state`` becomes an equal State of the new
    layout (time, q, u and z carried over)."""
    force = getattr(built, "pull_force", None)
    if force is not None:
        return force
    system = built.system
    old = built.state
    force = PullForce(built.forces, built.matter)
    state = system.realizeTopology()
    system.realizeModel(state)
    state.setTime(old.getTime())
    state.setQ(old.getQ())
    state.setU(old.getU())
    if old.getNZ() and old.getNZ() == state.getNZ():
        state.setZ(old.getZ())
    built.state = state
    built.pull_force = force
    return force


def _subtree(matter, b: int) -> list[int]:
    """Body ``b`` and every body outboard of it."""
    inside = {b}
    for i in range(b + 1, matter.getNumBodies()):  # parents come before children
        parent = matter.getMobilizedBody(i).getParentMobilizedBody().getMobilizedBodyIndex()
        if parent in inside:
            inside.add(i)
    return sorted(inside)


def pull_strength(matter, state, b: int) -> tuple[float, float, float, float]:
    """(k, c, k_r, c_r): the translational (N/m, N s/m) and rotational (N m/rad,
    N m s/rad) stiffness and damping for pulling body ``b`` (State at Position stage)."""
    bodies = _subtree(matter, b)
    masses, centres, inertias = [], [], []
    for i in bodies:
        mobod = matter.getMobilizedBody(i)
        mp = mobod.getBodyMassProperties(state)
        m = float(mp.getMass())
        p_BC = np.asarray(mp.getMassCenter(), dtype=np.float64)
        R_GB = mobod.getBodyRotation(state).asMat33()
        I_C = np.asarray(mp.calcCentralInertia().toMat33(), dtype=np.float64)
        masses.append(m)
        centres.append(mobod.findStationLocationInGround(state, p_BC))
        inertias.append(R_GB @ I_C @ R_GB.T)
    mass = max(sum(masses), 1e-12)
    omega = 2.0 * math.pi * PULL_FREQUENCY
    k = mass * omega * omega
    c = 2.0 * PULL_DAMPING_RATIO * math.sqrt(k * mass)
    # Turning the body turns what hangs on it about its inboard joint (a Free body's joint is
    # where its mobilizer frame M is): the subtree's inertia about that point.
    grabbed = matter.getMobilizedBody(b)
    p_BM = np.asarray(grabbed.getDefaultOutboardFrame().p(), dtype=np.float64)
    about = grabbed.findStationLocationInGround(state, p_BM)
    inertia = np.zeros((3, 3))
    for m, p, i_c in zip(masses, centres, inertias, strict=True):
        r = p - about
        inertia += i_c + m * (float(r @ r) * np.eye(3) - np.outer(r, r))
    moment = max(float(np.linalg.eigvalsh(inertia).max()), 1e-12)
    k_r = moment * omega * omega
    c_r = 2.0 * PULL_DAMPING_RATIO * math.sqrt(k_r * moment)
    return k, c, k_r, c_r


class BodyPull:
    """A session's pull mailbox and the worker's handling of it (see the module docstring).

    ``post(request)`` may be called from any thread; ``apply(session)`` runs on the worker
    (from the session's ``pull`` command) and uses only the newest request posted.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._latest: PullRequest | None = None
        self._end: PullRequest | None = None
        self._drag = -1
        self._strength: tuple[float, float, float, float] | None = None
        self._assembler = None
        self._goal = None
        #: The request last applied (None: no pull in progress); read by tests and the GUI.
        self.applied: PullRequest | None = None

    def post(self, request: PullRequest) -> None:
        """Post a request (any thread). An end of pull (``active=False``) does not replace a
        pending move: the move is applied first, so the pose ends where the mouse let go."""
        with self._lock:
            if request.active:
                self._latest = request
            else:
                self._end = request

    def _take(self) -> tuple[PullRequest | None, PullRequest | None]:
        with self._lock:
            request, self._latest = self._latest, None
            end, self._end = self._end, None
        return request, end

    def forget(self) -> None:
        """Drop any pull in progress (the model was replaced)."""
        self._drag = -1
        self._strength = None
        self._assembler = None
        self._goal = None
        self.applied = None

    def apply(self, session) -> str | None:
        """Apply the newest request to ``session``'s live State (worker thread, State lock
        held). Returns the cascade cause when the State was edited."""
        request, end = self._take()
        force = getattr(session.built, "pull_force", None)
        if force is None:
            return None
        state = session._state
        cause = None
        if end is not None and (request is None or end.drag != request.drag):
            self._release(session, force, state)  # an earlier drag ended
            end = None
        if request is not None and 0 < request.body < session.matter.getNumBodies():
            cause = self._apply_one(session, force, state, request)
        if end is not None:
            self._release(session, force, state)
        return cause

    def _apply_one(self, session, force, state, request: PullRequest) -> str | None:
        if request.drag != self._drag:
            self._start(session, request)
        self.applied = request
        if session.running:
            self._pull(session, force, state, request)
            return None
        if not force.isDisabled(state):
            force.disable(state)
            session._stepper = None
        return self._pose(session, state, request)

    def _start(self, session, request: PullRequest) -> None:
        state = session._state
        session.system.realize(state, Stage.Position)
        self._drag = request.drag
        self._strength = pull_strength(session.matter, state, request.body)
        self._assembler = None
        self._goal = None

    def _release(self, session, force, state) -> None:
        self.forget()
        session._status = "Running" if session.running else "Paused"
        if not force.isDisabled(state):
            force.disable(state)
            session._stepper = None  # restart the integrator without the spring

    def _pull(self, session, force, state, request: PullRequest) -> None:
        k, c, k_r, c_r = self._strength
        torque = request.mode == TORQUE
        force.setPull(
            state,
            request.body,
            request.mode,
            request.p_BS,
            request.p_G,
            np.reshape(request.R_G_target, (3, 3)),
            k_r if torque else k,
            c_r if torque else c,
        )
        if force.isDisabled(state):
            force.enable(state)
            session._stepper = None  # an Instance-stage change: the integrator starts again
        elif session._stepper is not None:
            # The spring moved: the integrator starts a new continuous interval here.
            session._stepper.getIntegrator().reinitialize(Stage.Dynamics, False)
        name = _name(session, request.body)
        session._status = f"Pulling {name}" if not torque else f"Turning {name}"

    def _pose(self, session, state, request: PullRequest) -> str | None:
        from engine import Assembler
        from engine.assembler.markers import Markers
        from engine.assembler.orientation_sensors import OrientationSensors

        torque = request.mode == TORQUE
        if self._assembler is None:
            assembler = Assembler(session.system)
            if torque:
                goal = OrientationSensors()
                goal.addOSensor(request.body, np.eye(3), 1.0)
            else:
                goal = Markers()
                goal.addMarker(request.body, np.asarray(request.p_BS, dtype=np.float64), 1.0)
            assembler.adoptAssemblyGoal(goal)
            self._assembler, self._goal = assembler, goal
        goal = self._goal
        if torque:
            R = np.reshape(np.asarray(request.R_G_target, dtype=np.float64), (3, 3))
            goal.moveOneObservation(0, R)
        else:
            goal.moveOneObservation(0, np.asarray(request.p_G, dtype=np.float64))
        q_before = np.array(state.getQ())
        try:
            self._assembler.assemble(state)
        except SimTKError:
            state.setQ(q_before)  # the constraints cannot follow: keep the last good pose
            return None
        session._stepper = None
        session._status = f"Dragged {_name(session, request.body)}"
        return "drag pose"


def _name(session, b: int) -> str:
    names = session.built.body_name_of_index
    try:
        return str(names[b])
    except (IndexError, KeyError):
        return f"body {b}"
