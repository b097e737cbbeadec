"""Articulated-body forward dynamics (O(n)): udot from applied forces, and the same
recursion with velocity terms off as the operator M^-1.

These are the allocating entry points (scratch made per call); the recursions themselves are
the allocation-free ``stage_kernels.articulated_inertias`` and ``articulated_solve``."""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.multibody.kernels.stage_kernels import articulated_inertias, articulated_solve


@njit(cache=True)
def calc_articulated_inertias(parent, nus, H_G, Phi_G, p_GB, P_abi, D_inv, U_cols):
    """Tip-to-base pass for the articulated body inertias P (about Bo, in G), with each
    body's D^-1 = (H^T P H)^-1 and U = P H (6 x nu) kept for the solves."""
    articulated_inertias(
        parent, nus, H_G, Phi_G, p_GB, P_abi, D_inv, U_cols, np.zeros((6, 12)), np.zeros((6, 6))
    )


@njit(cache=True)
def solve_articulated(
    parent,
    us,
    nus,
    H_G,
    p_GB,
    P_abi,
    D_inv,
    U_cols,
    coriolis,
    bias_force,
    body_forces,
    mobility_forces,
    udot,
    A_GB,
):
    """Given articulated inertias, solve for udot and body accelerations A_GB with applied
    body forces (at Bo, in G), mobility forces, velocity terms ``coriolis`` (local) and
    ``bias_force`` (gyroscopic). Passing zeros for the velocity terms gives M^-1 f."""
    articulated_solve(
        parent,
        us,
        nus,
        H_G,
        p_GB,
        P_abi,
        D_inv,
        U_cols,
        coriolis,
        bias_force,
        body_forces,
        mobility_forces,
        udot,
        A_GB,
        np.zeros((parent.shape[0], 6)),
        np.zeros(udot.shape[0]),
    )
