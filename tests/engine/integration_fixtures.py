"""Small Subsystems with known solutions for testing integrators, events and measures.

Each is a complete SimTK Subsystem: it allocates its q, u (and constraint error
slots) at Topology, sets qdot at Velocity and udot, qdotdot at Acceleration, and
the constrained one implements projection. ``makeSystem(*subsystems)`` builds a
System around them and returns ``(system, defaultState)``.
"""

from __future__ import annotations

import math

import numpy as np

from engine.common.events import (
    PeriodicEventHandler,
    ScheduledEventHandler,
    TriggeredEventHandler,
)
from engine.common.exceptions import InvalidArgumentError
from engine.common.project_options import ProjectOptions, ProjectResults
from engine.common.stage import Stage
from engine.common.subsystem import Subsystem
from engine.common.system import System


def makeSystem(*subsystems, timeScale: float | None = None):
    """(system, default State realized through Model) holding ``subsystems``."""
    system = System("test system")
    for sub in subsystems:
        system.adoptSubsystem(sub)
    if timeScale is not None:
        system.setDefaultTimeScale(timeScale)
    return system, system.realizeTopology()


class MechanicalSubsystem(Subsystem):
    """q' = u, u' = acceleration(t, q, u) for one or more degrees of freedom."""

    def __init__(self, name: str, q0, u0) -> None:
        super().__init__(name)
        self.q0 = np.atleast_1d(np.asarray(q0, dtype=float))
        self.u0 = np.atleast_1d(np.asarray(u0, dtype=float))
        self.numAccelerations = 0

    def realizeSubsystemTopologyImpl(self, state) -> None:
        ix = self.getMySubsystemIndex()
        state.allocateQ(ix, self.q0)
        state.allocateU(ix, self.u0)

    def realizeSubsystemVelocityImpl(self, state) -> None:
        ix = self.getMySubsystemIndex()
        state.updQDot(ix)[:] = state.getU(ix)

    def realizeSubsystemAccelerationImpl(self, state) -> None:
        ix = self.getMySubsystemIndex()
        self.numAccelerations += 1
        a = self.acceleration(state.getTime(), state.getQ(ix), state.getU(ix))
        state.updUDot(ix)[:] = a
        state.updQDotDot(ix)[:] = a

    def q(self, state) -> np.ndarray:
        return state.getQ(self.getMySubsystemIndex())

    def u(self, state) -> np.ndarray:
        return state.getU(self.getMySubsystemIndex())

    def acceleration(self, t, q, u):
        raise NotImplementedError


class Oscillator(MechanicalSubsystem):
    """Harmonic oscillator x'' = -w^2 x; exact solution x0 cos wt + v0/w sin wt."""

    def __init__(self, omega: float = 1.0, x0: float = 1.0, v0: float = 0.0) -> None:
        super().__init__("Oscillator", [x0], [v0])
        self.omega, self.x0, self.v0 = omega, x0, v0

    def acceleration(self, t, q, u):
        return -(self.omega**2) * q

    def exact(self, t: float) -> tuple[float, float]:
        w = self.omega
        x = self.x0 * math.cos(w * t) + self.v0 / w * math.sin(w * t)
        v = -self.x0 * w * math.sin(w * t) + self.v0 * math.cos(w * t)
        return x, v


class Ball(MechanicalSubsystem):
    """A ball at height q with vertical speed u under gravity g (no air)."""

    def __init__(self, g: float = 9.81, h0: float = 1.0, v0: float = 0.0) -> None:
        super().__init__("Ball", [h0], [v0])
        self.g = g

    def acceleration(self, t, q, u):
        return np.array([-self.g])


