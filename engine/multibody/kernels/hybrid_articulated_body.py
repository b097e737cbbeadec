"""Hybrid free/prescribed articulated-body method (O(n)).

Bodies whose mobilities have known (prescribed) udot keep their articulated inertia
unprojected: the whole of P passes through the mobilizer to the parent, and the known
udot enters the outward pass instead of being solved for (Jain 2011, section 16.3).
``known[b]`` = 1 marks such a body. Spatial vectors are rows [angular, linear] about each
body origin Bo, in Ground; ``H_G[b]`` (6 x 6) uses its first ``nus[b]`` columns.
With zero velocity terms, zero body forces and known udot = 0 the solve is M_ff^-1 f_f
(free entries; the known ones stay 0).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.multibody.kernels.spatial_kernels import (
    phi_matrix,
    shift_force_to_parent_add,
    shift_motion_to_child,
)


@njit(cache=True)
def hybrid_articulated_inertias(parent, nus, known, H_G, Phi_G, p_GB, P_abi, D_inv, U_cols):
    """Tip-to-base articulated inertias P (about Bo, in G); for free bodies also
    D^-1 = (H^T P H)^-1 and U = P H (6 x nu); prescribed bodies pass P through whole."""
    nb = parent.shape[0]
    for b in range(nb):
        P_abi[b] = Phi_G[b]
        D_inv[b] = 0.0
        U_cols[b] = 0.0
    for b in range(nb - 1, 0, -1):
        nu = nus[b]
        Pb = P_abi[b]
        Pa = Pb.copy()
        if nu > 0 and known[b] == 0:
            H = np.ascontiguousarray(H_G[b][:, :nu])
            U = Pb @ H
            Di = np.linalg.inv(H.T @ U)
            D_inv[b][:nu, :nu] = Di
            U_cols[b][:, :nu] = U
            Pa = Pb - U @ Di @ U.T
        X = phi_matrix(p_GB[b] - p_GB[parent[b]])
        P_abi[parent[b]] += X @ Pa @ X.T


@njit(cache=True)
def hybrid_articulated_solve(
    parent,
    us,
    nus,
    known,
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
    """udot (free entries solved, known entries used as given) and A_GB from the hybrid
    articulated inertias, applied body forces (at Bo, in G), mobility forces (only free
    entries used), velocity terms ``coriolis`` and gyroscopic ``bias_force``."""
    nb = parent.shape[0]
    z = np.zeros((nb, 6))
    eps = np.zeros(udot.shape[0])
    for b in range(nb):
        z[b] = bias_force[b] - body_forces[b]
    for b in range(nb - 1, 0, -1):
        nu = nus[b]
        s = us[b]
        cor = coriolis[b]
        if nu > 0 and known[b] == 0:
            H = np.ascontiguousarray(H_G[b][:, :nu])
            U = np.ascontiguousarray(U_cols[b][:, :nu])
            Di = np.ascontiguousarray(D_inv[b][:nu, :nu])
            e = mobility_forces[s : s + nu] - H.T @ z[b]
            eps[s : s + nu] = e
            za = z[b] + P_abi[b] @ cor + U @ (Di @ (e - U.T @ cor))
        elif nu > 0:
            H = np.ascontiguousarray(H_G[b][:, :nu])
            za = z[b] + P_abi[b] @ (cor + H @ udot[s : s + nu])
        else:
            za = z[b] + P_abi[b] @ cor
        shift_force_to_parent_add(za, p_GB[b] - p_GB[parent[b]], z[parent[b]])
    A_GB[0, :] = 0.0
    a = np.empty(6)
    for b in range(1, nb):
        nu = nus[b]
        s = us[b]
        shift_motion_to_child(A_GB[parent[b]], p_GB[b] - p_GB[parent[b]], a)
        a += coriolis[b]
        if nu > 0:
            H = np.ascontiguousarray(H_G[b][:, :nu])
            if known[b] == 0:
                U = np.ascontiguousarray(U_cols[b][:, :nu])
                Di = np.ascontiguousarray(D_inv[b][:nu, :nu])
                udot[s : s + nu] = Di @ (eps[s : s + nu] - U.T @ a)
            a = a + H @ udot[s : s + nu]
        A_GB[b] = a
