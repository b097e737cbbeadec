"""Recursive Newton-Euler inverse dynamics (O(n)): the residual mobility forces
M udot + bias - f - J^T F, and with velocity terms off, M v."""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.multibody.kernels.spatial_kernels import (
    add_h_times,
    h_transpose_times,
    shift_force_to_parent_add,
    shift_motion_to_child,
)


@njit(cache=True)
def calc_residual(
    parent,
    us,
    nus,
    H_G,
    p_GB,
    Phi_G,
    coriolis,
    bias_force,
    body_forces,
    mobility_forces,
    udot,
    A_GB,
    residual,
):
    """residual = M udot + bias - mobility_forces - J^T body_forces; A_GB gets the body
    accelerations implied by udot. Zero ``coriolis``/``bias_force`` give M udot - f - J^T F."""
    nb = parent.shape[0]
    A_GB[0, :] = 0.0
    a = np.empty(6)
    for b in range(1, nb):
        nu = nus[b]
        s = us[b]
        shift_motion_to_child(A_GB[parent[b]], p_GB[b] - p_GB[parent[b]], a)
        a += coriolis[b]
        if nu > 0:
            add_h_times(H_G[b], nu, udot, s, a)
        A_GB[b] = a
    F = np.zeros((nb, 6))
    for b in range(1, nb):
        F[b] = Phi_G[b] @ A_GB[b] + bias_force[b] - body_forces[b]
    for b in range(nb - 1, 0, -1):
        nu = nus[b]
        s = us[b]
        if nu > 0:
            h_transpose_times(H_G[b], nu, F[b], residual, s)
            residual[s : s + nu] -= mobility_forces[s : s + nu]
        shift_force_to_parent_add(F[b], p_GB[b] - p_GB[parent[b]], F[parent[b]])
