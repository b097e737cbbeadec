"""A whole Runge-Kutta-Merson step attempt in one kernel, for States whose derivatives a
kernel can evaluate (``FusedRealization.compiledDerivatives``): the four trial stages
(``merson_trial_stages``), the advanced state's kinematics, the error estimate, its
weighted norm, the quaternion projection of q and of the estimate, and the norm again.

It does exactly what ``Integrator._attemptDAEStep`` followed by the error test of
``Integrator._advanceOneStep`` do through the State for such a State, in the same order
and with the same kernels (so the same steps, bit for bit):

1. y1 into the State's q and u, Position and Velocity realized
   (``_setAdvancedStateAndRealizeKinematics``);
2. the estimate ``(y1 - y_embedded)/5``;
3. if the State has quaternions (qErr entries): its weighted norm; beyond ``hopeless``
   (2^order times the accuracy) nothing is projected; else quaternions whose norm error
   exceeds ``target`` (or all, with ``force``) are normalized and Position and Velocity
   realized again (``projectQ``, ``prescribeU``, ``realize``), and the estimate loses its
   component along each quaternion;
4. the weighted norm of the estimate at the final q (the error test).

The caller records on the State what the kernel realized and counts what the Python path
would have counted. Any irregular case (a non-finite stage, state or norm, a zero
quaternion) returns a nonzero status and the caller redoes the attempt in Python, which
words the failure.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from engine.integrators.merson_compiled.trial_stages import merson_trial_stages, write_q_and_u
from engine.multibody.kernels.array_table import f1 as table_f1
from engine.multibody.kernels.array_table import f2 as table_f2
from engine.multibody.kernels.array_table import f3 as table_f3
from engine.multibody.kernels.array_table import i1 as table_i1
from engine.multibody.kernels.fused_stages import (
    POSITION,
    VELOCITY,
    realize_stages_by_address,
)
from engine.multibody.kernels.layout import SLOT
from engine.multibody.kernels.quaternion_projection import (
    normalize_quaternions,
    quaternions_to_normalize,
    remove_quaternion_norm_errors,
)
from engine.multibody.kernels.weighted_error_norm import NOT_FINITE, weighted_error_norm

_MTYPE, _QS, _NQS, _US, _NUS = SLOT.mtype, SLOT.qs, SLOT.nqs, SLOT.us, SLOT.nus
_PARAMS, _Q, _U = SLOT.params, SLOT.q, SLOT.u
_QUAT_STARTS, _R_FM = SLOT.quat_starts, SLOT.R_FM

#: rows of the work matrix (WORK_ROWS x ny)
F1, F2, F3, F4, Y, YSAVE, TMP, YERR, SCALED, SQUARES = range(10)
WORK_ROWS = 10

#: entries of the info vector the kernel fills
KE, NORM, WORST, NORMALIZED, PROJECTED = range(5)
INFO_SIZE = 5

#: statuses: 0 done; 1-4 that trial stage was not finite; 5 y1 not finite; 6 a norm not
#: finite; 7 a quaternion was zero
Y1_NOT_FINITE, NORM_NOT_FINITE, ZERO_QUATERNION = 5, 6, 7


@njit(cache=True, nogil=True)
def _error_norm(work, u_scale, z_scale, w_u, infinity, euler, a, s):
    """weighted_error_norm of work[YERR] at the State's current q (Position realized)."""
    return weighted_error_norm(
        s[_Q, 0],
        s[_U, 0],
        work[YERR],
        u_scale,
        z_scale,
        infinity,
        work[SCALED],
        work[SQUARES],
        table_i1(a, s, _MTYPE),
        table_i1(a, s, _QS),
        table_i1(a, s, _NQS),
        table_i1(a, s, _US),
        table_i1(a, s, _NUS),
        table_f2(a, s, _PARAMS),
        euler,
        table_f3(a, s, _R_FM),
        table_f1(a, s, _Q),
        w_u,
        np.empty((7, 7)),
        np.empty((7, 7)),
        np.empty(7),
    )


@njit(cache=True, nogil=True)
def merson_attempt(
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
    project,
    hopeless,
    target,
    force,
    info,
):
    """One attempt of step h from (y0, f0) (see module docstring). ``work`` is
    (WORK_ROWS, ny) scratch whose YERR row holds the final error estimate; ``info`` gets
    the kinetic energy of the last realization, the error norm and the index in y of
    its worst entry, whether quaternions were normalized and whether the projection ran
    (1.0 or 0.0). Returns the status (0 when done)."""
    return attempt_kinematics_deferrable(
        h, y0, f0, work, euler, a, s, u_scale, z_scale, w_u, infinity, project, hopeless,
        target, force, info, np.bool_(True),
    )  # fmt: skip


@njit(cache=True, nogil=True)
def attempt_kinematics_deferrable(
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
    project,
    hopeless,
    target,
    force,
    info,
    realize,
):
    """``merson_attempt``, or with ``realize`` False the same attempt without realizing
    Position and Velocity at its end (steps 1 and 3 of the module docstring then only
    write q and u): the State's final q and u are the same, the error norm and estimate
    too where the weighted norm reads only q (``n_operators.n_reads_only_q``), and
    ``info[KE]`` is not set. A caller that accepts the step realizes Position..Velocity
    once (``realize_stages_from_table``); a rejected attempt then costs no kinematics."""
    failed = merson_trial_stages(
        h, y0, f0, work[F1], work[F2], work[F3], work[F4], work[Y], work[YSAVE], work[TMP],
        euler, a, s,
    )  # fmt: skip
    if failed:
        return failed
    y, ysave, y_err = work[Y], work[YSAVE], work[YERR]
    n = y.shape[0]
    for i in range(n):
        if not math.isfinite(y[i]):
            return Y1_NOT_FINITE
    nq = s[_Q, 0]
    q = table_f1(a, s, _Q)
    write_q_and_u(y, a, s)
    if realize:
        info[KE] = realize_stages_by_address(
            np.int64(POSITION), np.int64(VELOCITY), np.bool_(False), euler, a, s
        )
    for i in range(n):
        y_err[i] = (y[i] - ysave[i]) / 5
    info[NORMALIZED] = 0.0
    info[PROJECTED] = 0.0
    if project:
        norm, worst = _error_norm(work, u_scale, z_scale, w_u, infinity, euler, a, s)
        if worst == NOT_FINITE:
            return NORM_NOT_FINITE
        if norm > hopeless:
            info[NORM] = norm
            info[WORST] = worst
            return 0
        info[PROJECTED] = 1.0
        starts = table_i1(a, s, _QUAT_STARTS)
        status = quaternions_to_normalize(q, starts, target, force)
        if status < 0:
            return ZERO_QUATERNION
        if status > 0:
            normalize_quaternions(q, starts, target, force)
            if realize:
                info[KE] = realize_stages_by_address(
                    np.int64(POSITION), np.int64(VELOCITY), np.bool_(False), euler, a, s
                )
            info[NORMALIZED] = 1.0
        remove_quaternion_norm_errors(q, starts, y_err[:nq])
    norm, worst = _error_norm(work, u_scale, z_scale, w_u, infinity, euler, a, s)
    if worst == NOT_FINITE:
        return NORM_NOT_FINITE
    info[NORM] = norm
    info[WORST] = worst
    return 0
