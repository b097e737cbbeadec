"""State: every variable value of a System, plus the realization cache.

A State holds time t, the continuous variables y = [q, u, z], discrete
variables, and the cache that ``System.realize`` fills stage by stage. It is
partitioned among the System's subsystems: each subsystem has its own stage,
private discrete variables and cache entries, and contiguous partitions of the
shared pools (q, u, z, constraint errors, event triggers).

Rules (Simbody's, see ../shared/spec/State.txt and SimulationConcepts.txt):

* The system stage is never above the lowest subsystem stage.
* Changing (or merely asking for writable access to) a variable backs the
  State up: an instance variable to Model, t to Instance, q to Time, u to
  Position, z to Velocity, a discrete variable to one below the stage it
  invalidates.
* Global q/u/z arrays exist from Model stage on; constraint-error, multiplier
  and event-trigger arrays from Instance on. They are discarded when those
  stages are invalidated (state variables return to their initial values).
* Reading accessors return read-only numpy views; writes go through ``set*``
  or ``upd*`` methods, which invalidate.
* A copy holds deep copies of all variables and is valid through
  ``min(stage, Instance)`` (as Simbody 3.7 behaves, see docs/conventions.md §11).
"""

from __future__ import annotations

import math
import threading
from typing import Any

import numpy as np

from engine.common.cache_entry import (
    CacheEntryInfo,
    CacheEntryKey,
    DiscreteVarInfo,
    DiscreteVarKey,
)
from engine.common.exceptions import (
    CacheEntryOutOfDateError,
    IndexOutOfRangeError,
    InvalidArgumentError,
    StageOutOfRangeError,
    StageTooLowError,
    StateLayoutError,
)
from engine.common.finite import all_finite
from engine.common.index_arg import index_value
from engine.common.real_array import real_array
from engine.common.stage import ALL_STAGES, Stage
from engine.common.stage_arg import stage_value
from engine.common.state_books import (
    CAUSE_CODES,
    CAUSES,
    ENTRY_EDITS,
    INSTANCE_SERIAL,
    LOCKSTEP,
    NQ,
    NZ,
    Q_VERSION,
    SERIAL,
    SET_Q,
    SET_U,
    SET_Y,
    SET_Z,
    SETTER_NAMES,
    SETTER_STAGES,
    SETTER_VERSIONS_FROM,
    SETTER_VERSIONS_TO,
    STORED,
    STORED_AND_INVALIDATED,
    SYSTEM_STAGE,
    SYSTEM_VERSIONS,
    U_VERSION,
    WALKS_DONE,
    WALKS_EDITS,
    WALKS_KEY,
    Z_VERSION,
    cause_code,
    cause_text,
    enter_lockstep,
    lockstep_invalidator,
    python_function,
    setter_span,
    value_store,
    value_walks_done,
    walks_key,
)
from engine.common.subsystem_slot import PerSubsystemInfo, PoolRequest, SharedStage

_EMPTY = np.zeros(0)
_EMPTY.flags.writeable = False
_F64 = np.dtype(np.float64)  # the float64 dtype object ordinary arrays share


# Stage members and int values looked up once (Enum class attribute access and int(stage)
# cost a few hundred ns each on the hot paths of set*/upd* and invalidation).
_INT = list(range(len(ALL_STAGES)))  # _INT[stage] == int(stage), by __index__
_walks_key = python_function(walks_key)
_value_walks_done = python_function(value_walks_done)
_enter_lockstep = python_function(enter_lockstep)
_setter_span = python_function(setter_span)
#: store_if_finite's result when it did a setter's whole work
_ALL_DONE = STORED_AND_INVALIDATED + WALKS_DONE
_TOPOLOGY, _MODEL, _POSITION = Stage.Topology, Stage.Model, Stage.Position
_VELOCITY, _DYNAMICS = Stage.Velocity, Stage.Dynamics
_INSTANCE_INT = int(Stage.Instance)


def _readonly(a: np.ndarray) -> np.ndarray:
    v = a.view()
    v.flags.writeable = False
    return v


_store = None  # state_books.store_if_finite's compiled entry point, once looked up


def _values_setter(which: int, doc: str):
    """The State method for the setter ``which`` (``state_books.SET_Q`` .. ``SET_Y``):
    copy a finite vector of the setter's length into its part of y, count a new value
    of the variables set, back the State up to the stage before ``SETTER_STAGES[which]``
    and make the cache entries depending on those variables stale. The State must be at
    Model stage or later; on error nothing changes.

    The stage check, the length and value checks, the copy, the count, an invalidation
    in lockstep and the check that the dependents' walks are already made are one
    compiled call (``state_books.store_if_finite``); Python only checks the types it
    takes, and finishes what it leaves (``State._finish_set``)."""

    def setter(self, values) -> None:
        global _store
        if type(values) is not np.ndarray or values.dtype is not _F64 or values.ndim != 1:
            values = self._setter_argument(values, which)
        store = _store
        if store is None:
            store = _store = value_store()
        done = store(values, self._y, self._books, which)
        if done != _ALL_DONE:
            self._finish_set(values, which, done)

    setter.__name__ = SETTER_NAMES[which]
    setter.__qualname__ = f"State.{SETTER_NAMES[which]}"
    setter.__doc__ = doc
    return setter


