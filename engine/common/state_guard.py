"""Refusing a State made for another System (or an earlier topology of this one).

Every State a System makes carries the System's :class:`TopologyKey`; the System makes a new
key whenever its topology changes. A public method that takes a State checks, before it reads
anything from the State, that the State's key *is* its System's current key: one identity test.
:func:`guard_state_methods` adds that check to every public method of a class whose first
argument after ``self`` is ``state`` (except the ``*Impl`` hooks of the System protocol,
which only a System calls, after checking the State itself).

Compiled code cannot make that identity test, so every new key (a System's after a
topology change or a version override, a State's after ``setSystemTopologyStageVersion``)
also counts in ``TOPOLOGY_EPOCH``, one process-wide int64: a check confirmed while it held
a value stays confirmed, as far as topology goes, while it still holds that value (the
matter operators' compiled check, docs/kernel-layout.md).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

#: the number of TopologyKeys made in this process (see the module docstring); compiled
#: code reads it through a kernel table
TOPOLOGY_EPOCH = np.zeros(1, dtype=np.int64)


@dataclass(frozen=True, eq=False)
class TopologyKey:
    """Which System (name, process-wide serial) and topology version a State was made for."""

    system_name: str
    serial: int
    version: int

    def __post_init__(self) -> None:
        TOPOLOGY_EPOCH[0] += 1


def _guarded(fn: Callable, where: str, system_of: Callable) -> Callable:
    @functools.wraps(fn)
    def guarded(self, state, *args, **kwargs):
        system = system_of(self)
        if system is not None and getattr(state, "_topology_key", None) is not (
            system._topology_key
        ):
            system._check_state(state, where)
        return fn(self, state, *args, **kwargs)

    guarded._guards_state = True  # type: ignore[attr-defined]
    return guarded


def guard_state_methods(cls: type, system_of: Callable, own_only: bool = False) -> None:
    """Wrap each public method of ``cls`` whose second parameter is ``state`` so that it raises
    TopologyMismatchError (via ``System._check_state``) for a State of another System or
    topology. ``system_of(obj)`` returns the System an instance belongs to (None: not yet in
    one, no check). With ``own_only`` only methods defined in ``cls`` itself are wrapped."""
    names = list(vars(cls)) if own_only else dir(cls)
    for name in names:
        if name.startswith("_") or name.endswith("Impl"):
            continue
        raw = inspect.getattr_static(cls, name)
        if isinstance(raw, (staticmethod, classmethod, property)):
            continue
        fn = getattr(cls, name)
        if not inspect.isfunction(fn) or getattr(fn, "_guards_state", False):
            continue
        try:
            params = list(inspect.signature(fn).parameters)
        except (TypeError, ValueError):
            continue
        if len(params) >= 2 and params[1] == "state":
            setattr(cls, name, _guarded(fn, f"{cls.__name__}.{name}", system_of))
