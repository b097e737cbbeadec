"""Immutable snapshots of a live simulation, made by the worker and read by the GUI.

A ``Snapshot`` holds copies only (never a view into a State), so the GUI can keep and read it
while the worker goes on changing the State. Building one needs the State lock; reading one needs
nothing. Qt-free.

Contents: time and the state variables (q, u), body poses X_GB (nbodies, 4, 4) in ground, the
stage of the System and of every subsystem with their stage versions, and (when requested) a
summary of every cache entry and state variable for the cache inspector.
"""

from __future__ import annotations

import copy
import itertools
import math
import operator
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from engine.common.exceptions import SimTKError
from engine.common.stage import Stage

RUNTIME_STAGES = tuple(Stage(k) for k in range(Stage.Empty, Stage.Report + 1))


@dataclass(frozen=True)
class SubsystemStages:
    """One subsystem's current stage and the version number of each of its stages."""

    index: int
    name: str
    stage: Stage
    versions: tuple[int, ...]


@dataclass(frozen=True)
class StageInfo:
    """The System stage, the subsystems' stages, and what last invalidated each system stage."""

    system_stage: Stage
    system_versions: tuple[int, ...]
    subsystems: tuple[SubsystemStages, ...]
    causes: tuple[str, ...]  # getLastInvalidationCause per stage (index = stage)
    compiled: str = ""  # compiled_paths: which realizations and steps run compiled, and why not

    def versions_of(self, subsystem: int | None) -> tuple[int, ...]:
        return self.system_versions if subsystem is None else self.subsystems[subsystem].versions


@dataclass(frozen=True)
class Cascade:
    """The stages an edit invalidated: ``cause`` (the edit), and per subsystem (None = System)
    the stages whose versions the edit bumped. ``new_state``: the edit replaced the State by
    a new one (an initial state edited at t = 0, a model rebuilt), realized afresh, so no
    stage of the old one was bumped (``stages`` is empty)."""

    cause: str
    stages: dict[int | None, tuple[Stage, ...]]
    new_state: bool = False

    def lowest(self) -> Stage | None:
        found = [s for stages in self.stages.values() for s in stages]
        return min(found) if found else None


@dataclass(frozen=True)
class CacheEntrySummary:
    """One cache entry: owner subsystem, span of stages (latest None = lazy), validity, value."""

    subsystem: int
    owner: str
    index: int
    name: str
    earliest: Stage
    latest: Stage | None
    realized: bool
    value: Any
    stale_reason: str

    @property
    def lazy(self) -> bool:
        return self.latest is None


@dataclass(frozen=True)
class StateVariable:
    """A state variable group for the inspector: name, value (array, scalar or object), and a
    note (e.g. the stage needed before it exists)."""

    group: str
    name: str
    value: Any
    note: str = ""


@dataclass(frozen=True)
class CacheReport:
    """Every cache entry and every state variable of the State at one instant."""

    entries: tuple[CacheEntrySummary, ...]
    variables: tuple[StateVariable, ...]


def joint_layout(
    mobilizer_types: dict[str, str], q_index: dict[tuple[str, int], int]
) -> dict[str, tuple[str, tuple[int, ...]]]:
    """Body name -> (its mobilizer type, its q numbers), in q order: what the sliders show
    of a model (``q_index`` maps (body, which q) to the global q index, in q order). Equal
    joint kinds share one value object (the lazy layout sizes each kind once)."""
    by_body: dict[str, tuple[int, ...]] = {}
    # (a body's q are consecutive keys in q order: one group per body, read at C speed)
    for body, group in itertools.groupby(q_index, key=_BODY):
        whichs = tuple(map(_WHICH, group))
        earlier = by_body.get(body)
        by_body[body] = whichs if earlier is None else earlier + whichs
    shared: dict = {}
    layout = {}
    for body, whichs in by_body.items():
        joint = (mobilizer_types[body], tuple(sorted(whichs)))
        layout[body] = shared.setdefault(joint, joint)
    return layout


_BODY, _WHICH = operator.itemgetter(0), operator.itemgetter(1)
_TYPE_NAME = operator.methodcaller("getMobilizerTypeName")


