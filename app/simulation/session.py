"""SimulationSession: the live simulation, stepped by a worker thread (Qt-free).

The session owns the live State of a built model (``BuiltModel``: ``system``, ``matter``,
``state`` realized to Model with the initial q/u, ``mobilized_bodies`` by name,
``body_name_of_index``; optionally ``measures`` by name). One worker thread does every engine
call on it:

* Stepping: the worker holds ``state.getStateLock()`` around each bounded batch of steps
  (a TimeStepper with the chosen integrator), then builds an immutable ``Snapshot`` under the
  lock, releases the lock, and only then publishes (``on_publish``). Plot samples go to a
  ring buffer (``samples``) at every reporting interval, and the State's variables to a
  bounded ``history`` (``show_recorded(t)`` makes a recorded State the live one again).
* Commands (play, pause, step, reset, edits, realize-one-stage, integrator or pacing changes,
  a rebuilt model) are queued by any thread and applied by the worker between batches.
* A failed step, initialization or assembly pauses the run; the State stays at the last good
  step, and the snapshot's ``error`` says why.

Pacing (like Simbody's Visualizer modes): ``REAL_TIME`` keeps simulated time at ``speed`` times
wall-clock time; ``FAST`` runs as fast as possible and publishes after every batch; ``SAMPLED``
publishes every reporting interval as a frame and waits until the reader has taken it (every
frame is seen; the run goes as fast as the reader draws).

Readers call ``latest()`` (a short mutex, never the State lock) and ``samples.since(n)``.
"""

from __future__ import annotations

import copy
import enum
import math
import queue
import threading
import time
import traceback
import weakref
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from app.body_puller import BodyPull, ensure_pull_force
from app.history import History, restore
from app.history.event_log import ASSEMBLED, EventLog, EventMark
from app.history.history import DEFAULT_BUDGET_BYTES
from app.history.state_compare import compare_states
from app.history.state_record import Recorder, RecordError
from app.simulation import body_decorations, collection, model_heap
from app.simulation.column_names import ColumnNames
from app.simulation.integrators import DEFAULT_ACCURACY, DEFAULT_INTEGRATOR, make_integrator
from app.simulation.samples import QuantityNames, SampleBuffer
from app.simulation.snapshot import (
    Cascade,
    ModelInfo,
    Snapshot,
    all_stage_versions,
    body_poses,
    cache_report,
    cascade_between,
    compiled_paths,
    realized_entries,
    stage_info,
)
from app.simulation.state_carry import carry_by_name
from engine.common.exceptions import ComputationInterruptedError, SimTKError
from engine.common.stage import Stage
from engine.common.state import State
from engine.integrators import SuccessfulStepStatus, TimeStepper
from viz.decoration_keys import KeyedGeometry, same_drawing
from viz.system_decorations import dynamic_decorations


class Pacing(enum.Enum):
    REAL_TIME = "real time"
    FAST = "as fast as possible"
    SAMPLED = "sampled"


@dataclass(frozen=True)
class Settings:
    """How the session steps. Times in the model's time unit unless said otherwise."""

    integrator: str = DEFAULT_INTEGRATOR
    accuracy: float = DEFAULT_ACCURACY
    step_size: float | None = None  # fixed-step methods (None: the integrator's default)
    pacing: Pacing = Pacing.REAL_TIME
    speed: float = 1.0  # simulated seconds per wall-clock second (REAL_TIME)
    report_interval: float = 1.0 / 60.0  # simulated time between samples (and SAMPLED frames)
    # Frames are published a little faster than the view's 30 fps target, so that a frame
    # lost to timing (the GUI polls; a late batch) does not pull the view below it.
    frame_interval: float = 1.0 / 45.0  # wall-clock seconds between published frames
    batch_budget: float = 0.016  # wall-clock seconds the worker may hold the lock per batch
    cache_interval: float = 0.1  # wall-clock seconds between cache reports while running


STEP_FAILED = "step failed"
#: Longest the worker waits (s) for the GUI to finish drawing a frame before its next step.
GUI_WAIT_MAX = 0.05
#: After each batch the worker sleeps this fraction of the batch's duration (GUI share).
YIELD_FRACTION = 0.2
#: "As fast as possible": wall-clock seconds per batch (about two display frames; no rest
#: after it, see _after_batch), and the most plot samples per wall-clock
#: second (the sampling interval grows by powers of two of the reporting interval to stay
#: under it; each sample ends a run of compiled steps and realizes the State).
FAST_BATCH_BUDGET = 0.04
FAST_MAX_SAMPLES_PER_SECOND = 60.0
#: "As fast as possible": the integrator takes its own steps (no step is shortened to end at
#: a sample or a batch's end). Its stepTo ends only on a fixed grid of this many reporting
#: intervals, and its steps are at most one reporting interval long (as long as they can be
#: when a run reports every interval), so that the run's steps and States are those of a
#: headless TimeStepper run with that maximum step reporting at that grid, whatever the
#: machine's speed. Each call returns after the internal steps that take about
#: FAST_CALL_BUDGET seconds of the worker's CPU time at the measured cost per step (at most
#: FAST_MAX_STEPS_PER_CALL), so that commands and the view's frames are not kept waiting.
#: (CPU time, not wall-clock time: on a loaded machine a wall-clock budget would cut the
#: calls short, and every call's return costs interpreter time and a hand-over of the GIL.)
FAST_HORIZON_INTERVALS = 16
FAST_CALL_BUDGET = 0.01
FAST_MAX_STEPS_PER_CALL = 256
#: Internal steps per stepTo when the run is paced (real time, sampled): a model that takes
#: ordinary steps reaches its next reporting time well within them; a stiff one returns to
#: the worker's loop this often.
PACED_STEPS_PER_CALL = 500
#: "As fast as possible": the worker waits for a frame being drawn only while its stepping
#: calls get less than this share of a core (their thread CPU time over their wall-clock
#: time, smoothed). A worker that has a core to itself takes nothing from the view by going
#: on, and a wait would only idle that core; on a machine with more runnable threads than
#: cores, the wait lets the software renderer's threads finish the frame.
FAST_OWN_CORE_SHARE = 0.85


REBUILD_FAILED = "The edited model cannot be built"
#: Workers that were still busy when their session was stopped (see ``stop``).
_ABANDONED: list[threading.Thread] = []


def join_abandoned(timeout: float) -> bool:
    """Wait up to ``timeout`` seconds in all for stopped sessions' workers still finishing a
    long call; True if none is left. The process calls it before exiting, so that no worker is
    inside a compiler while the interpreter shuts down."""
    deadline = time.monotonic() + timeout
    while _ABANDONED:
        thread = _ABANDONED[0]
        thread.join(max(0.0, deadline - time.monotonic()))
        if thread.is_alive():
            return False
        _ABANDONED.pop(0)
    return True


#: Largest size of the plot samples' ring buffer (bytes); fewer rows for models with many
#: coordinates.
SAMPLE_BYTES = 128 * 2**20


def _same_geometry(old, new) -> bool:
    """Whether two KeyedGeometry draw the same (equal fingerprints on equal bodies)."""
    return same_drawing(old, new)


#: Worker commands that change no value of the State shown and not the model (a step changes
#: the State, but records its own sample; a step cut short leaves the State as it was): after
#: them the plot sample of a model not run yet stays as it is, with no realization (one of a
#: model with many constraints costs as much as a step).
_KEEPS_START_SAMPLE = frozenset({"play", "pause", "step", "settings", "compare", "realize_to"})


def _coalesce_rebuilds(commands: list[tuple]) -> list[tuple]:
    """Replace the queued ("rebuild", model, kind) commands by one at the place of the last,
    building its model and carrying the kinds of them all (``_cmd_rebuild``)."""
    rebuilds = [i for i, c in enumerate(commands) if c[0] == "rebuild"]
    if not rebuilds:
        return commands
    kinds = frozenset(commands[i][2] for i in rebuilds)
    last = rebuilds[-1]
    out = []
    for i, c in enumerate(commands):
        if i == last:
            out.append(("rebuild", c[1], kinds))
        elif c[0] != "rebuild":
            out.append(c)
    return out


def _body_name(names, b: int) -> str:
    """Name of body ``b`` from a list (index -> name) or a mapping."""
    if isinstance(names, dict):
        return str(names.get(b, f"body{b}"))
    return str(names[b]) if b < len(names) else f"body{b}"


class DivergedError(SimTKError):
    """A plot sample of the running State holds NaN or infinity: the model diverged."""


