"""Mobilizer reaction forces (O(n)), two ways.

The reaction of body B is the spatial force its mobilizer (the parent, through F and M)
exerts on B. Both kernels first find it about Bo in Ground, then report it about Mo:
``[T_Bo + (p_Bo - p_Mo) x f, f]``. Entry 0 (Ground) is the sum of the reactions of Ground's
children about the Ground origin minus any force applied to Ground. ``body_forces`` are all
the non-inertial body forces (at Bo, in G); ``mobility_forces`` all the mobility forces.
Mobility forces act between parent and child, so they are part of the reaction.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.multibody.kernels.spatial_kernels import (
    shift_force_to_parent_add,
    shift_motion_to_child,
)


@njit(cache=True, nogil=True)
def _report_at_Mo(F, p_MB_G, out):
    nb = F.shape[0]
    out[0] = F[0]
    for b in range(1, nb):
        r = p_MB_G[b]
        f = F[b]
        out[b, 0] = f[0] + r[1] * f[5] - r[2] * f[4]
        out[b, 1] = f[1] + r[2] * f[3] - r[0] * f[5]
        out[b, 2] = f[2] + r[0] * f[4] - r[1] * f[3]
        out[b, 3] = f[3]
        out[b, 4] = f[4]
        out[b, 5] = f[5]


@njit(cache=True, nogil=True)
def reaction_forces_freebody(parent, p_GB, p_MB_G, Phi_G, A_GB, gyro, body_forces, out):
    """Newton-Euler body by body from the tips: the reaction on B is what B's rigid-body
    equation ``Phi A + b = F_applied + F_reaction - sum(children's reactions)`` leaves."""
    nb = parent.shape[0]
    F = np.zeros((nb, 6))
    for b in range(nb - 1, 0, -1):
        F[b] += Phi_G[b] @ A_GB[b] + gyro[b] - body_forces[b]
        shift_force_to_parent_add(F[b], p_GB[b] - p_GB[parent[b]], F[parent[b]])
    F[0] -= body_forces[0]
    _report_at_Mo(F, p_MB_G, out)


@njit(cache=True, nogil=True)
def reaction_forces_articulated(
    parent,
    us,
    nus,
    H_G,
    p_GB,
    p_MB_G,
    P_abi,
    D_inv,
    U_cols,
    coriolis,
    gyro,
    body_forces,
    mobility_forces,
    A_GB,
    out,
):
    """Jain (2011) eq. 7.34: F = P+ A+ + z+, with P+ = P - U D^-1 U^T the articulated inertia
    seen across the mobilizer, A+ the parent's acceleration moved to Bo and z+ the
    articulated force on the parent side (including B's Coriolis term and the mobility
    forces), from the same inward sweep as forward dynamics."""
    nb = parent.shape[0]
    z = np.zeros((nb, 6))
    F = np.zeros((nb, 6))
    for b in range(nb):
        z[b] = gyro[b] - body_forces[b]
    Ap = np.empty(6)
    for b in range(nb - 1, 0, -1):
        nu = nus[b]
        s = us[b]
        Pplus = P_abi[b].copy()
        za = z[b].copy()
        if nu > 0:
            H = np.ascontiguousarray(H_G[b][:, :nu])
            U = np.ascontiguousarray(U_cols[b][:, :nu])
            Di = np.ascontiguousarray(D_inv[b][:nu, :nu])
            e = mobility_forces[s : s + nu] - H.T @ z[b]
            Pplus = Pplus - U @ Di @ U.T
            za = za + U @ (Di @ e)
        za = za + Pplus @ coriolis[b]
        shift_motion_to_child(A_GB[parent[b]], p_GB[b] - p_GB[parent[b]], Ap)
        F[b] = Pplus @ Ap + za
        shift_force_to_parent_add(za, p_GB[b] - p_GB[parent[b]], z[parent[b]])
    F[0] = z[0]
    _report_at_Mo(F, p_MB_G, out)
