"""The State's books as one int64 array, and the compiled functions that keep them.

A State (``engine.common.state``) keeps, besides its values, which stage the System and
its subsystems are realized to and a version per stage that changes whenever the stage
is invalidated (docs/state-books.md). The parts of those books that the hot paths touch
(``setQ``/``setU`` and the fused realization) live in one small int64 array, so that a
compiled function can read and write them without Python:

==================  =====================================================================
slot                meaning
==================  =====================================================================
``SYSTEM_STAGE``    the System's stage (an int, ``Stage`` value)
``LOCKSTEP``        the stage every subsystem is at while the State keeps them in
                    lockstep, or -1 (each subsystem's own record counts)
``SERIAL``          the serial of the last invalidation (only increases)
``Q_VERSION`` ..    value versions of q, u and z (``getQValueVersion`` ...)
``SYSTEM_VERSIONS`` 11 slots: the System's stage versions
``SHARED_VERSIONS`` 11 slots: the versions given to every subsystem at once in lockstep
``CAUSES``          11 slots: what last invalidated each System stage, as a code of
                    ``cause_code`` (the text is ``cause_text(code)``)
``ENTRY_EDITS``     counts every change of a cache entry's validity or cause
``WALKS_EDITS``     ``ENTRY_EDITS`` when the value dependents' walks were last made
``WALKS_KEY``       which walks those were (``walks_key``), or -1 (none recorded)
``NQ``, ``NU``, ..  the number of q, u and z (0 before Model stage; ``setter_span``)
``INSTANCE_SERIAL`` changes whenever what a State keeps fixed while its Instance stage
                    stays valid may have changed: a discrete variable's value, Instance
                    or an earlier stage invalidated, the Instance arrays (yerr ...)
                    allocated (the fused realization's plan is valid while it is unchanged)
==================  =====================================================================

Python reads and writes the array through a ``memoryview`` (an item read is a Python
int, faster than a numpy scalar). ``enter_lockstep`` is the one implementation of entering
the lockstep after a kernel realized every subsystem (the fused realization's compiled
entry calls it, ``State._enter_lockstep`` runs its Python function).
``invalidate_in_lockstep`` is the one implementation of an invalidation in lockstep:
``State._invalidate`` calls it, and so does ``store_if_finite``, which is a setter's whole
work (checked copy, invalidation, value version, and whether the walks over the entries
depending on the values can be skipped) in one call, its part of y found from the sizes
in the books (``setter_span``). ``value_walks_done`` is the one rule for that skip:
compiled inside ``store_if_finite``, and its Python function for
``State._invalidate_value_dependents``. With NUMBA_DISABLE_JIT they run as Python on the
same arrays.
"""

from __future__ import annotations

import math

import numpy as np
from numba import types

from engine.common.numba_internals import kernel_jit, signature_entry_point

SYSTEM_STAGE = 0
LOCKSTEP = 1
SERIAL = 2
Q_VERSION, U_VERSION, Z_VERSION = 3, 4, 5
SYSTEM_VERSIONS = 6
SHARED_VERSIONS = SYSTEM_VERSIONS + 11
CAUSES = SHARED_VERSIONS + 11
ENTRY_EDITS = CAUSES + 11
WALKS_EDITS = ENTRY_EDITS + 1
WALKS_KEY = WALKS_EDITS + 1
NQ, NU, NZ = WALKS_KEY + 1, WALKS_KEY + 2, WALKS_KEY + 3
INSTANCE_SERIAL = NZ + 1
SIZE = INSTANCE_SERIAL + 1

#: a State's value setters, by index (``store_if_finite``'s ``which``)
SET_Q, SET_U, SET_Z, SET_Y = 0, 1, 2, 3
SETTER_NAMES = ("setQ", "setU", "setZ", "setY")
#: the stage each setter invalidates from: Position, Velocity, Dynamics, Position
SETTER_STAGES = (5, 6, 7, 5)
#: the value versions each setter counts: the slots SETTER_VERSIONS_FROM..SETTER_VERSIONS_TO
SETTER_VERSIONS_FROM = (Q_VERSION, U_VERSION, Z_VERSION, Q_VERSION)
SETTER_VERSIONS_TO = (Q_VERSION, U_VERSION, Z_VERSION, Z_VERSION)
#: each setter's invalidation cause code (its name, coded first: see ``cause_code``)
SETTER_CAUSES = (1, 2, 3, 4)

_REFUSED = -1
#: store_if_finite's results: copied, and the invalidation still has to be done in
#: Python (the State is not in lockstep) / copied and invalidated; WALKS_DONE is added
#: when the value dependents' walks can be skipped (``value_walks_done``)
STORED, STORED_AND_INVALIDATED, WALKS_DONE = 0, 1, 2


def new_books() -> np.ndarray:
    """The books of an empty State: Empty stage, not in lockstep, every version 1 (the
    serial of no invalidation yet), value versions 0, no causes."""
    books = np.zeros(SIZE, dtype=np.int64)
    books[LOCKSTEP] = -1
    books[SERIAL] = 1
    books[SYSTEM_VERSIONS:CAUSES] = 1
    books[WALKS_KEY] = -1
    return books


# ----------------------------------------------------------------------- causes
_TEXTS: list[str] = ["", *SETTER_NAMES]  # the setters' causes have fixed codes
_CODES: dict[str, int] = {text: code for code, text in enumerate(_TEXTS)}
#: cause text -> code of every cause coded so far (``cause_code``'s table, for readers
#: that try it before calling ``cause_code``)
CAUSE_CODES = _CODES


def cause_code(text: str) -> int:
    """The code of an invalidation cause (``"setQ"``), made on first use."""
    code = _CODES.get(text)
    if code is None:
        code = _CODES[text] = len(_TEXTS)
        _TEXTS.append(text)
    return code


