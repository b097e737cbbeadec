"""Every public SimbodyMatterSubsystem operator refuses a bad argument (a string, None, a
nested list of the wrong shape, the wrong length, extra dimensions, complex or non-finite
values; a bool, float, negative or too-large index) with the engine's typed error
(InvalidArgumentError or IndexOutOfRangeError, both SimTKError) naming the argument and what
was expected, before anything in the State changes; and takes every valid form (lists,
tuples, float32 and integer arrays) with the result of the float64 array (issue 22).

The table of operators is generated from the public methods: each parameter name maps to a
kind of argument (``KINDS``), so a new operator with a parameter of a new name fails
``test_every_public_method_is_classified`` until it is classified here."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from benchmarks.common import build_ours, humanoid_links
from engine import (
    Constraint,
    IndexOutOfRangeError,
    InvalidArgumentError,
    SimbodyMatterSubsystem,
    SimTKError,
    Stage,
)

# parameter name -> kind of argument (sizes from the model: nq, nu, nb, m, mp; "free_q" and
# "free_u" are the free q and u counts)
KINDS = {
    "u": "nu",
    "v": "nu",
    "a": "nu",
    "ulike": "nu",
    "udot": "nu",
    "knownUDot": "nu",
    "knownUdot": "nu",
    "appliedMobilityForces": "nu",
    "allU": "nu",
    "unpackedFreeU": "nu",
    "q": "nq",
    "qlike": "nq",
    "allQ": "nq",
    "unpackedFreeQ": "nq",
    "packedFreeQ": "free_q",
    "packedFreeU": "free_u",
    "lam": "m",
    "multipliers": "m",
    "deltaV": "m",
    "bias": "m",
    "knownLambda": "m",
    "lambdap": "mp",
    "biasp": "mp",
    "F": "body_forces",
    "appliedBodyForces": "body_forces",
    "bodyForces": "body_forces",
    "stationPInB": "vec3",
    "originAoInB": "vec3",
    "stationOnB": "vec3",
    "torqueInG": "vec3",
    "forceInG": "vec3",
    "f_GP": "vec3",
    "F_GAo": "spatial_vec",
    "onBodyB": "body",
    "bodyB": "body",
    "mobodIx": "body",
    "mbx": "body",
    "mobod": "body",
    "which": "mobility",
    "f": "scalar",
    # in/out arguments: a float64 ndarray added to in place (checked, not converted)
    "bodyForcesInG": "out_body_forces",
    "mobilityForces": "out_nu",
    # the optional output array the result is written into (numpy's convention): its
    # shape is the operator's result's (OUT_KINDS)
    "out": "out",
}
# the kind of each operator's ``out``: the shape of its result
OUT_KINDS = {
    "calcM": "out_mass",
    "calcSystemJacobian": "out_jacobian",
    "multiplyBySystemJacobian": "out_body_forces",
    "multiplyByM": "out_nu",
    "multiplyByMInv": "out_nu",
    "multiplyBySystemJacobianTranspose": "out_nu",
}  # (calcResidualForceIgnoringConstraints' out: test_operator_out.py; its name is exempt here)
# parameters whose None (or an empty sequence) is a documented value (Simbody's default or
# its zero-length Vector meaning all zeros)
OPTIONAL = {
    "bias",
    "biasp",
    "unpackedFreeQ",
    "unpackedFreeU",
    "appliedMobilityForces",
    "appliedBodyForces",
    "bodyForces",
    "knownUDot",
    "knownUdot",
    "knownLambda",
    "out",
}
# x of the N operators is nq or nu long depending on ``transpose``: given with transpose=False
N_OPERATOR_X = {"multiplyByN": "nu", "multiplyByNDot": "nu", "multiplyByNInv": "nq"}

# public methods that are not operators on arrays or indices, with the reason
NOT_OPERATORS = {
    # realization and System-protocol hooks, allocation, cache and discrete-variable access:
    # covered by the State tests (tests/engine/test_index_arguments.py, test_state_*.py)
    "Impl": "System-protocol hooks, called by the System after its own checks",
    "allocate": "State allocation (test_state_layout.py)",
    "CacheEntry": "cache access by CacheEntryIndex (test_index_arguments.py)",
    "CacheValue": "cache access by CacheEntryIndex (test_state_cache.py)",
    "DiscreteVar": "discrete variables by index (test_index_arguments.py)",
    "EventTrigger": "event triggers by Stage (test_state_stages.py, test_stage_arguments.py)",
    "adopt": "building the model, not an operator",
    "Measure": "measures by index (test_index_arguments.py)",
    "Constraint": "constraints by ConstraintIndex or handle (test_index_arguments.py)",
    "UnilateralContact": "unilateral contacts by index",
    "StateLimitedFriction": "state-limited frictions by index",
    "MobilizedBody": "getMobilizedBody/updMobilizedBody (test_index_arguments.py)",
}
NOT_OPERATOR_NAMES = {
    "advanceToStage": "a Stage argument (test_stage_arguments.py)",
    "calcMotionErrors": "a Stage argument (test_stage_arguments.py)",
    "convertToEulerAngles": "a State argument alone",
    "convertToQuaternions": "a State argument alone",
    "setShowDefaultGeometry": "a bool flag",
    "setUseEulerAngles": "a bool flag",
    "setSystem": "building the model",
    "takeMobilizedBodies": "building the model (test_take_mobilized_bodies.py)",
    "giveBackMobilizedBodies": "building the model (test_take_mobilized_bodies.py)",
    "isInSameSystem": "a Subsystem argument",
    "isSameSubsystem": "a Subsystem argument",
    "setQ": "State.setQ's checked setter (test_state_*.py)",
    "setU": "State.setU's checked setter (test_state_*.py)",
    "setZ": "State.setZ's checked setter (test_state_*.py)",
}
SKIPPED_PARAMS = {"self", "state", "transpose"}
# methods whose refusals name the Simbody operator they are an overload of
SIMBODY_NAME = {
    "calcFrameJacobianAsSpatialVecs": "calcFrameJacobian",
    "calcStationJacobianAsVec3s": "calcStationJacobian",
}


def _public_methods() -> list[str]:
    return sorted(
        n
        for n in dir(SimbodyMatterSubsystem)
        if not n.startswith("_") and callable(getattr(SimbodyMatterSubsystem, n))
    )


def _exempt(name: str) -> bool:
    return name in NOT_OPERATOR_NAMES or any(part in name for part in NOT_OPERATORS)


def _params(name: str) -> list[str]:
    sig = inspect.signature(getattr(SimbodyMatterSubsystem, name))
    return [p for p in sig.parameters if p not in SKIPPED_PARAMS]


OPERATORS = [n for n in _public_methods() if not _exempt(n) and _params(n)]
CASES = [(op, p) for op in OPERATORS for p in _params(op)]


def test_every_public_method_is_classified():
    unknown = {(op, p) for op, p in CASES if p not in KINDS and p != "x"}
    assert not unknown, f"classify these parameters in KINDS: {sorted(unknown)}"
    x_ops = {op for op, p in CASES if p == "x"}
    assert x_ops == set(N_OPERATOR_X)
    assert {op for op, p in CASES if p == "out"} == set(OUT_KINDS)
    # the operators the issue names are among those checked
    for name in ("multiplyByMInv", "multiplyBySystemJacobianTranspose", "multiplyByG"):
        assert name in OPERATORS


@pytest.fixture(scope="module")
def model():
    system, matter = build_ours(humanoid_links())
    # a rod (position constraint) and a constant speed (velocity constraint): m = 2, mp = 1
    Constraint.Rod(matter.getMobilizedBody(5), matter.getMobilizedBody(9), 1.2)
    Constraint.ConstantSpeed(matter.getMobilizedBody(3), 0.5)
    state = system.realizeTopology()
    rng = np.random.default_rng(3)
    system.realize(state, Stage.Model)
    state.setQ(state.getQ() + 0.1 * rng.normal(size=state.getNQ()))
    state.setU(rng.normal(size=state.getNU()))
    system.realize(state, Stage.Acceleration)
    return system, matter, state


def _sizes(matter, state) -> dict:
    return {
        "nq": state.getNQ(),
        "nu": state.getNU(),
        "m": matter.getNMultipliers(state),
        "mp": matter.getNumPositionConstraintEquationsInUse(state),
        "free_q": matter.getFreeQIndex(state).size,
        "free_u": matter.getFreeUIndex(state).size,
        "nb": matter.getNumBodies(),
    }


def _kind(op: str, param: str) -> str:
    if param == "out":
        return OUT_KINDS[op]
    return N_OPERATOR_X[op] if param == "x" else KINDS[param]


def _valid(kind: str, sizes: dict, rng) -> object:
    """A valid float64 argument of ``kind`` with integral values (so integer forms equal it)."""
    if kind in sizes:
        return rng.integers(-3, 4, size=sizes[kind]).astype(np.float64)
    return {
        "body_forces": lambda: rng.integers(-3, 4, size=(sizes["nb"], 2, 3)).astype(np.float64),
        "out_body_forces": lambda: np.zeros((sizes["nb"], 2, 3)),
        "out_nu": lambda: np.zeros(sizes["nu"]),
        "out_mass": lambda: np.zeros((sizes["nu"], sizes["nu"])),
        "out_jacobian": lambda: np.zeros((6 * sizes["nb"], sizes["nu"])),
        "vec3": lambda: rng.integers(-3, 4, size=3).astype(np.float64),
        "spatial_vec": lambda: rng.integers(-3, 4, size=(2, 3)).astype(np.float64),
        "body": lambda: 4,
        "mobility": lambda: 1,
        "scalar": lambda: 2.0,
    }[kind]()


def _arguments(op: str, sizes: dict, rng) -> dict:
    args = {}
    sig = inspect.signature(getattr(SimbodyMatterSubsystem, op)).parameters
    if "transpose" in sig:
        args["transpose"] = False
    for p in _params(op):
        if p != "out":  # (left to allocate: the result is then a new array each call)
            args[p] = _valid(_kind(op, p), sizes, rng)
    return args


def _call(matter, state, op: str, args: dict):
    return getattr(matter, op)(state, **args)


def _shape(kind: str, sizes: dict) -> tuple:
    if kind in sizes:
        return (sizes[kind],)
    return {
        "body_forces": (sizes["nb"], 2, 3),
        "out_body_forces": (sizes["nb"], 2, 3),
        "out_nu": (sizes["nu"],),
        "out_mass": (sizes["nu"], sizes["nu"]),
        "out_jacobian": (6 * sizes["nb"], sizes["nu"]),
        "vec3": (3,),
        "spatial_vec": (2, 3),
    }[kind]


def _bad_values(kind: str, param: str, sizes: dict) -> dict:
    """Bad values of an argument of ``kind``, by name."""
    if kind in ("body", "mobility"):
        top = sizes["nb"] if kind == "body" else 3  # body 4 is a Ball: 3 mobilities
        return {
            "string": "abc",
            "None": None,
            "bool": True,
            "float": 1.5,
            "nan": float("nan"),
            "negative": -1,
            "too_large": top,
            "list": [[1, 2], [3]],
        }
    if kind == "scalar":
        return {"string": "abc", "None": None, "complex": 1j, "nan": np.nan, "inf": np.inf}
    shape = _shape(kind, sizes)
    bad = {
        "string": "abc",
        "ragged_list": [[1.0, 2.0], [3.0]],
        "nested_wrong_shape": np.zeros((2, *shape)).tolist(),
        "wrong_length": np.zeros((shape[0] + 1, *shape[1:])),
        "extra_dimension": np.zeros((*shape, 1)),
        "complex": np.zeros(shape, dtype=np.complex128),
        "strings": np.full(shape, "1.0"),
        "objects": np.full(shape, None, dtype=object),
        "nan": np.full(shape, np.nan),
        "inf": np.full(shape, -np.inf),
    }
    if param not in OPTIONAL:
        bad["None"] = None
    if kind.startswith("out_"):
        bad["list"] = np.zeros(shape).tolist()
        bad["float32"] = np.zeros(shape, dtype=np.float32)
        bad["read_only"] = np.zeros(shape)
        bad["read_only"].flags.writeable = False
        if param == "out":  # (an output is written whole: it must be C-contiguous)
            bad["strided"] = np.repeat(np.zeros(shape), 2, axis=-1)[..., ::2]
        for key in ("nan", "inf"):
            del bad[key]  # (an accumulator's values are the caller's)
    return bad


def _fingerprint(state) -> tuple:
    """What a refused call must leave as it was: the stages and their versions, every
    cache entry's realized version, the state variables and their derivatives."""
    subs = [state.getPerSubsystemInfo(i) for i in range(state.getNumSubsystems())]
    return (
        state.getSystemStage(),
        tuple(state.getSystemStageVersions()),
        tuple(sub.stage for sub in subs),
        tuple(
            tuple(getattr(entry, "realized_version", None) for entry in sub.cache) for sub in subs
        ),
        state.getY().tobytes(),
        state.getYDot().tobytes(),
        state.getMultipliers().tobytes() if hasattr(state, "getMultipliers") else None,
    )


