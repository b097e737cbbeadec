"""Finding and narrowing zero crossings of event witness functions.

An integrator compares each witness (event trigger) value at the start and end
of a step. A sign change that the trigger's EventTriggerInfo watches (rising,
falling or both) makes the trigger a *candidate*; the integrator then narrows
the interval (tLow, tHigh] by interpolation until it is no wider than the
trigger's localization window, which Simbody defines as

    accuracy * timeScale * EventTriggerInfo.getRequiredLocalizationTimeWindow()

(the window is a fraction of the System's time scale, reduced by the accuracy
setting), but never narrower than what time's floating point can resolve.
"""

from __future__ import annotations

import math
from enum import IntFlag

import numpy as np

#: Relative precision that time stamps can be trusted to (Simbody's SignificantReal).
SIGNIFICANT_REAL = float(np.finfo(np.float64).eps ** (7.0 / 8.0))


class Trigger(IntFlag):
    """The kind of sign transition a witness made (Simbody's ``Event::Trigger``)."""

    NoEventTrigger = 0
    PositiveToNegative = 1
    NegativeToPositive = 2
    Falling = 1
    Rising = 2
    AnySignChange = 3


def classifyTransition(before: float, after: float, info) -> Trigger:
    """The transition from ``before`` to ``after`` if ``info`` watches it, else none.

    Rising: negative to zero or positive. Falling: positive to zero or negative. Leaving
    zero is no transition (as Simbody; see EventTriggerInfo.isTransition).
    """
    if not info.isTransition(before, after):
        return Trigger.NoEventTrigger
    return Trigger.Rising if before < 0 else Trigger.Falling


def estimateRootTime(
    tLow: float, fLow: float, tHigh: float, fHigh: float, bias: float, minWindow: float
) -> float:
    """Estimate where f crosses zero in (tLow, tHigh).

    Secant method, optionally biased toward the lower (bias < 1) or upper
    (bias > 1) half; bisection if an end value is exactly zero (the function may
    be discontinuous) or the interval is already at the resolution limit. The
    estimate is kept at least 10% of the interval (and minWindow/2) from either end.
    """
    h = tHigh - tLow
    if fLow == 0 or fHigh == 0 or h <= minWindow:
        return tLow + h / 2
    x = fHigh / (fHigh - bias * fLow)
    tRoot = tHigh - x * h
    buffer = max(0.1 * h, minWindow / 2)
    return min(max(tRoot, tLow + buffer), tHigh - buffer)


def findEventCandidates(
    infos,
    viable,
    tLow: float,
    eLow: np.ndarray,
    tHigh: float,
    eHigh: np.ndarray,
    bias: float,
    minWindow: float,
    accuracy: float,
    timeScale: float,
):
    """Triggers (indices into ``infos``) whose watched transition happened in (tLow, tHigh].

    ``viable`` restricts the search to a previous candidate list (or None for all).
    Returns ``(candidates, timeEstimates, transitions, earliestTimeEst, narrowestWindow)``.
    """
    indices = range(len(infos)) if viable is None else viable
    candidates: list[int] = []
    estimates: list[float] = []
    transitions: list[Trigger] = []
    earliest = narrowest = math.inf
    for i in indices:
        lo, hi = float(eLow[i]), float(eHigh[i])
        if math.isnan(lo) or math.isnan(hi):
            continue
        seen = classifyTransition(lo, hi, infos[i])
        if seen == Trigger.NoEventTrigger:
            continue
        window = accuracy * timeScale * infos[i].getRequiredLocalizationTimeWindow()
        narrowest = max(min(narrowest, window), minWindow)
        est = estimateRootTime(tLow, lo, tHigh, hi, bias, minWindow)
        earliest = min(earliest, est)
        candidates.append(i)
        estimates.append(est)
        transitions.append(seen)
    return candidates, estimates, transitions, earliest, narrowest
