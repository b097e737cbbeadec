"""Weighted error norms that integrators use for step-size control.

Simbody measures a step's error estimate as a *fraction of the unit change* of
each state variable, then compares an RMS (or infinity) norm of those fractions
with the requested accuracy (a dimensionless number such as 1e-3):

* u and z: each has a weight ``w = 1/unit`` (State.getUWeights / getZWeights).
  Relative accuracy is used once a variable is bigger than its unit:
  ``scale_i = 1/|v_i|`` if ``|v_i| * w_i > 1``, else ``w_i``. The scales are
  frozen at the start of a step.
* q: absolute only, weighted through the kinematic coupling
  ``Wq = N Wu pinv(N)`` so that quaternions and angles get weights consistent
  with the generalized speeds (System.multiplyByN / multiplyByNPInv; the State
  must be realized to Position).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _relative_scaling(values, weights, out):
    """out_i = 1/|v_i| where |v_i| w_i > 1, else w_i (calcRelativeScaling's loop)."""
    for i in range(out.shape[0]):
        v = abs(values[i])
        w = weights[i]
        out[i] = 1.0 / v if v * w > 1.0 else w


def calcRelativeScaling(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Per-variable scale ``min(w_i, 1/|v_i|)`` (1/unit); used for u and z. Always a new
    C-contiguous float64 vector."""
    if (
        type(values) is np.ndarray
        and type(weights) is np.ndarray
        and values.dtype == np.float64
        and weights.dtype == np.float64
        and values.ndim == 1
        and values.shape == weights.shape
    ):
        out = np.empty(values.shape[0])
        if out.shape[0]:
            _relative_scaling(values, weights, out)
        return out
    v = np.abs(np.asarray(values, dtype=np.float64))
    out = np.array(weights, dtype=np.float64)
    big = v * out > 1.0
    if big.any():
        out[big] = 1.0 / v[big]
    return out


def weightedNorm(values: np.ndarray, weights: np.ndarray, useInfinityNorm: bool):
    """(norm, index of the largest weighted entry) of ``weights*values``.

    RMS norm by default, max-abs norm if ``useInfinityNorm``. An empty vector has
    norm 0 and index -1. A non-finite entry gives an infinite norm and is reported
    as the worst one.
    """
    if values.size == 0:
        return 0.0, -1
    scaled = np.abs(weights * values)
    bad = ~np.isfinite(scaled)
    if bad.any():
        return float("inf"), int(np.flatnonzero(bad)[0])
    worst = int(np.argmax(scaled))
    if useInfinityNorm:
        return float(scaled[worst]), worst
    return float(np.sqrt(np.mean(scaled * scaled))), worst


def scaleDQ(system, state, uWeights: np.ndarray, dq: np.ndarray) -> np.ndarray:
    """``Wq*dq = N * Wu * pinv(N) * dq`` (the State must be at Position stage)."""
    if dq.size == 0:
        return np.zeros(0)
    fast = getattr(system, "_scaleDQ", None)  # one kernel where the System has one
    if fast is not None:
        out = fast(state, uWeights, dq)
        if out is not None:
            return out
    du = system.multiplyByNPInv(state, dq)
    return system.multiplyByN(state, du * uWeights)


def calcErrorNorm(
    system,
    state,
    yErrEst: np.ndarray,
    uScale: np.ndarray,
    zScale: np.ndarray,
    useInfinityNorm: bool,
):
    """(norm, worstY): the largest of the q, u and z weighted norms of ``yErrEst``
    and the index in y of the variable responsible for it (-1 if y is empty).

    Ties go to q, then u. The weighted entries are formed in one array and each
    group's norm is a reduction over its slice; a non-finite entry anywhere falls back
    to _calcErrorNormChecked, which reports the first bad entry of the worst group."""
    fast = getattr(system, "_calcErrorNorm", None)  # one kernel where the System has one
    if fast is not None:
        result = fast(state, yErrEst, uScale, zScale, useInfinityNorm)
        if result is not None:
            return result
    nq, nu = state.getNQ(), state.getNU()
    if not np.isfinite(yErrEst).all():
        return _calcErrorNormChecked(system, state, yErrEst, uScale, zScale, useInfinityNorm)
    nqu = nq + nu
    scaled = np.empty(yErrEst.size)
    if nq:
        scaled[:nq] = scaleDQ(system, state, state.getUWeights(), yErrEst[:nq])
    np.multiply(yErrEst[nq:nqu], uScale, out=scaled[nq:nqu])
    np.multiply(yErrEst[nqu:], zScale, out=scaled[nqu:])
    np.abs(scaled, out=scaled)
    if useInfinityNorm:
        norms = [
            float(part.max()) if part.size else 0.0
            for part in (scaled[:nq], scaled[nq:nqu], scaled[nqu:])
        ]
    else:
        sq = scaled * scaled
        norms = [
            math.sqrt(float(part.sum()) / part.size) if part.size else 0.0
            for part in (sq[:nq], sq[nq:nqu], sq[nqu:])
        ]
    if not (math.isfinite(norms[0]) and math.isfinite(norms[1]) and math.isfinite(norms[2])):
        return _calcErrorNormChecked(system, state, yErrEst, uScale, zScale, useInfinityNorm)
    qNorm, uNorm, zNorm = norms
    if qNorm >= uNorm:
        if qNorm >= zNorm:
            return qNorm, (int(np.argmax(scaled[:nq])) if nq else -1)
    elif uNorm >= zNorm:
        return uNorm, nq + int(np.argmax(scaled[nq:nqu]))
    return zNorm, nqu + int(np.argmax(scaled[nqu:]))


def _calcErrorNormChecked(
    system,
    state,
    yErrEst: np.ndarray,
    uScale: np.ndarray,
    zScale: np.ndarray,
    useInfinityNorm: bool,
):
    """calcErrorNorm group by group, with the non-finite checks of weightedNorm."""
    nq, nu = state.getNQ(), state.getNU()
    eq = yErrEst[:nq]
    eu = yErrEst[nq : nq + nu]
    ez = yErrEst[nq + nu :]
    if eq.size and np.all(np.isfinite(eq)):
        qNorm, worstQ = weightedNorm(
            scaleDQ(system, state, state.getUWeights(), eq), np.ones(nq), useInfinityNorm
        )
    else:
        qNorm, worstQ = weightedNorm(eq, np.ones(nq), useInfinityNorm)
    uNorm, worstU = weightedNorm(eu, uScale, useInfinityNorm)
    zNorm, worstZ = weightedNorm(ez, zScale, useInfinityNorm)
    if qNorm >= uNorm:
        if qNorm >= zNorm:
            return qNorm, worstQ
        return zNorm, nq + nu + worstZ
    if uNorm >= zNorm:
        return uNorm, nq + worstU
    return zNorm, nq + nu + worstZ


def describeYIndex(state, k: int) -> str:
    """Readable name of entry ``k`` of y = [q, u, z], e.g. "u[1] (u 0 of subsystem 'Ball')"."""
    if k < 0:
        return "no state variable"
    nq, nu = state.getNQ(), state.getNU()
    if k < nq:
        kind, local = "q", k
    elif k < nq + nu:
        kind, local = "u", k - nq
    else:
        kind, local = "z", k - nq - nu
    start_of = {"q": state.getQStart, "u": state.getUStart, "z": state.getZStart}[kind]
    count_of = {"q": state.getNQ, "u": state.getNU, "z": state.getNZ}[kind]
    for i in range(state.getNumSubsystems()):
        start, n = start_of(i), count_of(i)
        if start <= local < start + n:
            return (
                f"{kind}[{local}] ({kind} {local - start} of subsystem "
                f"'{state.getSubsystemName(i)}')"
            )
    return f"{kind}[{local}]"
