"""Runge-Kutta-Merson steps in one kernel call for a State with compiled constraints
(``FusedRealization.compiledConstrainedDerivatives``: every enabled constraint a Rod,
Ball, Weld, PointInPlane, ConstantAngle, or a linear CoordinateCoupler or ConstantCoordinate
on qdot = u coordinates, nothing prescribed, y = [q, u]).

They are the steps ``Integrator._stepTo`` takes through the State for such a State, with
``Integrator._attemptDAEStep``'s projections, in the same order and with the same step
sizes (``step_control``, the one source of the step-size rule):

1. at a step's start: Dynamics and Acceleration realized by the fused kernel, then the
   constrained accelerations (``constraint_kernels.constrained_accelerations``: the
   least-squares multipliers), saved as the previous step's y, ydot and scaling
   (``steps._start_of_step``);
2. an attempt: the four Merson trial stages, each a fused realization Position..
   Acceleration corrected by the constraint forces (``constrained_trial_stages``: the
   stage arithmetic of ``trial_stages.merson_trial_stages``); y1 into q and u, Position
   and Velocity (one fused call) with the constraint errors; the estimate
   ``(y1 - y_embedded)/5``; if its weighted norm is at most 2^4 times the accuracy, q and
   its estimate projected (``constraint_projection.project_q``), Velocity realized again
   if q changed, u and its estimate projected (``project_u``, with the constraint
   Jacobian ``project_q`` computed at the final q), both at the integrator's constraint
   tolerance with its overshoot factor, projection limit and norm; the error norm of the
   projected estimate at the projected q;
3. attempts repeated with ``adjusted_step_size`` until one passes the error test.

The kernel stops before a step (status nonzero: q and u back at that step's start, for
Python to take it and word what happened) when anything is irregular: non-finite
derivatives or states, a projection that fails to converge (Python then counts the
convergence failure and shrinks the step as its loop does), a constraint kernel that
declines, a step size underflow or crawling.

It also stops, with INTERRUPTED, when the ``InterruptRequest`` at ``interrupt``
(``engine.multibody.kernels.interrupt_request``; 0 for none) is set: it looks at it before
every step and every trial stage, and passes it to the constraint kernels and the
projections, which look at it once per equation, per column of their factorizations and
per iteration. The step in progress is dropped (q and u back at its start, as for the
other stops), so a step whose cost grows as m^2 nu (thousands of constraint equations:
seconds per step) stops within milliseconds of the request.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit, types

from engine.common.numba_internals import address_call
from engine.integrators.merson_compiled.attempt import (
    F1,
    F2,
    F3,
    F4,
    NORM_NOT_FINITE,
    TMP,
    Y1_NOT_FINITE,
    YERR,
    YSAVE,
    Y,
    _error_norm,
)
from engine.integrators.merson_compiled.steps import (
    CRAWLING,
    DERIVATIVES_NOT_FINITE,
    STEP_UNDERFLOW,
    _start_of_step,
)
from engine.integrators.merson_compiled.trial_stages import write_q_and_u
from engine.integrators.step_control import (
    MAX_TINY_STEPS,
    adjusted_step_size,
    step_underflows,
    tiny_step_count,
    trial_step_end,
)
from engine.multibody.kernels.array_table import f1 as table_f1
from engine.multibody.kernels.array_table import f2, i1, i2
from engine.multibody.kernels.constraint_kernels import INTERRUPTED as KERNEL_INTERRUPTED
from engine.multibody.kernels.constraint_kernels import OK, constrained_accelerations_into
from engine.multibody.kernels.constraint_projection import (
    CHANGED,
    FAILED,
    INFO_SIZE,
    KINETIC_ENERGY,
    project_q_by_address,
    project_u_by_address,
    realize_kinematics_by_address,
    realize_velocity_by_address,
)
from engine.multibody.kernels.constraint_projection import INTERRUPTED as PROJECTION_INTERRUPTED
from engine.multibody.kernels.fused_stages import (
    ACCELERATION,
    DYNAMICS,
    POSITION,
    realize_stages_by_address,
)
from engine.multibody.kernels.interrupt_request import interrupted
from engine.multibody.kernels.layout import SLOT
from engine.multibody.kernels.weighted_error_norm import NOT_FINITE

_Q, _U, _QDOT, _UDOT = SLOT.q, SLOT.u, SLOT.qdot, SLOT.udot

#: statuses besides those of attempt (1-7) and steps (8-10): a projection did not
#: converge; a constraint kernel declined or a projection met a zero quaternion; the
#: interrupt request was set (module docstring)
PROJECTION_FAILED, CONSTRAINTS_IRREGULAR, INTERRUPTED = 11, 12, 13
#: what the trial stages return when an evaluation was interrupted (1-4: the evaluation
#: that was not finite)
_STAGES_INTERRUPTED = -1

#: entries of the info vector of an attempt
KE, NORM, WORST, PROJECTED, Q_CHANGED, U_CHANGED = range(6)
ATTEMPT_INFO_SIZE = 6

#: entries of the counts vector of a call (over the steps taken)
(
    STEPS,
    ATTEMPTS,
    ERROR_TEST_FAILURES,
    PROJECTIONS,
    Q_PROJECTIONS,
    U_PROJECTIONS,
    DERIVATIVE_REALIZATIONS,
) = range(7)
COUNTS_SIZE = 7

#: the order of the Merson error estimate
_ORDER = 4

_B, _I, _I1, _I2 = types.boolean, types.int64, types.int64[::1], types.int64[:, ::1]
_F1, _F2 = types.float64[::1], types.float64[:, ::1]
#: the table ``constraint_kernels.carve_work`` makes
_WORK = types.Tuple((_F1, _I1, _I2))
#: constrained_accelerations_into called at its compiled address (with_inertias False
#: here is a run-time bool: the machine code Python's calls use)
_constrained_accelerations_by_address = address_call(
    constrained_accelerations_into,
    _I(_I1, _I2, _B, _B, _I2, _F2, _I, _F1, _F1, _WORK, _I),
)


#: the constraints' table (``cons`` = (m, addresses, shapes), read with the State table's
#: accessors: views without reference counts, the way the kernels pass them on), declared
#: once: (name, kind, number of dimensions); ``CONS_SLOT.ci`` is ci's place
CONS_SPEC = (
    ("ci", "i", 2), ("cf", "f", 2), ("qerr", "f", 1), ("uerr", "f", 1), ("lam", "f", 1),
    ("udot_err", "f", 1), ("tp", "f", 1), ("wq", "f", 1), ("tpv", "f", 1), ("wu", "f", 1),
    ("work", "f", 1), ("work_addresses", "i", 1), ("work_shapes", "i", 2), ("P", "f", 2),
)  # fmt: skip
CONS_SLOT = namedtuple("ConsSlot", [name for name, _, _ in CONS_SPEC])(*range(len(CONS_SPEC)))


@njit(cache=True, nogil=True, inline="always")
def _work(cons):
    """The scratch table of ``constraint_kernels.carve_work`` from the constraints' table."""
    ca, cs = cons[1], cons[2]
    return (
        table_f1(ca, cs, CONS_SLOT.work),
        i1(ca, cs, CONS_SLOT.work_addresses),
        i2(ca, cs, CONS_SLOT.work_shapes),
    )


