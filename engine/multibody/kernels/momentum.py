"""System momentum and mass-center motion sums (O(n)), about the Ground origin, in Ground."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def system_momentum_about_ground_origin(p_GB, Phi_G, V_GB):
    """[sum (I_Bo w + m c x v) + p_GB x L_B, sum L_B] with L_B = m (v + w x c): the spatial
    momentum of all bodies (angular about the Ground origin, kg m^2/s; linear, kg m/s)."""
    h = np.zeros(6)
    for b in range(1, p_GB.shape[0]):
        hb = Phi_G[b] @ V_GB[b]
        p = p_GB[b]
        h[0] += hb[0] + p[1] * hb[5] - p[2] * hb[4]
        h[1] += hb[1] + p[2] * hb[3] - p[0] * hb[5]
        h[2] += hb[2] + p[0] * hb[4] - p[1] * hb[3]
        h[3] += hb[3]
        h[4] += hb[4]
        h[5] += hb[5]
    return h


@njit(cache=True, nogil=True)
def mass_weighted_com_acceleration(mass, com_G, V_GB, A_GB):
    """sum m_B a_C(B), with a_C = a_Bo + alpha x c + w x (w x c) (c = R_GB com_B), kg m/s^2."""
    out = np.zeros(3)
    for b in range(1, mass.shape[0]):
        m = mass[b]
        if m == 0.0:
            continue
        c = com_G[b]
        w = V_GB[b, 0:3]
        al = A_GB[b, 0:3]
        wxc = np.array(
            [w[1] * c[2] - w[2] * c[1], w[2] * c[0] - w[0] * c[2], w[0] * c[1] - w[1] * c[0]]
        )
        out[0] += m * (A_GB[b, 3] + al[1] * c[2] - al[2] * c[1] + w[1] * wxc[2] - w[2] * wxc[1])
        out[1] += m * (A_GB[b, 4] + al[2] * c[0] - al[0] * c[2] + w[2] * wxc[0] - w[0] * wxc[2])
        out[2] += m * (A_GB[b, 5] + al[0] * c[1] - al[1] * c[0] + w[0] * wxc[1] - w[1] * wxc[0])
    return out