def cause_text(code: int) -> str:
    """The text of an invalidation cause code."""
    return _TEXTS[code]


# ------------------------------------------------------------ compiled bookkeeping
@kernel_jit
def invalidate_in_lockstep(books, first, cause) -> bool:
    """Invalidate stage ``first`` (an int) and every stage above it of a State whose
    subsystems are in lockstep, if it is (and ``first`` is a runtime stage after
    Instance): take a new serial; if the shared stage is at ``first`` or later, give
    every subsystem's stages ``first``.. the serial as version, the System's stages
    ``first``..shared stage too with ``cause``, and back the System and the shared stage
    up to ``first - 1``. False (nothing done) if the State is not in lockstep."""
    common = books[LOCKSTEP]
    if common < 0 or first <= 3:
        return False
    serial = books[SERIAL] + 1
    books[SERIAL] = serial
    if common >= first:
        for k in range(first, 11):
            books[SHARED_VERSIONS + k] = serial
        for k in range(first, common + 1):
            books[SYSTEM_VERSIONS + k] = serial
            books[CAUSES + k] = cause
        books[LOCKSTEP] = first - 1
        books[SYSTEM_STAGE] = first - 1
    return True


@kernel_jit
def enter_lockstep(books, stage) -> None:
    """Every subsystem and the System are now at ``stage`` (a runtime stage, an int),
    which one kernel realized for all of them: the shared stage and the System's stage
    become ``stage`` (see SharedStage)."""
    books[LOCKSTEP] = stage
    books[SYSTEM_STAGE] = stage


@kernel_jit
def walks_key(first, last, code) -> int:
    """The key of the value dependents' walks for the value versions ``first..last``
    (slots Q_VERSION..Z_VERSION) made stale with the cause ``code``."""
    return (code * 8 + first) * 8 + last


@kernel_jit
def value_walks_done(books, key) -> bool:
    """True if the walks ``key`` (``walks_key``) over the cache entries depending on q, u
    or z were the last ones made and no cache entry's validity or cause changed since:
    making them again would leave every entry as it is."""
    return books[WALKS_KEY] == key and books[WALKS_EDITS] == books[ENTRY_EDITS]


@kernel_jit
def setter_span(books, which):
    """(start, size): the part of y = [q, u, z] the setter ``which`` (``SET_Q`` ..
    ``SET_Y``) sets, from the sizes in the books."""
    nq, nu, nz = books[NQ], books[NU], books[NZ]
    if which == SET_Q:
        return 0, nq
    if which == SET_U:
        return nq, nu
    if which == SET_Z:
        return nq + nu, nz
    return 0, nq + nu + nz


@kernel_jit
def store_if_finite(src, dst, books, which):
    """The work of the setter ``which`` (``SET_Q`` .. ``SET_Y``): if the State is at
    Model stage or later and the float64 vector ``src`` has the length of the setter's
    part of y (``setter_span``), all finite, copy it there in ``dst`` (y), count a new
    value of q, u and/or z (the value versions ``SETTER_VERSIONS_FROM[which]`` ..
    ``SETTER_VERSIONS_TO[which]``) and invalidate from ``SETTER_STAGES[which]`` if the
    State is in lockstep (``invalidate_in_lockstep``, cause ``SETTER_CAUSES[which]``).
    Returns ``STORED_AND_INVALIDATED``, ``STORED`` when the invalidation is left to the
    caller (the State is not in lockstep), plus ``WALKS_DONE`` when the walks
    ``walks_key(versions from, versions to, cause)`` need not be made again
    (``value_walks_done``), or a negative number when nothing changed (stage too low,
    wrong length, an element not finite)."""
    if books[SYSTEM_STAGE] < 2:
        return _REFUSED
    start, size = setter_span(books, which)
    versions_from, versions_to = SETTER_VERSIONS_FROM[which], SETTER_VERSIONS_TO[which]
    first, cause = SETTER_STAGES[which], SETTER_CAUSES[which]
    n = src.shape[0]
    if n != size:
        return _REFUSED
    for i in range(n):
        if not math.isfinite(src[i]):
            return _REFUSED
    for i in range(n):
        dst[start + i] = src[i]
    for k in range(versions_from, versions_to + 1):
        books[k] += 1
    done = STORED
    if invalidate_in_lockstep(books, first, cause):
        done = STORED_AND_INVALIDATED
    if value_walks_done(books, walks_key(versions_from, versions_to, cause)):
        done += WALKS_DONE
    return done


_VECTOR = types.Array(types.float64, 1, "A")  # any stride
_BOOKS = types.Array(types.int64, 1, "C")
_entries: dict[str, object] = {}


def _entry(name: str):
    """The compiled entry point of one of the functions above (the function itself with
    the JIT off): no numba type resolution per call."""
    fn = _entries.get(name)
    if fn is None:
        if name == "store":
            sig = (_VECTOR, _VECTOR, _BOOKS, types.int64)
            fn = signature_entry_point(store_if_finite, sig)
        else:
            sig = (_BOOKS, types.int64, types.int64)
            fn = signature_entry_point(invalidate_in_lockstep, sig)
        _entries[name] = fn
    return fn


def python_function(fn):
    """The Python function of one of the compiled functions above (for Python callers
    whose books are a memoryview: no numba dispatch)."""
    return getattr(fn, "py_func", fn)


def lockstep_invalidator():
    """``invalidate_in_lockstep`` through its compiled entry point."""
    return _entry("invalidate")


def value_store():
    """``store_if_finite`` through its compiled entry point (for 1-D float64 arrays
    ``src`` and ``dst`` of any stride, the books array and a setter index: the caller
    checks that they are, the entry point does not)."""
    return _entry("store")
