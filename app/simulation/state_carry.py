"""Carry time, q and u from a State of one System to a State of a rebuilt one, by body name.

After an edit that builds a new System (a body added or removed, a new parent or mobilizer),
each body that is still there under the same name and with the same mobilizer type keeps its
q, and each with the same number of u keeps its u. ``carry_by_name`` gathers the q and u slots
of all such bodies as index arrays from the matter subsystems' topology arrays (first q/u and
their numbers per MobilizedBodyIndex) and copies them in one assignment per vector, instead of
a MobilizedBody getter and setter per body.
"""

from __future__ import annotations

import itertools

import numpy as np

from engine.common.exceptions import SimTKError
from engine.multibody.mobilizers.dispatch import REVERSED_OFFSET


def slots(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The indices start, start+1, ..., start+count-1 of every (start, count), concatenated."""
    counts = np.asarray(counts, dtype=np.intp)
    total = int(counts.sum())
    if total == 0:
        return np.empty(0, dtype=np.intp)
    # each slot's offset in its run, added to its run's start
    run_of = np.repeat(np.arange(len(counts)), counts)
    first_of_run = np.cumsum(counts) - counts
    return np.asarray(starts, dtype=np.intp)[run_of] + (np.arange(total) - first_of_run[run_of])


def _layout(built, state):
    """(first q, number of q in use, first u, number of u) per body index of ``built`` in
    ``state`` (System-wide positions), and its mobilizer types (kernel type ids, the same
    for a type whichever its direction, as its type name)."""
    matter = built.matter
    topo = matter._topo(state)  # noqa: SLF001  (the topology arrays, read only)
    nq = np.asarray(topo.nqs, dtype=np.intp).copy()
    if matter.getUseEulerAngles(state):
        nq[np.asarray(topo.uses_quaternion, dtype=bool)] -= 1
    index = matter.getMySubsystemIndex()
    qs = np.asarray(topo.qs, dtype=np.intp) + state.getQStart(index)
    us = np.asarray(topo.us, dtype=np.intp) + state.getUStart(index)
    # each body's mobilizer type (its kernel type id without the reversed offset)
    mtype = np.asarray(topo.mtype, dtype=np.intp)
    types = np.where(mtype >= REVERSED_OFFSET, mtype - REVERSED_OFFSET, mtype)
    return qs, nq, us, np.asarray(topo.nus, dtype=np.intp), types


def carry_by_name(old_built, old_state, built, state) -> None:
    """Set ``state``'s time to ``old_state``'s and copy the q of every body of ``built``
    found by name in ``old_built`` with the same mobilizer type and number of q, and the u of
    every such body with the same number of u (Ground and bodies new to ``built`` keep
    ``state``'s values). ``state`` must be realized to Model stage (its q/u layout known)."""
    state.setTime(old_state.getTime())
    try:
        old_qs, old_nq, old_us, old_nu, old_types = _layout(old_built, old_state)
        qs, nq, us, nu, types = _layout(built, state)
    except SimTKError:  # (a State without its layout: nothing carried)
        return
    old_names = old_built.body_name_of_index
    position = dict(zip(old_names, range(len(old_names)), strict=True))
    names = list(built.body_name_of_index[1 : len(nq)])
    names += [None] * (len(nq) - 1 - len(names))  # (bodies without a name: none found)
    # each body's index in the old model (0: not there)
    found = np.fromiter(
        map(position.get, names, itertools.repeat(0)), dtype=np.intp, count=len(names)
    )
    new_b = np.flatnonzero((found > 0) & (found < len(old_nq))) + 1
    if not len(new_b):
        return
    old_b = found[new_b - 1]
    same_type = types[new_b] == old_types[old_b]
    with_q = same_type & (nq[new_b] == old_nq[old_b])
    with_u = nu[new_b] == old_nu[old_b]
    q = np.array(state.getQ())
    q[slots(qs[new_b[with_q]], nq[new_b[with_q]])] = np.asarray(old_state.getQ())[
        slots(old_qs[old_b[with_q]], old_nq[old_b[with_q]])
    ]
    u = np.array(state.getU())
    u[slots(us[new_b[with_u]], nu[new_b[with_u]])] = np.asarray(old_state.getU())[
        slots(old_us[old_b[with_u]], old_nu[old_b[with_u]])
    ]
    state.setQ(q)
    state.setU(u)
