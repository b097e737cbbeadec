"""The step-size arithmetic of the error-controlled integrators (Simbody's
AbstractIntegratorRep::takeOneStep and adjustStepSize), as compiled functions that both
``Integrator._advanceOneStep`` and the compiled stepping loop
(``merson_compiled.steps.merson_steps``) call, so both choose the same steps, bit for bit.

Times and step sizes are in seconds.
"""

from __future__ import annotations

import math

from numba import njit

#: 16 machine epsilons: a step shorter than this times max(1, |t|) cannot be told apart
#: from no step at time t
SIXTEEN_EPS = 16.0 * 2.220446049250313e-16

#: consecutive steps shorter than 1000 minimum resolvable steps before the integration
#: is declared to make no progress
MAX_TINY_STEPS = 1000


@njit(cache=True, nogil=True)
def min_resolvable_step(t: float) -> float:
    """The shortest step (s) that still changes the time t (s)."""
    return SIXTEEN_EPS * max(1.0, abs(t))


@njit(cache=True, nogil=True)
def trial_step_end(t0: float, h: float, t_max: float) -> tuple[float, bool]:
    """(t1, limited): where a step of size h from t0 ends, never beyond t_max. A step that
    would end within 5% short of t_max is stretched to it (not ``limited``), one that
    would overshoot it is cut back to it (``limited``: the error test must not grow the
    step from this one)."""
    if t_max < t0 + 0.95 * h:
        return t_max, True
    if t_max > t0 + 1.001 * h:
        return t0 + h, False
    return t_max, False


@njit(cache=True, nogil=True)
def step_underflows(t0: float, t1: float, h: float, limited: bool) -> bool:
    """True if the step from t0 to t1 (size h) cannot advance time resolvably."""
    return not t1 > t0 or (not limited and h < min_resolvable_step(t0))


@njit(cache=True, nogil=True)
def adjusted_step_size(
    h: float,
    err: float,
    err_order: int,
    limited: bool,
    accuracy: float,
    min_step: float,
    max_step: float,
) -> float:
    """The next step size after an attempt of size h whose weighted error norm was err
    (the step is accepted if the result is at least h). The growth and shrink limits,
    safety factor and hysteresis are Simbody's; ``min_step`` and ``max_step`` are the
    user's limits (0 and inf when unset)."""
    safety, min_shrink, max_grow = 0.9, 0.1, 5.0
    hysteresis_low, hysteresis_high = 0.9, 1.2
    if not math.isfinite(err):
        new_h = min_shrink * h
    elif err == 0:
        new_h = max_grow * h
    else:
        new_h = safety * h * (accuracy / err) ** (1.0 / err_order)
    if new_h > h and (limited or new_h < hysteresis_high * h):
        new_h = h
    if new_h < h:
        new_h = h if err <= accuracy else min(new_h, hysteresis_low * h)
    new_h = min(new_h, max_grow * h)
    new_h = max(new_h, min_shrink * h)
    new_h = max(new_h, min_step)
    return min(new_h, max_step)


@njit(cache=True, nogil=True)
def tiny_step_count(t0: float, t1: float, limited: bool, count: int) -> int:
    """The number of consecutive tiny steps after the accepted step t0 -> t1, given
    ``count`` before it; more than MAX_TINY_STEPS means the integration crawls."""
    if not limited and t1 - t0 < 1000 * min_resolvable_step(t0):
        return count + 1
    return 0