@njit(cache=True, nogil=True)
def _constrained_derivatives(first, with_inertias, euler, a, s, cons, interrupt):
    """Realize ``first``..Acceleration and correct udot (and A_GB, qdotdot) by the
    constraint forces; the constraint kernel's status (OK, its INTERRUPTED, or why it
    declined)."""
    ca, cs = cons[1], cons[2]
    ci, cf, m = i2(ca, cs, CONS_SLOT.ci), f2(ca, cs, CONS_SLOT.cf), cons[0]
    multipliers, udot_err = table_f1(ca, cs, CONS_SLOT.lam), table_f1(ca, cs, CONS_SLOT.udot_err)
    work = _work(cons)
    # run-time stage numbers: the fused realization's own compiled specialisation
    realize_stages_by_address(np.int64(first), np.int64(ACCELERATION), with_inertias, euler, a, s)
    status = _constrained_accelerations_by_address(
        a, s, False, euler, ci, cf, m, multipliers, udot_err, work, interrupt
    )
    return status


#: what _evaluate returns besides OK: y or f not finite, or the constraint kernel declined
_NOT_EVALUATED = -1


@njit(cache=True, nogil=True)
def _evaluate(y, f, euler, a, s, cons, interrupt):
    """f = ydot at y (written into q and u) with the constraint forces. OK,
    KERNEL_INTERRUPTED (the request at ``interrupt`` was set), or _NOT_EVALUATED (y or f
    is not finite or the constraint kernel declined)."""
    if interrupted(interrupt):
        return KERNEL_INTERRUPTED
    for i in range(y.shape[0]):
        if not np.isfinite(y[i]):
            return _NOT_EVALUATED
    nq, nu = s[_Q, 0], s[_U, 0]
    write_q_and_u(y, a, s)
    # run-time values (a constant is typed as a literal: another specialisation)
    status = _constrained_derivatives(np.int64(POSITION), nq >= 0, euler, a, s, cons, interrupt)
    if status == KERNEL_INTERRUPTED:
        return status
    if status != OK:
        return _NOT_EVALUATED
    qdot, udot = table_f1(a, s, _QDOT), table_f1(a, s, _UDOT)
    ok = True
    for i in range(nq):
        f[i] = qdot[i]
        ok = ok and np.isfinite(qdot[i])
    for i in range(nu):
        f[nq + i] = udot[i]
        ok = ok and np.isfinite(udot[i])
    return OK if ok else _NOT_EVALUATED


