"""The matter operators' optional last argument ``out`` (numpy's convention): the result is
written into the caller's array, which is returned, with bit for bit the values the
allocating call returns, on chains and trees of Pin and Ball joints, a free-floating
humanoid, and with a locked mobility (M^-1's prescribed path). A bad ``out`` (wrong shape,
float32, a strided or Fortran-ordered or read-only array, a list, an array sharing memory
with the input) is refused with InvalidArgumentError naming the operator and ``out``,
before anything in the State or in ``out`` changes; ``out=None`` allocates."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.common import build_ours, chain_links, humanoid_links, make_link
from engine import InvalidArgumentError, Stage
from tests.engine.test_operator_entry_points import _inputs

OPERATORS = (
    "calcM",
    "multiplyByM",
    "multiplyByMInv",
    "calcSystemJacobian",
    "multiplyBySystemJacobian",
    "multiplyBySystemJacobianTranspose",
    "calcResidualForceIgnoringConstraints",
)


def _tree_links(n: int = 7) -> list:
    """A binary tree of ``n`` bodies on Pin joints (body k's parent is k // 2)."""
    return [
        make_link(k // 2, "pin", (0.0 if k == 1 else (0.5 if k % 2 else -0.5), -1.0, 0.0))
        for k in range(1, n + 1)
    ]


MODELS = {
    "pin_chain": lambda: chain_links(5, "pin"),
    "ball_chain": lambda: chain_links(4, "ball"),
    "pin_tree": _tree_links,
    "humanoid": humanoid_links,
}


def _model(name: str, seed: int = 4):
    system, matter = build_ours(MODELS[name]())
    state = system.realizeTopology()
    rng = np.random.default_rng(seed)
    system.realize(state, Stage.Model)
    state.setQ(state.getQ() + 0.3 * rng.normal(size=state.getNQ()))
    state.setU(rng.normal(size=state.getNU()))
    system.realize(state, Stage.Acceleration)
    return system, matter, state, rng


def _out_shape(op: str, matter, state) -> tuple:
    nu, nb = state.getNU(), matter.getNumBodies()
    return {
        "calcM": (nu, nu),
        "calcSystemJacobian": (6 * nb, nu),
        "multiplyBySystemJacobian": (nb, 2, 3),
    }.get(op, (nu,))


def _fingerprint(state) -> tuple:
    """The stages, their versions, every cache entry's realized version and the state
    variables: what a refused call leaves as it was."""
    subs = [state.getPerSubsystemInfo(i) for i in range(state.getNumSubsystems())]
    return (
        tuple(state.getSystemStageVersions()),
        tuple(sub.stage for sub in subs),
        tuple(
            tuple(getattr(entry, "realized_version", None) for entry in sub.cache) for sub in subs
        ),
        state.getY().tobytes(),
        state.getQDot().tobytes(),
    )


@pytest.mark.parametrize("model", list(MODELS))
@pytest.mark.parametrize("op", OPERATORS)
def test_out_gets_bit_for_bit_the_allocating_result_and_is_returned(model, op):
    system, matter, state, rng = _model(model)
    args = _inputs(matter, state, rng)[op]
    expected = getattr(matter, op)(state, *args)
    out = np.full(_out_shape(op, matter, state), np.nan)
    got = getattr(matter, op)(state, *args, out=out)
    assert got is out
    assert out.tobytes() == np.ascontiguousarray(expected).tobytes()
    # again through the per-call shortcut (the State's records now exist), into a reused out
    out[...] = 7.0
    assert getattr(matter, op)(state, *args, out=out) is out
    assert out.tobytes() == np.ascontiguousarray(expected).tobytes()
    # out is also the last positional argument (where Simbody takes its output)
    out[...] = 7.0
    assert getattr(matter, op)(state, *args, out) is out
    assert out.tobytes() == np.ascontiguousarray(expected).tobytes()
    # out=None allocates a new array each call
    first = getattr(matter, op)(state, *args, out=None)
    assert first is not out and first.tobytes() == out.tobytes()
    assert getattr(matter, op)(state, *args) is not first


@pytest.mark.parametrize("op", OPERATORS)
def test_out_on_a_new_state_and_after_a_change_of_q(op):
    """The first call on a State (no per-call records yet: the slow path) and the first
    after q changed (the lazy inertias are recomputed) fill ``out`` too."""
    system, matter, state, rng = _model("humanoid", seed=9)
    args = _inputs(matter, state, rng)[op]
    expected = getattr(matter, op)(state, *args)
    other = system.realizeTopology()
    other.setQ(state.getQ())
    other.setU(state.getU())
    system.realize(other, Stage.Acceleration)
    out = np.full(_out_shape(op, matter, state), np.nan)
    assert getattr(matter, op)(other, *args, out=out) is out
    assert out.tobytes() == expected.tobytes()
    state.setQ(state.getQ() * 0.9)
    system.realize(state, Stage.Acceleration)
    assert getattr(matter, op)(state, *args, out=out) is out
    assert out.tobytes() == getattr(matter, op)(state, *args).tobytes() != expected.tobytes()


def test_out_with_a_locked_mobility_takes_the_prescribed_path():
    system, matter, state, rng = _model("pin_chain")
    mobod = matter.getMobilizedBody(2)
    mobod.lock(state)
    system.realize(state, Stage.Acceleration)
    v = rng.normal(size=state.getNU())
    expected = matter.multiplyByMInv(state, v)
    out = np.full(state.getNU(), np.nan)
    assert matter.multiplyByMInv(state, v, out=out) is out
    assert out.tobytes() == expected.tobytes()
    with pytest.raises(InvalidArgumentError, match=r"multiplyByMInv: out"):
        matter.multiplyByMInv(state, v, out=np.zeros(state.getNU() + 1))
    with pytest.raises(InvalidArgumentError, match=r"multiplyByMInv: out"):
        matter.multiplyByMInv(state, out, out=out)


def _bad_outs(shape: tuple) -> dict:
    read_only = np.zeros(shape)
    read_only.flags.writeable = False
    wide = np.zeros((*shape[:-1], 2 * shape[-1]))
    bad = {
        "wrong_shape": np.zeros((shape[0] + 1, *shape[1:])),
        "extra_dimension": np.zeros((*shape, 1)),
        "float32": np.zeros(shape, dtype=np.float32),
        "int64": np.zeros(shape, dtype=np.int64),
        "strided_slice": wide[..., ::2],
        "read_only": read_only,
        "list": np.zeros(shape).tolist(),
        "string": "abc",
    }
    if len(shape) == 2:
        bad["fortran"] = np.asfortranarray(np.zeros(shape))
    return bad


MATRIX_OPERATORS = ("calcM", "calcSystemJacobian")
BAD_CASES = [
    (op, key)
    for op in OPERATORS
    for key in sorted(_bad_outs((2, 3) if op in MATRIX_OPERATORS else (2,)))
]


@pytest.mark.parametrize(("op", "bad"), BAD_CASES)
def test_a_bad_out_is_refused_before_anything_changes(op, bad):
    system, matter, state, rng = _model("humanoid")
    args = _inputs(matter, state, rng)[op]
    getattr(matter, op)(state, *args)  # the State's per-call records exist
    state.setQ(state.getQ() * 0.95)  # the lazy inertias are due: a refusal must not compute
    system.realize(state, Stage.Velocity)
    out = _bad_outs(_out_shape(op, matter, state))[bad]
    before, kept = _fingerprint(state), np.array(out, dtype=object, copy=True)
    with pytest.raises(InvalidArgumentError) as info:
        getattr(matter, op)(state, *args, out=out)
    assert str(info.value).startswith(f"{op}: out:"), str(info.value)
    assert _fingerprint(state) == before
    np.testing.assert_array_equal(np.array(out, dtype=object), kept)


@pytest.mark.parametrize(
    ("op", "position"),
    [
        ("multiplyByM", 0),
        ("multiplyByMInv", 0),
        ("multiplyBySystemJacobianTranspose", 0),
        ("calcResidualForceIgnoringConstraints", 0),
        ("calcResidualForceIgnoringConstraints", 2),
    ],
)
def test_out_sharing_memory_with_an_input_is_refused(op, position):
    system, matter, state, rng = _model("pin_chain")
    args = list(_inputs(matter, state, rng)[op])
    nu = state.getNU()
    if args[position].ndim == 1:
        out = args[position]  # the input itself
    else:  # body forces: their first nu numbers
        out = args[position].reshape(-1)[:nu]
    before, kept = _fingerprint(state), [np.array(a) for a in args]
    with pytest.raises(InvalidArgumentError, match=rf"^{op}: out: must not share memory"):
        getattr(matter, op)(state, *args, out=out)
    assert _fingerprint(state) == before
    for a, k in zip(args, kept, strict=True):
        np.testing.assert_array_equal(a, k)


def test_out_overlapping_a_view_of_the_input_is_refused():
    system, matter, state, rng = _model("pin_chain")
    nu, nb = state.getNU(), matter.getNumBodies()
    buffer = np.zeros(nu + nb * 6)
    u = buffer[:nu]
    u[:] = rng.normal(size=nu)
    overlapping = buffer[nu - 1 : nu - 1 + 6 * nb].reshape(nb, 2, 3)
    with pytest.raises(InvalidArgumentError, match=r"^multiplyBySystemJacobian: out: must not"):
        matter.multiplyBySystemJacobian(state, u, out=overlapping)
    beside = buffer[nu:].reshape(nb, 2, 3)  # the same buffer, not overlapping u
    assert matter.multiplyBySystemJacobian(state, u, out=beside) is beside
    np.testing.assert_array_equal(beside, matter.multiplyBySystemJacobian(state, u.copy()))


def test_an_input_of_the_wrong_length_is_named_before_out():
    system, matter, state, rng = _model("pin_chain")
    nu = state.getNU()
    with pytest.raises(InvalidArgumentError, match=r"^multiplyByM: a: expected a vector"):
        matter.multiplyByM(state, np.zeros(nu + 1), out=np.zeros(nu))
    with pytest.raises(InvalidArgumentError, match=r"^multiplyByM: a: values must be finite"):
        matter.multiplyByM(state, np.full(nu, np.nan), out=np.zeros(nu))
