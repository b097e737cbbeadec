"""Composite-body inertias and the mass matrix M (O(n) composites, O(n*depth) M).

Allocation-free: scalar loops over the per-body arrays (one (6, 6) scratch per call)."""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.multibody.kernels.stage_kernels import shift_inertia_to_parent_add


@njit(cache=True, nogil=True)
def calc_composite_inertias(parent, p_GB, Phi_G, R_cbi):
    """R_cbi[b] = spatial inertia of b's whole subtree about Bo, in G."""
    nb = parent.shape[0]
    T = np.empty((6, 6))
    for b in range(nb):
        for i in range(6):
            for j in range(6):
                R_cbi[b, i, j] = Phi_G[b, i, j]
    for b in range(nb - 1, 0, -1):
        P = parent[b]
        Rb = R_cbi[b]
        for i in range(6):
            for j in range(6):
                T[i, j] = Rb[i, j]
        shift_inertia_to_parent_add(T, p_GB[b], p_GB[P], R_cbi[P])


@njit(cache=True, nogil=True)
def calc_mass_matrix(parent, us, nus, H_G, p_GB, R_cbi, M):
    """Fill the nu x nu mass matrix from the composite inertias: for each body b, the
    force columns F = R_b H_b are shifted inboard body by body and projected on each
    ancestor's H."""
    nb = parent.shape[0]
    F = np.empty((6, 6))
    for b in range(1, nb):
        nu = nus[b]
        if nu == 0:
            continue
        s = us[b]
        Hb = H_G[b]
        Rb = R_cbi[b]
        for i in range(6):
            for k in range(nu):
                acc = 0.0
                for j in range(6):
                    acc += Rb[i, j] * Hb[j, k]
                F[i, k] = acc
        for k in range(nu):
            for l in range(nu):
                acc = 0.0
                for i in range(6):
                    acc += Hb[i, k] * F[i, l]
                M[s + k, s + l] = acc
        j = b
        while parent[j] != 0:
            P = parent[j]
            r0 = p_GB[j, 0] - p_GB[P, 0]
            r1 = p_GB[j, 1] - p_GB[P, 1]
            r2 = p_GB[j, 2] - p_GB[P, 2]
            for k in range(nu):  # torque about the parent origin: t + r x f
                f0, f1, f2 = F[3, k], F[4, k], F[5, k]
                F[0, k] += r1 * f2 - r2 * f1
                F[1, k] += r2 * f0 - r0 * f2
                F[2, k] += r0 * f1 - r1 * f0
            j = P
            nj = nus[j]
            if nj > 0:
                sj = us[j]
                Hj = H_G[j]
                for a in range(nj):
                    for k in range(nu):
                        acc = 0.0
                        for i in range(6):
                            acc += Hj[i, a] * F[i, k]
                        M[sj + a, s + k] = acc
                        M[s + k, sj + a] = acc
