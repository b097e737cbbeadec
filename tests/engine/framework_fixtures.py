"""Small custom Subsystems, event handlers and helpers for the framework-layer tests.

These are test doubles, not engine models: they exercise State, System and Subsystem the
way a real subsystem does (allocating variables, cache entries of several kinds, constraint
error slots and event triggers, and filling them in the realize hooks), and they record
every hook call so tests can check what System.realize did.
"""

from __future__ import annotations

import math

import numpy as np

from engine.common.events import (
    PeriodicEventHandler,
    PeriodicEventReporter,
    ScheduledEventHandler,
    TriggeredEventHandler,
    TriggeredEventReporter,
)
from engine.common.project_options import ProjectResults
from engine.common.stage import Stage
from engine.common.state import State
from engine.common.subsystem import Subsystem
from engine.common.system import System

#: Stages realize() may be asked for, in order.
RUNTIME_STAGES = [
    Stage.Instance,
    Stage.Time,
    Stage.Position,
    Stage.Velocity,
    Stage.Dynamics,
    Stage.Acceleration,
    Stage.Report,
]

#: Every realize hook a subsystem has, by the stage it computes.
HOOK_STAGES = [Stage.Topology, Stage.Model, *RUNTIME_STAGES]


class RecordingSubsystem(Subsystem):
    """A subsystem whose realize hooks append ``(name, stage, subsystem stage)`` to ``log``.

    The third item is the subsystem's own stage when the hook ran (it must be one below
    the stage being realized). Subclasses put their work in ``compute<Stage>`` methods.
    """

    def __init__(self, name: str, log: list | None = None) -> None:
        super().__init__(name, "1.0")
        self.log = [] if log is None else log

    def _hook(self, stage: Stage, state: State) -> None:
        self.log.append(
            (self.getName(), stage, state.getSubsystemStage(self.getMySubsystemIndex()))
        )
        getattr(self, f"compute{stage.getName()}")(state)

    def realizeSubsystemTopologyImpl(self, state):
        self._hook(Stage.Topology, state)

    def realizeSubsystemModelImpl(self, state):
        self._hook(Stage.Model, state)

    def realizeSubsystemInstanceImpl(self, state):
        self._hook(Stage.Instance, state)

    def realizeSubsystemTimeImpl(self, state):
        self._hook(Stage.Time, state)

    def realizeSubsystemPositionImpl(self, state):
        self._hook(Stage.Position, state)

    def realizeSubsystemVelocityImpl(self, state):
        self._hook(Stage.Velocity, state)

    def realizeSubsystemDynamicsImpl(self, state):
        self._hook(Stage.Dynamics, state)

    def realizeSubsystemAccelerationImpl(self, state):
        self._hook(Stage.Acceleration, state)

    def realizeSubsystemReportImpl(self, state):
        self._hook(Stage.Report, state)

    def computeTopology(self, state):
        pass

    def computeModel(self, state):
        pass

    def computeInstance(self, state):
        pass

    def computeTime(self, state):
        pass

    def computePosition(self, state):
        pass

    def computeVelocity(self, state):
        pass

    def computeDynamics(self, state):
        pass

    def computeAcceleration(self, state):
        pass

    def computeReport(self, state):
        pass


class CountsSubsystem(RecordingSubsystem):
    """Allocates given numbers of q, u, z (at Topology), constraint-error slots (at
    Instance, as a constraint subsystem would) and event triggers per stage (at Topology).
    Initial values are distinct so partitions can be told apart: q = 100*k + i + 1,
    u = -(100*k + i + 1), z = 1000*k + i + 1 for subsystem tag k."""

    def __init__(
        self,
        name: str,
        nq: int = 0,
        nu: int = 0,
        nz: int = 0,
        nqerr: int = 0,
        nuerr: int = 0,
        nudoterr: int = 0,
        triggers: dict | None = None,
        tag: int = 0,
        log: list | None = None,
    ) -> None:
        super().__init__(name, log)
        self.nq, self.nu, self.nz = nq, nu, nz
        self.nqerr, self.nuerr, self.nudoterr = nqerr, nuerr, nudoterr
        self.triggers = dict(triggers or {})
        self.tag = tag

    def initialQ(self) -> np.ndarray:
        return 100.0 * self.tag + np.arange(1, self.nq + 1)

    def initialU(self) -> np.ndarray:
        return -(100.0 * self.tag + np.arange(1, self.nu + 1))

    def initialZ(self) -> np.ndarray:
        return 1000.0 * self.tag + np.arange(1, self.nz + 1)

    def computeTopology(self, state):
        self.allocateQ(state, self.initialQ())
        self.allocateU(state, self.initialU())
        self.allocateZ(state, self.initialZ())
        for stage, n in self.triggers.items():
            self.allocateEventTriggersByStage(state, stage, n)

    def computeInstance(self, state):
        self.allocateQErr(state, self.nqerr)
        self.allocateUErr(state, self.nuerr)
        self.allocateUDotErr(state, self.nudoterr)


