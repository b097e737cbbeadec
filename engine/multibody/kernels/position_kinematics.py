"""Position stage: body poses X_GB, mobilizer transforms X_FM, hinge matrices H_G and
spatial inertias in Ground, body by body from Ground outward (O(n)).

For a Custom mobilizer (Python kinematics) R_FM, p_FM and H_FM are inputs: the matter
subsystem writes them before calling the kernel."""

from __future__ import annotations

from numba import njit

from engine.multibody.kernels.spatial_kernels import cross3, spatial_inertia_G
from engine.multibody.mobilizers.custom import TYPE_ID as CUSTOM_TYPE_ID
from engine.multibody.mobilizers.dispatch import h_fm_any, x_fm_any


@njit(cache=True)
def _position_step(
    b,
    t,
    q,
    params,
    euler,
    parent,
    R_PF,
    p_PF,
    R_BM,
    p_BM,
    mass,
    com_B,
    I_B,
    R_FM,
    p_FM,
    H_FM,
    R_GF,
    p_MB_G,
    R_GB,
    p_GB,
    H_G,
    Phi_G,
    com_G,
    nu,
):
    """Realize body b's position quantities from its parent's."""
    P = parent[b]
    custom = t == CUSTOM_TYPE_ID  # X_FM, H_FM were written by the matter subsystem
    if not custom:
        x_fm_any(t, q, params, euler, R_FM[b], p_FM[b])
    R_GF[b] = R_GB[P] @ R_PF[b]
    p_GF = p_GB[P] + R_GB[P] @ p_PF[b]
    R_GM = R_GF[b] @ R_FM[b]
    p_GM = p_GF + R_GF[b] @ p_FM[b]
    R_GB[b] = R_GM @ R_BM[b].T
    p_GB[b] = p_GM - R_GB[b] @ p_BM[b]
    p_MB_G[b] = p_GB[b] - p_GM
    if not custom:
        H_FM[b][:, :] = 0.0
        h_fm_any(t, q, params, euler, R_FM[b], p_FM[b], H_FM[b])
    for k in range(nu):
        hw = R_GF[b] @ H_FM[b][0:3, k]
        hv = R_GF[b] @ H_FM[b][3:6, k] + cross3(hw, p_MB_G[b])
        H_G[b][0:3, k] = hw
        H_G[b][3:6, k] = hv
    for k in range(nu, 6):
        H_G[b][:, k] = 0.0
    com_G[b] = R_GB[b] @ com_B[b]
    I_G = R_GB[b] @ I_B[b] @ R_GB[b].T
    spatial_inertia_G(mass[b], com_G[b], I_G, Phi_G[b])


@njit(cache=True)
def calc_position_kinematics(
    mtype,
    parent,
    qs,
    nqs,
    nus,
    params,
    euler,
    R_PF,
    p_PF,
    R_BM,
    p_BM,
    mass,
    com_B,
    I_B,
    q,
    R_FM,
    p_FM,
    H_FM,
    R_GF,
    p_MB_G,
    R_GB,
    p_GB,
    H_G,
    Phi_G,
    com_G,
):
    """Fill every Position-stage per-body array from q (Ground, body 0, stays identity)."""
    nb = parent.shape[0]
    for b in range(1, nb):
        qb = q[qs[b] : qs[b] + nqs[b]]
        _position_step(
            b,
            mtype[b],
            qb,
            params[b],
            euler,
            parent,
            R_PF,
            p_PF,
            R_BM,
            p_BM,
            mass,
            com_B,
            I_B,
            R_FM,
            p_FM,
            H_FM,
            R_GF,
            p_MB_G,
            R_GB,
            p_GB,
            H_G,
            Phi_G,
            com_G,
            nus[b],
        )