class FloorContact(TriggeredEventHandler):
    """Witness = ball height; on a falling crossing, reverse (and scale) the speed.
    Asks for termination at bounce number ``terminateAt`` (if given)."""

    def __init__(self, ball: Ball, restitution: float = 1.0, window: float = 0.1, terminateAt=None):
        super().__init__(Stage.Position)
        self.ball = ball
        self.restitution = restitution
        self.terminateAt = terminateAt
        self.getTriggerInfo().setTriggerOnRisingSignTransition(False)
        self.getTriggerInfo().setRequiredLocalizationTimeWindow(window)
        self.times: list[float] = []
        self.heights: list[float] = []

    def getValue(self, state) -> float:
        return float(self.ball.q(state)[0])

    def handleEvent(self, state, accuracy: float) -> bool:
        self.times.append(state.getTime())
        self.heights.append(float(self.ball.q(state)[0]))
        u = state.updU(self.ball.getMySubsystemIndex())
        u[0] = -self.restitution * u[0]
        return self.terminateAt is not None and len(self.times) >= self.terminateAt


class SpringDamper(MechanicalSubsystem):
    """m x'' + c x' + k x = 0 (stiff when k and c are large)."""

    def __init__(self, k: float, c: float, m: float = 1.0, x0: float = 1.0, v0: float = 0.0):
        super().__init__("SpringDamper", [x0], [v0])
        self.k, self.c, self.m, self.x0, self.v0 = k, c, m, x0, v0

    def acceleration(self, t, q, u):
        return -(self.k * q + self.c * u) / self.m

    def exact(self, t: float) -> float:
        """Overdamped solution x(t) (requires c^2 > 4 k m)."""
        disc = math.sqrt(self.c**2 - 4 * self.k * self.m)
        r1 = (-self.c + disc) / (2 * self.m)
        r2 = (-self.c - disc) / (2 * self.m)
        a = (self.v0 - r2 * self.x0) / (r1 - r2)
        b = self.x0 - a
        return a * math.exp(r1 * t) + b * math.exp(r2 * t)


class Broken(MechanicalSubsystem):
    """x'' = -x until t = tBreak; afterwards the acceleration is NaN (or raises)."""

    def __init__(self, tBreak: float = 0.3, mode: str = "nan") -> None:
        super().__init__("Broken", [1.0], [0.0])
        self.tBreak, self.mode = tBreak, mode

    def acceleration(self, t, q, u):
        if t > self.tBreak:
            if self.mode == "raise":
                raise InvalidArgumentError(f"the model is undefined after t={self.tBreak}")
            return np.array([math.nan])
        return -q