class HarmonicOscillator(RecordingSubsystem):
    """n independent unit oscillators q'' = -(k/m) q, with everything a subsystem can own.

    State: q, u (n each); z (1, integrates the kinetic energy); discrete variables
    ``stiffness`` k (invalidates Dynamics), ``mass`` m (invalidates Instance) and the
    auto-update ``step count`` (invalidates Dynamics, update value depends on Dynamics
    and is computed in the Acceleration hook as count + 1).

    Cache entries: ``inverse mass`` (Instance), ``sum q^2`` (Position), ``kinetic
    energy`` (Velocity..Dynamics, computed lazily by getKineticEnergy or at Dynamics),
    ``total energy`` (lazy from Dynamics), ``summary`` (Report).

    Constraint slots: one qErr (q0 - qTarget, allocated at Model), one uErr (u0) and
    one udotErr (udot0) (allocated at Instance). Event triggers: q0 at Position, u0 at
    Velocity.

    If ``constrained``, projectQ/projectU move q0 to qTarget and u0 to 0 when the error is
    larger than the accuracy (so System.project has something to do).
    """

    def __init__(
        self,
        name: str = "oscillator",
        n: int = 2,
        q0=None,
        u0=None,
        k: float = 4.0,
        m: float = 1.0,
        constrained: bool = False,
        qTarget: float = 0.0,
        log: list | None = None,
    ) -> None:
        super().__init__(name, log)
        self.n = n
        self.q_init = np.linspace(0.1, 0.1 * n, n) if q0 is None else np.asarray(q0, float)
        self.u_init = np.zeros(n) if u0 is None else np.asarray(u0, float)
        self.k, self.m = k, m
        self.constrained = constrained
        self.qTarget = qTarget
        self.geometry_calls: list[Stage] = []

    # ---------------------------------------------------------------- allocation
    def computeTopology(self, state):
        self.allocateQ(state, self.q_init)
        self.allocateU(state, self.u_init)
        self.allocateZ(state, [0.0])
        self.dv_k = self.allocateDiscreteVariable(state, Stage.Dynamics, self.k, "stiffness")
        self.dv_m = self.allocateDiscreteVariable(state, Stage.Instance, self.m, "mass")
        self.dv_count = self.allocateAutoUpdateDiscreteVariable(
            state, Stage.Dynamics, 0, Stage.Dynamics, "step count"
        )
        self.ce_inv_mass = self.allocateCacheEntry(state, Stage.Instance, 0.0, name="inverse mass")
        self.ce_q2 = self.allocateCacheEntry(state, Stage.Position, 0.0, name="sum q^2")
        self.ce_ke = self.allocateCacheEntry(
            state, Stage.Velocity, Stage.Dynamics, 0.0, name="kinetic energy"
        )
        self.ce_energy = self.allocateLazyCacheEntry(state, Stage.Dynamics, 0.0, "total energy")
        self.ce_summary = self.allocateCacheEntry(state, Stage.Report, "", name="summary")
        self.trig_q = self.allocateEventTriggersByStage(state, Stage.Position, 1)
        self.trig_u = self.allocateEventTriggersByStage(state, Stage.Velocity, 1)

    def computeModel(self, state):
        self.qerr0 = self.allocateQErr(state, 1)

    def computeInstance(self, state):
        self.allocateUErr(state, 1)
        self.allocateUDotErr(state, 1)
        m = self.getDiscreteVariable(state, self.dv_m)
        state.setCacheEntryValue(self.getMySubsystemIndex(), self.ce_inv_mass, 1.0 / m)

    # ------------------------------------------------------------- computation
    def _ix(self) -> int:
        return self.getMySubsystemIndex()

    def computePosition(self, state):
        q = self.getQ(state)
        state.setCacheEntryValue(self._ix(), self.ce_q2, float(q @ q))
        state.updQErr(self._ix())[0] = q[0] - self.qTarget

    def computeVelocity(self, state):
        u = self.getU(state)
        state.updQDot(self._ix())[:] = u
        state.updUErr(self._ix())[0] = u[0]

    def getKineticEnergy(self, state) -> float:
        """The lazy-evaluation pattern of State.txt for an entry with a latest stage."""
        ix = self._ix()
        if not state.isCacheValueRealized(ix, self.ce_ke):
            u = self.getU(state)
            state.setCacheEntryValue(ix, self.ce_ke, 0.5 * self.m * float(u @ u))
            if state.getSubsystemStage(ix) >= Stage.Velocity:
                state.markCacheValueRealized(ix, self.ce_ke)
            return state.updCacheEntry(ix, self.ce_ke)
        return state.getCacheEntry(ix, self.ce_ke)

    def getTotalEnergy(self, state) -> float:
        """A lazy entry: computed on request, from Dynamics stage on."""
        ix = self._ix()
        if not state.isCacheValueRealized(ix, self.ce_energy):
            k = self.getDiscreteVariable(state, self.dv_k)
            e = self.getKineticEnergy(state) + 0.5 * k * state.getCacheEntry(ix, self.ce_q2)
            state.setCacheEntryValue(ix, self.ce_energy, e)
            state.markCacheValueRealized(ix, self.ce_energy)
        return state.getCacheEntry(ix, self.ce_energy)

    def computeDynamics(self, state):
        self.getKineticEnergy(state)

    def computeAcceleration(self, state):
        ix = self._ix()
        k = self.getDiscreteVariable(state, self.dv_k)
        inv_m = state.getCacheEntry(ix, self.ce_inv_mass)
        udot = -k * inv_m * self.getQ(state)
        state.updUDot(ix)[:] = udot
        state.updQDotDot(ix)[:] = udot
        state.updZDot(ix)[0] = state.getCacheEntry(ix, self.ce_ke)
        state.updUDotErr(ix)[0] = udot[0]
        state.updMultipliers(ix)[0] = 0.0
        count = self.getDiscreteVariable(state, self.dv_count)
        entry = state.getDiscreteVarUpdateIndex(ix, self.dv_count)
        state.setCacheEntryValue(ix, entry, count + 1)
        state.markDiscreteVarUpdateValueRealized(ix, self.dv_count)

    def computeReport(self, state):
        ix = self._ix()
        state.setCacheEntryValue(ix, self.ce_summary, f"t={state.getTime():g} q={self.getQ(state)}")

    def realizeSubsystemEventTriggersImpl(self, state, stage):
        ix = self._ix()
        if stage == Stage.Position:
            state.updEventTriggersByStage(ix, stage)[self.trig_q] = self.getQ(state)[0]
        elif stage == Stage.Velocity:
            state.updEventTriggersByStage(ix, stage)[self.trig_u] = self.getU(state)[0]

    # ------------------------------------------------------------ solver hooks
    def projectQImpl(self, state, qErrEst, options, results):
        if not self.constrained:
            return
        if abs(self.getQ(state)[0] - self.qTarget) > options.getRequiredAccuracy():
            self.updQ(state)[0] = self.qTarget
            results.setAnyChangeMade(True)
        results.setExitStatus(ProjectResults.Succeeded)

    def projectUImpl(self, state, uErrEst, options, results):
        if not self.constrained:
            return
        if abs(self.getU(state)[0]) > options.getRequiredAccuracy():
            self.updU(state)[0] = 0.0
            results.setAnyChangeMade(True)
        results.setExitStatus(ProjectResults.Succeeded)

    def calcDecorativeGeometryAndAppendImpl(self, state, stage, geometry):
        self.geometry_calls.append(stage)
        if stage == Stage.Position:
            geometry.extend(("ball", self._ix(), float(q)) for q in self.getQ(state))


