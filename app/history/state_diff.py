"""Differences between two recorded States, variable by variable, largest first."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.history.state_record import StateRecord
from app.history.value_codec import decode, leaves


@dataclass(frozen=True)
class DiffRow:
    """One state variable (or one element of it) whose value differs between two records.

    Values are numbers, or for discrete variables also bools, strings or None. ``group``
    says where the value lives: "state" for t, q, u and z, a subsystem's name for its
    discrete variables and cache entries, "derived" for quantities computed from the State
    (body poses and velocities in Ground, energies, constraint errors)."""

    name: str
    value_a: Any
    value_b: Any
    group: str = "state"

    @property
    def difference(self) -> float | None:
        """value_b - value_a for numbers; None for values that are not numbers."""
        if _is_number(self.value_a) and _is_number(self.value_b):
            return self.value_b - self.value_a
        return None


def _is_number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def _size(row: DiffRow) -> float:
    """Sort key: a change that is not numeric (a switch, a lock) counts as the largest."""
    d = row.difference
    return math.inf if d is None else abs(d)


def _rows(name: str, a: np.ndarray, b: np.ndarray, labels=None) -> list[DiffRow]:
    a, b = np.ravel(a), np.ravel(b)
    if a.shape != b.shape:
        raise ValueError(f"{name} has {a.size} values in one record and {b.size} in the other")
    rows = []
    for k in np.flatnonzero(a != b):
        label = labels[k] if labels is not None and k < len(labels) else f"{name}[{k}]"
        rows.append(DiffRow(label, float(a[k]), float(b[k])))
    return rows


def value_rows(name: str, value_a: Any, value_b: Any, group: str) -> list[DiffRow]:
    """Rows for the scalars that differ between two values of one variable or cache entry
    (one row for the whole value when their shapes differ)."""
    leaves_a, leaves_b = leaves(value_a, name), leaves(value_b, name)
    if [p for p, _ in leaves_a] != [p for p, _ in leaves_b]:
        return [DiffRow(name, repr(value_a), repr(value_b), group)]
    return [
        DiffRow(path, va, vb, group)
        for (path, va), (_, vb) in zip(leaves_a, leaves_b, strict=True)
        if not _same(va, vb)
    ]


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b) or (a != a and b != b)  # NaN equals NaN here
    except Exception:  # noqa: BLE001 - values that cannot be compared count as different
        return False


def diff_records(
    a: StateRecord, b: StateRecord, q_labels=None, u_labels=None, subsystem_names=None
) -> list[DiffRow]:
    """Every variable whose value differs between ``a`` and ``b``, sorted by the size of the
    difference (largest first). ``q_labels``/``u_labels`` name the coordinates and
    ``subsystem_names`` (index -> name) the discrete variables' groups, if given."""
    rows = [] if a.t == b.t else [DiffRow("t", a.t, b.t)]
    groups = subsystem_names or {}
    rows += _rows("q", a.q, b.q, q_labels)
    rows += _rows("u", a.u, b.u, u_labels)
    rows += _rows("z", a.z, b.z)
    for (sub, _, name, text_a), (_, _, name_b, text_b) in zip(a.discrete, b.discrete, strict=True):
        if name != name_b:
            raise ValueError("the records belong to different models")
        if text_a != text_b:
            group = groups.get(sub, f"subsystem {sub}")
            rows += value_rows(name, decode(text_a), decode(text_b), group)
    rows.sort(key=_size, reverse=True)
    return rows
