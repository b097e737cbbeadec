"""Articulated-body forward dynamics (O(n)): udot from applied forces, and the same
recursion with velocity terms off as the operator M^-1."""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.multibody.kernels.spatial_kernels import (
    phi_matrix,
    shift_force_to_parent_add,
    shift_motion_to_child,
)


@njit(cache=True)
def calc_articulated_inertias(parent, nus, H_G, Phi_G, p_GB, P_abi, D_inv, U_cols):
    """Tip-to-base pass for the articulated body inertias P (about Bo, in G), with each
    body's D^-1 = (H^T P H)^-1 and U = P H (6 x nu) kept for the solves."""
    nb = parent.shape[0]
    for b in range(nb):
        P_abi[b] = Phi_G[b]
    for b in range(nb - 1, 0, -1):
        nu = nus[b]
        Pb = P_abi[b]
        Pa = Pb.copy()
        if nu > 0:
            H = H_G[b][:, :nu]
            U = Pb @ H
            D = H.T @ U
            Di = np.linalg.inv(D)
            D_inv[b][:nu, :nu] = Di
            U_cols[b][:, :nu] = U
            Pa = Pb - U @ Di @ U.T
        r = p_GB[b] - p_GB[parent[b]]
        X = phi_matrix(r)
        P_abi[parent[b]] += X @ Pa @ X.T


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
    nb = parent.shape[0]
    z = np.zeros((nb, 6))
    eps = np.zeros(udot.shape[0])
    for b in range(nb):
        z[b] = bias_force[b] - body_forces[b]
    for b in range(nb - 1, 0, -1):
        nu = nus[b]
        s = us[b]
        za = z[b] + P_abi[b] @ coriolis[b]
        if nu > 0:
            H = H_G[b][:, :nu]
            U = U_cols[b][:, :nu]
            e = mobility_forces[s : s + nu] - H.T @ z[b]
            eps[s : s + nu] = e
            Di = D_inv[b][:nu, :nu]
            za = z[b] + (P_abi[b] - U @ Di @ U.T) @ coriolis[b] + U @ (Di @ e)
        shift_force_to_parent_add(za, p_GB[b] - p_GB[parent[b]], z[parent[b]])
    A_GB[0, :] = 0.0
    a = np.empty(6)
    for b in range(1, nb):
        nu = nus[b]
        s = us[b]
        shift_motion_to_child(A_GB[parent[b]], p_GB[b] - p_GB[parent[b]], a)
        a += coriolis[b]
        if nu > 0:
            H = H_G[b][:, :nu]
            U = U_cols[b][:, :nu]
            Di = D_inv[b][:nu, :nu]
            ud = Di @ (eps[s : s + nu] - U.T @ a)
            udot[s : s + nu] = ud
            a = a + H @ ud
        A_GB[b] = a
