"""Many Runge-Kutta-Merson steps in one kernel call, for a TimeStepper or ``stepTo`` run
whose State qualifies for ``FusedRealization.compiledDerivatives`` and has nothing that
needs Python between steps (no constraints, event witnesses, auto-update variables,
time-advanced events or per-step returns).

Each step does what ``Integrator._stepTo`` and ``Integrator._advanceOneStep`` do through
the State for such a State, with the same kernels and in the same order, so the steps,
the final state and every counter are bit-identical to the Python path:

1. the advanced state's derivatives (Dynamics and Acceleration realized, unless the
   State already was at Acceleration), checked finite, saved with y, qdotdot and the
   relative u scaling as the previous step's;
2. attempts (``merson_compiled.attempt.merson_attempt``) with the step sizes of
   ``step_control`` until one passes the error test (where the error norm reads only q,
   the attempts leave Position and Velocity unrealized and the accepted one realizes
   them once: the same q, u, norms and kinetic energy without the kinematics of rejected
   attempts, or the second realization after a quaternion normalization);
3. the step counted, unless the integration then makes no progress.

It stops before a step once the time reaches ``t_stop`` or ``max_steps`` steps are
taken, and returns there to Python, which reports, interpolates and returns to the user.
Anything irregular (non-finite derivatives, a failing attempt, a step size underflow,
crawling) stops it before that step with a nonzero status: the State's q and u are put
back to the start of that step and Python takes the step itself, which words the failure.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from engine.integrators.error_norm import _relative_scaling
from engine.integrators.merson_compiled.attempt import (
    KE,
    NORM,
    NORMALIZED,
    PROJECTED,
    WORST,
    attempt_kinematics_deferrable,
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
from engine.multibody.kernels.array_table import i1 as table_i1
from engine.multibody.kernels.fused_stages import (
    ACCELERATION,
    DYNAMICS,
    POSITION,
    VELOCITY,
    realize_stages_by_address,
)
from engine.multibody.kernels.layout import SLOT
from engine.multibody.kernels.n_operators import n_reads_only_q

_Q, _U, _QDOT, _UDOT = SLOT.q, SLOT.u, SLOT.qdot, SLOT.udot
_Z, _ZDOT, _WZ = SLOT.contact_z, SLOT.contact_zdot, SLOT.contact_z_weights
_POWER = SLOT.contact_power
_QDOTDOT = SLOT.qdotdot
_MTYPE = SLOT.mtype

#: statuses besides merson_attempt's (1-7): 0 stopped at t_stop or max_steps; the
#: derivatives at a step's start were not finite; the step size underflowed; the
#: integration crawled
DERIVATIVES_NOT_FINITE, STEP_UNDERFLOW, CRAWLING = 8, 9, 10

#: the order of the Merson error estimate
_ORDER = 4


@njit(cache=True, nogil=True)
def _start_of_step(
    need_derivatives, with_inertias, y_prev, f_prev, qdd_prev, u_scale, z_scale, w_u, euler, a, s
):
    """Step 1 of the module docstring; False (nothing saved) if the derivatives are not
    finite. Where y holds a z (the tracked dissipated energy, ``contact_z``), its zdot is
    the realization's ``contact_power`` (the State's own zdot when it was already at
    Acceleration) and its scaling is computed as ``calcRelativeScaling(z, zWeights)``."""
    nq, nu = s[_Q, 0], s[_U, 0]
    nqu = nq + nu
    nz = y_prev.shape[0] - nqu
    zdot = table_f1(a, s, _ZDOT)
    if need_derivatives:
        realize_stages_by_address(
            np.int64(DYNAMICS), np.int64(ACCELERATION), with_inertias, euler, a, s
        )
        for i in range(nz):  # as FusedRealization.realize writes it
            zdot[i] = table_f1(a, s, _POWER)[0]
    for i in range(nz):
        if not math.isfinite(zdot[i]):
            return False
    qdot, udot = table_f1(a, s, _QDOT), table_f1(a, s, _UDOT)
    for i in range(nq):
        if not math.isfinite(qdot[i]):
            return False
    for i in range(nu):
        if not math.isfinite(udot[i]):
            return False
    q, u, qdd = table_f1(a, s, _Q), table_f1(a, s, _U), table_f1(a, s, _QDOTDOT)
    for i in range(nq):
        y_prev[i] = q[i]
        f_prev[i] = qdot[i]
        qdd_prev[i] = qdd[i]
    for i in range(nu):
        y_prev[nq + i] = u[i]
        f_prev[nq + i] = udot[i]
    _relative_scaling(u, w_u, u_scale)
    if nz:
        z = table_f1(a, s, _Z)
        for i in range(nz):
            y_prev[nqu + i] = z[i]
            f_prev[nqu + i] = zdot[i]
        _relative_scaling(z, table_f1(a, s, _WZ), z_scale)
    return True


@njit(cache=True, nogil=True)
def merson_steps(
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
    project,
    target,
    force,
    info,
    run,
):
    """Steps from the advanced state (q and u of the State in table a, s; time
    ``run[0].time``) toward ``t_max`` while the time is before ``t_stop``, at most
    ``max_steps`` of them; see the module docstring. ``y_prev``, ``f_prev``, ``qdd_prev``,
    ``u_scale`` and ``z_scale`` (empty, or the one z's when y = [q, u, z]: the tracked
    dissipated energy) get the previous-step data of the last step (of the step it stopped
    before, if it stopped at its derivatives); ``run`` (one record of
    ``run_record.RUN_DTYPE``) the step-size control's state and the counts. ``need_derivatives``
    and ``with_inertias`` say whether the first step must realize Dynamics and
    Acceleration and whether that includes the articulated inertias. Returns the status
    (0, or why it stopped early)."""
    r = run[0]
    t = r.time
    h = r.step_size
    tiny = r.tiny_steps
    hopeless = 2.0**_ORDER * accuracy
    # where the error norm reads only q, an attempt's end kinematics wait for its acceptance
    defer = n_reads_only_q(table_i1(a, s, _MTYPE))
    steps = attempts = failures = projections = normalizations = realizations = 0
    status = 0
    while steps < max_steps and t < t_stop:
        if not _start_of_step(
            need_derivatives,
            with_inertias,
            y_prev,
            f_prev,
            qdd_prev,
            u_scale,
            z_scale,
            w_u,
            euler,
            a,
            s,
        ):
            status = DERIVATIVES_NOT_FINITE
            break
        step_realizations = 1 if need_derivatives else 0
        need_derivatives = with_inertias = True
        t0, h_start = t, h
        step_attempts = step_failures = step_projections = step_normalizations = 0
        while True:
            t1, limited = trial_step_end(t0, h, t_max)
            if step_underflows(t0, t1, h, limited):
                status = STEP_UNDERFLOW
                break
            step_attempts += 1
            status = attempt_kinematics_deferrable(
                t1 - t0, y_prev, f_prev, work, euler, a, s, u_scale, z_scale, w_u,
                infinity, project, hopeless, target, force, info, not defer,
            )  # fmt: skip
            if status:
                break
            step_projections += int(info[PROJECTED])
            step_normalizations += int(info[NORMALIZED])
            new_h = adjusted_step_size(h, info[NORM], _ORDER, limited, accuracy, min_step, max_step)
            accepted = new_h >= h
            h = new_h
            if accepted:
                if defer:  # the accepted q (projected) and u's kinematics, as undeferred
                    info[KE] = realize_stages_by_address(
                        np.int64(POSITION), np.int64(VELOCITY), np.bool_(False), euler, a, s
                    )
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
        steps += 1
        attempts += step_attempts
        failures += step_failures
        projections += step_projections
        normalizations += step_normalizations
        realizations += step_realizations
    r.time = t
    r.step_size = h
    r.tiny_steps = tiny
    r.steps = steps
    r.attempts = attempts
    r.error_test_failures = failures
    r.projections = projections
    r.normalizations = normalizations
    r.derivative_realizations = realizations
    return status
