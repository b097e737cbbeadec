"""Every public MobilizedBody method that takes a State and an array, a body or an index
refuses a bad argument (a string, None, ragged nesting, the wrong length, complex or
non-finite values; a bool, 1.5, negative or too-large index; something that is not a body)
with the engine's typed error naming the argument, and leaves the State as it was (issue 22).

The table is generated from the public methods: each parameter name maps to a kind of
argument in ``KINDS`` (or is listed in ``NOT_CHECKED`` with the reason), so a new method with
a parameter of a new name fails ``test_every_parameter_is_classified``."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from benchmarks.common import build_ours, humanoid_links
from engine import (
    IndexOutOfRangeError,
    InvalidArgumentError,
    MobilizedBody,
    SimTKError,
    Stage,
)
from tests.engine.test_matter_operator_arguments import _fingerprint

BALL = 4  # a Ball mobilizer (4 q with quaternions, 3 u) in the humanoid
KINDS = {
    **dict.fromkeys(
        ("p_BS", "p_GS", "v_B", "v_G", "torque_G", "f_G", "p_FM", "w_FM", "v_FM"), "vec3"
    ),
    "F_G": "spatial_vec",
    "V_FM": "spatial_vec",
    "q": "body_q",
    "fq": "body_q",
    "u": "body_u",
    "qlike": "nq",
    "ulike": "nu",
    "inBodyA": "body",
    "toBodyA": "body",
    "which": "which",
    "value": "scalar",
    "f": "scalar",
    "bodyForces": "out_body_forces",
    "mobilityForces": "out_nu",
}
NOT_CHECKED = {
    "X_BM": "a Transform (setOutboardFrame: building the model)",
    "X_PF": "a Transform (setInboardFrame: building the model)",
    "X_FM": "a Transform (engine.math.transform checks its own form)",
    "R_FM": "a Rotation or 3x3 matrix (checked by the fit, test_mobilizer_properties.py)",
    "level": "a MotionLevel enum",
}
# methods where an argument name means something else
OVERRIDES = {("lockAt", "value"): "body_q"}
WRITABLE = {"updMyPartQ", "updMyPartU", "updOneFromQPartition", "updOneFromUPartition"}


def _methods() -> dict[str, list[str]]:
    out = {}
    for name in sorted(dir(MobilizedBody)):
        fn = getattr(MobilizedBody, name)
        if name.startswith("_") or not callable(fn):
            continue
        try:
            params = list(inspect.signature(fn).parameters)
        except (TypeError, ValueError):
            continue
        if len(params) > 2 and params[1] == "state":
            out[name] = params[2:]
    return out


METHODS = _methods()


def _kind(method: str, param: str) -> str:
    kind = OVERRIDES.get((method, param), KINDS.get(param))
    if kind in ("nq", "nu") and method in WRITABLE:
        return "out_" + kind
    return kind


CASES = [(m, p) for m, ps in METHODS.items() for p in ps if p not in NOT_CHECKED]


def test_every_parameter_is_classified():
    unknown = sorted({p for _, ps in METHODS.items() for p in ps} - set(KINDS) - set(NOT_CHECKED))
    assert not unknown, f"classify these MobilizedBody parameters in KINDS: {unknown}"


@pytest.fixture(scope="module")
def model():
    system, matter = build_ours(humanoid_links())
    state = system.realizeTopology()
    system.realize(state, Stage.Acceleration)
    return system, matter, state, matter.getMobilizedBody(BALL)


def _sizes(matter, state, mobod) -> dict:
    return {
        "nq": state.getNQ(),
        "nu": state.getNU(),
        "nb": matter.getNumBodies(),
        "body_q": mobod.getNumQ(state),
        "body_u": mobod.getNumU(state),
    }


def _valid(kind: str, sizes: dict, matter):
    if kind in sizes:
        return np.full(sizes[kind], 0.5)
    return {
        "vec3": lambda: np.array([0.1, 0.2, 0.3]),
        "spatial_vec": lambda: np.array([[0.1, 0.2, 0.3], [1.0, 2.0, 3.0]]),
        "body": lambda: matter.getMobilizedBody(2),
        "which": lambda: 1,
        "scalar": lambda: 0.25,
        "out_body_forces": lambda: np.zeros((sizes["nb"], 2, 3)),
        "out_nq": lambda: np.zeros(sizes["nq"]),
        "out_nu": lambda: np.zeros(sizes["nu"]),
    }[kind]()


def _bad(kind: str, sizes: dict) -> dict:
    if kind == "body":
        return {"string": "abc", "None": None, "float": 1.5, "negative": -1, "too_large": 99}
    if kind == "which":
        return {
            "string": "abc",
            "None": None,
            "bool": True,
            "float": 1.5,
            "nan": float("nan"),
            "negative": -1,
            "too_large": 5,
        }
    if kind == "scalar":
        return {"string": "abc", "None": None, "complex": 1j, "nan": np.nan, "inf": np.inf}
    shape = np.shape(_valid(kind, sizes, None)) if kind != "body" else ()
    bad = {
        "string": "abc",
        "None": None,
        "ragged_list": [[1.0, 2.0], [3.0]],
        "wrong_length": np.zeros(int(np.prod(shape)) + 1),
        "complex": np.zeros(shape, dtype=np.complex128),
        "strings": np.full(shape, "1.0"),
    }
    if kind.startswith("out_"):
        bad["list"] = np.zeros(shape).tolist()
        bad["int64"] = np.zeros(shape, dtype=np.int64)
    else:
        bad["nan"] = np.full(shape, np.nan)
        bad["inf"] = np.full(shape, np.inf)
    return bad


_SIZES_FOR_IDS = {"nq": 1, "nu": 1, "nb": 1, "body_q": 1, "body_u": 1}
BAD_CASES = [
    (m, p, key)
    for m, p in CASES
    for key in _bad(_kind(m, p), _SIZES_FOR_IDS)
    if not (_kind(m, p) in ("which",) and m == "getHCol" and key == "nan")
]


@pytest.mark.parametrize(("method", "param", "bad"), BAD_CASES, ids=str)
def test_a_bad_argument_is_refused_with_a_typed_error_before_anything_changes(
    model, method, param, bad
):
    system, matter, state, mobod = model
    sizes = _sizes(matter, state, mobod)
    params = METHODS[method]
    args = {
        p: (None if p in NOT_CHECKED else _valid(_kind(method, p), sizes, matter)) for p in params
    }
    args = {p: v for p, v in args.items() if p not in NOT_CHECKED}
    args[param] = _bad(_kind(method, param), sizes)[bad]
    work = state.copy()
    system.realize(work, Stage.Acceleration)
    before = _fingerprint(work)
    with pytest.raises(SimTKError) as info:
        getattr(mobod, method)(work, **args)
    assert isinstance(info.value, (InvalidArgumentError, IndexOutOfRangeError))
    message = str(info.value)
    assert param in message or method in message, message
    assert _fingerprint(work) == before


def test_valid_forms_still_work(model):
    system, matter, state, mobod = model
    p = [0.1, -0.2, 0.3]
    expected = mobod.findStationLocationInGround(state, np.array(p))
    for form in (p, tuple(p), np.array(p, dtype=np.float32), np.array([1, 2, 3])):
        got = mobod.findStationLocationInGround(state, form)
        ref = mobod.findStationLocationInGround(state, np.asarray(form, dtype=np.float64))
        np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(
        mobod.findStationLocationInAnotherBody(state, p, 2),
        mobod.findStationLocationInAnotherBody(state, p, matter.getMobilizedBody(2)),
    )
    assert np.isfinite(expected).all()
    assert mobod.getOneQ(state, np.int64(1)) == mobod.getOneQ(state, 1)
