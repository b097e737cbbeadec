"""Exact text form of discrete-variable values, for recordings.

A discrete variable may hold a number, a bool, None, a string, a numpy array, or a dict, list,
tuple or frozenset of those (the engine's gravity parameters are a dict holding an array and
a frozenset, for instance). ``encode`` writes such a value as canonical JSON text that
``decode`` turns back into an equal value of the same types; floats survive bit for bit
(Python writes the shortest repr that reads back exactly). ``leaves`` lists the scalar leaves
with their paths, for diffs.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np


class ValueCodecError(TypeError):
    """A value holds something a recording cannot keep."""


def _float(x: float) -> Any:
    if math.isfinite(x):
        return x
    return {"float": repr(x)}  # 'nan', 'inf', '-inf'


def _to_json(value: Any) -> Any:
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        return _float(float(value))
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "biuf":
            raise ValueCodecError(f"an array of {value.dtype} cannot be recorded")
        flat = [_to_json(x) for x in value.ravel().tolist()]
        return {"array": value.dtype.str, "shape": list(value.shape), "data": flat}
    if isinstance(value, dict):
        return {"dict": [[_to_json(k), _to_json(v)] for k, v in value.items()]}
    if isinstance(value, list):
        return {"list": [_to_json(v) for v in value]}
    if isinstance(value, tuple):
        return {"tuple": [_to_json(v) for v in value]}
    if isinstance(value, frozenset | set):
        items = sorted((_to_json(v) for v in value), key=lambda e: json.dumps(e, sort_keys=True))
        return {"frozenset" if isinstance(value, frozenset) else "set": items}
    raise ValueCodecError(f"a {type(value).__name__} cannot be recorded")


def _from_json(data: Any) -> Any:
    if not isinstance(data, dict):
        return data
    if "float" in data:
        return float(data["float"])
    if "array" in data:
        flat = [_from_json(x) for x in data["data"]]
        return np.array(flat, dtype=np.dtype(data["array"])).reshape(data["shape"])
    if "dict" in data:
        return {_hashable(_from_json(k)): _from_json(v) for k, v in data["dict"]}
    if "list" in data:
        return [_from_json(v) for v in data["list"]]
    if "tuple" in data:
        return tuple(_from_json(v) for v in data["tuple"])
    if "frozenset" in data:
        return frozenset(_hashable(_from_json(v)) for v in data["frozenset"])
    if "set" in data:
        return {_hashable(_from_json(v)) for v in data["set"]}
    raise ValueCodecError(f"unknown recorded value {data!r}")


def _hashable(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def encode(value: Any) -> str:
    """Canonical JSON text of ``value``; raises ValueCodecError for unsupported contents."""
    return json.dumps(_to_json(value), separators=(",", ":"), allow_nan=False)


def decode(text: str) -> Any:
    """The value ``encode`` wrote."""
    try:
        return _from_json(json.loads(text))
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueCodecError(f"not a recorded value: {exc}") from exc


def leaves(value: Any, path: str, depth: int = 0) -> list[tuple[str, Any]]:
    """(path, scalar) for every scalar inside ``value``; arrays give one leaf per element,
    objects one per attribute (to a depth of six, then their repr)."""
    if depth > 6:
        return [(path, repr(value))]
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            return [(path, value.item())]
        return [(f"{path}[{k}]", x) for k, x in enumerate(value.ravel().tolist())]
    if isinstance(value, dict):
        out = []
        for k, v in value.items():
            out += leaves(v, f"{path}.{k}", depth + 1)
        return out
    if isinstance(value, list | tuple):
        out = []
        for k, v in enumerate(value):
            out += leaves(v, f"{path}[{k}]", depth + 1)
        return out
    if isinstance(value, frozenset | set):
        return [(path, repr(sorted(value, key=repr)))]
    if value is None or isinstance(value, bool | int | float | str | np.generic):
        return [(path, value.item() if isinstance(value, np.generic) else value)]
    for attribute in ("asVec3", "toMat44", "asMat33"):  # engine math values (Vec3, X, R)
        convert = getattr(value, attribute, None)
        if callable(convert):
            return leaves(np.asarray(convert(), dtype=float), path)
    attributes = getattr(value, "__dict__", None)
    if isinstance(attributes, dict) and attributes:
        return leaves(attributes, path, depth + 1)
    return [(path, repr(value))]