@njit(cache=True, nogil=True, inline="always")
def _stage_failure(status, stage):
    """What the trial stages return for an evaluation's status (not OK) at ``stage``."""
    return _STAGES_INTERRUPTED if status == KERNEL_INTERRUPTED else stage


@njit(cache=True, nogil=True)
def constrained_trial_stages(
    h, y0, f0, f1, f2, f3, f4, y, ysave, tmp, euler, a, s, cons, interrupt
):
    """``trial_stages.merson_trial_stages`` with the constrained derivatives (the same
    stage arithmetic, operation by operation). Returns 0, the number (1-4) of the
    evaluation that was not finite, or _STAGES_INTERRUPTED."""
    n = y0.shape[0]
    c = h / 3
    for i in range(n):
        y[i] = c * f0[i] + y0[i]
    status = _evaluate(y, f1, euler, a, s, cons, interrupt)
    if status != OK:
        return _stage_failure(status, 1)
    c = h / 6
    for i in range(n):
        y[i] = (f0[i] + f1[i]) * c + y0[i]
    status = _evaluate(y, f2, euler, a, s, cons, interrupt)
    if status != OK:
        return _stage_failure(status, 2)
    c = h / 8
    for i in range(n):
        y[i] = (f0[i] + 3 * f2[i]) * c + y0[i]
    status = _evaluate(y, f3, euler, a, s, cons, interrupt)
    if status != OK:
        return _stage_failure(status, 3)
    c = h / 2
    for i in range(n):
        tmp[i] = 4 * f3[i]
        ysave[i] = ((f0[i] - 3 * f2[i]) + tmp[i]) * c + y0[i]
    status = _evaluate(ysave, f4, euler, a, s, cons, interrupt)
    if status != OK:
        return _stage_failure(status, 4)
    c = h / 6
    for i in range(n):
        y[i] = ((f0[i] + 4 * f3[i]) + f4[i]) * c + y0[i]
    return 0


@njit(cache=True, nogil=True, inline="always")
def _projection_status(status):
    """The attempt's status for a projection's status (not OK)."""
    if status == FAILED:
        return PROJECTION_FAILED
    if status == PROJECTION_INTERRUPTED:
        return INTERRUPTED
    return CONSTRAINTS_IRREGULAR


