"""State's value setters (setQ, setU, setZ, setY) and setTime refuse a string, None, ragged
nesting, complex, boolean, string or object values and the wrong shape with
InvalidArgumentError naming the setter, and change nothing; lists, tuples, float32 and integer
arrays set the same values as float64 (issue 22)."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.common import build_ours, chain_links
from engine import InvalidArgumentError, Stage
from tests.engine.test_matter_operator_arguments import _fingerprint

SETTERS = ("setQ", "setU", "setY")


@pytest.fixture(scope="module")
def model():
    system, matter = build_ours(chain_links(3, "ball"))
    state = system.realizeTopology()
    system.realize(state, Stage.Acceleration)
    return system, state


def _size(state, setter: str) -> int:
    return {"setQ": state.getNQ(), "setU": state.getNU(), "setY": state.getNY()}[setter]


def _bad(n: int) -> dict:
    return {
        "string": "abc",
        "None": None,
        "ragged": [[1.0, 2.0], [3.0]],
        "wrong_length": np.zeros(n + 1),
        "extra_dimension": np.zeros((n, 1)),
        "complex": np.zeros(n, dtype=np.complex128),
        "bool": np.zeros(n, dtype=bool),
        "strings": np.full(n, "1.0"),
        "objects": np.full(n, None, dtype=object),
        "nan": np.full(n, np.nan),
    }


@pytest.mark.parametrize("setter", SETTERS)
@pytest.mark.parametrize("bad", list(_bad(1)))
def test_a_bad_vector_is_refused_and_changes_nothing(model, setter, bad):
    system, state = model
    work = state.copy()
    system.realize(work, Stage.Acceleration)
    before = _fingerprint(work)
    with pytest.raises(InvalidArgumentError, match=setter):
        getattr(work, setter)(_bad(_size(work, setter))[bad])
    assert _fingerprint(work) == before


@pytest.mark.parametrize("setter", SETTERS)
def test_every_valid_form_sets_the_float64_values(model, setter):
    system, state = model
    n = _size(state, setter)
    values = np.arange(n, dtype=np.float64) % 3 - 1.0
    for form in (values.tolist(), tuple(values.tolist()), values.astype(np.float32),
                 values.astype(np.int64), np.repeat(values, 2)[::2]):  # fmt: skip
        work = state.copy()
        getattr(work, setter)(form)
        got = {"setQ": work.getQ, "setU": work.getU, "setY": work.getY}[setter]()
        np.testing.assert_array_equal(got, values)


@pytest.mark.parametrize("bad", ["abc", None, [1.0], np.zeros(2), 1j, np.nan])
def test_set_time_refuses_anything_but_one_finite_number(model, bad):
    system, state = model
    work = state.copy()
    before = work.getTime()
    with pytest.raises(InvalidArgumentError, match="setTime"):
        work.setTime(bad)
    assert work.getTime() == before
    work.setTime(np.float32(0.5))
    work.setTime(2)
    assert work.getTime() == 2.0