class State:
    """All the variable values of a System, and its realization cache.

    ``State()`` is empty (Stage.Empty, no subsystems). ``State(other)`` is a copy
    (see the module docstring for what a copy keeps).
    """

    def __init__(self, other: State | None = None) -> None:
        self._lock = threading.RLock()
        if other is None:
            self.clear()
        else:
            other._copy_into(self)

    # ------------------------------------------------------------------ basics
    def clear(self) -> None:
        """Restore the State to its default-constructed condition."""
        self._subs: list[PerSubsystemInfo] = []
        #: the subsystems' lockstep (see SharedStage): entered by _enter_lockstep
        self._use_books(SharedStage())
        #: the dependents' walks (_invalidate_dependents); the books' ENTRY_EDITS counts
        #: changes of any cache entry's validity or cause
        self._dep_plans: dict = {}
        self._topology_version = 0
        #: the TopologyKey of the System (and topology) this State was made for
        self._topology_key = None
        self._t = 0.0
        #: counts every change of any discrete variable's value (for hot-path lookups
        #: that depend on parameter values, e.g. FusedRealization's plan)
        self._discrete_serial = 0
        self._q_dependents: list[CacheEntryKey] = []
        self._u_dependents: list[CacheEntryKey] = []
        self._z_dependents: list[CacheEntryKey] = []
        self._drop_model_resources()
        self._drop_instance_resources()

    def _use_books(self, shared: SharedStage) -> None:
        """Keep the books (engine.common.state_books) of ``shared``: the System's stage,
        the lockstep, the invalidation serial, the value versions, the System's stage
        versions and the invalidation causes are the slots of its int64 array."""
        self._shared = shared
        self._books = shared.array  # for compiled code
        self._bv = shared.books  # for Python: item reads are ints
        #: the System's stage versions (read-only use; write through _books)
        self._system_stage_versions = shared.books[SYSTEM_VERSIONS : SYSTEM_VERSIONS + 11]

    @property
    def _system_stage(self) -> Stage:
        return ALL_STAGES[self._bv[SYSTEM_STAGE]]

    @_system_stage.setter
    def _system_stage(self, stage: Stage) -> None:
        self._bv[SYSTEM_STAGE] = stage

    def _record_invalidation(self, first: int, last: int, serial: int, cause: str) -> None:
        """The System's stages first..last (ints) were invalidated by invalidation
        ``serial``, for ``cause``."""
        books = self._books
        books[SYSTEM_VERSIONS + first : SYSTEM_VERSIONS + last + 1] = serial
        books[CAUSES + first : CAUSES + last + 1] = cause_code(cause)
        if first <= _INSTANCE_INT:
            books[INSTANCE_SERIAL] += 1

    def _set_dimensions(self, nq: int, nu: int, nz: int) -> None:
        """The number of q, u and z, for Python and in the books (for the setters'
        compiled call)."""
        self._nq, self._nu, self._nz = nq, nu, nz
        self._books[NQ : NZ + 1] = (nq, nu, nz)

    def _drop_model_resources(self) -> None:
        self._set_dimensions(0, 0, 0)
        self._y = np.zeros(0)
        self._ydot = np.zeros(0)
        self._qdotdot = np.zeros(0)
        self._uweights = np.zeros(0)
        self._zweights = np.zeros(0)
        self._views: dict[str, np.ndarray] = {}
        #: Per-State lookups a subsystem keeps for its hot paths (views of the arrays
        #: above, its cache entry values); emptied whenever those arrays are replaced.
        self._fast: dict = {}

    def _drop_instance_resources(self) -> None:
        self._nqerr = self._nuerr = self._nudoterr = 0
        self._yerr = np.zeros(0)
        self._udoterr = np.zeros(0)
        self._multipliers = np.zeros(0)
        self._qerr_weights = np.zeros(0)
        self._uerr_weights = np.zeros(0)
        self._triggers = np.zeros(0)
        self._trigger_starts = [0] * 11
        self._trigger_counts = [0] * 11
        self._instance_allocated = False

    def getStateLock(self) -> threading.RLock:
        """This State's own re-entrant lock (a copy gets a new one). The engine never takes it."""
        return self._lock

    def copy(self) -> State:
        """A copy of this State (same as ``State(self)``)."""
        return State(self)

    def __copy__(self) -> State:
        return State(self)

    def __deepcopy__(self, memo: dict) -> State:
        return State(self)

    def _copy_into(self, dst: State) -> None:
        dst._subs = [s.copy() for s in self._subs]
        common = self._shared.stage
        dst._use_books(SharedStage(self._books.copy()))  # stages, versions, causes
        shared = dst._shared
        shared.stage = None  # the copy's subsystems get their own records
        for sub in dst._subs:
            sub.shared = shared
            if common is not None:
                sub.own_stage = common
        dst._bv[ENTRY_EDITS] = 0
        dst._forget_dep_plans()
        dst._bv[SERIAL] = serial = self._bv[SERIAL] + 1
        dst._topology_version = self._topology_version
        dst._topology_key = self._topology_key
        dst._t = self._t
        dst._discrete_serial = self._discrete_serial
        dst._q_dependents = list(self._q_dependents)
        dst._u_dependents = list(self._u_dependents)
        dst._z_dependents = list(self._z_dependents)
        dst._drop_model_resources()
        dst._drop_instance_resources()
        if self._system_stage >= Stage.Model:
            dst._set_dimensions(self._nq, self._nu, self._nz)
            dst._y = self._y.copy()
            dst._ydot = self._ydot.copy()
            dst._qdotdot = self._qdotdot.copy()
            dst._uweights = self._uweights.copy()
            dst._zweights = self._zweights.copy()
            dst._make_model_views()
        if self._instance_allocated:
            dst._nqerr, dst._nuerr, dst._nudoterr = self._nqerr, self._nuerr, self._nudoterr
            dst._yerr = self._yerr.copy()
            dst._udoterr = self._udoterr.copy()
            dst._multipliers = self._multipliers.copy()
            dst._qerr_weights = self._qerr_weights.copy()
            dst._uerr_weights = self._uerr_weights.copy()
            dst._triggers = self._triggers.copy()
            dst._trigger_starts = list(self._trigger_starts)
            dst._trigger_counts = list(self._trigger_counts)
            dst._instance_allocated = True
        # The copy is valid only through Instance. Backing it up is an invalidation: the
        # versions of the dropped stages are bumped, so that an explicit cache mark copied
        # from the source cannot look current once the copy is realized again.
        limit = min(self._system_stage, Stage.Instance)
        lim = _INT[limit]
        for sub in dst._subs:
            if sub.own_stage > lim:
                sub.own_versions[lim + 1 :] = [serial] * (10 - lim)
                sub.own_stage = limit
        top = _INT[self._system_stage]
        if top > lim:
            dst._record_invalidation(lim + 1, top, serial, "copying the State")
        dst._system_stage = limit

    def isConsistent(self, other: State) -> bool:
        """True if both States have the same numbers of subsystems, variables,
        constraint equations, multipliers and event triggers, the triggers distributed
        over the stages alike (both at Instance or later)."""
        for s in (self, other):
            s._require_system_stage(Stage.Instance, "isConsistent")
        return (
            len(self._subs) == len(other._subs)
            and (self._nq, self._nu, self._nz) == (other._nq, other._nu, other._nz)
            and (self._nqerr, self._nuerr, self._nudoterr)
            == (other._nqerr, other._nuerr, other._nudoterr)
            and self._triggers.size == other._triggers.size
            and self._trigger_counts == other._trigger_counts
        )

    # -------------------------------------------------------------- subsystems
    def setNumSubsystems(self, n: int) -> None:
        """Wipe this State and give it ``n`` empty subsystem slots."""
        if int(n) < 0:
            raise InvalidArgumentError(f"number of subsystems must be >= 0, got {n}")
        self.clear()
        self._subs = [PerSubsystemInfo(shared=self._shared) for _ in range(int(n))]
        self._forget_dep_plans()

    def initializeSubsystem(self, subsys: int, name: str, version: str) -> None:
        """Set the name and version of an existing subsystem slot."""
        sub = self._sub(subsys)
        sub.name, sub.version = str(name), str(version)

    def addSubsystem(self, name: str, version: str) -> int:
        """Register a new subsystem slot; returns its SubsystemIndex."""
        if self._system_stage > Stage.Empty:
            raise StateLayoutError(
                "addSubsystem: subsystems can only be added while the State is at Empty stage "
                f"(it is at {self._system_stage.getName()})"
            )
        self._subs.append(
            PerSubsystemInfo(name=str(name), version=str(version), shared=self._shared)
        )
        self._forget_dep_plans()
        return len(self._subs) - 1

    def getNumSubsystems(self) -> int:
        return len(self._subs)

    def getSubsystemName(self, subsys: int) -> str:
        return self._sub(subsys).name

    def getSubsystemVersion(self, subsys: int) -> str:
        return self._sub(subsys).version

    def getSubsystemStage(self, subsys: int) -> Stage:
        return self._sub(subsys).stage

    def getPerSubsystemInfo(self, subsys: int) -> PerSubsystemInfo:
        """(Advanced) The bookkeeping of one subsystem in this State."""
        return self._sub(subsys)

    def _sub(self, subsys: int) -> PerSubsystemInfo:
        if type(subsys) is int and subsys >= 0:  # the common case, checked cheaply
            try:
                return self._subs[subsys]
            except IndexError:
                pass
        i = index_value(subsys, "the subsystem index")
        if not 0 <= i < len(self._subs):
            raise IndexOutOfRangeError(
                f"no subsystem {i}: this State has {len(self._subs)} subsystem(s) "
                f"(indices 0..{len(self._subs) - 1})"
            )
        return self._subs[i]

    # ------------------------------------------------------------------ stages
    def getSystemStage(self) -> Stage:
        """The highest stage valid for the whole State (never above any subsystem's)."""
        return self._system_stage

    def getSystemTopologyStageVersion(self) -> int:
        return self._topology_version

    def setSystemTopologyStageVersion(self, version: int) -> None:
        """(Advanced) Mark this State as belonging to topology version ``version`` of the
        System it was made for."""
        self._topology_version = int(version)
        key = self._topology_key
        if key is not None:
            self._topology_key = type(key)(key.system_name, key.serial, self._topology_version)

    def getSystemStageVersions(self) -> list[int]:
        """Version numbers of each valid system stage (Empty..current)."""
        return list(self._system_stage_versions[: self._system_stage + 1])

    def getLowestSystemStageDifference(self, prev_versions: list[int]) -> Stage:
        """The lowest system stage whose version differs from ``prev_versions`` (a list
        from an earlier getSystemStageVersions). Stage.Infinity if every stage valid then
        is valid now with the same version (stages realized only now do not count); if
        the State is realized less far than before, the first stage no longer valid."""
        n_now = self._system_stage + 1
        n_both = min(len(prev_versions), n_now)
        for i in range(n_both):
            if self._system_stage_versions[i] != prev_versions[i]:
                return ALL_STAGES[i]
        # Realized at least as far as before: stages realized now but not then don't count.
        if n_now >= len(prev_versions):
            return Stage.Infinity
        return ALL_STAGES[n_now]

    def getLastInvalidationCause(self, stage: Stage) -> str:
        """What last invalidated ``stage`` of this State (e.g. ``"setQ"``), or ''."""
        return cause_text(self._bv[CAUSES + stage_value(stage, "getLastInvalidationCause")])

    def advanceSubsystemToStage(self, subsys: int, stage: Stage) -> None:
        """Advance one subsystem's stage by exactly one, to ``stage``."""
        stage = stage_value(stage, "advanceSubsystemToStage")
        sub = self._sub(subsys)
        if sub.stage != stage - 1:
            raise StageOutOfRangeError(
                f"advanceSubsystemToStage: subsystem {int(subsys)} ('{sub.name}') is at "
                f"{sub.stage.getName()}; it can only advance one stage at a time, "
                f"to {sub.stage.next().getName()}, not to {stage.getName()}"
            )
        self._leave_lockstep()
        sub.stage = stage

    def advanceSystemToStage(self, stage: Stage) -> None:
        """Advance the system stage by one, to ``stage``; every subsystem must be there."""
        stage = stage_value(stage, "advanceSystemToStage")
        if self._system_stage != stage - 1:
            raise StageOutOfRangeError(
                f"advanceSystemToStage: the system is at {self._system_stage.getName()}; "
                f"it can only advance to {self._system_stage.next().getName()}, "
                f"not to {stage.getName()}"
            )
        for i, sub in enumerate(self._subs):
            if sub.stage < stage:
                raise StageOutOfRangeError(
                    f"advanceSystemToStage({stage.getName()}): subsystem {i} ('{sub.name}') "
                    f"is only at {sub.stage.getName()}"
                )
        if stage == Stage.Model:
            self._allocate_model_resources()
        elif stage == Stage.Instance:
            self._allocate_instance_resources()
        self._system_stage = stage

    def _advance_system_stage_runtime(self, stage: Stage, g: int) -> None:
        """advanceSystemToStage for Time..Report (no allocation), for System.realize
        (``g`` is int(stage))."""
        if self._system_stage != g - 1:
            self.advanceSystemToStage(stage)  # words the error
            return
        for sub in self._subs:
            if sub.stage < stage:
                self.advanceSystemToStage(stage)  # words the error
                return
        self._system_stage = stage

    def invalidateAll(self, stage: Stage) -> None:
        """Back every subsystem and the system that are at or above ``stage`` up to ``stage-1``."""
        stage = stage_value(stage, "invalidateAll")
        self._invalidate(stage, f"invalidateAll({stage.getName()})")

    def invalidateAllCacheAtOrAbove(self, stage: Stage) -> None:
        """Like invalidateAll, but only for Instance or higher (never destroys variables)."""
        stage = stage_value(stage, "invalidateAllCacheAtOrAbove")
        if stage < Stage.Instance:
            raise StageOutOfRangeError(
                "invalidateAllCacheAtOrAbove can only invalidate Instance stage or higher "
                f"(got {stage.getName()}); use invalidateAll to invalidate Model or Topology"
            )
        self._invalidate(stage, f"invalidateAllCacheAtOrAbove({stage.getName()})")

    def _enter_lockstep(self, stage: Stage) -> None:
        """Every subsystem and the System are now at ``stage`` (a runtime stage), which
        one kernel realized for all of them: record it once, for all (see SharedStage)."""
        _enter_lockstep(self._bv, stage)

    def _leave_lockstep(self) -> None:
        """Give every subsystem its own stage record again, before one of them changes."""
        bv = self._bv
        common = bv[LOCKSTEP]
        if common >= 0:
            bv[LOCKSTEP] = -1
            stage = ALL_STAGES[common]
            for sub in self._subs:
                sub.own_stage = stage

    def _invalidate(self, stage: Stage, cause: str) -> None:
        """Back up everything at or above ``stage`` to ``stage - 1``."""
        first = _INT[stage]
        if first > 3 and self._bv[LOCKSTEP] >= 0:  # one compiled call does it all
            lockstep_invalidator()(self._books, first, cause_code(cause))
            return
        if first == 0:
            raise StageOutOfRangeError("cannot invalidate Empty stage: there is nothing below it")
        self._invalidate_stage_by_stage(first, cause)

    def _invalidate_stage_by_stage(self, first: int, cause: str) -> None:
        """_invalidate from stage ``first`` (an int > 0) of a State not in lockstep, or
        from a stage up to Instance: each subsystem's records."""
        bv = self._bv
        bv[SERIAL] = serial = bv[SERIAL] + 1
        to = ALL_STAGES[first - 1]
        self._leave_lockstep()
        forgot = False
        for sub in self._subs:
            if sub.own_stage >= first:
                sub.own_versions[first:] = [serial] * (11 - first)
                sub.own_stage = to
                if first <= 3:  # to < Instance
                    sub.forget_allocations_from(ALL_STAGES[first])
                    forgot = True
        if forgot:
            self._prune_dependents()
            self._forget_dep_plans()
        old = bv[SYSTEM_STAGE]
        if old >= first:  # stages first..old change version and record the cause
            self._record_invalidation(first, old, serial, cause)
            bv[SYSTEM_STAGE] = first - 1
            if first <= 3:  # to < Instance
                self._drop_instance_resources()
            if first <= 2:  # to < Model
                self._drop_model_resources()

    # ------------------------------------------------------- pool allocations
    def _allocation_stage(self, sub: PerSubsystemInfo, limit: Stage, what: str) -> Stage:
        """The allocation stage of an entry made now: as Simbody's, the stage the subsystem
        is being realized to (its current stage's next: Topology during realizeTopology)."""
        if sub.stage >= limit:
            raise StateLayoutError(
                f"{what}: subsystem '{sub.name}' is already at {sub.stage.getName()} stage; "
                f"this can only be allocated before the subsystem reaches {limit.getName()}"
            )
        return sub.stage.next()

    def _pool_allocate(self, subsys, values, pool: str, limit: Stage, what: str) -> int:
        sub = self._sub(subsys)
        stage = self._allocation_stage(sub, limit, what)
        arr = np.array(values, dtype=np.float64).reshape(-1)
        if not np.all(np.isfinite(arr)):
            raise InvalidArgumentError(f"{what}: initial values must be finite")
        requests = getattr(sub, pool)
        first = PerSubsystemInfo.total(requests)
        requests.append(PoolRequest(arr.size, stage, arr))
        return first

    def allocateQ(self, subsys: int, qInit) -> int:
        """Allocate q's for a subsystem (before Model); returns the local QIndex of the first."""
        return self._pool_allocate(subsys, qInit, "q_requests", Stage.Model, "allocateQ")

    def allocateU(self, subsys: int, uInit) -> int:
        """Allocate u's for a subsystem (before Model); returns the local UIndex of the first."""
        return self._pool_allocate(subsys, uInit, "u_requests", Stage.Model, "allocateU")

    def allocateZ(self, subsys: int, zInit) -> int:
        """Allocate z's for a subsystem (before Model); returns the local ZIndex of the first."""
        return self._pool_allocate(subsys, zInit, "z_requests", Stage.Model, "allocateZ")

    def _count_allocate(self, subsys, n, pool: str, what: str) -> int:
        if int(n) < 0:
            raise InvalidArgumentError(f"{what}: count must be >= 0, got {n}")
        return self._pool_allocate(subsys, np.zeros(int(n)), pool, Stage.Instance, what)

    def allocateQErr(self, subsys: int, nqerr: int) -> int:
        """Allocate position-constraint error slots (before Instance)."""
        return self._count_allocate(subsys, nqerr, "qerr_requests", "allocateQErr")

    def allocateUErr(self, subsys: int, nuerr: int) -> int:
        """Allocate velocity-constraint error slots (before Instance)."""
        return self._count_allocate(subsys, nuerr, "uerr_requests", "allocateUErr")

    def allocateUDotErr(self, subsys: int, nudoterr: int) -> int:
        """Allocate acceleration-constraint error slots and as many multipliers."""
        return self._count_allocate(subsys, nudoterr, "udoterr_requests", "allocateUDotErr")

    def allocateEventTrigger(self, subsys: int, stage: Stage, nevent: int) -> int:
        """Allocate ``nevent`` witness-function slots evaluated at ``stage``; returns the
        subsystem- and stage-local index of the first."""
        stage = stage_value(stage, "allocateEventTrigger")
        sub = self._sub(subsys)
        alloc = self._allocation_stage(sub, Stage.Instance, "allocateEventTrigger")
        if int(nevent) < 0:
            raise InvalidArgumentError(f"allocateEventTrigger: count must be >= 0, got {nevent}")
        requests = sub.trigger_requests[stage]
        first = PerSubsystemInfo.total(requests)
        requests.append(PoolRequest(int(nevent), alloc))
        return first

    def _allocate_model_resources(self) -> None:
        nq = nu = nz = 0
        for sub in self._subs:
            sub.q_start, nq = nq, nq + sub.nq
            sub.u_start, nu = nu, nu + sub.nu
            sub.z_start, nz = nz, nz + sub.nz
        self._set_dimensions(nq, nu, nz)
        parts = [r.initial for s in self._subs for r in s.q_requests]
        parts += [r.initial for s in self._subs for r in s.u_requests]
        parts += [r.initial for s in self._subs for r in s.z_requests]
        self._y = np.concatenate(parts) if parts else np.zeros(0)
        self._ydot = np.zeros(nq + nu + nz)
        self._qdotdot = np.zeros(nq)
        self._uweights = np.ones(nu)
        self._zweights = np.ones(nz)
        self._books[Q_VERSION : Z_VERSION + 1] += 1
        self._make_model_views()

    def _make_model_views(self) -> None:
        self._fast = {}
        nq, nu = self._nq, self._nu
        y, ydot = self._y, self._ydot
        self._views = {
            "y": _readonly(y),
            "q": _readonly(y[:nq]),
            "u": _readonly(y[nq : nq + nu]),
            "z": _readonly(y[nq + nu :]),
            "ydot": _readonly(ydot),
            "qdot": _readonly(ydot[:nq]),
            "udot": _readonly(ydot[nq : nq + nu]),
            "zdot": _readonly(ydot[nq + nu :]),
            "qdotdot": _readonly(self._qdotdot),
            "uweights": _readonly(self._uweights),
            "zweights": _readonly(self._zweights),
        }

    def _allocate_instance_resources(self) -> None:
        nqerr = nuerr = nudoterr = 0
        for sub in self._subs:
            sub.qerr_start, nqerr = nqerr, nqerr + sub.nqerr
            sub.uerr_start, nuerr = nuerr, nuerr + sub.nuerr
            sub.udoterr_start, nudoterr = nudoterr, nudoterr + sub.nudoterr
        self._nqerr, self._nuerr, self._nudoterr = nqerr, nuerr, nudoterr
        self._yerr = np.zeros(nqerr + nuerr)
        self._bv[INSTANCE_SERIAL] += 1
        self._udoterr = np.zeros(nudoterr)
        self._multipliers = np.zeros(nudoterr)
        self._qerr_weights = np.ones(nqerr)
        self._uerr_weights = np.ones(nuerr)
        start = 0
        for stage in ALL_STAGES:
            self._trigger_starts[stage] = start
            for sub in self._subs:
                sub.trigger_starts[stage] = start
                start += sub.ntriggers(stage)
            self._trigger_counts[stage] = start - self._trigger_starts[stage]
        self._triggers = np.zeros(start)
        self._instance_allocated = True

    # --------------------------------------------------------------- checking
    def _require_system_stage(self, needed: Stage, what: str) -> None:
        if self._system_stage < needed:
            if needed <= Stage.Model:  # realize() starts at Model; it cannot do this
                todo = "call system.realizeModel(state)"
                if self._system_stage < Stage.Topology:
                    todo = "use a State made by system.realizeTopology()"
            else:
                todo = f"call system.realize(state, Stage.{needed.getName()})"
            raise StageTooLowError(
                f"{what} needs the State realized to {needed.getName()} stage, but it is only "
                f"at {self._system_stage.getName()} stage; {todo} first"
                + self._cause_suffix(needed),
                needed=needed,
                current=self._system_stage,
            )

    def _cause_suffix(self, needed: Stage) -> str:
        cause = cause_text(self._bv[CAUSES + needed])
        return f" (that stage was last invalidated by {cause})" if cause else ""

    def _require_sub_stage(self, sub: PerSubsystemInfo, needed: Stage, what: str) -> None:
        if sub.stage < needed:
            raise StageTooLowError(
                f"{what} needs subsystem '{sub.name}' realized to {needed.getName()} stage, "
                f"but it is only at {sub.stage.getName()} stage",
                needed=needed,
                current=sub.stage,
            )

    def _check_optional_sub(self, subsys: int | None) -> None:
        """Validate a subsystem index before a writable accessor invalidates anything."""
        if subsys is not None:
            self._sub(subsys)

    def _checked_vector(self, values, size: int, what: str) -> np.ndarray:
        arr = real_array(values, what, f"a vector of {size} numbers")
        if arr.ndim != 1 or arr.shape[0] != size:
            raise InvalidArgumentError(
                f"{what}: expected a vector of length {size}, got shape {np.shape(values)}"
            )
        if not all_finite(arr):
            bad = int(np.flatnonzero(~np.isfinite(arr))[0])
            raise InvalidArgumentError(
                f"{what}: element {bad} is {arr[bad]}; values must be finite"
            )
        return arr

    # ------------------------------------------------------ global dimensions
    def getNY(self) -> int:
        self._require_system_stage(_MODEL, "getNY")
        return self._y.size

    def getNQ(self, subsys: int | None = None) -> int:
        self._require_system_stage(_MODEL, "getNQ")
        return self._nq if subsys is None else self._sub(subsys).nq

    def getNU(self, subsys: int | None = None) -> int:
        self._require_system_stage(_MODEL, "getNU")
        return self._nu if subsys is None else self._sub(subsys).nu

    def getNZ(self, subsys: int | None = None) -> int:
        self._require_system_stage(_MODEL, "getNZ")
        return self._nz if subsys is None else self._sub(subsys).nz

    def getQStart(self, subsys: int | None = None) -> int:
        """Global: index of q in y (0). Per subsystem: its first SystemQIndex."""
        self._require_system_stage(_MODEL, "getQStart")
        return 0 if subsys is None else self._sub(subsys).q_start

    def getUStart(self, subsys: int | None = None) -> int:
        """Global: index of u in y (nq). Per subsystem: its first SystemUIndex."""
        self._require_system_stage(_MODEL, "getUStart")
        return self._nq if subsys is None else self._sub(subsys).u_start

    def getZStart(self, subsys: int | None = None) -> int:
        """Global: index of z in y (nq+nu). Per subsystem: its first SystemZIndex."""
        self._require_system_stage(_MODEL, "getZStart")
        return self._nq + self._nu if subsys is None else self._sub(subsys).z_start

    def getNYErr(self) -> int:
        self._require_system_stage(Stage.Instance, "getNYErr")
        return self._yerr.size

    def getNQErr(self, subsys: int | None = None) -> int:
        self._require_system_stage(Stage.Instance, "getNQErr")
        return self._nqerr if subsys is None else self._sub(subsys).nqerr

    def getNUErr(self, subsys: int | None = None) -> int:
        self._require_system_stage(Stage.Instance, "getNUErr")
        return self._nuerr if subsys is None else self._sub(subsys).nuerr

    def getNUDotErr(self, subsys: int | None = None) -> int:
        self._require_system_stage(Stage.Instance, "getNUDotErr")
        return self._nudoterr if subsys is None else self._sub(subsys).nudoterr

    def getNMultipliers(self, subsys: int | None = None) -> int:
        return self.getNUDotErr(subsys)

    def getQErrStart(self, subsys: int | None = None) -> int:
        """Global: index of qErr in yErr (0). Per subsystem: its first SystemQErrIndex."""
        self._require_system_stage(Stage.Instance, "getQErrStart")
        return 0 if subsys is None else self._sub(subsys).qerr_start

    def getUErrStart(self, subsys: int | None = None) -> int:
        """Global: index of uErr in yErr (nQErr). Per subsystem: its first SystemUErrIndex."""
        self._require_system_stage(Stage.Instance, "getUErrStart")
        return self._nqerr if subsys is None else self._sub(subsys).uerr_start

    def getUDotErrStart(self, subsys: int) -> int:
        self._require_system_stage(Stage.Instance, "getUDotErrStart")
        return self._sub(subsys).udoterr_start

    def getMultipliersStart(self, subsys: int) -> int:
        return self.getUDotErrStart(subsys)

    def getNEventTriggers(self) -> int:
        self._require_system_stage(Stage.Instance, "getNEventTriggers")
        return self._triggers.size

    def getNEventTriggersByStage(self, *args) -> int:
        """``(stage)`` for the whole system or ``(subsys, stage)`` for one subsystem."""
        self._require_system_stage(Stage.Instance, "getNEventTriggersByStage")
        if len(args) == 1:
            return self._trigger_counts[stage_value(args[0], "getNEventTriggersByStage")]
        subsys, stage = args
        return self._sub(subsys).ntriggers(stage_value(stage, "getNEventTriggersByStage"))

    def getEventTriggerStartByStage(self, *args) -> int:
        """``(stage)``: global index of that stage's first trigger. ``(subsys, stage)``:
        index of the subsystem's first trigger of that stage within the stage's partition."""
        self._require_system_stage(Stage.Instance, "getEventTriggerStartByStage")
        if len(args) == 1:
            return self._trigger_starts[stage_value(args[0], "getEventTriggerStartByStage")]
        subsys, stage = args
        stage = stage_value(stage, "getEventTriggerStartByStage")
        return self._sub(subsys).trigger_starts[stage] - self._trigger_starts[stage]

    # ------------------------------------------------------- time and y (state)
    def getTime(self) -> float:
        """Current time t (requires Topology stage)."""
        self._require_system_stage(Stage.Topology, "getTime")
        return self._t

    def setTime(self, t: float) -> None:
        """Set t; backs the State up to Instance stage."""
        self._require_system_stage(_TOPOLOGY, "setTime")
        if type(t) is not float:
            arr = real_array(t, "setTime: t", "a time in seconds (one number)")
            if arr.ndim != 0:
                raise InvalidArgumentError(
                    f"setTime: t: expected one number, got shape {arr.shape}"
                )
            t = float(arr)
        if not math.isfinite(t):
            raise InvalidArgumentError(f"setTime: time must be finite, got {t}")
        self._keep_time_independent_entries()
        self._invalidate(Stage.Time, "setTime")
        self._t = t

    def _keep_time_independent_entries(self) -> None:
        """Before t changes: a current cache entry that declared what it depends on
        (prerequisites: q, u, z, discrete variables, other entries) and depends on no stage
        from Time on keeps its value, as Simbody's kinematics survive ``setTime``: it is
        marked realized against its ``earliest`` stage, which a change of t leaves alone."""
        for sub in self._subs:
            if not sub.time_kept or sub.stage < Stage.Time:
                continue
            cache = sub.cache
            for i in sub.time_kept:
                ce = cache[i]
                if self._entry_realized(sub, ce):
                    ce.realized_version = sub.stage_version(ce.earliest)
                    ce.not_realized_mark = None
                    self._bv[ENTRY_EDITS] += 1

    def updTime(self) -> _TimeRef:
        """Writable time handle (``.value``); asking for it backs up to Instance stage."""
        self._require_system_stage(Stage.Topology, "updTime")
        self._keep_time_independent_entries()
        self._invalidate(Stage.Time, "updTime")
        return _TimeRef(self)

    def getY(self) -> np.ndarray:
        """y = [q, u, z] as a read-only view (requires Model stage)."""
        self._require_system_stage(_MODEL, "getY")
        return self._views["y"]

    def getQ(self, subsys: int | None = None) -> np.ndarray:
        """All q (read-only view), or one subsystem's q partition."""
        self._require_system_stage(_MODEL, "getQ")
        if subsys is None:
            return self._views["q"]
        sub = self._sub(subsys)
        return _readonly(self._y[sub.q_start : sub.q_start + sub.nq])

    def getU(self, subsys: int | None = None) -> np.ndarray:
        """All u (read-only view), or one subsystem's u partition."""
        self._require_system_stage(_MODEL, "getU")
        if subsys is None:
            return self._views["u"]
        sub = self._sub(subsys)
        s = self._nq + sub.u_start
        return _readonly(self._y[s : s + sub.nu])

    def getZ(self, subsys: int | None = None) -> np.ndarray:
        """All z (read-only view), or one subsystem's z partition."""
        self._require_system_stage(_MODEL, "getZ")
        if subsys is None:
            return self._views["z"]
        sub = self._sub(subsys)
        s = self._nq + self._nu + sub.z_start
        return _readonly(self._y[s : s + sub.nz])

    def _note_q_change(self, cause: str) -> None:
        """q changed (or may change through a writable view): back up to Time stage."""
        self._invalidate(_POSITION, cause)
        self._bv[Q_VERSION] += 1
        if self._q_dependents:
            self._invalidate_dependents(self._q_dependents, cause)

    def _note_u_change(self, cause: str) -> None:
        """u changed (or may change): back up to Position stage."""
        self._invalidate(_VELOCITY, cause)
        self._bv[U_VERSION] += 1
        if self._u_dependents:
            self._invalidate_dependents(self._u_dependents, cause)

    def _note_z_change(self, cause: str) -> None:
        """z changed (or may change): back up to Velocity stage."""
        self._invalidate(_DYNAMICS, cause)
        self._bv[Z_VERSION] += 1
        if self._z_dependents:
            self._invalidate_dependents(self._z_dependents, cause)

    def _note_y_change(self, cause: str) -> None:
        """_note_q_change, _note_u_change and _note_z_change in one: backing up to Time
        covers Velocity and Dynamics."""
        self._invalidate(_POSITION, cause)
        self._books[Q_VERSION : Z_VERSION + 1] += 1
        self._invalidate_value_dependents(Q_VERSION, Z_VERSION, cause)

    def _invalidate_value_dependents(self, first: int, last: int, cause: str) -> None:
        """The cache entries declared to depend on q (``first`` Q_VERSION), u or z
        (``last`` Z_VERSION) go stale.

        Skipped when the last call had the same arguments and no cache entry's validity
        or cause changed since (``state_books.value_walks_done``, on the books): the walks
        would leave every entry as it is (a ``setU`` after a realization that did not
        touch those entries, as in a loop of ``setU`` and ``realize``). The record is
        forgotten with the dependency graph it was made on (``_forget_dep_plans``)."""
        bv = self._bv
        key = _walks_key(first, last, CAUSE_CODES.get(cause) or cause_code(cause))
        if bv[WALKS_KEY] == key and _value_walks_done(bv, key):
            return
        if first <= Q_VERSION and self._q_dependents:
            self._invalidate_dependents(self._q_dependents, cause)
        if first <= U_VERSION <= last and self._u_dependents:
            self._invalidate_dependents(self._u_dependents, cause)
        if last == Z_VERSION and self._z_dependents:
            self._invalidate_dependents(self._z_dependents, cause)
        bv[WALKS_EDITS] = bv[ENTRY_EDITS]
        bv[WALKS_KEY] = key

    def _forget_dep_plans(self) -> None:
        """The dependency graph changed: forget the walks made on it."""
        self._dep_plans = {}
        self._bv[WALKS_KEY] = -1

    def _finish_set(self, values, which: int, done: int) -> None:
        """What the compiled call of the setter ``which`` (``state_books.SET_Q`` ..) left
        to Python, by its result ``done``: say why it refused (nothing changed), the
        invalidation outside lockstep, the walks over the entries depending on the values
        set."""
        what, stage = SETTER_NAMES[which], SETTER_STAGES[which]
        if done < STORED:  # nothing changed: say why
            self._require_system_stage(_MODEL, what)
            self._checked_vector(values, _setter_span(self._bv, which)[1], what)
        if not done & STORED_AND_INVALIDATED:
            self._invalidate_stage_by_stage(stage, what)
        self._invalidate_value_dependents(
            SETTER_VERSIONS_FROM[which], SETTER_VERSIONS_TO[which], what
        )

    def _setter_argument(self, values, which: int) -> np.ndarray:
        """A setter's argument that is not a 1-D float64 ndarray, as one (checked: the
        State must be at Model stage or later, the values a finite vector of the
        setter's length), or the error saying what is wrong."""
        what = SETTER_NAMES[which]
        if self._bv[SYSTEM_STAGE] < 2:
            self._require_system_stage(_MODEL, what)
        return self._checked_vector(values, _setter_span(self._bv, which)[1], what)

    setY = _values_setter(SET_Y, "Set all of y = [q, u, z]; backs up to Time stage.")

    def updY(self) -> np.ndarray:
        """Writable view of y; asking for it backs up to Time stage."""
        self._require_system_stage(_MODEL, "updY")
        self._note_y_change("updY")
        return self._y

    setQ = _values_setter(SET_Q, "Set all q; backs up to Time stage.")

    setU = _values_setter(SET_U, "Set all u; backs up to Position stage.")

    setZ = _values_setter(SET_Z, "Set all z; backs up to Velocity stage.")

    def updQ(self, subsys: int | None = None) -> np.ndarray:
        """Writable view of q (or one subsystem's q); asking backs up to Time stage."""
        self._require_system_stage(_MODEL, "updQ")
        self._check_optional_sub(subsys)
        self._note_q_change("updQ")
        if subsys is None:
            return self._y[: self._nq]
        sub = self._sub(subsys)
        return self._y[sub.q_start : sub.q_start + sub.nq]

    def updU(self, subsys: int | None = None) -> np.ndarray:
        """Writable view of u (or one subsystem's u); asking backs up to Position stage."""
        self._require_system_stage(_MODEL, "updU")
        self._check_optional_sub(subsys)
        self._note_u_change("updU")
        s, n = (self._nq, self._nu) if subsys is None else self._u_range(subsys)
        return self._y[s : s + n]

    def updZ(self, subsys: int | None = None) -> np.ndarray:
        """Writable view of z (or one subsystem's z); asking backs up to Velocity stage."""
        self._require_system_stage(_MODEL, "updZ")
        self._check_optional_sub(subsys)
        self._note_z_change("updZ")
        s, n = (self._nq + self._nu, self._nz) if subsys is None else self._z_range(subsys)
        return self._y[s : s + n]

    def _u_range(self, subsys: int) -> tuple[int, int]:
        sub = self._sub(subsys)
        return self._nq + sub.u_start, sub.nu

    def _z_range(self, subsys: int) -> tuple[int, int]:
        sub = self._sub(subsys)
        return self._nq + self._nu + sub.z_start, sub.nz

    def getQValueVersion(self) -> int:
        return self._bv[Q_VERSION]

    def getUValueVersion(self) -> int:
        return self._bv[U_VERSION]

    def getZValueVersion(self) -> int:
        return self._bv[Z_VERSION]

    def getDiscreteValueVersion(self) -> int:
        """A number that changes whenever any discrete variable's value may have changed
        (set, updated or auto-updated); like the q/u/z value versions, for comparing one
        State with itself over time. mbstudio's addition to Simbody's API."""
        return self._discrete_serial

    # ---------------------------------------------------------------- weights
    def getUWeights(self, subsys: int | None = None) -> np.ndarray:
        """Unit weights (1/unit change) of each u; allocated as ones at Model."""
        self._require_system_stage(_MODEL, "getUWeights")
        if subsys is None:
            return self._views["uweights"]
        sub = self._sub(subsys)
        return _readonly(self._uweights[sub.u_start : sub.u_start + sub.nu])

    def getZWeights(self, subsys: int | None = None) -> np.ndarray:
        """Unit weights of each z; allocated as ones at Model."""
        self._require_system_stage(_MODEL, "getZWeights")
        if subsys is None:
            return self._views["zweights"]
        sub = self._sub(subsys)
        return _readonly(self._zweights[sub.z_start : sub.z_start + sub.nz])

    def updUWeights(self, subsys: int | None = None) -> np.ndarray:
        """Writable u weights; invalidates Report stage only."""
        self._require_system_stage(_MODEL, "updUWeights")
        self._check_optional_sub(subsys)
        self._invalidate(Stage.Report, "updUWeights")
        if subsys is None:
            return self._uweights
        sub = self._sub(subsys)
        return self._uweights[sub.u_start : sub.u_start + sub.nu]

    def updZWeights(self, subsys: int | None = None) -> np.ndarray:
        """Writable z weights; invalidates Report stage only."""
        self._require_system_stage(_MODEL, "updZWeights")
        self._check_optional_sub(subsys)
        self._invalidate(Stage.Report, "updZWeights")
        if subsys is None:
            return self._zweights
        sub = self._sub(subsys)
        return self._zweights[sub.z_start : sub.z_start + sub.nz]

    def getQErrWeights(self, subsys: int | None = None) -> np.ndarray:
        """Unit weights (1/unit error) of each qErr; ones from Instance on."""
        self._require_system_stage(Stage.Instance, "getQErrWeights")
        if subsys is None:
            return _readonly(self._qerr_weights)
        sub = self._sub(subsys)
        return _readonly(self._qerr_weights[sub.qerr_start : sub.qerr_start + sub.nqerr])

    def getUErrWeights(self, subsys: int | None = None) -> np.ndarray:
        """Unit weights (1/unit error) of each uErr; ones from Instance on."""
        self._require_system_stage(Stage.Instance, "getUErrWeights")
        if subsys is None:
            return _readonly(self._uerr_weights)
        sub = self._sub(subsys)
        return _readonly(self._uerr_weights[sub.uerr_start : sub.uerr_start + sub.nuerr])

    def updQErrWeights(self, subsys: int | None = None) -> np.ndarray:
        """Writable qErr weights; invalidates Position stage."""
        self._require_system_stage(Stage.Instance, "updQErrWeights")
        self._check_optional_sub(subsys)
        self._invalidate(Stage.Position, "updQErrWeights")
        if subsys is None:
            return self._qerr_weights
        sub = self._sub(subsys)
        return self._qerr_weights[sub.qerr_start : sub.qerr_start + sub.nqerr]

    def updUErrWeights(self, subsys: int | None = None) -> np.ndarray:
        """Writable uErr weights; invalidates Velocity stage."""
        self._require_system_stage(Stage.Instance, "updUErrWeights")
        self._check_optional_sub(subsys)
        self._invalidate(Stage.Velocity, "updUErrWeights")
        if subsys is None:
            return self._uerr_weights
        sub = self._sub(subsys)
        return self._uerr_weights[sub.uerr_start : sub.uerr_start + sub.nuerr]

    # -------------------------------------------------- derivative cache (y')
    def _sub_or_system_stage(self, subsys, needed: Stage, what: str):
        if subsys is None:
            self._require_system_stage(needed, what)
            return None
        sub = self._sub(subsys)
        if self._system_stage < Stage.Model:
            self._require_system_stage(_MODEL, what)
        self._require_sub_stage(sub, needed, what)
        return sub

    def getYDot(self) -> np.ndarray:
        """ydot = [qdot, udot, zdot] (read-only; requires Acceleration stage)."""
        self._require_system_stage(Stage.Acceleration, "getYDot")
        return self._views["ydot"]

    def getQDot(self, subsys: int | None = None) -> np.ndarray:
        """qdot (read-only; requires Velocity stage)."""
        sub = self._sub_or_system_stage(subsys, Stage.Velocity, "getQDot")
        if sub is None:
            return self._views["qdot"]
        return _readonly(self._ydot[sub.q_start : sub.q_start + sub.nq])

    def getUDot(self, subsys: int | None = None) -> np.ndarray:
        """udot (read-only; requires Acceleration stage)."""
        sub = self._sub_or_system_stage(subsys, Stage.Acceleration, "getUDot")
        if sub is None:
            return self._views["udot"]
        s = self._nq + sub.u_start
        return _readonly(self._ydot[s : s + sub.nu])

    def getZDot(self, subsys: int | None = None) -> np.ndarray:
        """zdot (read-only; requires Acceleration stage)."""
        sub = self._sub_or_system_stage(subsys, Stage.Acceleration, "getZDot")
        if sub is None:
            return self._views["zdot"]
        s = self._nq + self._nu + sub.z_start
        return _readonly(self._ydot[s : s + sub.nz])

    def getQDotDot(self, subsys: int | None = None) -> np.ndarray:
        """qdotdot (read-only; requires Acceleration stage)."""
        sub = self._sub_or_system_stage(subsys, Stage.Acceleration, "getQDotDot")
        if sub is None:
            return self._views["qdotdot"]
        return _readonly(self._qdotdot[sub.q_start : sub.q_start + sub.nq])

    def _model_array(self, what: str) -> None:
        self._require_system_stage(_MODEL, what)

    def updYDot(self) -> np.ndarray:
        """Writable ydot cache (for the realizing subsystems; does not change the stage)."""
        self._model_array("updYDot")
        return self._ydot

    def updQDot(self, subsys: int | None = None) -> np.ndarray:
        self._model_array("updQDot")
        if subsys is None:
            return self._ydot[: self._nq]
        sub = self._sub(subsys)
        return self._ydot[sub.q_start : sub.q_start + sub.nq]

    def updUDot(self, subsys: int | None = None) -> np.ndarray:
        self._model_array("updUDot")
        s, n = (self._nq, self._nu) if subsys is None else self._u_range(subsys)
        return self._ydot[s : s + n]

    def updZDot(self, subsys: int | None = None) -> np.ndarray:
        self._model_array("updZDot")
        s, n = (self._nq + self._nu, self._nz) if subsys is None else self._z_range(subsys)
        return self._ydot[s : s + n]

    def updQDotDot(self, subsys: int | None = None) -> np.ndarray:
        self._model_array("updQDotDot")
        if subsys is None:
            return self._qdotdot
        sub = self._sub(subsys)
        return self._qdotdot[sub.q_start : sub.q_start + sub.nq]

    # ------------------------------------------------- constraint error cache
    def getYErr(self) -> np.ndarray:
        """yErr = [qErr, uErr] (read-only; requires Velocity stage)."""
        self._require_system_stage(Stage.Velocity, "getYErr")
        return _readonly(self._yerr)

    def getQErr(self, subsys: int | None = None) -> np.ndarray:
        """qErr = [holonomic errors | quaternion norm errors] (requires Position stage)."""
        sub = self._sub_or_system_stage(subsys, Stage.Position, "getQErr")
        if sub is None:
            return _readonly(self._yerr[: self._nqerr])
        return _readonly(self._yerr[sub.qerr_start : sub.qerr_start + sub.nqerr])

    def getUErr(self, subsys: int | None = None) -> np.ndarray:
        """uErr (requires Velocity stage)."""
        sub = self._sub_or_system_stage(subsys, Stage.Velocity, "getUErr")
        if sub is None:
            return _readonly(self._yerr[self._nqerr :])
        s = self._nqerr + sub.uerr_start
        return _readonly(self._yerr[s : s + sub.nuerr])

    def getUDotErr(self, subsys: int | None = None) -> np.ndarray:
        """udotErr (requires Acceleration stage)."""
        sub = self._sub_or_system_stage(subsys, Stage.Acceleration, "getUDotErr")
        if sub is None:
            return _readonly(self._udoterr)
        return _readonly(self._udoterr[sub.udoterr_start : sub.udoterr_start + sub.nudoterr])

    def getMultipliers(self, subsys: int | None = None) -> np.ndarray:
        """Lagrange multipliers (requires Acceleration stage)."""
        sub = self._sub_or_system_stage(subsys, Stage.Acceleration, "getMultipliers")
        if sub is None:
            return _readonly(self._multipliers)
        return _readonly(self._multipliers[sub.udoterr_start : sub.udoterr_start + sub.nudoterr])

    def _instance_array(self, what: str) -> None:
        self._require_system_stage(Stage.Instance, what)

    def updYErr(self) -> np.ndarray:
        self._instance_array("updYErr")
        return self._yerr

    def updQErr(self, subsys: int | None = None) -> np.ndarray:
        self._instance_array("updQErr")
        if subsys is None:
            return self._yerr[: self._nqerr]
        sub = self._sub(subsys)
        return self._yerr[sub.qerr_start : sub.qerr_start + sub.nqerr]

    def updUErr(self, subsys: int | None = None) -> np.ndarray:
        self._instance_array("updUErr")
        if subsys is None:
            return self._yerr[self._nqerr :]
        sub = self._sub(subsys)
        s = self._nqerr + sub.uerr_start
        return self._yerr[s : s + sub.nuerr]

    def updUDotErr(self, subsys: int | None = None) -> np.ndarray:
        self._instance_array("updUDotErr")
        if subsys is None:
            return self._udoterr
        sub = self._sub(subsys)
        return self._udoterr[sub.udoterr_start : sub.udoterr_start + sub.nudoterr]

    def updMultipliers(self, subsys: int | None = None) -> np.ndarray:
        self._instance_array("updMultipliers")
        if subsys is None:
            return self._multipliers
        sub = self._sub(subsys)
        return self._multipliers[sub.udoterr_start : sub.udoterr_start + sub.nudoterr]

    # ---------------------------------------------------------- event triggers
    def getEventTriggers(self) -> np.ndarray:
        """All event trigger (witness) values, grouped by stage (requires Instance; each
        stage's values are meaningful once that stage is realized)."""
        self._instance_array("getEventTriggers")
        return _readonly(self._triggers)

    def _trigger_slice(self, args, what: str) -> tuple[int, int, Stage]:
        if len(args) == 1:
            stage = stage_value(args[0], what)
            return self._trigger_starts[stage], self._trigger_counts[stage], stage
        subsys, stage = args
        stage = stage_value(stage, what)
        sub = self._sub(subsys)
        return sub.trigger_starts[stage], sub.ntriggers(stage), stage

    def getEventTriggersByStage(self, *args) -> np.ndarray:
        """``(stage)`` or ``(subsys, stage)``: that stage's trigger values (needs that stage)."""
        self._instance_array("getEventTriggersByStage")
        start, n, stage = self._trigger_slice(args, "getEventTriggersByStage")
        self._require_system_stage(stage, "getEventTriggersByStage")
        return _readonly(self._triggers[start : start + n])

    def updEventTriggers(self) -> np.ndarray:
        self._instance_array("updEventTriggers")
        return self._triggers

    def updEventTriggersByStage(self, *args) -> np.ndarray:
        """Writable trigger values of one stage (optionally of one subsystem)."""
        self._instance_array("updEventTriggersByStage")
        start, n, _ = self._trigger_slice(args, "updEventTriggersByStage")
        return self._triggers[start : start + n]

    # ------------------------------------------------------ discrete variables
    def allocateDiscreteVariable(
        self, subsys: int, invalidates: Stage, value: Any, name: str | None = None
    ) -> int:
        """Allocate a discrete variable (before Model); changing it invalidates ``invalidates``.

        ``name`` is optional and only used in messages and inspectors.
        """
        invalidates = stage_value(invalidates, "allocateDiscreteVariable", "invalidates")
        if not Stage.Model <= invalidates <= Stage.Report:
            raise StageOutOfRangeError(
                "allocateDiscreteVariable: the invalidated stage must be between Model and "
                f"Report, got {invalidates.getName()}"
            )
        sub = self._sub(subsys)
        alloc = self._allocation_stage(sub, Stage.Model, "allocateDiscreteVariable")
        if invalidates <= Stage.Model and alloc > Stage.Topology:
            # Changing it would forget it: Model-stage variables belong to construction.
            raise StateLayoutError(
                f"allocateDiscreteVariable: a variable that invalidates Model stage must be "
                f"allocated during construction (realizeTopology), while subsystem "
                f"'{sub.name}' is at Empty stage; it is at {sub.stage.getName()}"
            )
        index = len(sub.discrete)
        sub.discrete.append(
            DiscreteVarInfo(
                subsystem=int(subsys),
                index=index,
                name=name or f"discrete variable {index}",
                invalidates=invalidates,
                allocation_stage=alloc,
                value=value,
                last_update_time=self._t,
            )
        )
        return index

    def allocateAutoUpdateDiscreteVariable(
        self,
        subsys: int,
        invalidates: Stage,
        value: Any,
        updateDependsOn: Stage,
        name: str | None = None,
    ) -> int:
        """Allocate a discrete variable whose update value lives in a lazy cache entry
        (earliest stage ``updateDependsOn``); ``autoUpdateDiscreteVariables`` swaps them."""
        invalidates = stage_value(invalidates, "allocateAutoUpdateDiscreteVariable", "invalidates")
        updateDependsOn = stage_value(
            updateDependsOn, "allocateAutoUpdateDiscreteVariable", "updateDependsOn"
        )
        if invalidates <= Stage.Time:
            raise StageOutOfRangeError(
                "allocateAutoUpdateDiscreteVariable: the invalidated stage must be later than "
                f"Time, got {invalidates.getName()}"
            )
        import copy as _copy

        index = self.allocateDiscreteVariable(subsys, invalidates, value, name)
        dv = self._sub(subsys).discrete[index]
        entry = self.allocateLazyCacheEntry(
            subsys, updateDependsOn, _copy.deepcopy(value), name=f"update value of {dv.name}"
        )
        dv.auto_update_entry = entry
        return index

    def _dv(self, subsys: int, index: int) -> DiscreteVarInfo:
        sub = self._sub(subsys)
        if type(index) is int and 0 <= index < len(sub.discrete):  # the common case
            return sub.discrete[index]
        i = index_value(index, "the discrete variable index")
        if not 0 <= i < len(sub.discrete):
            raise IndexOutOfRangeError(
                f"subsystem '{sub.name}' has no discrete variable {i} (it has {len(sub.discrete)})"
            )
        return sub.discrete[i]

    def getDiscreteVariable(self, subsys: int, index: int) -> Any:
        """The current value of a discrete variable (arrays come back read-only)."""
        value = self._dv(subsys, index).value
        return _readonly(value) if isinstance(value, np.ndarray) else value

    def updDiscreteVariable(self, subsys: int, index: int) -> Any:
        """The value for writing; invalidates the variable's stage and records the time."""
        dv = self._dv(subsys, index)
        self._note_discrete_change(dv)
        return dv.value

    def setDiscreteVariable(self, subsys: int, index: int, value: Any) -> None:
        """Replace a discrete variable's value; invalidates its stage and records the time."""
        dv = self._dv(subsys, index)
        self._note_discrete_change(dv)
        dv.value = value

    def _note_discrete_change(self, dv: DiscreteVarInfo) -> None:
        sub = self._subs[dv.subsystem]
        cause = f"a change of {dv.name} (subsystem '{sub.name}')"
        self._count_discrete_change()
        self._invalidate(dv.invalidates, cause)
        if dv.auto_update_entry is not None:
            # An explicit change always makes the update value stale, whatever its
            # updateDependsOn stage (State.txt, allocateAutoUpdateDiscreteVariable).
            self._mark_not_realized(sub, sub.cache[dv.auto_update_entry], cause)
        dv.last_update_time = self._t
        if dv.dependents:
            self._invalidate_dependents(dv.dependents, cause)

    def getDiscreteVarAllocationStage(self, subsys: int, index: int) -> Stage:
        return self._dv(subsys, index).allocation_stage

    def getDiscreteVarInvalidatesStage(self, subsys: int, index: int) -> Stage:
        return self._dv(subsys, index).invalidates

    def getDiscreteVarLastUpdateTime(self, subsys: int, index: int) -> float:
        """Time at which the variable was last written (its allocation time if never)."""
        return self._dv(subsys, index).last_update_time

    def getDiscreteVarUpdateIndex(self, subsys: int, index: int) -> int | None:
        """Cache entry index of an auto-update variable's update value, else None."""
        return self._dv(subsys, index).auto_update_entry

    def _auto_entry(self, subsys: int, index: int) -> CacheEntryInfo:
        dv = self._dv(subsys, index)
        if dv.auto_update_entry is None:
            raise InvalidArgumentError(f"{dv.name} is not an auto-update discrete variable")
        return self._sub(subsys).cache[dv.auto_update_entry]

    def getDiscreteVarUpdateValue(self, subsys: int, index: int) -> Any:
        """The value an auto-update variable will take at the next update (must be realized)."""
        ce = self._auto_entry(subsys, index)
        return self.getCacheEntry(subsys, ce.index)

    def updDiscreteVarUpdateValue(self, subsys: int, index: int) -> Any:
        ce = self._auto_entry(subsys, index)
        return ce.value

    def isDiscreteVarUpdateValueRealized(self, subsys: int, index: int) -> bool:
        ce = self._auto_entry(subsys, index)
        return self.isCacheValueRealized(subsys, ce.index)

    def markDiscreteVarUpdateValueRealized(self, subsys: int, index: int) -> None:
        ce = self._auto_entry(subsys, index)
        self.markCacheValueRealized(subsys, ce.index)

    def _count_discrete_change(self) -> None:
        """Count a change of a discrete variable's value: the discrete value version and
        the books' INSTANCE_SERIAL."""
        self._discrete_serial += 1
        self._bv[INSTANCE_SERIAL] += 1

    def autoUpdateDiscreteVariables(self) -> None:
        """Swap every auto-update variable with its update value where that value is
        realized; the cache entry is then marked not realized. No stage is invalidated."""
        for sub in self._subs:
            for dv in sub.discrete:
                if dv.auto_update_entry is None:
                    continue
                ce = sub.cache[dv.auto_update_entry]
                if self._entry_realized(sub, ce):
                    self._count_discrete_change()
                    dv.value, ce.value = ce.value, dv.value
                    dv.last_update_time = self._t
                    self._mark_not_realized(sub, ce, "autoUpdateDiscreteVariables")

    def _hasAutoUpdateVariables(self) -> bool:
        """True if any subsystem has an auto-update discrete variable (one that
        autoUpdateDiscreteVariables may swap) realized at every step (not only on request)."""
        return any(
            dv.auto_update_entry is not None and not dv.updated_on_request
            for sub in self._subs
            for dv in sub.discrete
        )

    def hasDiscreteVar(self, key: DiscreteVarKey) -> bool:
        return 0 <= key.subsystem < len(self._subs) and 0 <= key.index < len(
            self._subs[key.subsystem].discrete
        )

    def getDiscreteVarInfo(self, key: DiscreteVarKey) -> DiscreteVarInfo:
        return self._dv(key.subsystem, key.index)

    # ----------------------------------------------------------- cache entries
    def allocateCacheEntry(self, subsys: int, *args, name: str | None = None) -> int:
        """``(subsys, stage, value)`` or ``(subsys, earliest, latest, value)``.

        The entry may be computed from ``earliest`` on and is presumed computed once
        the subsystem reaches ``latest``. Must be called before Instance stage.
        """
        if len(args) == 2:
            earliest = latest = stage_value(args[0], "allocateCacheEntry")
            value = args[1]
        elif len(args) == 3:
            earliest = stage_value(args[0], "allocateCacheEntry", "earliest")
            latest = stage_value(args[1], "allocateCacheEntry", "latest")
            value = args[2]
        else:
            raise InvalidArgumentError(
                "allocateCacheEntry takes (subsys, stage, value) or "
                "(subsys, earliest, latest, value)"
            )
        return self._new_cache_entry(subsys, earliest, latest, value, name)

    def allocateLazyCacheEntry(
        self, subsys: int, earliest: Stage, value: Any, name: str | None = None
    ) -> int:
        """A cache entry computed only on request (valid only after markCacheValueRealized)."""
        earliest = stage_value(earliest, "allocateLazyCacheEntry", "earliest")
        return self._new_cache_entry(subsys, earliest, Stage.Infinity, value, name)

    def allocateCacheEntryWithPrerequisites(
        self,
        subsys: int,
        earliest: Stage,
        latest: Stage,
        q: bool,
        u: bool,
        z: bool,
        discreteVars,
        cacheEntries,
        value: Any,
        name: str | None = None,
    ) -> int:
        """(Advanced) A cache entry that a change of q, u, z, the named discrete variables
        or the named cache entries also makes stale."""
        earliest = stage_value(earliest, "allocateCacheEntryWithPrerequisites", "earliest")
        latest = stage_value(latest, "allocateCacheEntryWithPrerequisites", "latest")
        self._sub(subsys)
        dkeys = tuple(
            DiscreteVarKey(*k) if not isinstance(k, DiscreteVarKey) else k for k in discreteVars
        )
        ckeys = tuple(
            CacheEntryKey(*k) if not isinstance(k, CacheEntryKey) else k for k in cacheEntries
        )
        # Check every prerequisite before allocating, so a bad one changes nothing.
        for dk in dkeys:
            self._dv(dk.subsystem, dk.index)
        for ck in ckeys:
            upstream = self._ce(ck.subsystem, ck.index)
            if upstream.earliest > earliest:
                raise StageOutOfRangeError(
                    f"prerequisite cache entry '{upstream.name}' has earliest stage "
                    f"{upstream.earliest.getName()}, later than this entry's "
                    f"{earliest.getName()}"
                )
        index = self._new_cache_entry(subsys, earliest, latest, value, name)
        key = CacheEntryKey(int(subsys), index)
        ce = self._sub(subsys).cache[index]
        ce.depends_on_q, ce.depends_on_u, ce.depends_on_z = bool(q), bool(u), bool(z)
        pools = ((q, self._q_dependents), (u, self._u_dependents), (z, self._z_dependents))
        for flag, deps in pools:
            if flag:
                deps.append(key)
        for dk in dkeys:
            self._dv(dk.subsystem, dk.index).dependents.append(key)
        for ck in ckeys:
            self._ce(ck.subsystem, ck.index).dependents.append(key)
        ce.discrete_prerequisites = dkeys
        ce.cache_prerequisites = ckeys
        if (
            earliest < Stage.Time
            and Stage.Time <= latest < Stage.Infinity
            and (q or u or z or dkeys or ckeys)
        ):
            self._sub(subsys).time_kept.append(index)
        self._forget_dep_plans()
        return index

    def _new_cache_entry(
        self, subsys: int, earliest: Stage, latest: Stage, value: Any, name: str | None
    ) -> int:
        if latest < earliest:
            raise StageOutOfRangeError(
                f"cache entry: latest stage {latest.getName()} is before earliest "
                f"{earliest.getName()}"
            )
        sub = self._sub(subsys)
        alloc = self._allocation_stage(sub, Stage.Instance, "allocateCacheEntry")
        index = len(sub.cache)
        self._forget_dep_plans()
        sub.cache.append(
            CacheEntryInfo(
                subsystem=int(subsys),
                index=index,
                name=name or f"cache entry {index}",
                earliest=earliest,
                latest=latest,
                allocation_stage=alloc,
                value=value,
            )
        )
        return index

    def _ce(self, subsys: int, index: int) -> CacheEntryInfo:
        sub = self._sub(subsys)
        if type(index) is int and 0 <= index < len(sub.cache):  # the common case
            return sub.cache[index]
        i = index_value(index, "the cache entry index")
        if not 0 <= i < len(sub.cache):
            raise IndexOutOfRangeError(
                f"subsystem '{sub.name}' has no cache entry {i} (it has {len(sub.cache)})"
            )
        return sub.cache[i]

    @staticmethod
    def _entry_realized(sub: PerSubsystemInfo, ce: CacheEntryInfo) -> bool:
        st = sub.stage
        if st >= ce.latest:
            mark = ce.not_realized_mark
            return mark is None or mark != sub.stage_version(ce.latest)
        if st < ce.earliest:
            return False
        return ce.realized_version == sub.stage_version(ce.earliest)

    def isCacheValueRealized(self, subsys: int, index: int) -> bool:
        """True if the entry's value is current (its latest stage reached, or explicitly
        marked since its earliest stage and prerequisites last changed)."""
        return self._entry_realized(self._sub(subsys), self._ce(subsys, index))

    def getCacheEntry(self, subsys: int, index: int) -> Any:
        """The entry's value, which must be realized (arrays come back read-only)."""
        sub = self._sub(subsys)
        ce = self._ce(subsys, index)
        if not self._entry_realized(sub, ce):
            raise CacheEntryOutOfDateError(self._stale_message(sub, ce))
        value = ce.value
        return _readonly(value) if isinstance(value, np.ndarray) else value

    def _stale_message(self, sub: PerSubsystemInfo, ce: CacheEntryInfo) -> str:
        head = f"cache entry '{ce.name}' (#{ce.index}) of subsystem '{sub.name}' is not valid: "
        now = f"the subsystem is at {sub.stage.getName()} stage"
        if ce.isLazy():
            body = (
                f"it is computed on request (lazy, from {ce.earliest.getName()} stage on) and "
                f"has not been computed since it last went stale; {now}"
            )
            if sub.stage < ce.earliest:
                body += f", and it cannot be computed before {ce.earliest.getName()} stage"
        elif sub.stage >= ce.latest:
            body = (
                f"it was explicitly marked not realized; {now}, so it is valid again only "
                f"when it is recomputed and marked realized, or when {ce.latest.getName()} "
                "stage is realized again"
            )
        else:
            body = (
                f"it is computed at {ce.latest.getName()} stage (and may be computed from "
                f"{ce.earliest.getName()} on), but {now}; call system.realize(state, "
                f"Stage.{ce.latest.getName()})"
            )
        cause = ce.last_invalidated_by or cause_text(self._bv[CAUSES + max(ce.earliest, _MODEL)])
        if cause:
            body += f". It was last made stale by {cause}"
        return head + body

    def updCacheEntry(self, subsys: int, index: int) -> Any:
        """The entry's value for writing; neither invalidates nor validates it."""
        return self._ce(subsys, index).value

    def setCacheEntryValue(self, subsys: int, index: int, value: Any) -> None:
        """Replace the entry's value object (Python convenience for immutable values)."""
        self._ce(subsys, index).value = value

    def markCacheValueRealized(self, subsys: int, index: int) -> None:
        """Mark the entry current; the subsystem must be at its earliest stage or later."""
        sub = self._sub(subsys)
        ce = self._ce(subsys, index)
        if sub.stage < ce.earliest:
            raise StageTooLowError(
                f"markCacheValueRealized: cache entry '{ce.name}' of subsystem '{sub.name}' "
                f"cannot be valid before {ce.earliest.getName()} stage; the subsystem is at "
                f"{sub.stage.getName()}",
                needed=ce.earliest,
                current=sub.stage,
            )
        ce.realized_version = sub.stage_version(ce.earliest)
        ce.not_realized_mark = None
        ce.last_invalidated_by = ""
        self._bv[ENTRY_EDITS] += 1
        if ce.dependents:
            self._invalidate_dependents(ce.dependents, f"a new value of '{ce.name}'")

    def markCacheValueNotRealized(self, subsys: int, index: int) -> None:
        """(Advanced) Mark the entry stale; isCacheValueRealized is false afterwards."""
        sub = self._sub(subsys)
        self._mark_not_realized(sub, self._ce(subsys, index), "markCacheValueNotRealized")

    def _mark_not_realized(self, sub: PerSubsystemInfo, ce: CacheEntryInfo, cause: str) -> None:
        ce.realized_version = None
        ce.not_realized_mark = (
            sub.stage_version(ce.latest)
            if ce.latest != Stage.Infinity and sub.stage >= ce.latest
            else None
        )
        ce.last_invalidated_by = cause
        self._bv[ENTRY_EDITS] += 1
        if ce.dependents:
            self._invalidate_dependents(ce.dependents, f"'{ce.name}' going stale")

    def _invalidate_dependents(self, keys: list[CacheEntryKey], cause: str) -> None:
        """A prerequisite changed: explicitly marked values of ``keys`` go stale, and so,
        transitively, do the entries that name those as prerequisites. Each entry records
        what made it stale: ``cause`` for ``keys`` themselves, "'<name>' going stale" for an
        entry reached through the named one (the first way the walk reaches it).

        The walk is skipped when it would change nothing: it was last made with the same
        ``cause`` and no cache entry's validity or cause has changed since
        (the books' ``ENTRY_EDITS`` counts those changes)."""
        plan = self._dep_plans.get(id(keys))
        if plan is None or plan[0] is not keys or plan[1] != len(keys):
            plan = [keys, len(keys), self._dependents_walk(keys), -1, ""]
            self._dep_plans[id(keys)] = plan
        elif plan[3] == self._bv[ENTRY_EDITS] and plan[4] == cause:
            return  # every entry of the walk is stale, with this cause
        for ce, why in plan[2]:
            ce.realized_version = None
            ce.last_invalidated_by = cause if why is None else why
        self._bv[ENTRY_EDITS] = plan[3] = self._bv[ENTRY_EDITS] + 1
        plan[4] = cause

    def _dependents_walk(self, keys: list[CacheEntryKey]) -> list:
        """The entries _invalidate_dependents reaches from ``keys``, in order, each with the
        entry it was reached through as "'<name>' going stale" (None: one of ``keys``).
        Depends only on the dependency graph, so it is kept (in ``_dep_plans``) until an
        allocation or a forget changes the graph."""
        subs = self._subs
        pending = []  # (entry, why), last in first out
        for key in keys:
            cache = subs[key.subsystem].cache
            if key.index < len(cache):
                pending.append((cache[key.index], None))
        walk = []
        seen: set[int] = set()
        while pending:
            ce, why = pending.pop()
            if id(ce) in seen:
                continue
            seen.add(id(ce))
            walk.append((ce, why))
            deps = ce.dependents
            if deps:
                nxt = f"'{ce.name}' going stale"
                for k in deps:
                    cache = subs[k.subsystem].cache
                    if k.index < len(cache):
                        pending.append((cache[k.index], nxt))
        return walk

    def _prune_dependents(self) -> None:
        """Drop dependents-list entries naming cache entries that have been forgotten.
        Forgetting always removes a suffix of a subsystem's entries, so a key whose
        index is still in range names the same entry it did when it was registered."""

        def alive(key: CacheEntryKey) -> bool:
            return key.index < len(self._subs[key.subsystem].cache)

        for deps in (self._q_dependents, self._u_dependents, self._z_dependents):
            deps[:] = [k for k in deps if alive(k)]
        for sub in self._subs:
            for item in (*sub.discrete, *sub.cache):
                item.dependents[:] = [k for k in item.dependents if alive(k)]

    def getCacheEntryAllocationStage(self, subsys: int, index: int) -> Stage:
        return self._ce(subsys, index).allocation_stage

    def hasCacheEntry(self, key: CacheEntryKey) -> bool:
        return 0 <= key.subsystem < len(self._subs) and 0 <= key.index < len(
            self._subs[key.subsystem].cache
        )

    def getCacheEntryInfo(self, key: CacheEntryKey) -> CacheEntryInfo:
        """(Advanced) Bookkeeping of one cache entry (no validity check)."""
        return self._ce(key.subsystem, key.index)

    updCacheEntryInfo = getCacheEntryInfo

    def getQDependents(self) -> list[CacheEntryKey]:
        return list(self._q_dependents)

    def getUDependents(self) -> list[CacheEntryKey]:
        return list(self._u_dependents)

    def getZDependents(self) -> list[CacheEntryKey]:
        return list(self._z_dependents)

    # --------------------------------------------------------------- dumping
    def toString(self) -> str:
        """A readable dump of the state variables (not for serialization)."""
        lines = [
            f"State: system stage {self._system_stage.getName()}, "
            f"{len(self._subs)} subsystem(s), topology version {self._topology_version}"
        ]
        if self._system_stage >= Stage.Topology:
            lines.append(f"  t = {self._t!r}")
        if self._system_stage >= Stage.Model:
            lines.append(f"  q = {np.array2string(self._views['q'], precision=6)}")
            lines.append(f"  u = {np.array2string(self._views['u'], precision=6)}")
            lines.append(f"  z = {np.array2string(self._views['z'], precision=6)}")
        for i, sub in enumerate(self._subs):
            lines.append(
                f"  subsystem {i} '{sub.name}' (version {sub.version!r}) at "
                f"{sub.stage.getName()}: nq={sub.nq} nu={sub.nu} nz={sub.nz}"
            )
            for dv in sub.discrete:
                lines.append(
                    f"    discrete[{dv.index}] {dv.name} (invalidates "
                    f"{dv.invalidates.getName()}) = {dv.value!r}"
                )
        return "\n".join(lines)

    def cacheToString(self) -> str:
        """A readable dump of the realization cache (not for serialization)."""
        lines = [f"Cache: system stage {self._system_stage.getName()}"]
        for i, sub in enumerate(self._subs):
            lines.append(f"  subsystem {i} '{sub.name}' at {sub.stage.getName()}")
            for ce in sub.cache:
                span = "lazy" if ce.isLazy() else ce.latest.getName()
                ok = "valid" if self._entry_realized(sub, ce) else "stale"
                preview = repr(ce.value)
                if len(preview) > 60:
                    preview = preview[:57] + "..."
                lines.append(
                    f"    [{ce.index}] {ce.name} ({ce.earliest.getName()}..{span}) {ok}: {preview}"
                )
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<State stage={self._system_stage.getName()} subsystems={len(self._subs)}>"


class _TimeRef:
    """Writable handle to a State's time, returned by ``State.updTime``."""

    __slots__ = ("_state",)

    def __init__(self, state: State) -> None:
        self._state = state

    @property
    def value(self) -> float:
        return self._state._t

    @value.setter
    def value(self, t: float) -> None:
        t = float(t)
        if not np.isfinite(t):
            raise InvalidArgumentError(f"time must be finite, got {t}")
        self._state._t = t

    def __float__(self) -> float:
        return self._state._t
