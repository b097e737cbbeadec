"""Stage: order, Simbody's names, next/prev, arithmetic and out-of-range errors."""

from __future__ import annotations

import pytest

from engine.common.exceptions import SimTKError, StageOutOfRangeError
from engine.common.stage import ALL_STAGES, Stage

SIMBODY_NAMES = [
    "Empty",
    "Topology",
    "Model",
    "Instance",
    "Time",
    "Position",
    "Velocity",
    "Dynamics",
    "Acceleration",
    "Report",
    "Infinity",
]


def test_order_and_values():
    assert [int(s) for s in Stage] == list(range(11))
    assert list(ALL_STAGES) == sorted(Stage)
    assert Stage.Empty < Stage.Topology < Stage.Model < Stage.Instance < Stage.Time
    assert Stage.Time < Stage.Position < Stage.Velocity < Stage.Dynamics < Stage.Acceleration
    assert Stage.Acceleration < Stage.Report < Stage.Infinity
    # Compares with plain ints as Simbody's Stage does.
    assert Stage.Position == 5 and Stage.Velocity > 5


@pytest.mark.parametrize("stage,name", list(zip(ALL_STAGES, SIMBODY_NAMES, strict=True)))
def test_names_as_simbody_prints_them(stage, name):
    assert stage.getName() == name
    assert str(stage) == name
    assert f"{stage}" == name


def test_aliases():
    assert Stage.LowestValid == Stage.Empty and Stage.HighestValid == Stage.Infinity
    assert Stage.LowestRuntime == Stage.Instance and Stage.HighestRuntime == Stage.Report
    assert Stage.NValid == 11 and Stage.NRuntime == 7


def test_next_and_prev():
    for lo, hi in zip(ALL_STAGES[:-1], ALL_STAGES[1:], strict=True):
        assert lo.next() is hi
        assert hi.prev() is lo
        assert isinstance(lo.next(), Stage)


def test_arithmetic_returns_stages():
    assert Stage.Time + 1 is Stage.Position
    assert Stage.Time + 2 is Stage.Velocity
    assert Stage.Report - 1 is Stage.Acceleration
    assert Stage.Position + 0 is Stage.Position
    assert Stage.Position + (-1) is Stage.Time
    # The difference of two stages is a number of stages.
    assert Stage.Acceleration - Stage.Position == 3
    assert not isinstance(Stage.Acceleration - Stage.Position, Stage)


def test_is_in_runtime_range():
    runtime = [s for s in Stage if s.isInRuntimeRange()]
    assert runtime == [
        Stage.Instance,
        Stage.Time,
        Stage.Position,
        Stage.Velocity,
        Stage.Dynamics,
        Stage.Acceleration,
        Stage.Report,
    ]


@pytest.mark.parametrize(
    "op",
    [
        lambda: Stage.Infinity.next(),
        lambda: Stage.Empty.prev(),
        lambda: Stage.Infinity + 1,
        lambda: Stage.Report + 2,
        lambda: Stage.Empty - 1,
        lambda: Stage.Time - 5,
    ],
    ids=["Infinity.next", "Empty.prev", "Infinity+1", "Report+2", "Empty-1", "Time-5"],
)
def test_out_of_range_raises_typed_error(op):
    with pytest.raises(StageOutOfRangeError) as info:
        op()
    assert isinstance(info.value, SimTKError) and isinstance(info.value, ValueError)
    msg = str(info.value)
    assert "Empty" in msg and "Infinity" in msg  # says what the valid range is


def test_non_numeric_operand_is_not_supported():
    with pytest.raises(TypeError):
        Stage.Time - "1"  # noqa: B018
    with pytest.raises(TypeError):
        Stage.Time + None  # noqa: B018
