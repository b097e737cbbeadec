"""The four trial-stage derivative evaluations of a Runge-Kutta-Merson step in one kernel,
for States whose derivatives a kernel can evaluate (``FusedRealization.compiledDerivatives``).

Each evaluation writes the stage's y into the State's q and u (and z: y = [q, u, z], where
z is the compliant contact's tracked dissipated energy when the State has it, the table's
``contact_z``), realizes Position through Acceleration with ``realize_stages`` and reads
qdot and udot back (and zdot, the contacts' dissipated power ``contact_power``), exactly what the
integrator's Python evaluation does for such a State (Time stage and prescribed motion
have nothing to do there), without going back to Python between the stages. The stage
arithmetic repeats the Python method's numpy operations one by one, in the same order, so
both give bit-identical steps.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.multibody.kernels.array_table import f1
from engine.multibody.kernels.fused_stages import (
    ACCELERATION,
    POSITION,
    realize_stages_by_address,
)
from engine.multibody.kernels.layout import SLOT

_Q, _U, _QDOT, _UDOT = SLOT.q, SLOT.u, SLOT.qdot, SLOT.udot
_Z, _POWER = SLOT.contact_z, SLOT.contact_power


@njit(cache=True, nogil=True)
def write_q_and_u(y, a, s):
    """y = [q, u] (or [q, u, z]) into the State's q and u (and z) (given by table a, s)."""
    nq, nu = s[_Q, 0], s[_U, 0]
    q = f1(a, s, _Q)
    u = f1(a, s, _U)
    for i in range(nq):
        q[i] = y[i]
    for i in range(nu):
        u[i] = y[nq + i]
    nqu = nq + nu
    if y.shape[0] > nqu:
        z = f1(a, s, _Z)
        for i in range(y.shape[0] - nqu):
            z[i] = y[nqu + i]


@njit(cache=True, nogil=True)
def _evaluate(y, f, euler, a, s):
    """f = ydot at y (q, u and z of the State given by table a, s); False if y or f is not
    finite (nothing is realized for a non-finite y)."""
    for i in range(y.shape[0]):
        if not np.isfinite(y[i]):
            return False
    nq = s[_Q, 0]
    nu = s[_U, 0]
    write_q_and_u(y, a, s)
    realize_stages_by_address(
        np.int64(POSITION), np.int64(ACCELERATION), np.bool_(True), euler, a, s
    )
    qdot = f1(a, s, _QDOT)
    udot = f1(a, s, _UDOT)
    ok = True
    for i in range(nq):
        f[i] = qdot[i]
        ok = ok and np.isfinite(qdot[i])
    for i in range(nu):
        f[nq + i] = udot[i]
        ok = ok and np.isfinite(udot[i])
    nqu = nq + nu
    if y.shape[0] > nqu:  # zdot: the dissipated power, as FusedRealization.realize writes it
        power = f1(a, s, _POWER)[0]
        for i in range(nqu, y.shape[0]):
            f[i] = power
        ok = ok and np.isfinite(power)
    return ok


@njit(cache=True, nogil=True)
def merson_trial_stages(h, y0, f0, f1, f2, f3, f4, y, ysave, tmp, euler, a, s):
    """The Merson stages from (y0, f0) with step h: f1..f4, the propagated solution
    ``y`` and the embedded one ``ysave`` (as RungeKuttaMersonIntegrator._attemptODEStep).
    Returns 0, or the number (1-4) of the evaluation whose state or derivatives were not
    finite (the caller then redoes the step in Python, which names the variable)."""
    n = y0.shape[0]
    c = h / 3
    for i in range(n):
        y[i] = c * f0[i] + y0[i]
    if not _evaluate(y, f1, euler, a, s):
        return 1
    c = h / 6
    for i in range(n):
        y[i] = (f0[i] + f1[i]) * c + y0[i]
    if not _evaluate(y, f2, euler, a, s):
        return 2
    c = h / 8
    for i in range(n):
        y[i] = (f0[i] + 3 * f2[i]) * c + y0[i]
    if not _evaluate(y, f3, euler, a, s):
        return 3
    c = h / 2
    for i in range(n):
        tmp[i] = 4 * f3[i]
        ysave[i] = ((f0[i] - 3 * f2[i]) + tmp[i]) * c + y0[i]
    if not _evaluate(ysave, f4, euler, a, s):
        return 4
    c = h / 6
    for i in range(n):
        y[i] = ((f0[i] + 4 * f3[i]) + f4[i]) * c + y0[i]
    return 0