def _describe(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text if isinstance(exc, SimTKError) else f"{type(exc).__name__}: {text}"


class SimulationSession:
    """See the module docstring. ``start()`` launches the worker; ``stop()`` joins it."""

    def __init__(
        self,
        built,
        settings: Settings | None = None,
        on_publish: Callable[[Snapshot], None] | None = None,
        sample_capacity: int = 20000,
        history_budget: int = DEFAULT_BUDGET_BYTES,
    ) -> None:
        self.settings = settings or Settings()
        self._on_publish = on_publish
        self._queue: queue.Queue = queue.Queue()
        self._snap_lock = threading.Lock()
        self._latest: Snapshot | None = None
        self._consumed = threading.Event()
        self._consumed.set()
        #: set by a pause or stop: cuts the worker's rest after a batch short
        self._cut_rest = threading.Event()
        #: True from ``step()`` until the worker has taken (or dropped) that one step
        self._stepping_once = False
        #: set by the command being applied when it only renamed bodies (no value changed)
        self._names_only = False
        #: set by a pause or stop during a ``step()``: the worker drops the step
        self._step_cut = threading.Event()
        #: the integrator being initialized for a new stepper, while it is
        self._starting = None
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._running = False
        self._serial = 0
        self._model_serial = 0
        self._error = ""
        self._status = "Paused"
        self._cascade = None
        self._timings: tuple = ()
        self._became_valid: tuple = ()
        self._last_cache_time = -math.inf
        self._rate = math.nan
        self._rate_window: list[tuple[float, float]] = []
        self._sample_capacity = sample_capacity
        self._reset_built = None
        self._cost: float | None = None  # wall-clock seconds per simulated second
        self._step_cost: float | None = None  # worker CPU seconds per internal step (FAST)
        #: share of a core the worker's stepping calls got (FAST; see FAST_OWN_CORE_SHARE)
        self._core_share: float | None = None
        #: Readers set this False when nobody shows the cache (saves the worker the copies).
        self.want_cache = True
        #: Cleared by the GUI while it draws a frame, set otherwise. The worker waits for it
        #: (at most GUI_WAIT_MAX) before each step: with software OpenGL the renderer's threads
        #: then get the CPU the worker would take, and the frame is done sooner.
        self.gui_idle = threading.Event()
        self.gui_idle.set()
        #: Wall-clock seconds the worker has waited for frames being drawn, in all.
        self.gui_wait_seconds = 0.0
        #: Recorded States (one per sample); the worker appends, readers take _history_lock.
        self.history = History(history_budget)
        self._recorder = Recorder()
        self._comparison: tuple | None = None
        self._branch_model: tuple[int, object] = (0, None)
        self._history_lock = threading.Lock()
        #: The mouse's pull on a body (see app.body_puller): ``pull_body(request)`` posts.
        self.pull = BodyPull()
        #: Overlay data the readers want with each snapshot (see overlay_data.KINDS).
        self.overlay_kinds: frozenset = frozenset()
        #: When the worker settles the heap of the large model shown (see model_heap):
        #: a perf_counter time, or None; and whether this session froze the heap.
        self._settle_due: float | None = None
        self._heap_frozen = False
        #: (a weak reference to the State the start's plot sample was taken of, its system
        #: stage versions then), or None: see _resample_start
        self._start_sampled: tuple | None = None
        self._install(built, carry=False)

    # -- model --------------------------------------------------------------------------------

    def _install(
        self, built, carry: bool, same_layout: bool = False, keep_history: bool = False
    ) -> None:
        """Adopt ``built`` (worker thread, or before start); carry q/u/t over by body name, or
        (``same_layout``: an edit that kept the State layout, like renaming a body) whole.
        ``keep_history``: the model of a branch switched to (the history, plot samples and
        marks stay as they are, nothing is recorded)."""
        old_built = getattr(self, "built", None)
        old_state = getattr(self, "_state", None)
        if not hasattr(self, "events"):
            #: Events handled and reported, and assemblies, as timeline marks.
            self.events = EventLog()
        self.events.watch(built.system)
        ensure_pull_force(built)
        self.pull.forget()
        state = State(built.state)
        system = built.system
        system.realizeModel(state)
        if carry and old_built is not None and old_state is not None:
            if not (same_layout and self._copy_layout(old_state, state)):
                carry_by_name(old_built, old_state, built, state)
        if keep_history:
            kept, branch = True, None
        else:
            kept, branch = self._keep_or_clear_history(carry and same_layout, state)
        old_samples = getattr(self, "samples", None)
        self.built = built
        self.system = system
        self.matter = built.matter
        self._state = state
        self._stepper: TimeStepper | None = None
        self._cost = None
        self._step_cost = None
        self._model_serial += 1
        self._left_marks: tuple = ((), ())
        with self._history_lock:
            self.history.model = built
        self._columns, self._q_labels, self._u_labels = self._column_names(built, state)
        if kept and old_samples is not None and old_samples.columns == self._columns:
            # The plots keep the past; the future before the edit stays with its branch.
            if not keep_history:
                rows = old_samples.take_from(state.getTime(), inclusive=False)
                if branch is not None:
                    branch.samples = rows
                self._last_sample_time = state.getTime()
            self.samples = old_samples
        elif old_samples is not None and old_samples.columns == self._columns:
            self.samples = old_samples.empty_like()  # (its quantity names made once)
            self._last_sample_time = -math.inf
        else:
            # at most SAMPLE_BYTES of samples: a 20,000-body model has 200,000 columns
            rows = SAMPLE_BYTES // (8 * len(self._columns))
            quantities = QuantityNames(
                self._columns[1:],
                None if old_samples is None else old_samples.quantities,
                self._names.kept,  # (the lower-case names of those kept are kept too)
            )
            self.samples = SampleBuffer(
                self._columns, max(2, min(self._sample_capacity, rows)), quantities
            )
            self._last_sample_time = -math.inf
        self.model_info = ModelInfo.of(
            built, self._q_index, self._q_labels, self.samples, self._names
        )
        self._realize_for_display(state)
        self._redraw(state)
        self._has_dynamic = True
        self._has_dynamic = bool(self._dynamic_geometry(state))
        if not keep_history:
            self._record_start(state)
        if carry and old_built is not None and model_heap.is_large(old_built.matter.getNumBodies()):
            model_heap.expect_garbage()  # (the model an edit replaced)
        self._plan_heap_settle(model_heap.SETTLE_AFTER if carry else model_heap.SETTLE_AFTER_OPEN)

    def _plan_heap_settle(self, delay: float) -> None:
        """A large model just adopted has its heap settled ``delay`` seconds from now, once
        shown (``model_heap``); a small one that replaces a large one hands the frozen heap
        back to the collector."""
        if model_heap.is_large(self.matter.getNumBodies()):
            self._settle_due = time.perf_counter() + delay
            self._heap_frozen = True  # (its open freezes what it made: model_heap.freeze_new)
        elif self._heap_frozen:
            self._settle_due = None
            self._heap_frozen = False
            model_heap.release()

    def _settle_heap_if_due(self) -> None:
        """Settle the heap (``model_heap.settle``) once the large model adopted last has
        been published SETTLE_AFTER seconds ago and taken by the reader, with no command
        waiting and the GUI quiet (``model_heap.quiet``) (worker thread)."""
        due = self._settle_due
        if due is None or time.perf_counter() < due:
            return
        if not self._consumed.is_set() or not self._queue.empty() or not model_heap.quiet():
            return
        self._heap_frozen = model_heap.settle(lambda: not self._stopping) > 0
        if self._settle_due == due:  # (not planned again meanwhile)
            self._settle_due = None

    def _keep_or_clear_history(self, keep: bool, state: State, same_system: bool = False):
        """An edit that keeps the State's layout (``keep``) forks the history at the State's
        time: the recorded past stays, the recorded future becomes a branch. Any other new
        model starts a new history. Returns (history kept, the branch made or None).
        ``same_system``: the System was edited in place, so its records fit ``state``."""
        t = state.getTime()
        branch = None
        with self._history_lock:
            keep = keep and len(self.history) > 0
            if keep and not same_system:
                try:
                    restore(self.history[-1], State(state))  # the layout is the same
                except RecordError:
                    keep = False
            if keep:
                self.history.last_kept = None
                self.history.fork_at(t, "before the edit")
                branch = self.history.last_kept
                failures = [m for m in self._marks if m[0] > t]
                self._marks = [m for m in self._marks if m[0] <= t]
            else:
                self.history.clear()
                self._marks: list[tuple[float, str]] = []
        if keep:
            events = self.events.take_after(t)
            if branch is not None:  # the marks of the future before the edit go with it
                branch.events, branch.failures = events, failures
        else:
            self.events.clear()
        #: Whether the latest model change kept the recorded history (readers keep bookmarks).
        self.history_kept = keep
        return keep, branch

    @staticmethod
    def _copy_layout(old_state: State, state: State) -> bool:
        """Copy t, q and u whole if both States have the same q and u sizes."""
        if old_state.getNQ() != state.getNQ() or old_state.getNU() != state.getNU():
            return False
        state.setTime(old_state.getTime())
        state.setQ(old_state.getQ())
        state.setU(old_state.getU())
        return True

    def _column_names(self, built, state: State):
        """The sample columns and q/u labels of ``built`` in ``state`` (``column_names``:
        those of the leading bodies the model shown before has too are kept)."""
        names = ColumnNames.of(built, state, getattr(self, "_names", None))
        self._names = names
        self._q_index: dict[tuple[str, int], int] = names.q_index
        return names.columns, names.q_labels, names.u_labels

    @staticmethod
    def _measures(built) -> dict:
        return dict(getattr(built, "measures", None) or {})

    def _realize_for_display(self, state: State) -> None:
        try:
            self.system.realize(state, Stage.Acceleration)
        except SimTKError as exc:
            self._fail(exc, "realizing the model failed")

    def _collect_geometry(self, state: State) -> KeyedGeometry:
        """The body-fixed (Topology-stage) decorations to draw, fingerprinted here, off the
        GUI thread, so the view redraws only what an edit changed; those of the bodies the
        edit left alone are the ones collected before (``body_decorations``)."""
        try:
            record = body_decorations.collect(
                self.built, state, self._body_names(), getattr(self, "_decorations", None)
            )
        except SimTKError:
            self._decorations = None
            return KeyedGeometry()
        self._decorations = record
        return record.geometry

    def _redraw(self, state: State) -> None:
        """Collect the decorations of the model now installed: the very tuple drawn before
        if they draw the same (an edit that leaves the drawing alone is not redrawn, see
        SimulationPanel.show_snapshot), else the new ones with the view's pairing of old and
        new decorations made here, not on the GUI thread."""
        old_geometry = getattr(self, "_geometry", None)
        self._geometry = self._collect_geometry(state)
        if _same_geometry(old_geometry, self._geometry):
            self._geometry = old_geometry
            if self._decorations is not None:
                self._decorations = replace(self._decorations, geometry=old_geometry)
        elif self._decorations is not None:
            body_decorations.pair(self._decorations, old_geometry)
        else:
            self._geometry.pair_with(old_geometry)

    def _body_names(self):
        info = getattr(self, "model_info", None)
        return info.body_names if info is not None else None

    def _dynamic_geometry(self, state: State) -> tuple:
        """Decorations of the later stages (rubber bands, force lines), rebuilt per frame."""
        if not self._has_dynamic or state.getSystemStage() < Stage.Position:
            return ()
        try:
            return tuple(dynamic_decorations(self.system, state))
        except SimTKError:
            return ()

    # -- thread control -------------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is not None:
            raise RuntimeError("the simulation worker is already started")
        self._publish(with_cache=True)
        self._thread = threading.Thread(target=self._run, name="mbstudio-simulation", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> bool:
        """Stop the worker and wait for it at most ``timeout`` seconds (idempotent). True if
        it has ended; False if it is still busy in one long call (a first compile of the
        stepping kernels, a large model's rebuild): it ends by itself when that returns,
        touching nothing but this session (see ``join_abandoned``)."""
        self._stopping = True
        self._interrupt_step()
        self._queue.put(("_wake",))
        self._consumed.set()
        self._settle_due = None
        thread = self._thread
        if thread is not None and thread.is_alive() and thread is not threading.current_thread():
            thread.join(timeout)
            if thread.is_alive():
                _ABANDONED.append(thread)  # (it releases the heap when it ends)
                return False
        self._release_heap()
        return True

    def break_model_cycles(self) -> list:
        """A stopped session (its worker ended) whose models nobody uses any more: break the
        reference cycles of every System it holds (the model shown, the one Reset goes back
        to, the history's branches'), so that they are freed by reference counting once the
        session is dropped (``model_release``). Returns weak references to those Systems
        (all dead once they are freed); nothing (an empty list) while the worker runs."""
        from app.simulation import model_release

        if self._thread is not None and self._thread.is_alive():
            return []
        with self._history_lock:
            builts = [self.built, self._reset_built, self.history.model]
            builts += [branch.model for branch in self.history.branches]
        self._stepper = None
        return model_release.break_cycles(getattr(b, "system", None) for b in builts)

    def _release_heap(self) -> None:
        """A stopped session's model is collected as any garbage: nothing stays frozen."""
        if self._heap_frozen:
            self._heap_frozen = False
            model_heap.release()

    @property
    def is_alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def running(self) -> bool:
        return self._running

    # -- commands (any thread) ------------------------------------------------------------------

    def submit(self, name: str, *args) -> None:
        self._queue.put((name, *args))

    def play(self) -> None:
        self.submit("play")

    def pause(self) -> None:
        self.submit("pause")
        self._interrupt_step()

    def _interrupt_step(self) -> None:
        """Cut the step in progress short (a model with thousands of constraint equations
        takes seconds per step): the integrator drops it within milliseconds, leaving the
        State at the last completed step (``interruptStep``), and the worker applies the
        command without resting after that batch."""
        self._cut_rest.set()
        stepping_once = self._stepping_once
        if stepping_once:
            self._step_cut.set()
        stepper = self._stepper
        integ = stepper.getIntegrator() if stepper is not None else self._starting
        if integ is not None and (self._running or stepping_once):
            integ.interruptStep()

    def step(self) -> None:
        """Advance one reporting interval (worker); ``pause`` or ``stop`` meanwhile drops
        it, leaving the State as it was before."""
        self._step_cut.clear()
        self._stepping_once = True
        self.submit("step")

    @property
    def stepping(self) -> bool:
        """Whether a ``step()`` is asked for or under way (any thread)."""
        return self._stepping_once

    def reset(self) -> None:
        self.submit("reset")

    def set_q(self, body: str, which: int, value: float) -> None:
        self.submit("set_q", body, int(which), float(value))

    def set_qs(self, body: str, first: int, values) -> None:
        """Set ``body``'s q[first:first+len(values)] at once (a whole unit quaternion)."""
        self.submit("set_qs", body, int(first), tuple(float(v) for v in values))

    def set_u(self, body: str, which: int, value: float) -> None:
        self.submit("set_u", body, int(which), float(value))

    def compare_recorded(self, t_a: float, t_b: float) -> None:
        """Compare the recorded States nearest ``t_a`` and ``t_b`` in full (worker); the
        result is read with ``comparison()``."""
        self.submit("compare", t_a, t_b)

    def comparison(self) -> tuple | None:
        """(serial, t_a, t_b, rows, X_GB at a, X_GB at b) of the latest comparison, or None
        (any thread); a pose stack is None if that State cannot be realized."""
        with self._snap_lock:
            return self._comparison

    def set_history_budget(self, nbytes: int) -> None:
        """Memory the history may hold, in bytes (oldest branches, then records, go first)."""
        if nbytes <= 0:
            raise ValueError(f"the history's memory budget must be positive, got {nbytes}")
        with self._history_lock:
            self.history.budget_bytes = int(nbytes)

    def branches(self) -> list[tuple[str, float, float]]:
        """(name, fork time, end time) of each branch the history keeps (any thread)."""
        with self._history_lock:
            return [
                (f"{b.name}, {b.note}" if b.note else b.name, b.fork_time, b.end_time)
                for b in self.history.branches
            ]

    def branch_model(self) -> tuple[int, object]:
        """(number of switches to a branch run with another model, that model's document
        data or None): the editor shows the data of the branch switched to (any thread)."""
        with self._snap_lock:
            return self._branch_model

    def current_line(self) -> str:
        """Name of the line of history being shown and extended (any thread)."""
        with self._history_lock:
            return self.history.current_name

    def switch_branch(self, index: int) -> None:
        """Bring branch ``index`` back as the current future and show its last State."""
        self.submit("switch_branch", int(index))

    def switch_to_branch(self, switch) -> None:
        """Bring back ``switch.branch`` (one of ``history_branches()``) as ``switch_branch``
        does; ``switch.branch`` then becomes the branch the replaced future is kept as (None
        if it had no States), so the same request switches back. A branch no longer held
        (dropped for the memory budget, or by a reset) is not switched to: ``switch.model``
        (anything ``rebuild`` takes, or None) is simulated from the State shown instead, as
        a parameter edit would be."""
        self.submit("switch_to_branch", switch)

    def load_history(
        self, records: list, branches=(), samples=None, events=(), line_name: str = "Main line"
    ) -> None:
        """Replace the history with ``records`` (of this model, e.g. from a recording file)
        and the futures left behind ``branches`` (history.Branch), and show the first record.
        ``samples``: (column names, rows) of the plot samples of the records, if known (else
        they are computed from the records); ``events``: their event marks; ``line_name``:
        the name of the records' line."""
        self.submit("load_history", list(records), list(branches), samples, list(events), line_name)

    def history_branches(self) -> list:
        """A copy of the list of branches (history.Branch) the history keeps (any thread)."""
        with self._history_lock:
            return list(self.history.branches)

    def assemble(self) -> None:
        """Re-assemble the live State: satisfy every constraint, moving the bodies least."""
        self.submit("assemble")

    def show_recorded(self, t: float) -> None:
        """Pause and make the recorded State nearest time ``t`` the live State."""
        self.submit("show_recorded", t)

    def pull_body(self, request) -> None:
        """Pull (running) or drag (paused) a body as ``request`` (a PullRequest) says."""
        self.pull.post(request)
        self.submit("pull")

    def realize_next_stage(self) -> None:
        self.submit("realize_to", None)

    def realize_to(self, stage: Stage) -> None:
        self.submit("realize_to", Stage(stage))

    def set_settings(self, **changes) -> None:
        self.submit("settings", changes)

    def replace_model(self, built, carry: bool = True, same_layout: bool = False) -> None:
        """Simulate ``built`` from now on, carrying the state over (see ``_install``)."""
        self.submit("replace_model", built, carry, same_layout)

    def set_initial_state(self, built) -> None:
        """``built`` differs only in its initial q/u (see _cmd_initial_state)."""
        self.submit("initial_state", built)

    def rebuild(self, model, kind: str = "topology") -> None:
        """Build ``model`` (a ModelDocument's content: anything ``app.document.build`` takes)
        in the worker and simulate it from then on, as an edit of ``kind`` (a document
        Change kind) asks: "initial_state" as ``set_initial_state``, "parameters" and
        "hints" keeping the State layout, "topology" carrying q/u over by body name. Of
        several rebuilds queued before the worker gets to them only the last is built (it
        holds every earlier edit). A model that cannot be built keeps the current one; the
        snapshot's ``error`` says why."""
        self.submit("rebuild", model, kind)

    def request_cache_report(self) -> None:
        self.submit("_wake")

    # -- reading (any thread) -------------------------------------------------------------------

    def latest(self) -> Snapshot | None:
        """The most recent snapshot (marks it taken, which SAMPLED pacing waits for)."""
        with self._snap_lock:
            snap = self._latest
            self._consumed.set()
        return snap

    @property
    def q_labels(self) -> list[str]:
        return list(self._q_labels)

    # -- worker ---------------------------------------------------------------------------------

    def _run(self) -> None:
        next_frame = time.perf_counter()
        while not self._stopping:
            try:
                timeout = None if self._running else 0.25
                cmd = self._queue.get(block=not self._running, timeout=timeout)
            except queue.Empty:
                cmd = None
            commands = [] if cmd is None else [cmd]
            while True:
                try:
                    commands.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            if commands:
                self._apply_commands(commands)
                next_frame = time.perf_counter()
            if self._stopping:
                break
            self._settle_heap_if_due()
            if self._running:
                now = time.perf_counter()
                if now < next_frame:
                    time.sleep(min(next_frame - now, 0.05))
                    continue
                try:
                    self._batch()
                    next_frame = self._after_batch()
                except Exception as exc:  # noqa: BLE001  (the worker must survive anything)
                    self._fail(exc, STEP_FAILED)
                    self._publish(with_cache=True)
        self._running = False
        self._release_heap()

    def _apply_commands(self, commands: list[tuple]) -> None:
        cascade = None
        publish = False
        resample = False
        commands = _coalesce_rebuilds(commands)
        for name, *args in commands:
            if self._stopping:  # a closed window does not wait for the rest
                return
            if name == "_wake":
                publish = publish or not self._running
                continue
            publish = True
            self._names_only = False
            state = self._state
            with state.getStateLock():
                before = all_stage_versions(state)
                try:
                    cause = getattr(self, f"_cmd_{name}")(*args)
                except Exception as exc:  # noqa: BLE001  (the worker must survive any command)
                    self._fail(exc, f"{name.replace('_', ' ')} failed")
                    cause = None
                if cause and self._state is state:
                    new = cascade_between(before, all_stage_versions(state), cause)
                    # An edit of a State an earlier edit already invalidated (the later
                    # set_q commands of a slider drag) bumps nothing: keep what that one did.
                    if new.stages or cascade is None:
                        cascade = new
                elif cause:  # the command replaced the State: it is what the inspector shows
                    cascade = Cascade(cause, {}, new_state=True)
            # (a rename changes no value: the sample of the State shown stays as it is)
            resample = resample or not (self._names_only or name in _KEEPS_START_SAMPLE)
        if cascade is not None and (cascade.stages or cascade.new_state or self._cascade is None):
            self._cascade = cascade
        if resample:
            self._resample_start()
        if publish:  # the cache report only if someone shows it (see want_cache)
            self._publish(with_cache=self.want_cache)

    def _cmd_play(self) -> str | None:
        if not self._running:
            self._error = ""
            self._running = True
            self._status = "Running"
            self._anchor = None
        return None

    def _cmd_pause(self) -> str | None:
        if self._running:
            self._running = False
            self._status = "Paused"
        return None

    def _cmd_step(self) -> str | None:
        self._running = False
        self._error = ""
        before = State(self._state)
        try:
            with self._state.getStateLock():
                ok = self._advance(self._state.getTime() + self.settings.report_interval, math.inf)
        finally:
            self._stepping_once = False
        if self._step_cut.is_set():
            self._step_cut.clear()
            state = self._state
            if state.getTime() != before.getTime() or not np.array_equal(
                state.getY(), before.getY()
            ):
                # steps completed before the cut: the integrator starts again from before
                self._state, self._stepper = before, None
            self._error = ""
            self._status = (
                f"Paused: the step was interrupted; the State is as before it "
                f"(t = {before.getTime():.6g})"
            )
            return None
        self._status = "Paused (stepped)" if ok else self._status
        return None

    def _cmd_reset(self) -> str | None:
        self._running = False
        self._error = ""
        self._cascade = None
        built, self._reset_built = self._reset_built or self.built, None
        self._install(built, carry=False)
        self._status = "Reset to t = 0"
        return None

    def _cmd_switch_branch(self, index: int) -> str | None:
        with self._history_lock:
            self.history.last_kept = None
            branch = self.history.switch(index)
            kept = self.history.last_kept
            last = self.history[-1].t
            n = len(branch.records)
            base = self.history[-n - 1].t if len(self.history) > n else -math.inf
            # The marks after the common past go with the future replaced; the branch's
            # come back.
            failures = [m for m in self._marks if m[0] > base]
            self._marks = [m for m in self._marks if m[0] <= base] + list(branch.failures)
            events = self.events.take_after(base)
            self.events.extend(branch.events)
            if kept is not None:
                kept.events, kept.failures = events, failures
            branch.events, branch.failures = [], []
            # The plotted future is the branch's; the one it replaces goes with its branch.
            rows = self.samples.take_from(branch.fork_time)
            if kept is not None:
                kept.samples = rows
            if branch.samples is not None and branch.samples.shape[1:] == (
                len(self.samples.columns),
            ):
                for row in branch.samples:
                    self.samples.append(row)
            branch.samples = None
        model = branch.model
        if model is not None and model is not self.built:
            # The branch was run with other parameters: simulate its model again.
            model = self._refit_model(model)
            self._install(model, carry=True, same_layout=True, keep_history=True)
            self._cascade = None  # the last edit's cascade was of the other model's State
            with self._snap_lock:
                self._branch_model = (self._branch_model[0] + 1, getattr(model, "data", None))
        self._last_sample_time = last
        return self._cmd_show_recorded(last)

    def _refit_model(self, model):
        """``model`` (a branch's BuiltModel) ready to simulate: a model of the live System
        whose values an in-place edit changed since gets them back (set in place again, or
        a new build when they cannot be)."""
        from app.document import BuildError, build, in_place

        if model.system is not self.system:
            return model
        data = model.data
        edit = in_place.plan(self.built.data, data)
        if edit is not None:
            model.data = self.built.data  # the values the System has now
            try:
                in_place.apply(model, edit, data)
                return model
            except BuildError:
                model.data = data
        return build(data)

    def _cmd_switch_to_branch(self, switch) -> str | None:
        with self._history_lock:
            held = [i for i, b in enumerate(self.history.branches) if b is switch.branch]
        if not held:
            switch.branch = None
            if switch.model is None:
                return None
            return self._cmd_rebuild(switch.model, frozenset({"parameters"}))
        cause = self._cmd_switch_branch(held[0])
        with self._history_lock:
            switch.branch = self.history.last_kept
        return cause

    def _cmd_load_history(
        self,
        records: list,
        branches: list = (),
        samples=None,
        events=(),
        line_name: str = "Main line",
    ) -> str | None:
        if not records:
            return None
        restore(records[0], State(self._state))  # refuses records of another model first
        with self._history_lock:
            self.history.clear()
            for record in records:
                self.history.append(record)
            self.history.adopt_branches(list(branches))
            self.history.current_name = line_name
        self.events.clear()
        self.events.extend(events)
        self._load_samples(records, samples)
        return self._cmd_show_recorded(records[0].t)

    def _load_samples(self, records: list, samples) -> None:
        """The plot samples of loaded ``records``: ``samples`` (columns, rows) if they are
        this model's, else computed from the last records the buffer holds."""
        columns, rows = samples if samples is not None else ([], None)
        self.samples.take_from(-math.inf)
        if rows is None or list(columns) != self.samples.columns:
            rows = []
            state = State(self._state)
            for record in records[-self.samples.capacity :]:
                restore(record, state)
                try:
                    rows.append(self._sample_row(state))
                except SimTKError:
                    continue
        for row in rows:
            self.samples.append(row)
        self._last_sample_time = records[-1].t

    def _cmd_assemble(self) -> str | None:
        from engine import Assembler

        self._running = False
        self._error = ""
        Assembler(self.system).assemble(self._state)
        self.events.add(EventMark(self._state.getTime(), ASSEMBLED, "Assembled"))
        self._stepper = None
        self._status = "Assembled: every constraint is satisfied"
        return "assembly"

    def _cmd_compare(self, t_a: float, t_b: float) -> None:
        with self._history_lock:
            if not len(self.history):
                return None
            a, b = self.history.at(t_a), self.history.at(t_b)
        rows = compare_states(self.built, self.built.state, a, b, self._q_labels, self._u_labels)
        poses = []
        for record in (a, b):  # the body poses of both, for the ghost over the view
            state = State(self.built.state)
            restore(record, state)
            try:
                self.system.realize(state, Stage.Position)
                poses.append(body_poses(self.matter, state))
            except SimTKError:
                poses.append(None)
        with self._snap_lock:
            serial = 1 if self._comparison is None else self._comparison[0] + 1
            self._comparison = (serial, a.t, b.t, rows, *poses)
        return None

    def _cmd_show_recorded(self, t: float) -> str | None:
        with self._history_lock:
            if not len(self.history):
                return None
            record = self.history.at(t)
        self._running = False
        self._error = ""
        restore(record, self._state)
        self._stepper = None  # Play goes on from the recorded State
        self._status = f"Showing the recorded State at t = {record.t:.4g}"
        cause = f"restored the recorded State at t = {record.t:.4g}"
        if self._cascade is not None and self._cascade.cause.startswith("restored the recorded"):
            # The State restored before left the same stages invalid: this restore bumps
            # none, but it is the last edit.
            self._cascade = replace(self._cascade, cause=cause)
        return cause

    def _mobod(self, body: str):
        try:
            return self.built.mobilized_bodies[body]
        except KeyError:
            raise ValueError(f"no body named {body!r}") from None

    def _cmd_set_q(self, body: str, which: int, value: float) -> str:
        mobod = self._mobod(body)
        state = self._state
        q_before = np.array(state.getQ())
        mobod.setOneQ(state, which, value)
        self._stepper = None
        try:
            self._assemble(mobod)
        except SimTKError:
            state.setQ(q_before)  # keep the last good (assembled) pose
            raise
        self._status = f"Posed {body} q{which} = {value:.4g}"
        return f"setQ ({body}.q{which})"

    def _cmd_set_qs(self, body: str, first: int, values: tuple) -> str:
        mobod = self._mobod(body)
        state = self._state
        q = np.array(mobod.getQ(state), dtype=float)
        last = first + len(values) - 1
        if first < 0 or last >= len(q):
            raise ValueError(f"{body} has {len(q)} q; cannot set q{first}..q{last}")
        q_before = np.array(state.getQ())
        q[first : first + len(values)] = values
        mobod.setQ(state, q)
        self._stepper = None
        try:
            self._assemble(mobod)
        except SimTKError:
            state.setQ(q_before)
            raise
        self._status = f"Posed {body}"
        return f"setQ ({body}.q{first}..q{last})"

    def _cmd_set_u(self, body: str, which: int, value: float) -> str:
        mobod = self._mobod(body)
        mobod.setOneU(self._state, which, value)
        self._stepper = None
        return f"setU ({body}.u{which})"

    def _cmd_pull(self) -> str | None:
        return self.pull.apply(self)

    def _cmd_realize_to(self, target: Stage | None) -> None:
        state = self._state
        current = state.getSystemStage()
        target = min(current.next(), Stage.Report) if target is None else target
        timings = []
        became_valid = []
        for k in range(current + 1, target + 1):
            stage = Stage(k)
            before = realized_entries(state)
            t0 = time.perf_counter()
            self.system.realize(state, stage)
            timings.append((stage, time.perf_counter() - t0))
            became_valid.append((stage, tuple(sorted(realized_entries(state) - before))))
        if timings:
            self._timings = tuple(timings)
            self._became_valid = tuple(became_valid)
            self._status = "Realized " + ", ".join(s.getName() for s, _ in timings)
        return None

    def _cmd_settings(self, changes: dict) -> None:
        if "pacing" in changes:
            changes["pacing"] = Pacing(changes["pacing"])
        old = self.settings
        new = replace(old, **changes)
        method = (new.integrator, new.accuracy, new.step_size)
        if (old.integrator, old.accuracy, old.step_size) != method:
            make_integrator(new.integrator, self.system, new.accuracy, new.step_size)  # or raise
            self._stepper = None  # restart from the current state with the new method
        self.settings = new
        self._anchor = None
        self._consumed.set()
        return None

    def _cmd_replace_model(self, built, carry: bool, same_layout: bool = False) -> str | None:
        self._reset_built = None
        self._install(built, carry=carry, same_layout=same_layout)
        return "model rebuilt"

    def _cmd_rebuild(self, model, kinds: frozenset) -> str | None:
        from app.document import in_place

        edit = names = None
        if not hasattr(model, "build") and self._reset_built is None:
            old = getattr(self.built, "data", None)
            edit = in_place.plan(old, model.data)
            names = None if edit is not None else in_place.renames(old, model.data)
        if edit is not None:
            return self._edit_in_place(edit, model.data, kinds)
        if names is not None:
            return self._rename_in_place(in_place.renamed(self.built, names, model.data), names)
        # a large model's build and adoption would set off full collections of a heap that
        # holds every body (see background_load)
        with collection.paused():
            return self._build_and_adopt(model, kinds)

    def _build_and_adopt(self, model, kinds: frozenset) -> str | None:
        """Build ``model`` (a structural edit) and adopt it (``_cmd_rebuild``)."""
        from app.document import BuildError, build

        adopted = False
        try:
            # A topology edit starts a new history (no branch keeps the model before it) and
            # replaces the model Reset goes back to: the bodies unchanged since self.built
            # are moved from its System, which is given up; else they are copied from it.
            take = "topology" in kinds
            try:
                built = (
                    model.build()
                    if hasattr(model, "build")
                    else build(model, True, self.built, take)
                )
            except Exception as exc:  # noqa: BLE001  (an unbuildable edit keeps the old model)
                reason = str(exc) if isinstance(exc, BuildError) else _describe(exc)
                self._error = f"{REBUILD_FAILED}: {reason}"
                return None
            if self._error.startswith(REBUILD_FAILED):
                self._error = ""
            if kinds <= {"initial_state"}:
                cause = self._cmd_initial_state(built)
            else:
                # "parameters" and "hints" edits (renaming a body...) keep the State layout:
                # q and u carry over whole, whatever the bodies are called now.
                cause = self._cmd_replace_model(built, True, same_layout="topology" not in kinds)
            adopted = True
            return cause
        finally:
            frozen = self._heap_frozen and not self._stopping
            if adopted and frozen and model_heap.is_large(self.matter.getNumBodies()):
                # the new System goes to the permanent generation until the settle planned
                # at its adoption, uncollected meanwhile, as the one it replaces (a build
                # that failed is garbage: left to the collector)
                model_heap.freeze_new()

    def _edit_in_place(self, edit, data, kinds: frozenset) -> str | None:
        """An edit the System takes in place (``app.document.in_place``: mass properties,
        frames, initial q/u, gravity, hints): its values are set on the live System, which
        is realized again, and the session goes on with a State of the same layout."""
        from app.document import BuildError, in_place

        initial = kinds <= {"initial_state"}
        # A new BuiltModel of the same System: the old one keeps the old content for the
        # history's branch "before the edit" (see _cmd_switch_branch).
        built = copy.copy(self.built)
        try:
            in_place.apply(built, edit, data)
        except BuildError as exc:  # the System has its old values again, realized anew
            self._error = f"{REBUILD_FAILED}: {exc}"
            self.built = built
            with self._history_lock:
                self.history.model = built
            state = State(self.built.state)
            self._copy_layout(self._state, state)
            self._state = state
            self._stepper = None
            self._realize_for_display(state)
            return None
        if self._error.startswith(REBUILD_FAILED):
            self._error = ""
        hints = edit.hints is not None
        if initial and (self._running or self._state.getTime() != 0.0):
            # the run goes on from where it is; Reset starts from the new initial state
            self._adopt_in_place(built, redraw=edit.redraw, hints=hints, initial=False)
            self._status = "Initial state changed: Reset to start from it"
            return "model rebuilt"
        self._adopt_in_place(built, redraw=edit.redraw, hints=hints, initial=initial)
        if initial:
            self._status = "Initial state changed"
            return "initial state edited"
        return "model rebuilt"

    def _rename_in_place(self, built, renames: dict[str, str]) -> str | None:
        """Bodies were renamed (``built``: the same System under the new names; ``renames``:
        old -> new name): the State, stepper, history and drawing go on as they are; only
        the renamed bodies' column names, q/u labels and quantity names are made, and the
        sample buffer under the new names takes the rows over."""
        if self._error.startswith(REBUILD_FAILED):
            self._error = ""
        self._names_only = True
        self.built = built
        with self._history_lock:
            self.history.model = built
        self._model_serial += 1
        names, changed = self._names.renamed(renames)
        self._names, self._q_index = names, names.q_index
        self._columns, self._q_labels = names.columns, names.q_labels
        self._u_labels = names.u_labels
        quantities = self.samples.quantities.changed(changed)
        self.samples = self.samples.renamed(self._columns, quantities)
        self.model_info = self.model_info.renamed(
            built, renames, self._q_index, self._q_labels, self.samples
        )
        return "model rebuilt"

    def _adopt_in_place(self, built, redraw: bool, hints: bool, initial: bool) -> None:
        """Go on with ``built``, a BuiltModel of the current System changed in place (same
        bodies and State layout; see ``_install`` for a new System): a State of it with
        the current time, q and u (``initial``: the initial State, a new history), the
        history forked at the edit, the columns, plot samples and decorations kept unless
        the drawing changed (``redraw``) or the hints did."""
        old_state = self._state
        self.pull.forget()
        state = State(built.state)
        if not initial:
            self._copy_layout(old_state, state)
        kept, branch = self._keep_or_clear_history(not initial, state, same_system=True)
        self.built = built
        with self._history_lock:
            self.history.model = built
        self._state = state
        self._stepper = None
        self._cost = None
        self._step_cost = None
        self._model_serial += 1
        self._left_marks = ((), ())
        if kept:
            rows = self.samples.take_from(state.getTime(), inclusive=False)
            if branch is not None:
                branch.samples = rows
            self._last_sample_time = state.getTime()
        else:
            self.samples = self.samples.empty_like()
            self._last_sample_time = -math.inf
        if hints:
            self.model_info = ModelInfo.of(
                built, self._q_index, self._q_labels, self.samples, self._names
            )
        else:  # the same names and layout: a new ModelInfo (a new model) with equal content
            self.model_info = replace(self.model_info, samples=self.samples)
        self._realize_for_display(state)
        if redraw:
            self._redraw(state)
        self._has_dynamic = True
        self._has_dynamic = bool(self._dynamic_geometry(state))
        self._record_start(state)

    def _cmd_initial_state(self, built) -> str | None:
        """New initial q/u: shown at once if the run has not started, else used by reset."""
        if not self._running and self._state.getTime() == 0.0:
            self._reset_built = None
            self._install(built, carry=False)
            self._status = "Initial state changed"
            return "initial state edited"
        self._reset_built = built
        self._status = "Initial state changed: Reset to start from it"
        return None

    def _assemble(self, moved) -> None:
        """Re-satisfy constraints after a pose edit (when the engine has an Assembler)."""
        try:
            from engine import Assembler
        except ImportError:  # an engine without the Assembler: plain setQ
            return
        if not getattr(self.built, "constraints", None):
            return
        assembler = Assembler(self.system)
        assembler.lockMobilizer(moved.getMobilizedBodyIndex())
        assembler.assemble(self._state)

    # -- stepping -------------------------------------------------------------------------------

    def _ensure_stepper(self) -> TimeStepper:
        if self._stepper is None:
            s = self.settings
            integ = make_integrator(s.integrator, self.system, s.accuracy, s.step_size)
            stepper = TimeStepper(self.system, integ)
            # The marks of the future this run replaces go with its branch (see _record).
            t = self._state.getTime()
            with self._history_lock:
                failures = [m for m in self._marks if m[0] > t]
                self._marks = [m for m in self._marks if m[0] <= t]
            self._left_marks = (self.events.take_after(t), failures)
            self._starting = integ  # (a pause or stop interrupts its initialize)
            try:
                stepper.initialize(self._state)
            finally:
                self._starting = None
            # The integrator's advanced State is the live State from now on.
            self._state = integ.getAdvancedState()
            self._stepper = stepper
        return self._stepper

    def _frame_interval_in_sim_time(self) -> float:
        """The reporting interval while running in real time: the settings' interval, halved
        (down to 1/4 of it) while one interval costs more wall-clock time than about a frame,
        so that a slow model still gives the view a new state every frame."""
        s = self.settings
        base = s.report_interval
        if s.pacing is Pacing.FAST:
            return self._fast_sample_interval()
        if s.pacing is not Pacing.REAL_TIME or self._cost is None or self._cost <= 0:
            return base
        ideal = 0.8 * s.frame_interval / self._cost  # simulated seconds per frame
        interval = base
        for _ in range(2):
            if interval <= ideal:
                break
            interval /= 2
        return interval

    def _fast_sample_interval(self) -> float:
        """The sampling interval running as fast as possible: the reporting interval times
        the smallest power of two that keeps samples under FAST_MAX_SAMPLES_PER_SECOND at the
        real-time rate measured over the last second (or, before there is one, at the
        stepping cost)."""
        interval = self.settings.report_interval
        rate = self._rate
        if not (math.isfinite(rate) and rate > 0):
            if self._cost is None or self._cost <= 0:
                return interval
            rate = 1.0 / self._cost
        for _ in range(30):
            if rate / interval <= FAST_MAX_SAMPLES_PER_SECOND:
                break
            interval *= 2.0
        return interval

    def _fast_step_limit(self) -> int:
        """Internal steps per stepTo running as fast as possible: about FAST_CALL_BUDGET of
        the worker's CPU time at the measured cost per step (8 before one is measured)."""
        cost = self._step_cost
        if cost is None or not cost > 0:
            return 8
        return max(1, min(FAST_MAX_STEPS_PER_CALL, int(FAST_CALL_BUDGET / cost)))

    def _advance(self, target: float, deadline: float, interval: float | None = None) -> bool:
        """Step toward ``target`` in reporting intervals, sampling each; stop at the wall-clock
        ``deadline``. False (and paused) if a step failed. Caller holds the State lock.
        Running as fast as possible, see ``_advance_fast``."""
        try:
            stepper = self._ensure_stepper()
        except Exception as exc:  # noqa: BLE001  (projection, handlers, a bad model...)
            if isinstance(exc, ComputationInterruptedError):  # a pause or stop asked it
                self._status = "Paused: starting the integrator was interrupted"
                return False
            self._fail(exc, "starting the integrator failed")
            return False
        interval = interval or self.settings.report_interval
        if self.settings.pacing is Pacing.FAST and math.isinf(target):
            return self._advance_fast(stepper, deadline, interval)
        try:
            # A stiff model may need many thousands of steps per reporting interval: stepTo
            # returns after PACED_STEPS_PER_CALL steps (ReachedStepLimit, which a TimeStepper
            # returns only when it reports all significant States; no step is shortened), so
            # the deadline, and with it a pause or an edit, is seen between them. A sample is
            # taken where a reporting time is reached.
            stepper.setReportAllSignificantStates(True)
            stepper.getIntegrator().setInternalStepLimit(PACED_STEPS_PER_CALL)
            t = stepper.getTime()
            tol = 1e-12 * max(1.0, abs(target)) if math.isfinite(target) else 0.0
            while t < target - tol and not self._step_cut.is_set():
                t_next = min(target, (math.floor(t / interval + 1e-9) + 1) * interval)
                if not self.gui_idle.is_set():
                    self._wait_for_gui()
                w0, t0 = time.perf_counter(), t
                status = stepper.stepTo(t_next)
                t = stepper.getTime()
                reached = t >= t_next - 1e-12 * max(1.0, abs(t_next))
                if reached or status == SuccessfulStepStatus.EndOfSimulation:
                    self._sample(stepper.getState())
                if t > t0:  # wall-clock seconds per simulated second, smoothed
                    self._note_cost(time.perf_counter() - w0, t - t0)
                time.sleep(0)  # a chance for the GUI thread to take the interpreter
                if status == SuccessfulStepStatus.EndOfSimulation:
                    self._end_of_simulation()
                    return True
                if time.perf_counter() > deadline:
                    break
            return True
        except Exception as exc:  # noqa: BLE001  (any failure pauses the run with a message)
            if isinstance(exc, ComputationInterruptedError) and self._step_cut.is_set():
                return False  # (``_cmd_step`` says so)
            self._fail(exc, STEP_FAILED)
            return False

    def _advance_fast(self, stepper: TimeStepper, deadline: float, interval: float) -> bool:
        """Run as fast as possible until the wall-clock ``deadline``, in the integrator's own
        steps (at most a reporting interval long): each stepTo aims at the next point of
        the FAST_HORIZON_INTERVALS grid and returns after ``_fast_step_limit`` internal
        steps (ReachedStepLimit), so no step is shortened except at that grid. A plot
        sample (and history record) is taken of the first State the stepping returns at or
        past each multiple of the sampling ``interval`` (a step's end, at most one per
        interval): a State the integrator realized, taken to Acceleration for the sample,
        which the next step then starts from instead of realizing it again. False (and
        paused) if a step failed. Caller holds the State lock."""
        integ = stepper.getIntegrator()
        report = self.settings.report_interval
        horizon = FAST_HORIZON_INTERVALS * report
        stepper.setReportAllSignificantStates(True)
        limit_steps = integ.methodHasErrorControl()
        if limit_steps:
            integ.setMaximumStepSize(report)
        w_start = time.perf_counter()
        t = t_start = stepper.getTime()
        try:
            if t_start < self._last_sample_time:
                # Going on from an earlier, recorded moment: the plotted and recorded future
                # is replaced from here on (the first sample of the run may come many
                # steps later, past samples of the future it replaces).
                self._sample(stepper.getState())
            while True:
                t_end = (math.floor(t / horizon + 1e-9) + 1) * horizon
                if not self.gui_idle.is_set() and not self.has_own_core():
                    self._wait_for_gui()
                integ.setInternalStepLimit(self._fast_step_limit())
                c0, t0, n0 = time.thread_time(), t, integ.getNumStepsTaken()
                w0 = time.perf_counter()
                status = stepper.stepTo(t_end)
                self.note_core_share(time.thread_time() - c0, time.perf_counter() - w0)
                t = stepper.getTime()
                steps = integ.getNumStepsTaken() - n0
                if steps > 0:
                    cost = (time.thread_time() - c0) / steps
                    s = self._step_cost
                    self._step_cost = cost if s is None else 0.7 * s + 0.3 * cost
                last = self._last_sample_time
                if t > t0 and (
                    not math.isfinite(last)
                    or math.floor(t / interval + 1e-9) > math.floor(last / interval + 1e-9)
                ):
                    self._sample(stepper.getState())
                if status == SuccessfulStepStatus.EndOfSimulation:
                    self._end_of_simulation()
                    return True
                if time.perf_counter() > deadline:
                    return True
        except Exception as exc:  # noqa: BLE001  (any failure pauses the run with a message)
            self._fail(exc, STEP_FAILED)
            return False
        finally:
            integ.setInternalStepLimit(0)
            stepper.setReportAllSignificantStates(False)
            if limit_steps:
                integ.setMaximumStepSize(-1)  # the session's integrators have none otherwise
            if t > t_start:
                self._note_cost(time.perf_counter() - w_start, t - t_start)

    def note_core_share(self, cpu: float, wall: float) -> None:
        """Add a stepping call's thread CPU and wall-clock seconds to the smoothed share of
        a core the worker gets (calls under a millisecond say little and are left out)."""
        if wall < 1e-3:
            return
        share = min(cpu / wall, 1.0)
        s = self._core_share
        self._core_share = share if s is None else 0.8 * s + 0.2 * share

    def has_own_core(self) -> bool:
        """Whether the worker's stepping calls get about a whole core (at least
        FAST_OWN_CORE_SHARE of one; False before any is measured)."""
        s = self._core_share
        return s is not None and s >= FAST_OWN_CORE_SHARE

    def _wait_for_gui(self) -> None:
        """Wait (at most GUI_WAIT_MAX) for the view to finish the frame it is drawing, adding
        the wall-clock time waited to ``gui_wait_seconds``."""
        w0 = time.perf_counter()
        self.gui_idle.wait(GUI_WAIT_MAX)
        self.gui_wait_seconds += time.perf_counter() - w0

    def _note_cost(self, wall: float, sim: float) -> None:
        """Smooth the wall-clock seconds per simulated second (``_cost``)."""
        cost = wall / sim
        self._cost = cost if self._cost is None else 0.7 * self._cost + 0.3 * cost

    def _end_of_simulation(self) -> None:
        self._running = False
        self._status = "Simulation ended"
        self._stepper = None

    def _batch(self) -> None:
        s = self.settings
        start = self._batch_start = time.perf_counter()
        state = self._state
        with state.getStateLock():
            t = state.getTime() if self._stepper is None else self._stepper.getTime()
            if s.pacing is Pacing.REAL_TIME:
                if self._anchor is None:
                    self._anchor = (start, t)
                wall0, sim0 = self._anchor
                target = sim0 + (start + s.frame_interval - wall0) * s.speed
                if target <= t:
                    return
            elif s.pacing is Pacing.SAMPLED:
                target = t + s.report_interval
            else:
                target = math.inf
            budget = FAST_BATCH_BUDGET if s.pacing is Pacing.FAST else s.batch_budget
            ok = self._advance(target, start + budget, self._frame_interval_in_sim_time())
            if ok and s.pacing is Pacing.REAL_TIME and self._stepper is not None:
                lag = (self._stepper.getTime() - sim0) / s.speed - (time.perf_counter() - wall0)
                if lag < -0.25:  # more than a quarter second behind: stop trying to catch up
                    self._anchor = (time.perf_counter(), self._stepper.getTime())
        self._note_rate()
        self._publish(with_cache=None, await_reader=s.pacing is Pacing.SAMPLED)
        if s.pacing is Pacing.SAMPLED and self._running:
            # Wait until the reader takes this frame (or a command or stop() comes).
            deadline = time.perf_counter() + 1.0
            while not self._consumed.wait(0.02):
                if self._stopping or not self._queue.empty() or time.perf_counter() > deadline:
                    break

    def _after_batch(self) -> float:
        """Give the GUI thread the interpreter for a while (a Python worker that never waits
        starves it through the GIL): rest a fraction of the batch's duration, then go on."""
        now = time.perf_counter()
        if self.settings.pacing is Pacing.FAST:
            # The steps run in compiled code that lets go of the interpreter, so the GUI
            # thread gets it without a rest (a 2 ms sleep oversleeps under load).
            return now
        rest = max(0.002, YIELD_FRACTION * (now - self._batch_start))
        if self._cut_rest.wait(rest):  # a pause or stop came: apply it now
            self._cut_rest.clear()
        return time.perf_counter()

    def _note_rate(self) -> None:
        if self._stepper is None:
            return
        now = time.perf_counter()
        self._rate_window.append((now, self._stepper.getTime()))
        while len(self._rate_window) > 2 and now - self._rate_window[0][0] > 1.0:
            self._rate_window.pop(0)
        (w0, t0), (w1, t1) = self._rate_window[0], self._rate_window[-1]
        self._rate = (t1 - t0) / (w1 - w0) if w1 > w0 else math.nan

    def _record_start(self, state: State) -> None:
        """Record the State a model starts from: with no plot sample yet, its sample too, so
        the plots show the starting values before the first step (a State that could not be
        realized, see _realize_for_display, is recorded without one)."""
        if len(self.samples) or state.getSystemStage() < Stage.Acceleration:
            self._record(state)
            return
        try:
            row = self._sample_row(state)
        except SimTKError:
            self._record(state)
            return
        self._last_sample_time = state.getTime()
        self.samples.append(row)
        self._start_sampled = (weakref.ref(state), state.getSystemStageVersions())
        self._record(state)

    def _resample_start(self) -> None:
        """While the only plot sample is the one of the State shown (a model not run yet),
        that sample follows the State's and the model's edits (a pose from the Joints
        sliders or a drag, a mass typed in). It is computed on a copy: the live State keeps
        the stages the edit left invalid. Not when the sample was taken of this very State
        and nothing it was realized with has been invalidated since (a model just
        installed: ``_record_start`` sampled it)."""
        state = self._state
        if self._running or len(self.samples) != 1 or self._last_sample_time != state.getTime():
            return
        sampled = self._start_sampled
        if (
            sampled is not None
            and sampled[0]() is state
            and state.getLowestSystemStageDifference(sampled[1]) == Stage.Infinity
        ):
            return
        with state.getStateLock():
            try:
                row = self._sample_row(State(state))
            except SimTKError:
                return
        self.samples.take_from(state.getTime())
        self.samples.append(row)

    def _sample(self, state: State) -> None:
        t = state.getTime()
        left = None
        if t <= self._last_sample_time:  # going on from an earlier, recorded moment
            left = self.samples.take_from(t)
        row = self._sample_row(state)
        if not np.isfinite(row).all():
            raise DivergedError(self._diverged(state, row))
        self._last_sample_time = t
        self.samples.append(row)
        self._record(state, left)

    def _diverged(self, state: State, row: np.ndarray) -> str:
        """What a sample ``row`` holding NaN or infinity says about the run."""
        k = int(np.flatnonzero(~np.isfinite(row))[0])
        columns = self.samples.columns
        name = columns[k] if k < len(columns) else f"column {k}"
        return (
            f"the model diverged at t = {state.getTime():.6g} s: {name} = {row[k]} "
            "(NaN or infinity); check very large forces, stiffnesses, masses or frame "
            "offsets, or tighten the accuracy"
        )

    def _sample_row(self, state: State) -> np.ndarray:
        """The plot sample of ``state`` (realized to Acceleration here if it is not yet)."""
        system = self.system
        if state.getSystemStage() < Stage.Acceleration:
            system.realize(state, Stage.Acceleration)
        ke = system.calcKineticEnergy(state)
        pe = system.calcPotentialEnergy(state)
        qerr = state.getQErr()
        uerr = state.getUErr()
        measures = [
            float(np.asarray(m.getValue(state), dtype=float).reshape(-1)[0])
            for m in self._measures(self.built).values()
        ]
        return np.concatenate(
            (
                [state.getTime()],
                state.getQ(),
                state.getU(),
                state.getUDot(),
                [ke, pe, ke + pe, float(np.linalg.norm(qerr)), float(np.linalg.norm(uerr))],
                measures,
            )
        )

    def _record(self, state: State, left_samples=None) -> None:
        """Keep the State's variables in the history (worker thread); ``left_samples``: the
        plot rows of the future this record leaves, if it goes on from an earlier moment."""
        try:
            record = self._recorder.capture(state)
        except RecordError:  # a model whose discrete variables cannot be recorded
            return
        with self._history_lock:
            self.history.last_kept = None
            self.history.append(record)
            kept = self.history.last_kept
            if kept is not None and left_samples is not None:
                kept.samples = left_samples
            if kept is not None:
                kept.events, kept.failures = (list(m) for m in self._left_marks)
            self._left_marks = ((), ())

    def branch_samples(self) -> list[tuple[str, list[str], np.ndarray]]:
        """(name, sample columns, plot rows) of each branch whose plot samples are kept
        (any thread)."""
        with self._history_lock:
            return [
                (b.name, self.samples.columns, b.samples)
                for b in self.history.branches
                if b.samples is not None and len(b.samples)
            ]

    def history_span(self) -> tuple[float, float, int]:
        """(first time, last time, number of records) of the history (any thread)."""
        with self._history_lock:
            n = len(self.history)
            if n == 0:
                return (0.0, 0.0, 0)
            return (self.history[0].t, self.history[-1].t, n)

    def history_records(self) -> list:
        """A copy of the list of recorded States, oldest first (any thread)."""
        with self._history_lock:
            return list(self.history)

    def recorded_time(self, t: float, steps: int = 0) -> float | None:
        """The recorded time nearest ``t``, moved ``steps`` records on (any thread)."""
        with self._history_lock:
            if not len(self.history):
                return None
            i = self.history.index_at(t) + steps
            return self.history[min(max(i, 0), len(self.history) - 1)].t

    def _fail(self, exc: BaseException, what: str) -> None:
        self._running = False
        self._stepper = None  # the next play re-initializes from the last good state
        self._error = f"{what}: {_describe(exc)}"
        self._status = f"Paused: {what}"
        if not isinstance(exc, SimTKError):
            self._error_traceback = traceback.format_exc()
        with self._history_lock:
            self._marks.append((float(self._state.getTime()), self._error))

    def marks(self) -> list[tuple[float, str]]:
        """(time, message) of every failure since the model was installed (any thread)."""
        with self._history_lock:
            return list(self._marks)

    # -- publishing -----------------------------------------------------------------------------

    def _overlay_data(self, shown: State):
        kinds = self.overlay_kinds
        if not kinds:
            return None
        from app.simulation.overlay_data import compute_overlay_data

        return compute_overlay_data(self.built, shown, kinds)

    def _display_state(self) -> State:
        if self._stepper is not None:
            return self._stepper.getState()
        return self._state

    def _publish(self, with_cache: bool | None, await_reader: bool = False) -> None:
        """Build a snapshot under the State lock, then hand it over (outside the lock)."""
        now = time.perf_counter()
        if with_cache is None:
            with_cache = (
                self.want_cache and now - self._last_cache_time >= self.settings.cache_interval
            )
        state = self._state
        with state.getStateLock():
            shown = self._display_state()
            poses = None
            try:
                if shown.getSystemStage() >= Stage.Position:
                    poses = body_poses(self.matter, shown)
                else:
                    tmp = State(shown)
                    self.system.realize(tmp, Stage.Position)
                    poses = body_poses(self.matter, tmp)
            except SimTKError:
                poses = None
            self._serial += 1
            snap = Snapshot(
                serial=self._serial,
                model_serial=self._model_serial,
                time=float(shown.getTime()),
                q=np.array(shown.getQ()),
                u=np.array(shown.getU()),
                x_gb=poses,
                stages=stage_info(
                    state,
                    compiled_paths(
                        self.system,
                        state,
                        self._stepper.getIntegrator() if self._stepper is not None else None,
                    ),
                ),
                running=self._running,
                status=self._status,
                error=self._error,
                cascade=self._cascade,
                cache=cache_report(state) if with_cache else None,
                stage_timings=self._timings,
                became_valid=self._became_valid,
                sample_count=self.samples.total,
                real_time_rate=self._rate if self._running else math.nan,
                geometry=self._geometry,
                model=self.model_info,
                dynamic_geometry=self._dynamic_geometry(shown),
                overlays=self._overlay_data(shown),
            )
        if with_cache:
            self._last_cache_time = now
        with self._snap_lock:
            previous = self._latest
            if snap.cache is None and previous is not None and previous.cache is not None:
                # keep the last cache report visible until a newer one comes
                snap = replace(snap, cache=previous.cache)
            self._latest = snap
            if await_reader:  # cleared with the new snapshot: only taking it sets it again
                self._consumed.clear()
        if self._on_publish is not None:
            self._on_publish(snap)
