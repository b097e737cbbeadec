"""Load the Simbody 3.7 reference cases (/work/shared/reference, beside the repository).

CI clones the repository with ``shared/`` next to it, so the directory is found relative to
this file: ``<repo>/../shared/reference``. Non-finite numbers, written in the JSON as the
strings "Infinity", "-Infinity" and "NaN", are converted to floats on load.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np

REFERENCE_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "reference"

_NON_FINITE = {"Infinity": np.inf, "-Infinity": -np.inf, "NaN": np.nan}


def _convert(obj):
    if isinstance(obj, str):
        return _NON_FINITE.get(obj, obj)
    if isinstance(obj, list):
        return [_convert(v) for v in obj]
    if isinstance(obj, dict):
        return {k: _convert(v) for k, v in obj.items()}
    return obj


def reference_path(name: str) -> Path:
    """Path of reference case ``name`` ("chain_mixed" or "chain_mixed.json")."""
    stem = name[:-5] if name.endswith(".json") else name
    return REFERENCE_DIR / f"{stem}.json"


@functools.cache
def _load_cached(name: str):
    with reference_path(name).open() as f:
        return _convert(json.load(f))


def load_reference(name: str) -> dict:
    """The parsed reference case ``name``, with "Infinity"/"NaN" strings turned into floats.

    The parsed file is cached; treat the returned object as read-only.
    """
    return _load_cached(name)


def reference_available(name: str) -> bool:
    return reference_path(name).is_file()


def decode_transform(t) -> tuple[np.ndarray, np.ndarray]:
    """(R (3x3), p (3,)) from the JSON form {"R": 9 numbers row-major, "p": 3 numbers}."""
    R = np.asarray(t["R"], dtype=np.float64).reshape(3, 3)
    p = np.asarray(t["p"], dtype=np.float64).reshape(3)
    return R, p


def model_by_name(case: dict, name: str) -> dict:
    """The model entry called ``name`` in a loaded case."""
    for m in case["models"]:
        if m["name"] == name:
            return m
    raise KeyError(name)


def sample_cases(name: str) -> list[tuple[str, int]]:
    """(model name, sample index) of every sample of reference case ``name`` (none when the
    file is absent), for pytest.mark.parametrize."""
    if not reference_available(name):
        return []
    return [
        (m["name"], k) for m in load_reference(name)["models"] for k in range(len(m["samples"]))
    ]


def sample_index_cases(name: str) -> list:
    """pytest params (model index, sample index), id "<model name>-<sample index>", of every
    sample of reference case ``name`` (none when the file is absent)."""
    import pytest

    if not reference_available(name):
        return []
    return [
        pytest.param(mi, si, id=f"{m['name']}-{si}")
        for mi, m in enumerate(load_reference(name)["models"])
        for si in range(len(m["samples"]))
    ]