@dataclass(frozen=True)
class ModelInfo:
    """What the GUI needs about the model being simulated, as plain data (never the live
    System): the global q index of each (body name, which q), q labels, the session's
    plot-sample buffer (which has its own lock), the body names by MobilizedBodyIndex, each
    body's mobilizer type, the Measures' names, the System's display hints (up
    direction in G, uniform background, length scale in m) and the joints the sliders show
    (``joint_layout``: made here, on the worker, not on the GUI thread)."""

    q_index: dict
    q_labels: tuple[str, ...]
    samples: Any
    body_names: tuple[str, ...] = ()
    mobilizer_types: dict = field(default_factory=dict)
    measure_names: tuple[str, ...] = ()
    up: tuple[float, float, float] = (0.0, 1.0, 0.0)
    uniform_background: bool = False
    length_scale: float = 1.0
    joint_layout: dict | None = None

    @staticmethod
    def of(built, q_index: dict, q_labels, samples, names=None) -> ModelInfo:
        """The ModelInfo of the BuiltModel ``built`` (worker thread); ``names``: the
        ``column_names.ColumnNames`` that ``q_index`` is of, if at hand (the joint layout is
        then made from its per-body arrays)."""
        system = built.system
        mobods = built.mobilized_bodies
        mobilizer_types = dict(
            zip(mobods, map(_TYPE_NAME, mobods.values()), strict=True)
        )  # (at C speed: a 20,000-body model's dict)
        return ModelInfo(
            q_index=dict(q_index),
            q_labels=tuple(q_labels),
            samples=samples,
            body_names=tuple(built.body_name_of_index),
            mobilizer_types=mobilizer_types,
            joint_layout=joint_layout(mobilizer_types, q_index)
            if names is None
            else names.joint_layout(mobilizer_types),
            measure_names=tuple(getattr(built, "measures", {}) or {}),
            up=tuple(float(x) for x in system.getUpDirection().asVec3()),
            uniform_background=bool(system.getUseUniformBackground()),
            length_scale=float(system.getDefaultLengthScale()),
        )

    def renamed(self, built, renames: dict[str, str], q_index: dict, q_labels, samples):
        """This ModelInfo for ``built``, the same System with the bodies ``renames`` names
        (old -> new) renamed, its sample columns' ``q_index``, ``q_labels`` and ``samples``:
        the body names, mobilizer types and joint layout keep their order and values, under
        the new names (the joints are not grouped again)."""
        return replace(
            self,
            q_index=q_index,
            q_labels=tuple(q_labels),
            samples=samples,
            body_names=tuple(built.body_name_of_index),
            mobilizer_types={renames.get(k, k): v for k, v in self.mobilizer_types.items()},
            joint_layout=None
            if self.joint_layout is None
            else {renames.get(k, k): v for k, v in self.joint_layout.items()},
        )


@dataclass(frozen=True)
class Snapshot:
    """What the GUI draws: see the module docstring. ``serial`` increases with each snapshot;
    ``model_serial`` changes when the System is rebuilt (the view must then rebuild its
    geometry from ``geometry``)."""

    serial: int
    model_serial: int
    time: float
    q: np.ndarray
    u: np.ndarray
    x_gb: np.ndarray | None
    stages: StageInfo
    running: bool
    status: str
    error: str = ""
    cascade: Cascade | None = None
    cache: CacheReport | None = None
    stage_timings: tuple[tuple[Stage, float], ...] = ()
    became_valid: tuple[tuple[Stage, tuple[str, ...]], ...] = ()  # cache entries, per stage
    #: Plot samples taken up to this snapshot: rows [0, sample_count) of ``model.samples``
    #: (a ring buffer: read them with ``samples.since(n)``).
    sample_count: int = 0
    real_time_rate: float = math.nan
    geometry: tuple = field(default=(), repr=False)
    model: ModelInfo | None = field(default=None, repr=False)
    dynamic_geometry: tuple = field(default=(), repr=False)
    #: Data for the view's teaching overlays (app.simulation.overlay_data.OverlayData), when
    #: the reader asked for some (``SimulationSession.overlay_kinds``), else None.
    overlays: Any = field(default=None, repr=False)


def compiled_paths(system, state, integrator=None) -> str:
    """Two lines for the stage inspector: whether ``system`` realizes Position..Acceleration
    of ``state`` in one compiled kernel call, and (given an initialized ``integrator``)
    whether it takes its steps in compiled runs; each with the reason when not."""
    if state.getSystemStage() < Stage.Instance:
        return ""
    try:
        why = system.whyNotFused(state)
        steps = integrator.whyNotCompiledSteps() if integrator is not None else None
    except SimTKError as exc:  # e.g. a State of an earlier topology
        return f"Compiled paths unknown: {exc}"
    lines = [
        "Position..Acceleration: one compiled kernel call"
        if not why
        else f"Position..Acceleration: stage by stage ({why})"
    ]
    if steps is not None:
        name = integrator.getMethodName()
        lines.append(
            f"{name} steps: many per compiled call"
            if not steps
            else f"{name} steps: one at a time in Python ({steps})"
        )
    return "\n".join(lines)


def stage_info(state, compiled: str = "") -> StageInfo:
    """Stage information of ``state`` (lock held by the caller); ``compiled`` is the
    ``compiled_paths`` text to show with it."""
    subs = []
    for i in range(state.getNumSubsystems()):
        info = state.getPerSubsystemInfo(i)
        subs.append(
            SubsystemStages(i, state.getSubsystemName(i), info.stage, tuple(info.stage_versions))
        )
    versions = tuple(state.getSystemStageVersions())
    causes = tuple(state.getLastInvalidationCause(Stage(k)) for k in range(11))
    return StageInfo(state.getSystemStage(), versions, tuple(subs), causes, compiled)


