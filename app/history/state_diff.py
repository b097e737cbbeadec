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

    Values are numbers, or for discrete variables also bools, strings or None."""

    name: str
    value_a: Any
    value_b: Any

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


def diff_records(a: StateRecord, b: StateRecord, q_labels=None, u_labels=None) -> list[DiffRow]:
    """Every variable whose value differs between ``a`` and ``b``, sorted by the size of the
    difference (largest first). ``q_labels``/``u_labels`` name the coordinates if given."""
    rows = [] if a.t == b.t else [DiffRow("t", a.t, b.t)]
    rows += _rows("q", a.q, b.q, q_labels)
    rows += _rows("u", a.u, b.u, u_labels)
    rows += _rows("z", a.z, b.z)
    for (_, _, name, text_a), (_, _, name_b, text_b) in zip(a.discrete, b.discrete, strict=True):
        if name != name_b:
            raise ValueError("the records belong to different models")
        if text_a == text_b:
            continue
        leaves_a, leaves_b = leaves(decode(text_a), name), leaves(decode(text_b), name)
        if [p for p, _ in leaves_a] != [p for p, _ in leaves_b]:
            rows.append(DiffRow(name, text_a, text_b))
            continue
        for (path, va), (_, vb) in zip(leaves_a, leaves_b, strict=True):
            if va != vb:
                rows.append(DiffRow(path, va, vb))
    rows.sort(key=_size, reverse=True)
    return rows
