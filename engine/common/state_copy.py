"""Fast deep copies of what a subsystem keeps in a State (``PerSubsystemInfo.copy``).

A State copy has deep-copy semantics (spec State.txt: "creates a new copy of the source
object, not a reference to the original object"): nothing the copy holds may change when
the source changes, and vice versa. ``copy.deepcopy`` gives that but walks every object
generically, which is slow for a multibody State. Here the same result is built
directly:

* numpy arrays by ``ndarray.copy()``;
* lists, dicts, tuples and (non-frozen) dataclass instances element by element;
* immutable values (numbers, strings, None, enum members such as Stage, frozen keys, pool
  allocation records, and values of classes declared ``shared_when_copied`` because they
  are never changed once made) are shared, as deepcopy shares atomic values;
* anything else (a user's own object as a discrete-variable value) goes to
  ``copy.deepcopy`` with the same memo, so its own ``__deepcopy__`` is honoured.

One memo per subsystem copy keeps aliasing inside it (two cache values holding the same
array still share one array in the copy), as a single deepcopy of the subsystem did.
"""

from __future__ import annotations

import copy as _copy
import dataclasses
from enum import Enum
from typing import Any

import numpy as np

from engine.common.cache_entry import (
    CacheEntryInfo,
    CacheEntryKey,
    DiscreteVarInfo,
    DiscreteVarKey,
)

#: Types whose values are never mutated in place: shared by a copy.
_ATOMIC: set[type] = {
    int,
    float,
    bool,
    complex,
    str,
    bytes,
    type(None),
    range,
    CacheEntryKey,
    DiscreteVarKey,
}


def shared_when_copied(cls: type) -> type:
    """Class decorator: a State copy shares values of ``cls`` instead of copying them. For
    values that are never changed once made (a subsystem replaces such a value by a new
    one instead of writing into it), e.g. the layouts computed at Instance stage."""
    _ATOMIC.add(cls)
    return cls


#: Dataclass types copied field by field (their __dict__), per type: True/False.
_PLAIN_DATACLASS: dict[type, bool] = {}


_COPY_HOOKS = ("__deepcopy__", "__reduce__", "__reduce_ex__", "__getstate__", "__setstate__")


def _is_plain_dataclass(cls: type) -> bool:
    """A non-frozen dataclass without its own copy hooks, slots or custom pickling."""
    known = _PLAIN_DATACLASS.get(cls)
    if known is None:
        known = (
            dataclasses.is_dataclass(cls)
            and not cls.__dataclass_params__.frozen
            and "__slots__" not in cls.__dict__
            and not any(
                getattr(cls, hook, None) is not getattr(object, hook, None) for hook in _COPY_HOOKS
            )
        )
        _PLAIN_DATACLASS[cls] = known
    return known


def copy_value(value: Any, memo: dict) -> Any:
    """A deep copy of ``value`` (see module docstring); ``memo`` maps id -> copy."""
    cls = type(value)
    if cls is np.ndarray:  # the commonest value: first
        key = id(value)
        out = memo.get(key)
        if out is None:
            out = memo[key] = value.copy()
        return out
    if cls in _ATOMIC:
        return value
    found = memo.get(id(value))
    if found is not None:
        return found
    if cls is list:
        out = []
        memo[id(value)] = out
        out.extend([copy_value(v, memo) for v in value])
        return out
    elif cls is tuple:
        if _ATOMIC.issuperset(map(type, value)):
            return value  # (immutable items: the tuple is immutable, e.g. 20,000 body locks)
        items = [copy_value(v, memo) for v in value]
        if all(a is b for a, b in zip(items, value, strict=True)):
            return value  # a tuple of shared (immutable) items is itself immutable
        out = tuple(items)
    elif cls is dict:
        out = {}
        memo[id(value)] = out
        for k, v in value.items():
            out[copy_value(k, memo)] = copy_value(v, memo)
        return out
    elif isinstance(value, Enum):
        return value
    elif _is_plain_dataclass(cls):
        out = cls.__new__(cls)
        memo[id(value)] = out
        out.__dict__.update({k: copy_value(v, memo) for k, v in value.__dict__.items()})
        return out
    else:
        return _copy.deepcopy(value, memo)
    memo[id(value)] = out  # (the originals stay alive in the source State meanwhile)
    return out


def copy_cache_entry(ce: CacheEntryInfo, memo: dict) -> CacheEntryInfo:
    """A copy of a cache entry's bookkeeping with its own value and dependents list."""
    out = object.__new__(CacheEntryInfo)
    d = dict(ce.__dict__)
    d["value"] = copy_value(ce.value, memo)
    d["dependents"] = list(ce.dependents)
    out.__dict__.update(d)
    return out


def copy_discrete_variable(dv: DiscreteVarInfo, memo: dict) -> DiscreteVarInfo:
    """A copy of a discrete variable's bookkeeping with its own value and dependents list."""
    out = object.__new__(DiscreteVarInfo)
    d = dict(dv.__dict__)
    d["value"] = copy_value(dv.value, memo)
    d["dependents"] = list(dv.dependents)
    out.__dict__.update(d)
    return out
