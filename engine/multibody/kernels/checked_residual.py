"""Inverse dynamics (``residual_forces``) called from Python at the cost of a few arrays.

``calcResidualForceIgnoringConstraints`` is a small computation for a small tree (about
0.4 us for ten bodies), so checking its three inputs in Python and unboxing the kernel's
fourteen arrays cost more than the work. ``residual_forces_from_table`` takes the
State's arrays by address (an ``ArrayTable`` on ``RESIDUAL_ARRAYS``, built once per
State), checks the caller's inputs for non-finite values itself, and only then computes.
``compiled_entry`` gives its compiled entry point for ``SIGNATURE``, which also skips the
dispatcher's per-call type resolution; the caller passes arrays of exactly those types.
"""

from __future__ import annotations

import functools
import math

from numba import float64, int64, njit, types

from engine.multibody.kernels.array_table import f2, f3, i1
from engine.multibody.kernels.stage_kernels import residual_forces

#: The State's arrays residual_forces_from_table reads and writes: (name, kind, ndim).
RESIDUAL_ARRAYS = (
    ("parent", "i", 1),
    ("us", "i", 1),
    ("nus", "i", 1),
    ("H_G", "f", 3),  # Position cache: joint maps in G, (nb, 6, 6)
    ("p_GB", "f", 2),  # Position cache: body origins in G (m)
    ("Phi_G", "f", 3),  # Position cache: spatial inertias about Bo in G
    ("coriolis", "f", 2),  # Velocity cache: coriolis accelerations [w; v]
    ("gyroscopic", "f", 2),  # Velocity cache: gyroscopic forces [torque; force]
    ("A_GB", "f", 2),  # scratch (nb, 6): body accelerations implied by udot
    ("F", "f", 2),  # scratch (nb, 6): body forces of the backward pass
    ("applied", "f", 2),  # scratch (nb, 6): the applied body forces, flattened
)

#: Inputs named by residual_forces_from_table's status codes 1, 2, 3.
INPUT_NAMES = ("", "appliedMobilityForces", "appliedBodyForces", "knownUdot")

#: The types compiled_entry's entry point takes: the table (addresses, shapes), body
#: forces (nb, 2, 3), mobility forces and udot (nu,) of any strides, the residual (nu,).
SIGNATURE = (
    types.Array(int64, 1, "C"),
    types.Array(int64, 2, "C"),
    types.Array(float64, 3, "A"),
    types.Array(float64, 1, "A"),
    types.Array(float64, 1, "A"),
    types.Array(float64, 1, "C"),
)


@njit(cache=True, nogil=True)
def residual_forces_from_table(a, s, body_forces, mobility_forces, udot, residual):
    """residual = M udot + bias - f - J^T F (``residual_forces``) with the State's arrays
    from the table (a, s). Returns 0, or the first input that holds a NaN or infinity
    (1 mobility forces, 2 body forces, 3 udot; see ``INPUT_NAMES``), in which case
    nothing is computed."""
    for i in range(mobility_forces.shape[0]):
        if not math.isfinite(mobility_forces[i]):
            return 1
    applied = f2(a, s, 10)
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
        i1(a, s, 0),
        i1(a, s, 1),
        i1(a, s, 2),
        f3(a, s, 3),
        f2(a, s, 4),
        f3(a, s, 5),
        f2(a, s, 6),
        f2(a, s, 7),
        applied,
        mobility_forces,
        udot,
        f2(a, s, 8),
        f2(a, s, 9),
        residual,
    )
    return 0


@functools.cache
def compiled_entry():
    """The compiled entry point of residual_forces_from_table for ``SIGNATURE`` (from
    numba's cache when it is there), or None when numba runs pure Python
    (NUMBA_DISABLE_JIT), where the table's addresses cannot be used. Looked up once."""
    if not hasattr(residual_forces_from_table, "py_func"):
        return None
    return residual_forces_from_table.compile(SIGNATURE)
