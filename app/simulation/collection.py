"""Which thread runs Python's cyclic garbage collector, and when it may not run at all.

A collection frees the garbage cycles it finds on the thread that runs it, PySide's wrappers
of Qt objects among them (a closed window's widgets, a replaced plot's items). A Qt object
destroyed on the simulation worker takes Qt's signal-slot locks there while holding the
interpreter lock; if the GUI thread holds one of those locks waiting for the interpreter
lock (PySide connecting a signal, or running its deferred deletions), both wait forever.
CPython starts a collection on whichever thread allocates when one falls due, so the worker
can start one at any moment.

So while the studio has a window, one thread *owns* collection (``own``: the GUI thread).
Automatic collection is off (``gc.disable``), and the owner calls ``tick`` often (a timer
of its event loop, ``app.gui_collector``). ``tick`` runs the generations the collector's own
thresholds make due (``gc.get_threshold``, ``gc.get_count``), with CPython's rule for full
collections: one is due only once the objects moved into the oldest generation since the
last one (the survivors of the middle generation's collections) are more than a quarter of
the objects that last one left there (CPython keeps those two counts internal, so ``tick``
counts them itself). Other threads never collect. A thread that needs a full collection
(``app.simulation.model_heap.settle``) hands the work to the owner (``run_on_owner``).

Work that makes millions of long-lived objects at once (a large model's read and build)
runs ``paused()``: no automatic collection starts meanwhile. Without an owner (the command
line, tests without a window), pausing turns automatic collection off and back on, counted,
so that overlapping pauses on several threads end with the collector as it was before the
first. Qt-free: the owner's timer lives in ``app.gui_collector``.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Callable, Iterator

_lock = threading.Lock()
_owner: threading.Thread | None = None
#: Whether automatic collection was on when the owner took over (restored by ``disown``).
_was_enabled = True
#: Number of ``paused()`` blocks running, and whether collection was on before the first.
_pauses = 0
_enabled_before_pause = True
#: Work handed to the owner (``run_on_owner``), run at its next ``tick``.
_pending: list[Callable[[], object]] = []
#: Objects the last full collection left in the oldest generation, and objects moved
#: there since by the middle generation's collections (CPython's long_lived_total and
#: long_lived_pending).
_long_lived_total = 0
_long_lived_pending = 0
#: Collections ``tick`` ran, by generation (for the tests and the diagnostics).
collections = [0, 0, 0]


def owner() -> threading.Thread | None:
    """The thread that alone collects, or None (CPython's automatic collection)."""
    return _owner


def own() -> None:
    """Make the calling thread the only one that collects (see the module docstring); it
    must call ``tick`` often from now on. Does nothing if it owns collection already."""
    global _owner, _was_enabled
    with _lock:
        me = threading.current_thread()
        if _owner is me:
            return
        if _owner is not None:
            raise RuntimeError(f"garbage collection is owned by thread {_owner.name!r}")
        _was_enabled = gc.isenabled() if _pauses == 0 else _enabled_before_pause
        _owner = me
        gc.disable()
        gc.callbacks.append(_after_full_collection)


def disown() -> None:
    """Hand collection back to CPython (automatic again if it was when ``own`` was called),
    after a full collection on the owner, which frees the garbage cycles of the Qt objects
    made so far here rather than on another thread. Called by the owner."""
    global _owner
    if _owner is not threading.current_thread():
        return
    tick()
    gc.collect()
    with _lock:
        _owner = None
        gc.callbacks.remove(_after_full_collection)
        if _pauses == 0 and _was_enabled:
            gc.enable()
    _run_pending()  # (handed over since the tick above; none can be handed over now)


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """No automatic collection starts while the block runs (on any thread); explicit
    collections (``gc.collect``, work handed to the owner) still do."""
    global _pauses, _enabled_before_pause
    with _lock:
        if _pauses == 0 and _owner is None:
            _enabled_before_pause = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _lock:
            _pauses -= 1
            if _pauses == 0 and _owner is None and _enabled_before_pause:
                gc.enable()


def is_paused() -> bool:
    """Whether a ``paused()`` block is running."""
    return _pauses > 0


def run_on_owner(work: Callable[[], object]) -> bool:
    """Run ``work`` now if the calling thread may collect (it owns collection, or no thread
    does), else at the owner's next ``tick``. Returns whether it ran now."""
    with _lock:
        if _owner is not None and _owner is not threading.current_thread():
            _pending.append(work)
            return False
    work()
    return True


def _run_pending() -> None:
    """Run, on the calling thread, the work handed to the owner so far."""
    with _lock:
        work, _pending[:] = list(_pending), []
    for job in work:
        job()


def due_generation() -> int | None:
    """The oldest generation the collector's thresholds make due now, or None (CPython's
    rule: a full collection only once ``_long_lived_pending`` exceeds a quarter of
    ``_long_lived_total``)."""
    threshold0, threshold1, threshold2 = gc.get_threshold()
    count0, count1, count2 = gc.get_count()
    if threshold0 == 0 or count0 <= threshold0:
        return None
    if count1 <= threshold1:
        return 0
    if count2 > threshold2 and _long_lived_pending >= _long_lived_total // 4:
        return 2
    return 1


def collect(generation: int) -> int:
    """Collect ``generation`` on the calling thread, keeping the counts of the full-collection
    rule; returns the number of objects found unreachable."""
    global _long_lived_total, _long_lived_pending
    if generation == 1:
        young = len(gc.get_objects(0)) + len(gc.get_objects(1))
        found = gc.collect(1)
        _long_lived_pending += max(0, young - found)
    else:
        found = gc.collect(generation)
    collections[generation] += 1
    return found


def _after_full_collection(phase: str, info: dict) -> None:
    """A ``gc.callbacks`` entry while a thread owns collection: after any full collection
    (``tick``'s or an explicit ``gc.collect()``), the counts start again from what it left."""
    global _long_lived_total, _long_lived_pending
    if phase == "stop" and info["generation"] == 2:
        _long_lived_total = len(gc.get_objects(2))
        _long_lived_pending = 0


def tick() -> None:
    """The owner's periodic call: run the work handed to it, then the collection due (none
    while paused). Does nothing on any other thread."""
    if _owner is not threading.current_thread():
        return
    _run_pending()
    if _pauses:
        return
    generation = due_generation()
    if generation is not None:
        collect(generation)
