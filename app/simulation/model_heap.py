"""A large model's objects kept out of the cyclic garbage collector's full collections.

A 20,000-body model is a few million Python objects (its System, State, decorations, the
document's specs and the windows' rows). A full collection walks every one of them (0.3-0.7 s
on a loaded 2-core machine) on whichever thread allocates when it falls due, holding every
other thread meanwhile; with such a heap one falls due during most edits. So once a large
model is shown, the session's worker ``settle``s the heap when it is otherwise idle: a full
collection (which frees the model before it, if any) and then ``gc.freeze``, which moves
everything alive into the collector's permanent generation. Later full collections walk only
what was made since: the next edit's new System and its garbage.

A model replaced by an edit stays frozen (it cannot be collected) until the next ``settle``,
which comes once the edited model is shown (its ``gc.unfreeze`` hands the frozen objects back
to the collector first). A stopped session ``release``s the heap: nothing stays frozen, so a
closed window is collected as any other garbage.
"""

from __future__ import annotations

import gc
import threading

#: A model with at least this many bodies has its heap frozen once shown.
FREEZE_FROM_BODIES = 2000
#: Seconds the worker waits after adopting an edited large model before it settles the heap
#: (the GUI thread shows the model meanwhile; a full collection would hold it).
SETTLE_AFTER = 1.5
#: The same for a model opened (or a new initial State): its 3-D view is drawn in steps for
#: a few seconds after it is shown.
SETTLE_AFTER_OPEN = 6.0

_lock = threading.Lock()


def is_large(num_bodies: int) -> bool:
    """Whether a model of ``num_bodies`` bodies (Ground included) has its heap frozen."""
    return num_bodies >= FREEZE_FROM_BODIES


def settle(wanted=lambda: True) -> int:
    """Collect all garbage (the frozen objects included) and freeze everything alive;
    returns the number of objects frozen. Does nothing (returns 0) unless ``wanted()``,
    asked under the lock ``release`` takes (a session stopped meanwhile wants nothing
    frozen)."""
    with _lock:
        if not wanted():
            return 0
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        return gc.get_freeze_count()


def release() -> None:
    """Hand every frozen object back to the collector (the next full collection walks them
    and frees those no longer used)."""
    with _lock:
        gc.unfreeze()


def freeze_new(wait: bool = True) -> None:
    """Move every object the collector tracks into its permanent generation (no walk: a
    constant-time move of its lists), so the collections that follow do not walk a large
    model's young objects (a System an edit built with the collector off); the next
    ``settle`` frees what of them was garbage. ``wait=False``: nothing happens while a
    settle or release runs."""
    if not _lock.acquire(blocking=wait):
        return
    try:
        gc.freeze()
    finally:
        _lock.release()
