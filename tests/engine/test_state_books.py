"""The State's books in one int64 array (engine.common.state_books): what the setters and
the fused realization record there is what Simbody's rules say, the compiled functions and
their Python source agree, refusals change nothing, and the books work with the JIT off."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from engine import Stage
from engine.common import state_books as sb
from engine.common.exceptions import InvalidArgumentError, StageTooLowError
from tests.engine.test_matter_operator_oracles import DYNAMIC_TYPES, random_tree


def _realized(fused: bool, seed: int = 4):
    """A random tree (with its fused realization on or off), realized to Acceleration."""
    system, matter, _, _, rng = random_tree(seed, DYNAMIC_TYPES, nbodies=6)
    if not fused:
        system._fused_realization = None
    state = system.realizeTopology()
    state.setQ(rng.uniform(-0.5, 0.5, state.getNQ()))
    state.setU(rng.uniform(-1.0, 1.0, state.getNU()))
    system.realize(state, Stage.Acceleration)
    return system, matter, state, rng


def _snapshot(state) -> dict:
    n = state.getNumSubsystems()
    return {
        "stage": state.getSystemStage(),
        "subs": [state.getSubsystemStage(i) for i in range(n)],
        "versions": state.getSystemStageVersions(),
        "sub_versions": [state.getPerSubsystemInfo(i).stage_versions for i in range(n)],
        "values": (state.getQValueVersion(), state.getUValueVersion(), state.getZValueVersion()),
        "y": np.array(state.getY()),
    }


# setter, stage it backs up to, value versions it counts (q, u, z)
SETTERS = [
    ("setQ", Stage.Time, (1, 0, 0)),
    ("setU", Stage.Position, (0, 1, 0)),
    ("setZ", Stage.Velocity, (0, 0, 1)),
    ("setY", Stage.Time, (1, 1, 1)),
]


@pytest.mark.parametrize("fused", [True, False])
@pytest.mark.parametrize(("setter", "to", "counts"), SETTERS)
def test_each_setter_invalidates_exactly_what_simbody_does(fused, setter, to, counts):
    """From Acceleration: the System and every subsystem back up to ``to``; exactly the
    stages above ``to`` get new versions; the cause is the setter; the value versions of
    the variables set go up by one."""
    system, _, state, _ = _realized(fused)
    if fused:
        assert state._shared.stage == Stage.Acceleration  # one kernel realized them all
    before = _snapshot(state)
    getter = {"setQ": state.getQ, "setU": state.getU, "setZ": state.getZ, "setY": state.getY}
    values = np.array(getter[setter]()) + 0.01
    getattr(state, setter)(values)
    after = _snapshot(state)
    assert state.getSystemStage() == to
    assert after["subs"] == [min(s, to) for s in before["subs"]]
    changed = [a != b for a, b in zip(after["versions"], before["versions"][: to + 1], strict=True)]
    assert not any(changed)  # stages up to `to` keep their versions
    for k in range(to + 1, Stage.Acceleration + 1):
        assert state.getLastInvalidationCause(Stage(k)) == setter
    for old, new in zip(before["sub_versions"], after["sub_versions"], strict=True):
        assert old[: to + 1] == new[: to + 1]
        assert all(n != o for n, o in zip(new[to + 1 :], old[to + 1 :], strict=True))
    assert np.subtract(after["values"], before["values"]).tolist() == list(counts)
    # the stage-by-stage and fused paths agree on what the State then reads
    system.realize(state, Stage.Acceleration)
    assert state.getSystemStage() == Stage.Acceleration


@pytest.mark.parametrize("fused", [True, False])
def test_refused_values_change_nothing(fused):
    """Wrong length, NaN, a matrix: a typed error that says what is wrong, and the State's
    values and books are as before."""
    _, _, state, _ = _realized(fused)
    before = _snapshot(state)
    nu = state.getNU()
    bad = [
        (np.zeros(nu + 1), "length"),
        (np.full(nu, np.nan), "finite"),
        (np.zeros((nu, 1)), "length"),
        ([0.0] * (nu - 1), "length"),
    ]
    for value, words in bad:
        with pytest.raises(InvalidArgumentError, match=words):
            state.setU(value)
    after = _snapshot(state)
    assert np.array_equal(after.pop("y"), before.pop("y"))
    assert after == before
    assert state.getSystemStage() == Stage.Acceleration


def test_setters_take_lists_strided_and_read_only_vectors():
    _, _, state, _ = _realized(True)
    nu = state.getNU()
    wide = np.arange(2.0 * nu)
    state.setU(wide[::2])  # a strided view
    assert np.array_equal(state.getU(), wide[::2])
    state.setU(list(range(nu)))
    assert np.array_equal(state.getU(), np.arange(nu, dtype=float))
    view = state.getU()  # read-only
    assert not view.flags.writeable
    state.setU(view)
    assert state.getSystemStage() == Stage.Position


def test_setter_before_model_stage_names_the_stage():
    from engine.common.state import State

    state = State()
    with pytest.raises(StageTooLowError, match="Model"):
        state.setU(np.zeros(0))


def test_copy_keeps_its_own_books():
    system, _, state, _ = _realized(True)
    copy = state.copy()
    assert copy._books is not state._books
    assert copy.getSystemStage() == Stage.Instance  # valid through Instance, as Simbody
    assert state.getSystemStage() == Stage.Acceleration
    system.realize(copy, Stage.Acceleration)
    copy.setU(np.array(copy.getU()) + 1.0)
    assert copy.getSystemStage() == Stage.Position
    assert state.getSystemStage() == Stage.Acceleration  # the original is untouched
    assert state._shared.stage == Stage.Acceleration
    assert copy.getLastInvalidationCause(Stage.Position) == "copying the State"
    assert state.getLastInvalidationCause(Stage.Position) != "copying the State"


def test_compiled_books_functions_agree_with_their_python_source():
    """store_if_finite and invalidate_in_lockstep, compiled and as Python (their
    ``py_func``), leave the same books after the same random calls."""
    rng = np.random.default_rng(7)
    pairs = [(sb.store_if_finite, sb.value_store()), (sb.invalidate_in_lockstep, None)]
    for _ in range(200):
        books = sb.new_books()
        books[sb.SYSTEM_STAGE] = rng.integers(0, 10)
        books[sb.LOCKSTEP] = books[sb.SYSTEM_STAGE] if rng.random() < 0.7 else -1
        books[sb.SERIAL] = rng.integers(1, 100)
        first = int(rng.integers(1, 10))
        cause = sb.cause_code("a test")
        books[sb.ENTRY_EDITS] = rng.integers(0, 3)
        books[sb.WALKS_EDITS] = rng.integers(0, 3)
        keys = (-1, sb.walks_key(sb.U_VERSION, sb.U_VERSION, sb.SETTER_CAUSES[sb.SET_U]), 5)
        books[sb.WALKS_KEY] = keys[rng.integers(0, 3)]
        src = rng.standard_normal(int(rng.integers(0, 5)))
        if rng.random() < 0.2 and src.size:
            src[0] = np.nan
        which = int(rng.integers(0, 4))
        books[sb.NQ : sb.NZ + 1] = rng.integers(0, 4, 3)
        if which == sb.SET_Y:
            books[sb.NU : sb.NZ + 1] = 0
        books[sb.NQ + which % 3] = src.size if rng.random() < 0.9 else src.size + 1
        for fn, entry in pairs:
            py_func = getattr(fn, "py_func", fn)
            results = []
            for call in (py_func, entry or fn):
                b, dst = books.copy(), np.zeros(16)
                if fn is sb.store_if_finite:
                    r = call(src, dst, b, which)
                else:
                    r = call(b, first, cause)
                results.append((int(r), b.tolist(), dst.tolist()))
            assert results[0] == results[1]


def test_a_setter_loop_skips_the_dependents_walks_in_its_compiled_call(monkeypatch):
    """setU and realize in a loop: the compiled setter call itself tells that the walks
    over the entries depending on u would change nothing (``value_walks_done``), so no
    walk runs; a cache entry made current in between makes the next setU walk again."""
    system, _, state, rng = _realized(True)
    walks: list = []
    walk = type(state)._invalidate_dependents

    def counted(self, keys, cause):
        walks.append(cause)
        return walk(self, keys, cause)

    monkeypatch.setattr(type(state), "_invalidate_dependents", counted)
    u = rng.uniform(-1.0, 1.0, state.getNU())
    state.setU(u)
    system.realize(state, Stage.Acceleration)
    walks.clear()
    for _ in range(3):
        state.setU(u)
        system.realize(state, Stage.Acceleration)
    assert walks == []
    key = sb.walks_key(sb.U_VERSION, sb.U_VERSION, sb.cause_code("setU"))
    assert state._books[sb.WALKS_KEY] == key
    # a dependent of u made current again: the next setU makes it stale
    dependent = state._u_dependents[0]
    state.markCacheValueRealized(dependent.subsystem, dependent.index)
    state.setU(u)
    assert walks and not state.isCacheValueRealized(dependent.subsystem, dependent.index)
    assert state._books[sb.WALKS_EDITS] == state._books[sb.ENTRY_EDITS]


def test_fused_realization_keeps_the_subsystems_in_lockstep_in_the_books():
    system, _, state, _ = _realized(True)
    state.setU(np.array(state.getU()))
    assert state._books[sb.SYSTEM_STAGE] == Stage.Position
    assert state._books[sb.LOCKSTEP] == Stage.Position
    system.realize(state, Stage.Acceleration)
    assert state._books[sb.SYSTEM_STAGE] == state._books[sb.LOCKSTEP] == Stage.Acceleration
    n = state.getNumSubsystems()
    assert all(state.getSubsystemStage(i) == Stage.Acceleration for i in range(n))


_NOJIT_SCRIPT = textwrap.dedent(
    """
    import json
    import numpy as np
    from engine import Stage
    from tests.engine.test_matter_operator_oracles import DYNAMIC_TYPES, random_tree
    system, matter, _, _, rng = random_tree(3, DYNAMIC_TYPES, nbodies=3)
    state = system.realizeTopology()
    state.setQ(rng.uniform(-0.5, 0.5, state.getNQ()))
    state.setU(rng.uniform(-1.0, 1.0, state.getNU()))
    system.realize(state, Stage.Acceleration)
    lockstep = int(state._books[1])
    state.setU(np.array(state.getU()))
    stage_after_setu = int(state.getSystemStage())
    try:
        state.setU(np.full(state.getNU(), np.nan))
        refused = False
    except Exception as exc:
        refused = "finite" in str(exc)
    system.realize(state, Stage.Acceleration)
    print(json.dumps({"lockstep": lockstep, "after_setu": stage_after_setu,
                      "refused": refused, "udot": list(state.getUDot()),
                      "q": list(state.getQ()), "u": list(state.getU())}))
    """
)


def test_books_work_with_the_jit_off():
    proc = subprocess.run(
        [sys.executable, "-c", _NOJIT_SCRIPT],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
        env=dict(os.environ, NUMBA_DISABLE_JIT="1"),
        timeout=240,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["lockstep"] == Stage.Acceleration  # the fused path ran as Python
    assert result["after_setu"] == Stage.Position
    assert result["refused"]
    system, _, _, _, _ = random_tree(3, DYNAMIC_TYPES, nbodies=3)
    state = system.realizeTopology()
    state.setQ(result["q"])
    state.setU(result["u"])
    system.realize(state, Stage.Acceleration)
    np.testing.assert_allclose(result["udot"], state.getUDot(), rtol=1e-12, atol=1e-12)