BAD_CASES = [
    (op, p, key)
    for op, p in CASES
    for key in _bad_values(
        _kind(op, p),
        p,
        {"nq": 1, "nu": 1, "m": 1, "mp": 1, "free_q": 1, "free_u": 1, "nb": 1},
    )
]


@pytest.mark.parametrize(("op", "param", "bad"), BAD_CASES, ids=lambda c: str(c))
def test_a_bad_argument_is_refused_with_a_typed_error_before_anything_changes(
    model, op, param, bad
):
    system, matter, state = model
    sizes = _sizes(matter, state)
    args = _arguments(op, sizes, np.random.default_rng(1))
    kind = _kind(op, param)
    args[param] = _bad_values(kind, param, sizes)[bad]
    before = _fingerprint(state)
    with pytest.raises(SimTKError) as info:
        _call(matter, state, op, args)
    assert isinstance(info.value, (InvalidArgumentError, IndexOutOfRangeError))
    message = str(info.value)
    assert param in message or (param == "x" and "x" in message), message
    assert SIMBODY_NAME.get(op, op) in message, message
    assert _fingerprint(state) == before


def _forms(value: np.ndarray) -> dict:
    forms = {
        "list": value.tolist(),
        "float32": value.astype(np.float32),
        "int64": value.astype(np.int64),
        "int32": value.astype(np.int32),
        "strided": np.repeat(value, 2, axis=-1)[..., ::2],
        "fortran": np.asfortranarray(value),
    }
    if value.ndim == 1:
        forms["tuple"] = tuple(value.tolist())
    return forms


