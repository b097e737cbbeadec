"""A large model's objects kept out of the cyclic garbage collector's full collections.

A 20,000-body model is a few million Python objects (its System, State, decorations, the
document's specs and the windows' rows). A full collection walks every one of them (0.3-0.7 s
on a loaded 2-core machine) on whichever thread allocates when it falls due, holding every
other thread meanwhile; with such a heap one falls due during most edits. So once a large
model is shown, the session's worker ``settle``s the heap when it is otherwise idle: a full
collection (which frees the model before it, if any) and then ``gc.freeze``, which moves
everything alive into the collector's permanent generation. Later full collections walk only
what was made since: the next edit's new System and its garbage.

A large model is read and built, and its session prepared, by worker threads with the
collector off (``app.document.background_load``); what they made is frozen at once when they
end (``freeze_new``: no walk, just a move of the collector's lists), so that turning the
collector back on does not set off collections of those few million young objects, each
holding every thread; so is what the 3-D view makes as it draws the model in steps. The
settle after an open only freezes (the garbage of a read and build is a few hundred
objects), unless a large model was dropped since the last settle (a closed or replaced
large model's session ``release``d the heap, or an edit replaced one): then it collects
first, to free that model.

The settle waits for a quiet moment too: not while the GUI thread says it is busy
(``hold_off``: the 3-D view drawing a large model in steps, and ``QUIET_AFTER`` seconds after
its last step), so its full collection lands neither in an open nor while the view fills.

A large model a stopped session drops has its engine's reference cycles broken first
(``app.simulation.model_release``): reference counting frees it at once, and the settle after
the next open only freezes (``freed_by_refcount``) instead of a full collection of the whole
heap, the new model included.

A model replaced by an edit stays frozen (it cannot be collected) until the next ``settle``,
which comes once the edited model is shown (its ``gc.unfreeze`` hands the frozen objects back
to the collector first). A stopped session ``release``s the heap: nothing stays frozen, so a
closed window is collected as any other garbage.
"""

from __future__ import annotations

import gc
import threading
import time

from app.simulation import collection

#: A model with at least this many bodies has its heap frozen once shown.
FREEZE_FROM_BODIES = 2000
#: Seconds the worker waits after adopting an edited large model before it settles the heap
#: (the GUI thread shows the model meanwhile; a full collection would hold it).
SETTLE_AFTER = 1.5
#: The same for a model opened (or a new initial State): its 3-D view is drawn in steps for
#: a few seconds after it is shown.
SETTLE_AFTER_OPEN = 6.0

#: Seconds after the GUI thread's last ``hold_off`` before a settle may hold it.
QUIET_AFTER = 2.0

_lock = threading.Lock()
#: perf_counter time before which no settle starts (see hold_off).
_quiet_from = 0.0
#: Whether a large model was dropped since the last settle (see settle).
_garbage = False
#: Weak references to the Systems of the dropped model whose reference cycles were broken
#: (see freed_by_refcount), or None: a model dropped with its cycles.
_freed: list | None = None


def is_large(num_bodies: int) -> bool:
    """Whether a model of ``num_bodies`` bodies (Ground included) has its heap frozen."""
    return num_bodies >= FREEZE_FROM_BODIES


def settle(wanted=lambda: True) -> int:
    """Freeze everything alive, after collecting all garbage (the frozen objects included)
    if a large model was dropped since the last settle (``release``, ``expect_garbage``)
    that reference counting has not freed (``freed_by_refcount``); returns 1. Without such
    a model the garbage is the few hundred objects a read and build leave (and the small
    models before), not worth a full collection's hold of every thread: they stay frozen
    until the next full one. Does nothing (returns 0) unless
    ``wanted()``, asked under the lock ``release`` takes (a session stopped meanwhile wants
    nothing frozen). (Counting the frozen objects would walk them all.)

    Runs on the thread that owns collection (``app.simulation.collection``: the GUI thread
    while the studio has a window); called on another thread, it is handed to that one's
    next tick and returns 1."""
    outcome = []
    collection.run_on_owner(lambda: outcome.append(_settle(wanted)))
    return outcome[0] if outcome else 1


def _settle(wanted) -> int:
    global _garbage, _freed
    with _lock:
        if not wanted():
            return 0
        if _garbage and not (_freed and all(system() is None for system in _freed)):
            gc.unfreeze()
            gc.collect()
        _garbage, _freed = False, None
        gc.freeze()
        return 1


def expect_garbage() -> None:
    """A large model was dropped (replaced by an edit): the next ``settle`` collects."""
    global _garbage, _freed
    _garbage, _freed = True, None


def freed_by_refcount(systems) -> None:
    """The large model dropped last (``release``) has its reference cycles broken
    (``model_release``): ``systems`` are weak references to its Systems. If they are all
    gone by the next ``settle`` and nothing else was dropped meanwhile, that settle only
    freezes (reference counting freed the model)."""
    global _freed
    with _lock:
        _freed = list(systems)


def release() -> None:
    """Hand every frozen object back to the collector (the next full collection walks them
    and frees those no longer used)."""
    global _garbage, _freed
    with _lock:
        gc.unfreeze()
        _garbage, _freed = True, None


def freeze_new(wait: bool = True) -> None:
    """Move every object the collector tracks into its permanent generation (no walk: a
    constant-time move of its lists), so the collections that follow do not walk a large
    model's young objects (a System an edit built with the collector off, the objects the 3-D
    view's drawing in steps made); the next ``settle`` frees what of them was garbage.
    ``wait=False``: nothing happens while a settle or release runs."""
    if not _lock.acquire(blocking=wait):
        return
    try:
        gc.freeze()
    finally:
        _lock.release()


def hold_off(seconds: float = QUIET_AFTER) -> None:
    """No settle starts in the next ``seconds`` (the GUI thread is busy: a full collection
    would hold it); called by the GUI thread at each step of a long piece of work."""
    global _quiet_from
    _quiet_from = max(_quiet_from, time.perf_counter() + seconds)


def quiet() -> bool:
    """Whether a settle may start now (no ``hold_off`` in force)."""
    return time.perf_counter() >= _quiet_from
