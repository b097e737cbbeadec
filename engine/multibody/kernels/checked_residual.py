"""Inverse dynamics (``residual_forces``) called from Python at the cost of a few arrays.

``calcResidualForceIgnoringConstraints`` is a small computation for a small tree, so
checking its three inputs in Python and unboxing the kernel's fourteen arrays would cost
more than the work. ``residual_forces_from_table`` takes the
State's arrays from its kernel table (``engine.multibody.kernels.layout``, built once per
State), checks that the State still qualifies (``operator_check.stale`` at Velocity stage)
and the caller's inputs for non-finite values itself, and only then computes.
Its compiled entry point for ``SIGNATURE`` is ``checked_operators.ENTRY.residual``, which
skips the dispatcher's per-call type resolution; the caller passes arrays of exactly
those types.
"""

from __future__ import annotations

import math

from numba import float64, int64, types

from engine.common.numba_internals import (
    checked_output_array,
    f2,
    f3,
    i1,
    may_overlap,
    short_kernel_jit,
)
from engine.multibody.kernels.layout import SLOT
from engine.multibody.kernels.operator_check import SEEN_VELOCITY, STALE, stale
from engine.multibody.kernels.stage_kernels import residual_forces

#: Inputs named by residual_forces_from_table's status codes 1, 2, 3.
INPUT_NAMES = ("", "appliedMobilityForces", "appliedBodyForces", "knownUdot")

#: residual_forces_from_table's statuses for its output: not nu long, or its memory
#: overlaps an input's (``may_overlap``)
OUT_WRONG_LENGTH, OUT_OVERLAP = 4, 5

#: The types the compiled entry point takes: the table (addresses, shapes), body
#: forces (nb, 2, 3), mobility forces and udot (nu,) of any strides, the residual (nu,):
#: a writable C-contiguous array, checked when unboxed.
SIGNATURE = (
    types.Array(int64, 1, "C"),
    types.Array(int64, 2, "C"),
    types.Array(float64, 3, "A"),
    types.Array(float64, 1, "A"),
    types.Array(float64, 1, "A"),
    checked_output_array(1),
)


@short_kernel_jit
def residual_forces_from_table(a, s, body_forces, mobility_forces, udot, residual):
    """residual = M udot + bias - f - J^T F (``residual_forces``) with the State's arrays
    from the table (a, s). Returns 0, STALE (operator_check), the first input that
    holds a NaN or infinity (1 mobility forces, 2 body forces, 3 udot; see
    ``INPUT_NAMES``), OUT_WRONG_LENGTH or OUT_OVERLAP; nothing is computed but in the
    first case."""
    if stale(a, s, SEEN_VELOCITY):
        return STALE
    if residual.shape[0] != udot.shape[0]:
        return OUT_WRONG_LENGTH
    if (
        may_overlap(residual, mobility_forces)
        or may_overlap(residual, body_forces)
        or may_overlap(residual, udot)
    ):
        return OUT_OVERLAP
    for i in range(mobility_forces.shape[0]):
        if not math.isfinite(mobility_forces[i]):
            return 1
    applied = f2(a, s, SLOT.applied)
    for b in range(body_forces.shape[0]):
        for j in range(2):
            for k in range(3):
                x = body_forces[b, j, k]
                if not math.isfinite(x):
                    return 2
                applied[b, 3 * j + k] = x
    for i in range(udot.shape[0]):
        if not math.isfinite(udot[i]):
            return 3
    residual_forces(
        i1(a, s, SLOT.parent),
        i1(a, s, SLOT.us),
        i1(a, s, SLOT.nus),
        f3(a, s, SLOT.H_G),
        f2(a, s, SLOT.p_GB),
        f3(a, s, SLOT.Phi_G),
        f2(a, s, SLOT.coriolis),
        f2(a, s, SLOT.gyroscopic),
        applied,
        mobility_forces,
        udot,
        f2(a, s, SLOT.A),
        f2(a, s, SLOT.F),
        residual,
    )
    return 0
