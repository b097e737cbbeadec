"""Kernels that advance an ensemble of States of one System together: arrays with a leading
member axis, one compiled call for every member.

Each member is a State whose derivatives a kernel evaluates
(``FusedRealization.compiledDerivatives``), given by its own kernel table (row ``m`` of the
stacked ``addresses`` and ``shapes``). ``advance_members`` takes, for each member in turn,
exactly the Runge-Kutta-Merson steps its own ``RungeKuttaMersonIntegrator`` would take
(``merson_compiled.steps.merson_steps``, the same kernels in the same order, each member with
its own step size and error control), so every member's trajectory is bit-identical to its
single run. ``interpolate_members`` evaluates each member at a report time inside its last
step with the integrator's dense output: the cubic Hermite interpolant of the step's end
values and slopes raised to 4th order by one derivative evaluation at a third of the step
(``Integrator._interpolateY``).

Per-member arrays (``M`` members, ``ny = nq + nu``): ``y_prev``, ``f_prev`` (M, ny) the start
of each member's last step and its derivatives; ``qdd_prev`` (M, nq); ``u_scale`` and ``w_u``
(M, nu); ``work`` (M, WORK_ROWS, ny); ``info`` (M, INFO_SIZE); ``run`` (M,) run records
(``merson_compiled.run_record.RUN_DTYPE``), each member's as ``merson_steps`` reads and
writes it; ``counts`` (M, COUNTS) the statistics summed over calls;
``status`` (M,) 0 while a member advances, else why its compiled step stopped; ``need``
(M,) 1 where the member's State is realized through Velocity only (its derivatives must be
realized before a step), 0 where it is at Acceleration.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.integrators.merson_compiled.steps import merson_steps
from engine.integrators.merson_compiled.trial_stages import _evaluate, write_q_and_u
from engine.multibody.kernels.array_table import f1 as table_f1
from engine.multibody.kernels.fused_stages import (
    ACCELERATION,
    DYNAMICS,
    POSITION,
    realize_stages_by_address,
)
from engine.multibody.kernels.layout import SLOT

_Q, _U, _QDOT, _UDOT = SLOT.q, SLOT.u, SLOT.qdot, SLOT.udot

#: columns of the counts matrix: steps taken, attempts, error test failures, projections,
#: derivative realizations at step starts
C_STEPS, C_ATTEMPTS, C_FAILURES, C_PROJECTIONS, C_REALIZATIONS = range(5)
COUNTS = 5

#: the most steps one ``merson_steps`` call may take (it is called again until the member
#: reaches the stop time). Constants go to the kernels shared with a single run as
#: ``np.int64``/``np.bool_`` values: a literal would make numba compile them again for it.
_STEPS_PER_CALL = 1 << 40


@njit(cache=True, nogil=True)
def advance_members(
    t_max,
    t_stop,
    first,
    last,
    accuracy,
    min_step,
    max_step,
    y_prev,
    f_prev,
    qdd_prev,
    u_scale,
    z_scale,
    work,
    euler,
    addresses,
    shapes,
    w_u,
    infinity,
    project,
    target,
    info,
    run,
    counts,
    status,
    need,
    budget,
):
    """Step members ``first..last-1`` that still advance (status 0) until their time
    reaches ``t_stop`` (s), no step ending past ``t_max`` (s); each step ends where its own
    error control puts it (with ``t_max = t_stop`` the last one is cut to end at
    ``t_stop``, as ``TimeStepper.stepTo`` steps; with ``t_max`` infinite it may end past it,
    as ``Integrator.stepTo`` steps). A member whose compiled step stops
    (non-finite derivatives, a failing attempt, step underflow, crawling) keeps its State
    at the start of that step and gets the nonzero status.

    At most ``budget`` steps are taken in all (so that the call returns to Python, which can
    be interrupted, within a bounded time): the steps left of it are returned once every
    member is done, -1 if it ran out first (a later call with the same arguments goes on
    where this one stopped: the members' steps are the same)."""
    left = budget
    for m in range(first, last):
        if status[m] != 0:
            continue
        a, s = addresses[m], shapes[m]
        member_run = run[m : m + 1]
        r = member_run[0]
        while r.time < t_stop:
            if left <= 0:
                return -1
            nd = need[m] != 0
            st = merson_steps(
                t_max, t_stop, min(left, np.int64(_STEPS_PER_CALL)), nd, nd, accuracy, min_step,
                max_step, y_prev[m], f_prev[m], qdd_prev[m], u_scale[m], z_scale, work[m],
                euler[m], a, s, w_u[m], infinity, project, target, np.bool_(False), info[m],
                member_run,
            )  # fmt: skip
            left -= r.steps
            c = counts[m]
            c[C_STEPS] += r.steps
            c[C_ATTEMPTS] += r.attempts
            c[C_FAILURES] += r.error_test_failures
            c[C_PROJECTIONS] += r.projections
            c[C_REALIZATIONS] += r.derivative_realizations
            if r.steps > 0:
                need[m] = 1  # realized through Velocity at the last step's end
            if st != 0:
                status[m] = st
                need[m] = 1
                break
    return left


@njit(cache=True, nogil=True)
def _polyval(coef, theta, out):
    """out = sum_k coef[k] theta^k (Horner), coef one row per power."""
    n = coef.shape[0]
    for i in range(out.shape[0]):
        v = coef[n - 1, i]
        for k in range(n - 2, -1, -1):
            v = v * theta + coef[k, i]
        out[i] = v


@njit(cache=True, nogil=True)
def _fit(inverse, rows, coef):
    """coef = inverse @ rows (the Hermite-Birkhoff conditions' solution)."""
    n = inverse.shape[0]
    for k in range(n):
        for i in range(coef.shape[1]):
            v = 0.0
            for j in range(n):
                v += inverse[k, j] * rows[j, i]
            coef[k, i] = v


@njit(cache=True, nogil=True)
def interpolate_members(
    t_report, first, last, euler, addresses, shapes, y_prev, f_prev, run, need, cubic,
    quartic, third, rows, coef, ym, fm, out,
):  # fmt: skip
    """out[m] = y (q then u) of members ``first..last-1`` at ``t_report`` (s), which lies in
    their last step (``run[m].previous_time`` .. ``run[m].time``); a member whose time is
    at or before ``t_report`` reports its current y. ``cubic`` (4 x 4) and ``quartic`` (5 x 5)
    are the inverses of the interpolation conditions (values and slopes at both ends, and
    the slope at ``third`` of the step for the quartic); ``rows`` (5, ny), ``coef`` (5, ny),
    ``ym`` and ``fm`` (ny) are scratch. Leaves each member's State realized through
    Acceleration at its current y."""
    for m in range(first, last):
        a, s = addresses[m], shapes[m]
        nq, nu = s[_Q, 0], s[_U, 0]
        q, u = table_f1(a, s, _Q), table_f1(a, s, _U)
        t0, t1 = run[m].previous_time, run[m].time
        if t_report >= t1 or not t1 > t0:
            for i in range(nq):
                out[m, i] = q[i]
            for i in range(nu):
                out[m, nq + i] = u[i]
            continue
        if t_report <= t0:
            for i in range(nq + nu):
                out[m, i] = y_prev[m, i]
            continue
        if need[m] != 0:
            realize_stages_by_address(
                np.int64(DYNAMICS), np.int64(ACCELERATION), np.bool_(True), euler[m], a, s
            )
            need[m] = 0
        h = t1 - t0
        qdot, udot = table_f1(a, s, _QDOT), table_f1(a, s, _UDOT)
        y0, f0 = y_prev[m], f_prev[m]
        for i in range(nq):
            rows[1, i] = q[i]
            rows[3, i] = h * qdot[i]
        for i in range(nu):
            rows[1, nq + i] = u[i]
            rows[3, nq + i] = h * udot[i]
        for i in range(nq + nu):
            rows[0, i] = y0[i]
            rows[2, i] = h * f0[i]
        theta = (t_report - t0) / h
        _fit(cubic, rows[:4], coef[:4])
        _polyval(coef[:4], third, ym)
        for i in range(nq + nu):
            fm[i] = rows[1, i]  # y1, kept while the State evaluates ym
        if _evaluate(ym, rows[4], euler[m], a, s):
            for i in range(nq + nu):
                rows[4, i] *= h
            _fit(quartic, rows, coef)
            _polyval(coef, theta, out[m])
        else:
            _polyval(coef[:4], theta, out[m])
        write_q_and_u(fm, a, s)  # back to the member's own state
        realize_stages_by_address(
            np.int64(POSITION), np.int64(ACCELERATION), np.bool_(True), euler[m], a, s
        )


@njit(cache=True, nogil=True)
def read_members(first, last, addresses, shapes, out):
    """out[m] = current y (q then u) of members ``first..last-1``."""
    for m in range(first, last):
        a, s = addresses[m], shapes[m]
        nq, nu = s[_Q, 0], s[_U, 0]
        q, u = table_f1(a, s, _Q), table_f1(a, s, _U)
        for i in range(nq):
            out[m, i] = q[i]
        for i in range(nu):
            out[m, nq + i] = u[i]


def hermite_inverses(third: float = 1.0 / 3.0) -> tuple[np.ndarray, np.ndarray]:
    """The inverses of the cubic (4 x 4) and bootstrapped quartic (5 x 5) interpolation
    conditions in theta = (t - t0)/h: p(0), p(1), p'(0), p'(1) (and p'(third))."""
    out = []
    for thetas in ((), (third,)):
        n = 4 + len(thetas)
        A = np.zeros((n, n))
        A[0, 0] = 1.0
        A[1, :] = 1.0
        powers = np.arange(n)
        A[2, 1] = 1.0
        A[3, 1:] = powers[1:]
        for i, th in enumerate(thetas):
            A[4 + i, 1:] = powers[1:] * th ** (powers[1:] - 1)
        out.append(np.linalg.inv(A))
    return out[0], out[1]


@njit(cache=True, nogil=True)
def advance_members_through(
    times, interpolate, first, last, accuracy, y_prev, f_prev, qdd_prev, u_scale, z_scale,
    work, euler, addresses, shapes, w_u, quaternions, target, info, run, counts, status,
    need, cubic, quartic, third, rows, coef, ym, fm, out, next_time, budget,
):  # fmt: skip
    """Members ``first..last-1`` each advanced through all the report ``times`` (s,
    ascending) before the next member starts: out[j, m] = member m's y (q then u) at
    times[j]. Each member does exactly what ``advance_members`` then ``interpolate_members``
    do for it at each time in turn (its steps depend on its own State only), so the results
    equal one ``advanceTo`` per time bit for bit; one pass over the members keeps each
    member's arrays in the cache for its whole run. ``interpolate``: the steps go past a
    report time (dense output) instead of ending at it.

    ``next_time`` (M,): for each member, the index of the first time not yet reported (0 at
    the start). At most ``budget`` steps are taken in all: False if that ran out before every
    member was through (a later call with the same arguments goes on: the members' steps are
    the same), True once they all are."""
    left = budget
    for m in range(first, last):
        j = next_time[m]
        while j < times.shape[0]:
            t = times[j]
            t_max = np.inf if interpolate else t
            left = advance_members(
                t_max, t, m, m + 1, accuracy, 0.0, np.inf, y_prev, f_prev, qdd_prev, u_scale,
                z_scale, work, euler, addresses, shapes, w_u, np.bool_(False), quaternions,
                target, info, run, counts, status, need, left,
            )  # fmt: skip
            if left < 0:
                return False
            interpolate_members(
                t, m, m + 1, euler, addresses, shapes, y_prev, f_prev, run, need, cubic,
                quartic, third, rows, coef, ym, fm, out[j],
            )  # fmt: skip
            j += 1
            next_time[m] = j
    return True