def _same(got, expected, what: str) -> None:
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected), what
        for g, e in zip(got, expected, strict=True):
            _same(g, e, what)
        return
    np.testing.assert_array_equal(np.asarray(got), np.asarray(expected), err_msg=what)


VALID_CASES = [
    (op, p)
    for op, p in CASES
    if _kind(op, p) not in ("body", "mobility", "scalar") and not _kind(op, p).startswith("out_")
]


@pytest.mark.parametrize(("op", "param"), VALID_CASES, ids=lambda c: str(c))
def test_every_valid_form_gives_the_float64_result(model, op, param):
    system, matter, state = model
    sizes = _sizes(matter, state)
    args = _arguments(op, sizes, np.random.default_rng(2))
    expected = _call(matter, state, op, args)
    for form, value in _forms(args[param]).items():
        got = _call(matter, state, op, {**args, param: value})
        _same(got, expected, f"{op}({param}={form})")


def test_out_arguments_accumulate_in_place(model):
    system, matter, state = model
    nb, nu = matter.getNumBodies(), state.getNU()
    F = np.zeros((nb, 2, 3))
    matter.addInBodyTorque(state, 4, [1, 2, 3], F)
    np.testing.assert_array_equal(F[4, 0], [1.0, 2.0, 3.0])
    f = np.zeros(nu)
    matter.addInMobilityForce(state, 4, 2, 4, f)
    assert np.count_nonzero(f) == 1 and f.sum() == 4.0


def test_integral_index_forms_still_work(model):
    system, matter, state = model
    expected = matter.getGyroscopicForce(state, 4)
    for form in (np.int64(4), np.int32(4), matter.getMobilizedBody(4)):
        np.testing.assert_array_equal(matter.getGyroscopicForce(state, form), expected)