class IntegrateMeasure:
    """A Measure-like object for DefaultSystemSubsystem.adoptMeasure that owns one z."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def realizeMeasureTopology(self, sub, state):
        self.calls.append("Topology")
        self.z_index = sub.allocateZ(state, [0.0])

    def initializeMeasure(self, sub, state):
        self.calls.append("initialize")

    def __getattr__(self, name):
        if name.startswith("realizeMeasure"):
            return lambda sub, state: self.calls.append(name[len("realizeMeasure") :])
        raise AttributeError(name)


class LayoutMatter(RecordingSubsystem):
    """Stands in for SimbodyMatterSubsystem in the stages.json layout checks: 6 q, 5 u,
    one holonomic constraint (qErr, uErr, udotErr, multiplier each 1) that an Instance-stage
    flag can disable, and one quaternion-normalization qErr that a Model-stage flag
    ("use Euler angles") removes. The constraint slots are allocated in the Model and
    Instance hooks, as a matter subsystem does, so the flags exercise the forgetting and
    re-allocation of those allocations."""

    def __init__(self, log: list | None = None) -> None:
        super().__init__("SimbodyMatterSubsystem", log)

    def computeTopology(self, state):
        self.allocateQ(state, np.zeros(6))
        self.allocateU(state, np.zeros(5))
        self.dv_euler = self.allocateDiscreteVariable(state, Stage.Model, False, "use Euler")
        self.dv_rod_off = self.allocateDiscreteVariable(
            state, Stage.Instance, False, "rod disabled"
        )

    def computeModel(self, state):
        if not self.getDiscreteVariable(state, self.dv_euler):
            self.allocateQErr(state, 1)  # the ball's quaternion norm

    def computeInstance(self, state):
        if not self.getDiscreteVariable(state, self.dv_rod_off):
            self.allocateQErr(state, 1)
            self.allocateUErr(state, 1)
            self.allocateUDotErr(state, 1)


class ThresholdWitness(TriggeredEventHandler):
    """Triggered handler: witness q[index] - threshold of a subsystem at Position stage.
    ``action`` is called as action(state) when handled; returns its truth as terminate."""

    def __init__(self, sub: Subsystem, threshold: float = 0.0, index: int = 0, action=None):
        super().__init__(Stage.Position)
        self.sub, self.threshold, self.index = sub, threshold, index
        self.action = action
        self.calls: list[float] = []

    def getValue(self, state) -> float:
        return float(self.sub.getQ(state)[self.index] - self.threshold)

    def handleEvent(self, state, accuracy) -> bool:
        self.calls.append(state.getTime())
        return bool(self.action(state)) if self.action else False


class SpeedWitnessReporter(TriggeredEventReporter):
    """Triggered reporter: witness u[0] of a subsystem at Velocity stage."""

    def __init__(self, sub: Subsystem):
        super().__init__(Stage.Velocity)
        self.sub = sub
        self.calls: list[float] = []

    def getValue(self, state) -> float:
        return float(self.sub.getU(state)[0])

    def handleEvent(self, state) -> None:
        self.calls.append(state.getTime())


class Ticker(PeriodicEventHandler):
    """Periodic handler that records the times it was handled; ``action`` as above."""

    def __init__(self, interval: float, action=None):
        super().__init__(interval)
        self.action = action
        self.calls: list[float] = []

    def handleEvent(self, state, accuracy) -> bool:
        self.calls.append(state.getTime())
        return bool(self.action(state)) if self.action else False


class AtTimes(ScheduledEventHandler):
    """Scheduled handler occurring at a fixed list of times."""

    def __init__(self, times, action=None):
        self.times = sorted(float(t) for t in times)
        self.action = action
        self.calls: list[float] = []

    def getNextEventTime(self, state, includeCurrentTime) -> float:
        t = state.getTime()
        for te in self.times:
            if te > t or (te == t and includeCurrentTime):
                return te
        return math.inf

    def handleEvent(self, state, accuracy) -> bool:
        self.calls.append(state.getTime())
        return bool(self.action(state)) if self.action else False


class Printer(PeriodicEventReporter):
    """Periodic reporter that records the times it reported."""

    def __init__(self, interval: float):
        super().__init__(interval)
        self.calls: list[float] = []

    def handleEvent(self, state) -> None:
        self.calls.append(state.getTime())


def make_oscillator_system(**kwargs) -> tuple[System, HarmonicOscillator]:
    """A System with one HarmonicOscillator (subsystem 1) and its topology realized."""
    system = System("oscillator system")
    osc = HarmonicOscillator(**kwargs)
    system.adoptSubsystem(osc)
    system.realizeTopology()
    return system, osc


def advance_all(state: State, stage: Stage) -> State:
    """Advance every subsystem of a bare State, then the system, one stage at a time up to
    ``stage`` (what System.realize does, without any subsystem code)."""
    for g in range(state.getSystemStage() + 1, int(stage) + 1):
        for i in range(state.getNumSubsystems()):
            if state.getSubsystemStage(i) < g:
                state.advanceSubsystemToStage(i, Stage(g))
        state.advanceSystemToStage(Stage(g))
    return state


def realized(system: System, stage: Stage) -> State:
    """A fresh copy of ``system``'s default State realized through ``stage``."""
    state = system.realizeTopology()
    if stage > Stage.Model:
        system.realize(state, stage)
    return state