def all_stage_versions(state) -> dict[int | None, tuple[int, list[int]]]:
    """The stage and the stage versions (all 11) of the system (key None) and of every
    subsystem."""
    out = {None: (int(state.getSystemStage()), list(state._system_stage_versions))}
    for i in range(state.getNumSubsystems()):
        info = state.getPerSubsystemInfo(i)
        out[i] = (int(info.stage), info.stage_versions)
    return out


def cascade_between(before: dict, after: dict, cause: str) -> Cascade:
    """Which stages were invalidated between two ``all_stage_versions`` results: those
    valid before whose versions changed (a subsystem's versions of stages it has not
    reached may change too; they were not valid, so they were not invalidated)."""
    stages: dict[int | None, tuple[Stage, ...]] = {}
    for key, (_, new) in after.items():
        if key not in before:
            continue
        stage, old = before[key]
        n = min(stage + 1, len(old), len(new))
        bumped = tuple(Stage(k) for k in range(n) if old[k] != new[k])
        if bumped:
            stages[key] = bumped
    return Cascade(cause, stages)


def realized_entries(state) -> set[str]:
    """Names ("owner: entry") of the cache entries whose values are current."""
    out = set()
    for i in range(state.getNumSubsystems()):
        owner = state.getSubsystemName(i)
        for ce in state.getPerSubsystemInfo(i).cache:
            if state.isCacheValueRealized(i, ce.index):
                out.add(f"{owner}: {ce.name}")
    return out


def _copy_value(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, (int, float, bool, str, type(None))):
        return value
    try:
        return copy.deepcopy(value)
    except Exception:  # noqa: BLE001  (an uncopyable value is shown by its repr)
        return repr(value)


def _stale_reason(state, sub_stage: Stage, ce) -> str:
    if ce.isLazy():
        what = f"lazy (computed on request from {ce.earliest.getName()} on); not computed since"
    elif sub_stage < ce.latest:
        what = (
            f"computed at {ce.latest.getName()} stage but the subsystem is at {sub_stage.getName()}"
        )
    else:
        what = "explicitly marked not realized"
    cause = ce.last_invalidated_by or state.getLastInvalidationCause(max(ce.earliest, Stage.Model))
    return f"{what}; made stale by {cause}" if cause else what


def _variable(state, group: str, name: str, getter) -> StateVariable:
    try:
        return StateVariable(group, name, _copy_value(getter()))
    except SimTKError as exc:
        return StateVariable(group, name, None, str(exc).split(";")[0])


def cache_report(state) -> CacheReport:
    """Every cache entry of every subsystem and every state variable (lock held by caller)."""
    entries = []
    variables = [StateVariable("time", "t", float(state.getTime()))]
    for name, getter in (
        ("q", state.getQ),
        ("u", state.getU),
        ("z", state.getZ),
        ("qErr", state.getQErr),
        ("uErr", state.getUErr),
        ("udotErr", state.getUDotErr),
        ("multipliers", state.getMultipliers),
    ):
        group = "continuous" if name in "quz" else "errors"
        variables.append(_variable(state, group, name, getter))
    for i in range(state.getNumSubsystems()):
        info = state.getPerSubsystemInfo(i)
        owner = state.getSubsystemName(i)
        for ce in info.cache:
            realized = state.isCacheValueRealized(i, ce.index)
            entries.append(
                CacheEntrySummary(
                    subsystem=i,
                    owner=owner,
                    index=ce.index,
                    name=ce.name,
                    earliest=ce.earliest,
                    latest=None if ce.isLazy() else ce.latest,
                    realized=realized,
                    value=_copy_value(ce.value),
                    stale_reason="" if realized else _stale_reason(state, info.stage, ce),
                )
            )
        for dv in info.discrete:
            variables.append(
                StateVariable(
                    f"discrete, {owner}",
                    dv.name,
                    _copy_value(dv.value),
                    f"invalidates {dv.invalidates.getName()}",
                )
            )
    return CacheReport(tuple(entries), tuple(variables))


def body_poses(matter, state) -> np.ndarray:
    """X_GB of every body as (nbodies, 4, 4) homogeneous matrices (state at Position or later).

    Read in one go from the matter subsystem's Position cache (R_GB, p_GB of every body) when
    it has one, else body by body with ``getBodyTransform``."""
    n = matter.getNumBodies()
    cache = getattr(matter, "_position_cache", None)
    if cache is not None:
        try:
            pc = cache(state)
            r_gb, p_gb = np.asarray(pc.R_GB), np.asarray(pc.p_GB)
        except (SimTKError, AttributeError):
            r_gb = p_gb = None
        if r_gb is not None and r_gb.shape == (n, 3, 3) and p_gb.shape == (n, 3):
            x_gb = np.zeros((n, 4, 4))
            x_gb[:, :3, :3] = r_gb
            x_gb[:, :3, 3] = p_gb
            x_gb[:, 3, 3] = 1.0
            return x_gb
    x_gb = np.empty((n, 4, 4))
    for b in range(n):
        x_gb[b] = matter.getMobilizedBody(b).getBodyTransform(state).toMat44()
    return x_gb
