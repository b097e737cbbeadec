"""Composite-body inertias and the mass matrix M (O(n) composites, O(n*depth) M)."""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.multibody.kernels.spatial_kernels import phi_matrix, shift_force_to_parent_add


@njit(cache=True)
def calc_composite_inertias(parent, p_GB, Phi_G, R_cbi):
    """R_cbi[b] = spatial inertia of b's whole subtree about Bo, in G."""
    nb = parent.shape[0]
    for b in range(nb):
        R_cbi[b] = Phi_G[b]
    for b in range(nb - 1, 0, -1):
        X = phi_matrix(p_GB[b] - p_GB[parent[b]])
        R_cbi[parent[b]] += X @ R_cbi[b] @ X.T


@njit(cache=True)
def calc_mass_matrix(parent, us, nus, H_G, p_GB, R_cbi, M):
    """Fill the nu x nu mass matrix from the composite inertias."""
    nb = parent.shape[0]
    for b in range(1, nb):
        nu = nus[b]
        if nu == 0:
            continue
        s = us[b]
        Hb = H_G[b][:, :nu]
        F = R_cbi[b] @ Hb
        M[s : s + nu, s : s + nu] = Hb.T @ F
        j = b
        while parent[j] != 0:
            r = p_GB[j] - p_GB[parent[j]]
            Fs = np.zeros((6, nu))
            for k in range(nu):
                shift_force_to_parent_add(F[:, k], r, Fs[:, k])
            F = Fs
            j = parent[j]
            nj = nus[j]
            if nj > 0:
                sj = us[j]
                blk = H_G[j][:, :nj].T @ F
                M[sj : sj + nj, s : s + nu] = blk
                M[s : s + nu, sj : sj + nj] = blk.T
