"""Counts and sizes given to the engine are whole numbers: 2.5, 2.0, "2", True or None for a
Function's argument size, a FunctionBased mobilizer's number of mobilities or its coordinate
indices, or an ensemble's threads is refused with InvalidArgumentError naming the argument,
before anything is made (they were truncated, or read from a string, without a word)."""

from __future__ import annotations

import pytest

from engine import (
    Body,
    EnsembleIntegrator,
    Function,
    Inertia,
    InvalidArgumentError,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    SimbodyMatterSubsystem,
    Transform,
    Vec3,
)
from engine.common.exceptions import SimTKError

NOT_COUNTS = [2.5, 2.0, "2", True, None]


@pytest.mark.parametrize("size", NOT_COUNTS)
def test_a_function_argument_size_must_be_an_integer(size):
    with pytest.raises(InvalidArgumentError, match="argumentSize"):
        Function.Constant(1.0, size)
    with pytest.raises(InvalidArgumentError, match="argumentSize"):
        Function.Custom(lambda x: x[0], size)
    with pytest.raises(InvalidArgumentError, match="maxDerivativeOrder"):
        Function.Custom(lambda x: x[0], 1, maxDerivativeOrder=size)


def test_a_negative_argument_size_is_refused_and_zero_or_a_numpy_integer_taken():
    import numpy as np

    with pytest.raises(InvalidArgumentError, match="argumentSize must be >= 0"):
        Function.Constant(1.0, -1)
    assert Function.Constant(1.0, 0).getArgumentSize() == 0
    assert Function.Constant(1.0, np.int64(2)).getArgumentSize() == 2


def _function_based(nmobilities, coords):
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    body = Body.Rigid(MassProperties(1.0, Vec3(0), Inertia(1.0)))
    linear = Function.Linear([1.0, 0.0])
    zero = Function.Constant(0.0, 0)
    functions = [zero, zero, linear, zero, zero, zero]
    coord_lists = [[], [], coords, [], [], []]
    return matter, MobilizedBody.FunctionBased(
        matter.Ground(), Transform(), body, Transform(), nmobilities, functions, coord_lists
    )


@pytest.mark.parametrize("n", NOT_COUNTS)
def test_a_function_based_mobilizer_needs_a_whole_number_of_mobilities(n):
    with pytest.raises(InvalidArgumentError, match="nmobilities"):
        _function_based(n, [0])


@pytest.mark.parametrize("j", [0.5, "0", None, True])
def test_its_coordinate_indices_are_integers(j):
    with pytest.raises(SimTKError, match="coordIndices"):
        _function_based(1, [j])


def test_a_valid_function_based_mobilizer_is_still_made():
    matter, pin_like = _function_based(1, [0])
    assert pin_like.getMobilizedBodyIndex() == 1 and matter.getNumBodies() == 2


@pytest.mark.parametrize("threads", [*NOT_COUNTS, 0])
def test_an_ensemble_needs_a_whole_number_of_threads(threads):
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    MobilizedBody.Pin(
        matter.Ground(),
        Transform(),
        Body.Rigid(MassProperties(1.0, Vec3(0), Inertia(1.0))),
        Transform(),
    )
    state = system.realizeTopology()
    with pytest.raises(InvalidArgumentError, match="threads"):
        EnsembleIntegrator(system, [state, state], threads=threads)
