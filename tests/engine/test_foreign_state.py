"""A State made for another System (or an earlier topology) is refused by every public entry
point with TopologyMismatchError before any kernel reads it (issue 22: calcMInv segfaulted,
calcM hung, multiplyByM returned non-finite arrays)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from engine import (
    Body,
    GeneralForceSubsystem,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    SimbodyMatterSubsystem,
    Stage,
    State,
    TopologyMismatchError,
    Transform,
    UnitInertia,
    Vec3,
)


def _ball_chain(n: int):
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    GeneralForceSubsystem(system)
    body = Body.Rigid(MassProperties(1.0, Vec3(0.1, 0.2, 0.0), UnitInertia(1.0)))
    parent = matter.Ground()
    for _ in range(n):
        parent = MobilizedBody.Ball(parent, Transform(Vec3(0, -1, 0)), body, Transform())
    state = system.realizeTopology()
    return system, matter, state


@pytest.fixture(scope="module")
def systems():
    big = _ball_chain(50)
    small = _ball_chain(1)
    small_state = small[2]
    small[0].realize(small_state, Stage.Acceleration)
    big_state = big[2]
    big[0].realize(big_state, Stage.Acceleration)
    return big, small, small_state, big_state


def _arguments(fn, matter, state) -> list:
    """Arguments that fit the big System, so that without the check the kernels would run."""
    nq, nu, nb = state.getNQ(), state.getNU(), matter.getNumBodies()
    by_name = {
        "transpose": False,
        "stage": Stage.Position,
        "includeCurrentTime": True,
        "useEuler": False,
        "disabled": False,
        "level": 0,
        "which": 0,
        "index": 0,
    }
    args = []
    for name in list(inspect.signature(fn).parameters)[2:]:
        if name == "out":  # optional: the operators allocate their result without it
            continue
        if name in by_name:
            args.append(by_name[name])
        elif name in ("onBodyB", "mobodIx", "mbx", "bodyB"):
            args.append(7)
        elif name in ("mobod", "constraint"):
            args.append(matter.getMobilizedBody(7))
        elif name in ("stationPInB", "originAoInB", "torqueInG", "forceInG"):
            args.append(np.zeros(3))
        elif name in ("appliedBodyForces", "bodyForcesInG", "bodyForces", "F"):
            args.append(np.zeros((nb, 2, 3)))
        elif name in ("q", "qlike", "allQ", "qInit"):
            args.append(np.zeros(nq))
        else:
            args.append(np.ones(nu))
    return args


def _public_state_methods(cls) -> list[str]:
    names = []
    for name, fn in inspect.getmembers(cls, inspect.isfunction):
        params = list(inspect.signature(fn).parameters)
        if not name.startswith("_") and not name.endswith("Impl") and params[1:2] == ["state"]:
            names.append(name)
    return names


MATTER_METHODS = _public_state_methods(SimbodyMatterSubsystem)
MOBOD_METHODS = _public_state_methods(MobilizedBody)


def test_the_operators_named_in_the_issue_are_covered():
    for name in (
        "calcM",
        "calcMInv",
        "multiplyByM",
        "multiplyByMInv",
        "calcSystemJacobian",
        "multiplyBySystemJacobian",
        "multiplyBySystemJacobianTranspose",
        "calcResidualForceIgnoringConstraints",
        "getQ",
        "setU",
    ):
        assert name in MATTER_METHODS
    assert len(MATTER_METHODS) > 100


@pytest.mark.parametrize("name", MATTER_METHODS)
def test_matter_operator_refuses_a_state_of_another_system(systems, name):
    (big_system, big_matter, _), _small, small_state, big_state = systems
    fn = getattr(SimbodyMatterSubsystem, name)
    args = _arguments(fn, big_matter, big_state)
    q_before = np.array(small_state.getQ())
    with pytest.raises(TopologyMismatchError, match="another System"):
        fn(big_matter, small_state, *args)
    np.testing.assert_array_equal(small_state.getQ(), q_before)


@pytest.mark.parametrize("name", MOBOD_METHODS)
def test_mobilized_body_accessor_refuses_a_state_of_another_system(systems, name):
    (_, big_matter, _), _small, small_state, big_state = systems
    mobod = big_matter.getMobilizedBody(7)
    fn = getattr(type(mobod), name)
    args = _arguments(fn, big_matter, big_state)
    with pytest.raises(TopologyMismatchError, match="another System"):
        fn(mobod, small_state, *args)


def test_realize_and_system_operators_refuse_a_state_of_another_system(systems):
    (big_system, _, _), (small_system, small_matter, _), small_state, big_state = systems
    with pytest.raises(TopologyMismatchError, match="another System"):
        big_system.realize(small_state, Stage.Acceleration)
    with pytest.raises(TopologyMismatchError, match="another System"):
        big_system.projectQ(small_state)
    with pytest.raises(TopologyMismatchError, match="another System"):
        small_system.realize(big_state)
    with pytest.raises(TopologyMismatchError, match="another System"):
        small_matter.calcMInv(big_state)


def test_the_right_state_still_works_and_copies_keep_their_system(systems):
    (big_system, big_matter, _), _small, _small_state, big_state = systems
    M = big_matter.calcM(big_state)
    assert M.shape == (150, 150) and np.all(np.isfinite(M))
    np.testing.assert_allclose(big_matter.calcMInv(big_state) @ M, np.eye(150), atol=1e-8)
    copy = big_state.copy()
    big_system.realize(copy, Stage.Acceleration)
    np.testing.assert_allclose(big_matter.multiplyByM(copy, np.ones(150)), M @ np.ones(150))


def test_a_state_of_an_earlier_topology_is_refused():
    system, matter, old_state = _ball_chain(2)
    MobilizedBody.Ball(
        matter.getMobilizedBody(2),
        Transform(Vec3(0, -1, 0)),
        Body.Rigid(MassProperties(1.0, Vec3(0), UnitInertia(1.0))),
        Transform(),
    )
    with pytest.raises(Exception, match="realizeTopology"):
        matter.calcM(old_state)
    system.realizeTopology()
    with pytest.raises(TopologyMismatchError, match="earlier topology"):
        matter.calcM(old_state)
    with pytest.raises(TopologyMismatchError, match="earlier topology"):
        system.realize(old_state)


def test_a_hand_made_state_is_refused():
    system, matter, _ = _ball_chain(1)
    with pytest.raises(TopologyMismatchError, match="not made by any System"):
        system.realize(State())
    with pytest.raises(TopologyMismatchError, match="not made by any System"):
        matter.getQ(State())
