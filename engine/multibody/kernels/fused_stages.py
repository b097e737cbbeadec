"""One kernel for the runtime stages Position through Acceleration of a MultibodySystem
whose stage work is all compiled (see ``engine.multibody.fused_realization``).

It runs, for the stages ``first..last`` (Stage ints 5..8), exactly the kernels the
ordinary per-subsystem realization runs: ``position_stage`` and the quaternion norm
errors; ``velocity_stage``; the applied-force accumulators zeroed and filled by the
compiled force terms and the compliant contacts (``contact_stage``, nothing for a
model without contact surfaces); ``acceleration_stage`` (with the articulated-body inertias first if
``with_inertias``). One call from Python instead of one per stage and subsystem: the
per-call cost of a Python hook and of unboxing a kernel's arrays is what dominates a
small system's realization.

Its arrays come by address and shape, in a table built on the declared kernel layout
(``engine.multibody.kernels.layout``), every slot filled, and each stage kernel reads the
slots it uses by name. The caller keeps every array of the table alive and unmoved
(``engine.multibody.fused_realization._Plan`` holds the table).

Kernels call it as ``realize_stages_by_address``: at its compiled address, so that its
machine code is compiled once and not linked into (and optimised again inside) each
kernel that calls it (``engine.common.numba_internals.address_call``,
docs/jit-warm-up.md).
"""

from __future__ import annotations

import numpy as np
from numba import types

from engine.common.numba_internals import address_call, f1, f2, f3, i1, i2, kernel_jit
from engine.contact.kernels.contact_stage_kernel import contact_stage
from engine.forces.compiled_terms import apply_force_terms
from engine.multibody.kernels.layout import SLOT
from engine.multibody.kernels.stage_kernels import (
    acceleration_stage,
    position_stage,
    quaternion_errors,
    velocity_stage,
)

POSITION, VELOCITY, DYNAMICS, ACCELERATION = 5, 6, 7, 8


@kernel_jit
def realize_stages_from_table(first, last, with_inertias, euler, a, s):
    """Realize the stages first..last (5 Position .. 8 Acceleration) of a tree without
    Custom mobilizers, constraints or prescribed motion, its arrays in the table (``a``
    addresses, ``s`` shapes; ``layout.SLOT``); returns the kinetic energy if Velocity was
    among them (else 0). Frames and units as the stage kernels'."""
    ke = 0.0
    if first <= POSITION:
        position_stage(euler, np.int64(-1), a, s)
        quaternion_errors(f1(a, s, SLOT.q), i1(a, s, SLOT.quat_starts), f1(a, s, SLOT.qerr), 0)
    if last < VELOCITY:
        return ke
    if first <= VELOCITY:
        ke = velocity_stage(euler, a, s)
    if last < DYNAMICS:
        return ke
    if first <= DYNAMICS:
        body_forces, mobility_forces = f2(a, s, SLOT.body_forces), f1(a, s, SLOT.mobility_forces)
        body_forces[:] = 0.0
        mobility_forces[:] = 0.0
        apply_force_terms(
            i2(a, s, SLOT.term_ints),
            f2(a, s, SLOT.term_floats),
            i1(a, s, SLOT.excluded),
            f1(a, s, SLOT.mass),
            f2(a, s, SLOT.com_G),
            f3(a, s, SLOT.R_GB),
            f2(a, s, SLOT.p_GB),
            f2(a, s, SLOT.V_GB),
            f1(a, s, SLOT.q),
            f1(a, s, SLOT.u),
            body_forces,
            mobility_forces,
        )
        p_GB, R_GB, V_GB = f2(a, s, SLOT.p_GB), f3(a, s, SLOT.R_GB), f2(a, s, SLOT.V_GB)
        contact_stage(a, s, p_GB, R_GB, V_GB, body_forces)
    if last < ACCELERATION:
        return ke
    acceleration_stage(with_inertias, euler, a, s)
    return ke


#: the one signature of realize_stages_from_table (Python's calls and the kernels' alike)
REALIZE_STAGES_SIGNATURE = types.float64(
    types.int64, types.int64, types.boolean, types.boolean, types.int64[::1], types.int64[:, ::1]
)

#: realize_stages_from_table for kernels: called at its compiled address (same arguments)
realize_stages_by_address = address_call(realize_stages_from_table, REALIZE_STAGES_SIGNATURE)