class CartesianPendulum(Subsystem):
    """A unit-mass particle on a rod of length L about the origin, in Cartesian
    coordinates q = (x, y), u = (vx, vy), gravity -g along y. One position
    constraint (r - L) and one velocity constraint (radial speed), satisfied by
    least-squares projection that also projects the error estimate."""

    def __init__(self, L: float = 1.0, g: float = 9.81, theta0: float = 1.0, omega0: float = 0.0):
        super().__init__("CartesianPendulum")
        self.L, self.g = L, g
        self.theta0, self.omega0 = theta0, omega0

    def realizeSubsystemTopologyImpl(self, state) -> None:
        ix = self.getMySubsystemIndex()
        L, th, om = self.L, self.theta0, self.omega0
        state.allocateQ(ix, [L * math.sin(th), -L * math.cos(th)])
        state.allocateU(ix, [L * om * math.cos(th), L * om * math.sin(th)])
        state.allocateQErr(ix, 1)
        state.allocateUErr(ix, 1)

    def _qu(self, state):
        ix = self.getMySubsystemIndex()
        return state.getQ(ix), state.getU(ix)

    def realizeSubsystemPositionImpl(self, state) -> None:
        q, _ = self._qu(state)
        state.updQErr(self.getMySubsystemIndex())[0] = math.hypot(q[0], q[1]) - self.L

    def realizeSubsystemVelocityImpl(self, state) -> None:
        ix = self.getMySubsystemIndex()
        q, u = self._qu(state)
        state.updQDot(ix)[:] = u
        state.updUErr(ix)[0] = (q[0] * u[0] + q[1] * u[1]) / math.hypot(q[0], q[1])

    def realizeSubsystemAccelerationImpl(self, state) -> None:
        ix = self.getMySubsystemIndex()
        q, u = self._qu(state)
        r = math.hypot(q[0], q[1])
        n = q / r
        f = np.array([0.0, -self.g])
        lam = float(n @ f + (u @ u) / r)
        a = f - lam * n
        state.updUDot(ix)[:] = a
        state.updQDotDot(ix)[:] = a

    def projectQImpl(self, state, qErrEst, options, results) -> None:
        ix = self.getMySubsystemIndex()
        q, _ = self._qu(state)
        r = math.hypot(q[0], q[1])
        err = r - self.L
        force = options.isOptionSet(ProjectOptions.ForceProjection)
        if abs(err) > options.getRequiredAccuracy() or force:
            if options.isOptionSet(ProjectOptions.LocalOnly) and abs(err) > (
                options.getProjectionLimit()
            ):
                results.setExitStatus(ProjectResults.FailedToConverge)
                results.setMessage(f"constraint error {err:g} is beyond the projection limit")
                return
            state.updQ(ix)[:] = q * (self.L / r)
            results.setAnyChangeMade(True)
        if np.size(qErrEst):
            start = state.getQStart(ix)
            part = qErrEst[start : start + 2]
            q, _ = self._qu(state)
            n = q / math.hypot(q[0], q[1])
            part -= (part @ n) * n
        results.setExitStatus(ProjectResults.Succeeded)

    def projectUImpl(self, state, uErrEst, options, results) -> None:
        ix = self.getMySubsystemIndex()
        q, u = self._qu(state)
        n = q / math.hypot(q[0], q[1])
        err = float(u @ n)
        force = options.isOptionSet(ProjectOptions.ForceProjection)
        if abs(err) > options.getRequiredAccuracy() or force:
            state.updU(ix)[:] = u - err * n
            results.setAnyChangeMade(True)
        if np.size(uErrEst):
            start = state.getUStart(ix)
            part = uErrEst[start : start + 2]
            part -= (part @ n) * n
        results.setExitStatus(ProjectResults.Succeeded)

    def theta(self, state) -> float:
        q, _ = self._qu(state)
        return math.atan2(q[0], -q[1])


class StepCounter(Subsystem):
    """An auto-update discrete variable 'count' whose update value is count + 1 at
    every Acceleration realization, so it counts the steps an integrator starts.
    Records the count it saw in each Acceleration realization."""

    def __init__(self) -> None:
        super().__init__("StepCounter")
        self.seen: list[tuple[float, int]] = []

    def realizeSubsystemTopologyImpl(self, state) -> None:
        self.dv = state.allocateAutoUpdateDiscreteVariable(
            self.getMySubsystemIndex(), Stage.Dynamics, 0, Stage.Time, name="count"
        )

    def count(self, state) -> int:
        return state.getDiscreteVariable(self.getMySubsystemIndex(), self.dv)

    def realizeSubsystemAccelerationImpl(self, state) -> None:
        ix = self.getMySubsystemIndex()
        n = state.getDiscreteVariable(ix, self.dv)
        self.seen.append((state.getTime(), n))
        if not state.isDiscreteVarUpdateValueRealized(ix, self.dv):
            entry = state.getDiscreteVarUpdateIndex(ix, self.dv)
            state.setCacheEntryValue(ix, entry, n + 1)
            state.markDiscreteVarUpdateValueRealized(ix, self.dv)


class KickAt(ScheduledEventHandler):
    """At time ``t``, add ``du`` to the first speed of ``sub``."""

    def __init__(self, sub: MechanicalSubsystem, t: float, du: float) -> None:
        self.sub, self.t, self.du = sub, t, du
        self.calls: list[float] = []

    def getNextEventTime(self, state, includeCurrentTime: bool) -> float:
        now = state.getTime()
        if self.t > now or (includeCurrentTime and self.t == now):
            return self.t
        return math.inf

    def handleEvent(self, state, accuracy: float) -> bool:
        self.calls.append(state.getTime())
        state.updU(self.sub.getMySubsystemIndex())[0] += self.du
        return False