@njit(cache=True, nogil=True)
def constrained_attempt(
    h,
    y0,
    f0,
    work,
    euler,
    a,
    s,
    u_scale,
    z_scale,
    w_u,
    infinity,
    hopeless,
    cons,
    tols,
    info,
    interrupt,
):
    """One attempt of step h from (y0, f0), steps 2 of the module docstring. ``cons`` =
    (m, addresses, shapes): the number of equations and a table (``CONS_SPEC``)
    of the compiled constraints (ci, cf), the State's arrays their kernels write (qerr,
    uerr, multipliers, udot_err), the projection weights (QErrWeights, q weights,
    UErrWeights, u weights), the scratch of ``constrained_accelerations_into``
    (``constraint_kernels.carve_work``'s table: work, addresses, shapes) and the
    projections' (m, nu) scratch of the constraint Jacobian; ``tols`` =
    (constraint tolerance, projection target, projection limit, force projection as
    0.0/1.0). ``work[YERR]`` gets
    the (projected) error estimate, ``info`` the entries KE..U_CHANGED. The status
    (INTERRUPTED if the request at ``interrupt`` was set)."""
    failed = constrained_trial_stages(
        h, y0, f0, work[F1], work[F2], work[F3], work[F4], work[Y], work[YSAVE], work[TMP],
        euler, a, s, cons, interrupt,
    )  # fmt: skip
    if failed == _STAGES_INTERRUPTED:
        return INTERRUPTED
    if failed:
        return failed
    y, ysave, y_err = work[Y], work[YSAVE], work[YERR]
    n = y.shape[0]
    for i in range(n):
        if not math.isfinite(y[i]):
            return Y1_NOT_FINITE
    ca, cs = cons[1], cons[2]
    ci, cf, m = i2(ca, cs, CONS_SLOT.ci), f2(ca, cs, CONS_SLOT.cf), cons[0]
    qerr, uerr = table_f1(ca, cs, CONS_SLOT.qerr), table_f1(ca, cs, CONS_SLOT.uerr)
    tp, wq = table_f1(ca, cs, CONS_SLOT.tp), table_f1(ca, cs, CONS_SLOT.wq)
    tpv, wu = table_f1(ca, cs, CONS_SLOT.tpv), table_f1(ca, cs, CONS_SLOT.wu)
    P = f2(ca, cs, CONS_SLOT.P)
    tol, target, limit, force = tols[0], tols[1], tols[2], tols[3] != 0.0
    nq, nu = s[_Q, 0], s[_U, 0]
    write_q_and_u(y, a, s)
    status, ke = realize_kinematics_by_address(euler, a, s, ci, cf, qerr, uerr, _work(cons))
    if status != OK:
        return CONSTRAINTS_IRREGULAR
    info[KE] = ke
    for i in range(n):
        y_err[i] = (y[i] - ysave[i]) / 5
    info[PROJECTED] = info[Q_CHANGED] = info[U_CHANGED] = 0.0
    norm, worst = _error_norm(work, u_scale, z_scale, w_u, infinity, euler, a, s)
    if worst == NOT_FINITE:
        return NORM_NOT_FINITE
    if norm > hopeless:
        info[NORM] = norm
        info[WORST] = worst
        return 0
    info[PROJECTED] = 1.0
    pinfo = np.zeros(INFO_SIZE)
    status = project_q_by_address(
        euler, a, s, ci, cf, m, qerr, tp, wq, tol, target, limit, infinity, force,
        y_err[:nq], pinfo, P, interrupt,
    )  # fmt: skip
    if status:
        return _projection_status(status)
    if pinfo[CHANGED] != 0.0:
        info[Q_CHANGED] = 1.0
        status, ke = realize_velocity_by_address(euler, a, s, ci, cf, uerr)
        if status != OK:
            return CONSTRAINTS_IRREGULAR
        info[KE] = ke
    status = project_u_by_address(
        euler, a, s, ci, cf, m, uerr, tpv, wu, tol, target, infinity, force,
        y_err[nq : nq + nu], pinfo, P, interrupt,
    )  # fmt: skip
    if status:
        return _projection_status(status)
    if pinfo[CHANGED] != 0.0:
        info[U_CHANGED] = 1.0
        info[KE] = pinfo[KINETIC_ENERGY]
    norm, worst = _error_norm(work, u_scale, z_scale, w_u, infinity, euler, a, s)
    if worst == NOT_FINITE:
        return NORM_NOT_FINITE
    info[NORM] = norm
    info[WORST] = worst
    return 0


