"""Property test: random sequences of State/System operations checked against a small,
independent model of Simbody's cache-validity rules.

The invariant: a cache entry is readable  <=>  its subsystem has reached the entry's latest
stage (and it was not explicitly marked not realized since that stage was last realized),
or it was explicitly marked realized at or after its earliest stage and since then neither
its earliest stage was invalidated nor any of its prerequisites (q, u, z, discrete
variables, upstream entries, transitively) changed. And the system stage is never above
any subsystem's stage.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine.common.exceptions import CacheEntryOutOfDateError, StageTooLowError
from engine.common.stage import Stage
from engine.common.state import State
from engine.common.subsystem import Subsystem
from engine.common.system import System

INF = Stage.Infinity

#: Discrete variables: name -> (owner, invalidated stage). "auto" is an auto-update variable
#: whose update value depends on Velocity.
DISCRETE = {
    "d_instance": ("probe", Stage.Instance),
    "d_dynamics": ("probe", Stage.Dynamics),
    "d_model": ("probe", Stage.Model),
}
AUTO = ("auto", "probe", Stage.Dynamics, Stage.Velocity)

#: Cache entries: name -> (owner, earliest, latest, q, u, z, discrete prereqs, entry prereqs).
ENTRIES = {
    "E_I": ("probe", Stage.Instance, Stage.Instance, 0, 0, 0, (), ()),
    "E_P": ("probe", Stage.Position, Stage.Position, 0, 0, 0, (), ()),
    "E_VD": ("probe", Stage.Velocity, Stage.Dynamics, 0, 0, 0, (), ()),
    "E_TR": ("probe", Stage.Time, Stage.Report, 0, 0, 0, (), ()),
    "L_P": ("probe", Stage.Position, INF, 0, 0, 0, (), ()),
    "L_I": ("probe", Stage.Instance, INF, 0, 0, 0, (), ()),
    "L_q": ("probe", Stage.Instance, INF, 1, 0, 0, (), ()),
    "L_uz": ("probe", Stage.Time, INF, 0, 1, 1, (), ()),
    "E_dv": ("probe", Stage.Position, Stage.Acceleration, 0, 0, 0, ("d_dynamics",), ()),
    "L_dv": ("probe", Stage.Instance, INF, 0, 0, 0, ("d_dynamics", "d_instance"), ()),
    "L_ce": ("probe", Stage.Time, INF, 0, 0, 0, (), ("L_I", "L_q")),
    "L_chain": ("probe", Stage.Velocity, INF, 1, 0, 0, (), ("L_ce",)),
    "X_cross": ("other", Stage.Time, INF, 0, 0, 0, ("d_instance",), ("L_I",)),
    "X_E": ("other", Stage.Velocity, Stage.Acceleration, 0, 1, 0, (), ()),
}
ENTRY_NAMES = [*ENTRIES, "auto update"]
SUBSYSTEMS = ("probe", "other")


class PropertySubsystem(Subsystem):
    """Allocates its share of DISCRETE / ENTRIES at Topology; its hooks compute nothing."""

    def __init__(self, name: str, registry: dict) -> None:
        super().__init__(name)
        self.registry = registry  # name -> (subsystem index, local index), shared

    def realizeSubsystemTopologyImpl(self, state):
        me = self.getMySubsystemIndex()
        self.allocateQ(state, [0.0, 0.0])
        self.allocateU(state, [0.0])
        self.allocateZ(state, [0.0])
        for name, (owner, stage) in DISCRETE.items():
            if owner == self.getName():
                self.registry[name] = (me, self.allocateDiscreteVariable(state, stage, 0, name))
        for name, (owner, e, lt, q, u, z, dvs, ces) in ENTRIES.items():
            if owner != self.getName():
                continue
            ix = state.allocateCacheEntryWithPrerequisites(
                me,
                e,
                lt,
                bool(q),
                bool(u),
                bool(z),
                [self.registry[d] for d in dvs],
                [self.registry[c] for c in ces],
                name,
                name=name,
            )
            self.registry[name] = (me, ix)
        if AUTO[1] == self.getName():
            dv = self.allocateAutoUpdateDiscreteVariable(state, AUTO[2], "v0", AUTO[3], "auto")
            self.registry["auto"] = (me, dv)
            self.registry["auto update"] = (me, state.getDiscreteVarUpdateIndex(me, dv))


def _build_system():
    system = System("property")
    registry: dict = {}
    subs = {name: PropertySubsystem(name, registry) for name in SUBSYSTEMS}
    for sub in subs.values():
        system.adoptSubsystem(sub)
    system.realizeTopology()
    return system, subs, registry


SYSTEM, SUBS, REGISTRY = _build_system()


# --------------------------------------------------------------------- oracle


@dataclass
class OEntry:
    owner: str
    earliest: Stage
    latest: Stage
    dependents: list[str] = field(default_factory=list)
    marked: bool = False  # explicitly marked since the last dependency change
    forced: bool = False  # marked not realized while at/after latest


class Oracle:
    """What the State should say, computed from the rules alone."""

    def __init__(self) -> None:
        self.sub_stage = {"default": Stage.Model, "probe": Stage.Model, "other": Stage.Model}
        self.sys = Stage.Model
        self.entries = {
            name: OEntry(owner, e, lt) for name, (owner, e, lt, *_rest) in ENTRIES.items()
        }
        self.entries["auto update"] = OEntry(AUTO[1], AUTO[3], INF)
        self.q_deps, self.u_deps, self.z_deps = [], [], []
        self.dv_deps: dict[str, list[str]] = {d: [] for d in DISCRETE}
        for name, (_o, _e, _l, q, u, z, dvs, ces) in ENTRIES.items():
            for flag, deps in ((q, self.q_deps), (u, self.u_deps), (z, self.z_deps)):
                if flag:
                    deps.append(name)
            for d in dvs:
                self.dv_deps[d].append(name)
            for c in ces:
                self.entries[c].dependents.append(name)
        self.auto_value, self.auto_update_value = "v0", "v0"

    def readable(self, name: str) -> bool:
        e = self.entries[name]
        stage = self.sub_stage[e.owner]
        return (stage >= e.latest and not e.forced) or (stage >= e.earliest and e.marked)

    def invalidate(self, g: Stage) -> None:
        for sub, stage in self.sub_stage.items():
            if stage >= g:
                for e in self.entries.values():
                    if e.owner == sub:
                        if e.earliest >= g:
                            e.marked = False
                        if e.latest >= g:
                            e.forced = False
                self.sub_stage[sub] = g.prev()
        if self.sys >= g:
            self.sys = g.prev()

    def cascade(self, names) -> None:
        pending, seen = list(names), set()
        while pending:
            name = pending.pop()
            if name not in seen:
                seen.add(name)
                self.entries[name].marked = False
                pending.extend(self.entries[name].dependents)

    def realize_model(self) -> None:
        if self.sys < Stage.Model:
            for sub in self.sub_stage:
                self.sub_stage[sub] = max(self.sub_stage[sub], Stage.Model)
            self.sys = Stage.Model

    def realize(self, g: Stage) -> None:
        self.realize_model()
        for k in range(self.sys + 1, g + 1):
            for sub in self.sub_stage:
                self.sub_stage[sub] = max(self.sub_stage[sub], Stage(k))
            self.sys = Stage(k)

    def mark(self, name: str) -> bool:
        e = self.entries[name]
        if self.sub_stage[e.owner] < e.earliest:
            return False  # refused
        e.marked, e.forced = True, False
        self.cascade(e.dependents)
        return True

    def mark_not(self, name: str) -> None:
        e = self.entries[name]
        e.marked = False
        e.forced = e.latest != INF and self.sub_stage[e.owner] >= e.latest
        self.cascade(e.dependents)

    def set_discrete(self, d: str) -> None:
        if d == "auto":
            self.invalidate(AUTO[2])
            self.mark_not("auto update")
        else:
            self.invalidate(DISCRETE[d][1])
            self.cascade(self.dv_deps[d])

    def auto_update(self) -> None:
        if self.readable("auto update"):
            self.auto_value, self.auto_update_value = self.auto_update_value, self.auto_value
            self.mark_not("auto update")


# ------------------------------------------------------------------ operations

RUNTIME = [Stage(g) for g in range(Stage.Instance, Stage.Report + 1)]
_realize = st.tuples(st.just("realize"), st.sampled_from(RUNTIME))
_mark = st.tuples(st.just("mark"), st.sampled_from(ENTRY_NAMES))
_set_discrete = st.tuples(st.just("setDiscrete"), st.sampled_from([*DISCRETE, "auto"]))
_auto_update = st.tuples(st.just("autoUpdate"))
# Realizing, marking and discrete changes are drawn more often: they build the situations
# (an entry marked between its stages, then a change) that the rules are about.
ops = st.one_of(
    _realize,
    _realize,
    _realize,
    _mark,
    _mark,
    _mark,
    _set_discrete,
    _set_discrete,
    _auto_update,
    st.tuples(st.sampled_from(["setQ", "updQ", "setU", "updU", "setZ", "updZ", "updY"])),
    st.tuples(st.just("setTime"), st.floats(0, 10)),
    st.tuples(st.just("markNot"), st.sampled_from(ENTRY_NAMES)),
    st.tuples(st.just("setUpdateValue"), st.text("xyz", min_size=1, max_size=3)),
    st.tuples(st.just("invalidateAll"), st.sampled_from(RUNTIME)),
    st.tuples(st.just("invalidateAllCache"), st.sampled_from(RUNTIME)),
    st.tuples(st.just("advanceOne"), st.sampled_from(SUBSYSTEMS)),
    st.tuples(st.just("copy")),
)


def _apply(state, oracle: Oracle, op) -> State:
    """Apply ``op`` to ``state`` and to the oracle; returns the State to continue with."""
    kind = op[0]
    probe = REGISTRY["auto"][0]
    if kind == "setTime":
        state.setTime(op[1])
        oracle.invalidate(Stage.Time)
    elif kind in ("setQ", "updQ", "setU", "updU", "setZ", "updZ", "updY"):
        if state.getSystemStage() < Stage.Model:  # a Model-stage change discarded y
            SYSTEM.realizeModel(state)
            oracle.realize_model()
        {
            "setQ": lambda: state.setQ([1.0] * 4),
            "updQ": state.updQ,
            "setU": lambda: state.setU([1.0, 2.0]),
            "updU": state.updU,
            "setZ": lambda: state.setZ([3.0, 4.0]),
            "updZ": state.updZ,
            "updY": state.updY,
        }[kind]()
        for var, stage, deps in (
            ("Q", Stage.Position, oracle.q_deps),
            ("U", Stage.Velocity, oracle.u_deps),
            ("Z", Stage.Dynamics, oracle.z_deps),
        ):
            if kind.endswith(var) or kind == "updY":
                oracle.invalidate(stage)
                oracle.cascade(deps)
    elif kind == "setDiscrete":
        sx, dx = REGISTRY[op[1]]
        if op[1] == "auto":
            state.setDiscreteVariable(sx, dx, "explicit")
            oracle.auto_value = "explicit"
        else:
            state.setDiscreteVariable(sx, dx, 1)
        oracle.set_discrete(op[1])
    elif kind == "realize":
        if state.getSystemStage() < Stage.Model:
            SYSTEM.realizeModel(state)
        SYSTEM.realize(state, op[1])
        oracle.realize(op[1])
    elif kind == "mark":
        sx, ix = REGISTRY[op[1]]
        if oracle.mark(op[1]):
            state.markCacheValueRealized(sx, ix)
        else:
            try:
                state.markCacheValueRealized(sx, ix)
            except StageTooLowError:
                pass
            else:
                raise AssertionError(f"mark of {op[1]} before its earliest stage was allowed")
    elif kind == "markNot":
        sx, ix = REGISTRY[op[1]]
        state.markCacheValueNotRealized(sx, ix)
        oracle.mark_not(op[1])
    elif kind == "setUpdateValue":
        sx, ix = REGISTRY["auto update"]
        state.setCacheEntryValue(sx, ix, op[1])  # a write, neither validating nor not
        oracle.auto_update_value = op[1]
    elif kind in ("invalidateAll", "invalidateAllCache"):
        if kind == "invalidateAll":
            state.invalidateAll(op[1])
        else:
            state.invalidateAllCacheAtOrAbove(op[1])
        oracle.invalidate(op[1])
    elif kind == "autoUpdate":
        state.autoUpdateDiscreteVariables()
        oracle.auto_update()
    elif kind == "advanceOne":
        sx = SUBS[op[1]].getMySubsystemIndex()
        stage = state.getSubsystemStage(sx)
        if Stage.Model <= stage < Stage.Report:
            state.advanceSubsystemToStage(sx, stage.next())
            oracle.sub_stage[op[1]] = stage.next()
    elif kind == "copy":
        # Continue with a copy: it is at min(stage, Instance), as if the stages above had
        # been invalidated (explicit marks above Instance must not survive).
        limit = min(state.getSystemStage(), Stage.Instance)
        state = State(state)
        oracle.invalidate(Stage(limit).next())
    assert probe == REGISTRY["auto"][0]
    return state


def _check(state, oracle: Oracle, op) -> None:
    index = {"default": 0, **{n: s.getMySubsystemIndex() for n, s in SUBS.items()}}
    assert state.getSystemStage() == oracle.sys, op
    for name, ix in index.items():
        assert state.getSubsystemStage(ix) == oracle.sub_stage[name], (op, name)
    assert state.getSystemStage() <= min(state.getSubsystemStage(i) for i in index.values())
    for name in ENTRY_NAMES:
        sx, ix = REGISTRY[name]
        expected = oracle.readable(name)
        assert state.isCacheValueRealized(sx, ix) == expected, (op, name)
        try:
            state.getCacheEntry(sx, ix)
            readable = True
        except CacheEntryOutOfDateError as exc:
            readable = False
            shown = "update value of auto" if name == "auto update" else name
            assert f"'{shown}'" in str(exc)
        assert readable == expected, (op, name)
    sx, dx = REGISTRY["auto"]
    assert state.getDiscreteVariable(sx, dx) == oracle.auto_value, op


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.lists(ops, min_size=10, max_size=60))
# Sequences that broke earlier versions, always run:
# an explicit change of an auto-update variable must make its update value stale;
@example([("realize", Stage.Acceleration), ("mark", "auto update"), ("setDiscrete", "auto")])
# q reaches L_ce through the never-marked L_q;
@example([("realize", Stage.Dynamics), ("mark", "L_ce"), ("setQ",)])
# a mark must not come back to life in a copy realized again after changing q.
@example([("realize", Stage.Report), ("mark", "L_P"), ("copy",), ("setQ",), ("realize", 9)])
def test_cache_readability_matches_the_rules(sequence):
    state = SYSTEM.realizeTopology()
    oracle = Oracle()
    _check(state, oracle, "start")
    for op in sequence:
        state = _apply(state, oracle, op)
        _check(state, oracle, op)
