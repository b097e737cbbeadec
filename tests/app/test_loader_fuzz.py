"""Fuzz the model loader and builder (issue 22): example files with leaf values replaced by
hostile ones (huge integers, non-finite floats, strings, lone surrogates, nested lists,
deleted keys) either load and build, or are refused with ModelFileError / BuildError.
Nothing else may escape: no OverflowError, RecursionError, TypeError, LinAlgError, warning."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.document.builder import BuildError, build
from app.document.model_io import ModelFileError, loads

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"
TEXTS = {p.name: p.read_text() for p in sorted(EXAMPLES.glob("*.mbs.json"))}

hostile = st.one_of(
    st.integers(min_value=-(10**400), max_value=10**400),
    st.sampled_from([0, -1, 1, 2**63, 10**309, -(10**309)]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 1e308, -1e308, 1e-320, 1e154, float("inf"), float("nan")]),
    st.text(max_size=8),
    st.sampled_from(["", " ", "Ground", "\ud800", "abc", "Pin", "link"]),
    st.none(),
    st.booleans(),
    st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=8),
    st.recursive(st.just(1.0), lambda inner: st.lists(inner, max_size=2), max_leaves=40),
    st.dictionaries(st.text(max_size=4), st.floats(), max_size=3),
)


def _places(node, path=()):
    """Every (container path, key) in a JSON tree, containers included."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield path, key
            yield from _places(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield path, i
            yield from _places(value, (*path, i))


mutation = st.tuples(st.integers(min_value=0), st.booleans(), hostile)


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(name=st.sampled_from(sorted(TEXTS)), mutations=st.lists(mutation, min_size=1, max_size=4))
def test_mutated_example_files_load_and_build_or_are_refused(name, mutations):
    raw = json.loads(TEXTS[name])
    for pick, delete, value in mutations:
        places = list(_places(raw["model"]))
        path, key = places[pick % len(places)]
        container = raw["model"]
        for step in path:
            container = container[step]
        if delete and isinstance(container, dict):
            del container[key]
        else:
            container[key] = value
    text = json.dumps(raw)
    try:
        document = loads(text)
    except ModelFileError as exc:
        assert exc.field and exc.message
        return
    try:
        build(document)
    except BuildError as exc:
        assert str(exc)
