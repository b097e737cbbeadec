"""The matter operators' check that a State still qualifies, compiled into each operator.

A matter operator (``multiplyByM``, ``calcM``, ...) needs its State to belong to its
System's current topology and its matter subsystem to be at the operator's stage
(Position, or Velocity for the residual). ``StageRealizationMixin._operators`` checks
that in full and, when it holds, records in the State's kernel table (slot
``operators_seen``) what made it hold:

* ``SEEN_POSITION``, ``SEEN_VELOCITY``: the State's invalidation serial (its books'
  ``SERIAL``) when Position (Velocity) stage was last confirmed, or -1;
* ``SEEN_EPOCH``: ``TOPOLOGY_EPOCH`` (``engine.common.state_guard``) then;
* ``SEEN_EDITS``, ``SEEN_EDITS_MASK``: when a stage was confirmed by its kinematics
  realized explicitly below it (``realizePositionKinematics`` at Instance stage), the
  books' ``ENTRY_EDITS`` then and -1 (all bits): such kinematics are a cache entry, made
  stale (``invalidatePositionKinematics``) without any stage being invalidated, and every
  change of an entry counts there; else 0 and 0 (the edits do not count).

Every invalidation of any stage takes a new serial and every new topology key counts in
the epoch, so while they (and the entry edits, where they count) are unchanged nothing
the check depends on has changed. Each operator's kernel starts with ``stale``: a compare
of each, and the status ``STALE`` (nothing done) when one moved, for the operator to check
again in full (``_operators``, which words the typed error or records the new serial) and
call again.
"""

from __future__ import annotations

from engine.common.numba_internals import i1
from engine.common.state_books import ENTRY_EDITS, SERIAL
from engine.multibody.kernels.layout import SLOT
from engine.multibody.kernels.spatial_inline import inline

#: an operator kernel's status: the State must be checked again (nothing was done)
STALE = -1

#: the entries of ``operators_seen``
SEEN_POSITION, SEEN_VELOCITY, SEEN_EPOCH, SEEN_EDITS, SEEN_EDITS_MASK = 0, 1, 2, 3, 4


@inline
def stale(a, s, seen_stage):
    """True unless the State's invalidation serial, the topology epoch and (where they
    count) the entry edits are those recorded when the stage ``seen_stage``
    (SEEN_POSITION or SEEN_VELOCITY) was last confirmed (table ``a``, ``s``)."""
    seen, books = i1(a, s, SLOT.operators_seen), i1(a, s, SLOT.books)
    # (one branch on the bits that differ: cheaper than a branch per compare)
    differ = (
        (books[SERIAL] ^ seen[seen_stage])
        | (i1(a, s, SLOT.topology_epoch)[0] ^ seen[SEEN_EPOCH])
        | ((books[ENTRY_EDITS] ^ seen[SEEN_EDITS]) & seen[SEEN_EDITS_MASK])
    )
    return differ != 0
