"""The constrained accelerations of a realization, stoppable by an InterruptRequest.

``constrained_accelerations_interruptibly`` is ``constraint_kernels.constrained_accelerations``
(the Acceleration-stage correction of udot by the constraint forces) taking the address
of an ``interrupt_request.InterruptRequest`` (0 for none), which the kernel looks at once
per equation and per column of its factorization: O(m nu) or O(m^2) work between looks,
milliseconds for thousands of equations. An interrupted call returns INTERRUPTED and
writes neither udot, A_GB, qdotdot nor the acceleration errors.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.multibody.kernels.constraint_kernels import (
    carve_work,
    constrained_accelerations_into,
    constrained_work_size_kernel,
)
from engine.multibody.kernels.layout import SLOT


@njit(cache=True, nogil=True)
def constrained_accelerations_interruptibly(
    a, s, with_inertias, euler, ci, cf, m, lam, udot_err, interrupt
):
    """``constrained_accelerations`` (its arguments and statuses) stopped by the request
    at ``interrupt`` (module docstring)."""
    nb, nu = s[SLOT.parent, 0], s[SLOT.udot, 0]
    work = np.empty(constrained_work_size_kernel(m, nb, nu))
    return constrained_accelerations_into(
        a, s, with_inertias, euler, ci, cf, m, lam, udot_err, carve_work(work, m, nb, nu), interrupt
    )
