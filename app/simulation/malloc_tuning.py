"""glibc malloc kept from handing a large model's freed memory back to the system at once.

A structural edit of a large model builds a new System and State (tens of MB of NumPy
arrays) while the model it replaces is freed. By
default glibc's malloc returns that freed memory to the system: blocks above
``M_MMAP_THRESHOLD`` are separate mappings unmapped when freed, and free memory at the top
of a heap above ``M_TRIM_THRESHOLD`` is trimmed. Every page of the next State is then fresh
memory, and the first write to each costs a page fault (a kernel entry that zeroes the page),
which on a busy machine costs more than the copy or realization that writes it.

``keep_freed_memory()`` raises both thresholds (``mallopt``), so that arrays up to
``MMAP_THRESHOLD`` bytes come from the heap and up to ``TRIM_THRESHOLD`` bytes of freed heap
stay mapped for the next State to reuse, and makes one arena (``M_ARENA_MAX``: the worker
thread's allocations land in the heap the GUI thread's frees go to, and the other way).
What the heap keeps beyond what is in use is at most ``TRIM_THRESHOLD`` plus fragmentation;
``malloc_trim(0)`` still hands every free page back.

Linux with glibc only: elsewhere (no ``mallopt`` in the C library) it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading

#: mallopt's parameter numbers (glibc's malloc.h).
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8

#: Bytes: blocks at least this large are mapped apart (and unmapped when freed). glibc's
#: largest accepted value on 64-bit systems (HEAP_MAX_SIZE / 2).
MMAP_THRESHOLD = 32 * 2**20
#: Bytes of free memory at the top of a heap kept mapped before it is trimmed.
TRIM_THRESHOLD = 256 * 2**20
#: Arenas malloc may make (one: every thread allocates from the main heap).
ARENA_MAX = 1

_lock = threading.Lock()
_applied: dict[int, int] | None = None


def _mallopt() -> ctypes._CFuncPtr | None:  # type: ignore[name-defined]
    """glibc's ``int mallopt(int param, int value)``, or None where the C library has none."""
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        function = ctypes.CDLL(name).mallopt
    except (OSError, AttributeError):
        return None
    function.argtypes = (ctypes.c_int, ctypes.c_int)
    function.restype = ctypes.c_int
    return function


def keep_freed_memory() -> dict[int, int]:
    """Set malloc's thresholds (once a process; later calls return the first call's result).

    Returns the parameters set, by mallopt parameter number (empty where mallopt is missing
    or refused them all)."""
    global _applied
    with _lock:
        if _applied is None:
            mallopt = _mallopt()
            applied: dict[int, int] = {}
            if mallopt is not None:
                for param, value in (
                    (M_MMAP_THRESHOLD, MMAP_THRESHOLD),
                    (M_TRIM_THRESHOLD, TRIM_THRESHOLD),
                    (M_ARENA_MAX, ARENA_MAX),
                ):
                    if mallopt(param, value) == 1:  # 1: accepted, 0: refused
                        applied[param] = value
            _applied = applied
        return dict(_applied)
