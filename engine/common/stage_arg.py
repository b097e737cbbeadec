"""stage_value(value, method, arg): a stage argument (a Stage member, or a Python or numpy
integer naming one) as a Stage, or StageOutOfRangeError naming the method, the argument and
the valid range for anything else: a bool, a float, a string, an array, None, or an integer
outside ``lowest``..``highest`` (by default Empty (0) .. Infinity (10)).

Simbody takes a ``Stage``; the integer forms are accepted because Stage is an IntEnum and
Python callers index stages by number."""

from __future__ import annotations

import operator

import numpy as np

from engine.common.exceptions import StageOutOfRangeError
from engine.common.stage import ALL_STAGES, Stage


def stage_value(
    value: object,
    method: str,
    arg: str = "stage",
    lowest: Stage = Stage.Empty,
    highest: Stage = Stage.Infinity,
) -> Stage:
    """``value`` as a Stage from ``lowest`` to ``highest``; StageOutOfRangeError saying
    ``method``, ``arg`` and the range otherwise."""
    if type(value) is Stage:
        if lowest <= value <= highest:
            return value
    elif not isinstance(value, (bool, np.bool_, np.ndarray)):
        # (True.__index__ is 1, and a 0-d integer array has __index__ too: both refused)
        try:
            i = operator.index(value)
        except TypeError:
            pass
        else:
            if lowest <= i <= highest:
                return ALL_STAGES[i]
    raise StageOutOfRangeError(
        f"{method}: {arg}: expected a Stage from {lowest.getName()} ({int(lowest)}) to "
        f"{highest.getName()} ({int(highest)}), or the integer naming one, got {value!r}"
    )