@njit(cache=True, nogil=True)
def constrained_merson_steps(
    t_max,
    t_stop,
    max_steps,
    need_derivatives,
    with_inertias,
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
    a,
    s,
    w_u,
    infinity,
    cons,
    tols,
    info,
    counts,
    run,
    interrupt,
):
    """``steps.merson_steps`` for a State with compiled constraints (see the module
    docstring; ``cons``, ``tols``, ``info`` and ``interrupt`` as ``constrained_attempt``
    takes them). ``counts`` (COUNTS_SIZE,) gets what the steps taken did; ``run`` (one
    record of ``run_record.RUN_DTYPE``) the step-size control's state, as merson_steps
    leaves it. Returns the status (0, or why it stopped before a step)."""
    r = run[0]
    t = r.time
    h = r.step_size
    tiny = r.tiny_steps
    hopeless = 2.0**_ORDER * accuracy
    for k in range(COUNTS_SIZE):
        counts[k] = 0
    no = max_steps < 0  # a run-time False: merson_steps' specialisation of _start_of_step
    status = 0
    while counts[STEPS] < max_steps and t < t_stop:
        if interrupted(interrupt):
            status = INTERRUPTED
            break
        if need_derivatives:
            status = _constrained_derivatives(
                np.int64(DYNAMICS), with_inertias, euler, a, s, cons, interrupt
            )
            if status != OK:
                status = INTERRUPTED if status == KERNEL_INTERRUPTED else CONSTRAINTS_IRREGULAR
                break
        if not _start_of_step(no, no, y_prev, f_prev, qdd_prev, u_scale, z_scale, w_u, euler, a, s):
            status = DERIVATIVES_NOT_FINITE
            break
        step_realizations = 1 if need_derivatives else 0
        need_derivatives = with_inertias = True
        t0, h_start = t, h
        step_attempts = step_failures = step_projections = step_q = step_u = 0
        while True:
            t1, limited = trial_step_end(t0, h, t_max)
            if step_underflows(t0, t1, h, limited):
                status = STEP_UNDERFLOW
                break
            step_attempts += 1
            status = constrained_attempt(
                t1 - t0, y_prev, f_prev, work, euler, a, s, u_scale, z_scale, w_u,
                infinity, hopeless, cons, tols, info, interrupt,
            )  # fmt: skip
            if status:
                break
            step_projections += int(info[PROJECTED])
            step_q += int(info[Q_CHANGED])
            step_u += int(info[U_CHANGED])
            new_h = adjusted_step_size(h, info[NORM], _ORDER, limited, accuracy, min_step, max_step)
            accepted = new_h >= h
            h = new_h
            if accepted:
                break
            step_failures += 1
        if status == 0:
            tiny_after = tiny_step_count(t0, t1, limited, tiny)
            if tiny_after > MAX_TINY_STEPS:
                status = CRAWLING
        if status:  # back to the start of this step, for Python to take it
            write_q_and_u(y_prev, a, s)
            h = h_start
            break
        tiny = tiny_after
        r.previous_time = t0
        r.last_step_size = t1 - t0
        if math.isnan(r.first_step_size):
            r.first_step_size = t1 - t0
        r.worst_state = int(info[WORST])
        r.kinetic_energy = info[KE]
        t = t1
        counts[STEPS] += 1
        counts[ATTEMPTS] += step_attempts
        counts[ERROR_TEST_FAILURES] += step_failures
        counts[PROJECTIONS] += step_projections
        counts[Q_PROJECTIONS] += step_q
        counts[U_PROJECTIONS] += step_u
        counts[DERIVATIVE_REALIZATIONS] += step_realizations
    r.time = t
    r.step_size = h
    r.tiny_steps = tiny
    r.steps = counts[STEPS]
    r.attempts = counts[ATTEMPTS]
    r.error_test_failures = counts[ERROR_TEST_FAILURES]
    r.projections = counts[PROJECTIONS]
    r.normalizations = 0
    r.derivative_realizations = counts[DERIVATIVE_REALIZATIONS]
    return status