class PeriodicLogger(PeriodicEventHandler):
    """A periodic *handler* that changes nothing (its lowest modified stage is Infinity)."""

    def __init__(self, interval: float) -> None:
        super().__init__(interval)
        self.calls: list[float] = []

    def handleEvent(self, state, accuracy: float) -> bool:
        self.calls.append(state.getTime())
        return False


class DrivenOscillator(Subsystem):
    """x'' = -x + p with p = sin(t) prescribed (q = [x, p], u = [v, pdot]); from rest,
    x(t) = (sin t - t cos t) / 2 (resonance)."""

    def __init__(self) -> None:
        super().__init__("DrivenOscillator")

    def realizeSubsystemTopologyImpl(self, state) -> None:
        ix = self.getMySubsystemIndex()
        state.allocateQ(ix, [0.0, 0.0])
        state.allocateU(ix, [0.0, 1.0])

    def prescribeQImpl(self, state) -> bool:
        ix = self.getMySubsystemIndex()
        p = math.sin(state.getTime())
        if state.getQ(ix)[1] == p:
            return False
        state.updQ(ix)[1] = p
        return True

    def prescribeUImpl(self, state) -> bool:
        ix = self.getMySubsystemIndex()
        pdot = math.cos(state.getTime())
        if state.getU(ix)[1] == pdot:
            return False
        state.updU(ix)[1] = pdot
        return True

    def getPrescribedQIndexImpl(self, state) -> list[int]:
        return [state.getQStart(self.getMySubsystemIndex()) + 1]

    def getPrescribedUIndexImpl(self, state) -> list[int]:
        return [state.getUStart(self.getMySubsystemIndex()) + 1]

    def realizeSubsystemVelocityImpl(self, state) -> None:
        ix = self.getMySubsystemIndex()
        state.updQDot(ix)[:] = state.getU(ix)

    def realizeSubsystemAccelerationImpl(self, state) -> None:
        ix = self.getMySubsystemIndex()
        q = state.getQ(ix)
        a = np.array([-q[0] + q[1], -math.sin(state.getTime())])
        state.updUDot(ix)[:] = a
        state.updQDotDot(ix)[:] = a

    def exact(self, t: float) -> float:
        return (math.sin(t) - t * math.cos(t)) / 2


class TunableOscillator(MechanicalSubsystem):
    """x'' = -omega^2 x with omega an Instance-stage discrete variable."""

    def __init__(self, omega: float = 1.0) -> None:
        super().__init__("TunableOscillator", [1.0], [0.0])
        self.omega0 = omega

    def realizeSubsystemTopologyImpl(self, state) -> None:
        super().realizeSubsystemTopologyImpl(state)
        self.omegaIx = state.allocateDiscreteVariable(
            self.getMySubsystemIndex(), Stage.Instance, self.omega0, name="omega"
        )

    def setOmega(self, state, omega: float) -> None:
        state.setDiscreteVariable(self.getMySubsystemIndex(), self.omegaIx, float(omega))

    def realizeSubsystemAccelerationImpl(self, state) -> None:
        self._omega = state.getDiscreteVariable(self.getMySubsystemIndex(), self.omegaIx)
        super().realizeSubsystemAccelerationImpl(state)

    def acceleration(self, t, q, u):
        return -(self._omega**2) * q


class RetuneAt(ScheduledEventHandler):
    """At time ``t``, set the TunableOscillator's omega."""

    def __init__(self, osc: TunableOscillator, t: float, omega: float) -> None:
        self.osc, self.t, self.omega = osc, t, omega

    def getNextEventTime(self, state, includeCurrentTime: bool) -> float:
        now = state.getTime()
        return self.t if self.t > now or (includeCurrentTime and self.t == now) else math.inf

    def handleEvent(self, state, accuracy: float) -> bool:
        self.osc.setOmega(state, self.omega)
        return False
