"""Velocity stage: body velocities V_GB, mobilizer velocities V_FM, qdot = N u, the
velocity-dependent acceleration terms (local and total Coriolis) and gyroscopic forces."""

from __future__ import annotations

import numpy as np
from numba import njit

from engine.multibody.kernels.spatial_kernels import add_h_times, cross3, shift_motion_to_child
from engine.multibody.mobilizers.dispatch import hdot_u_any, n_matrix_any


@njit(cache=True)
def _velocity_step(
    b,
    t,
    qb,
    ub,
    params,
    euler,
    parent,
    p_GB,
    R_FM,
    p_FM,
    H_FM,
    H_G,
    R_GF,
    p_MB_G,
    Phi_G,
    com_G,
    mass,
    V_GB,
    V_FM,
    coriolis,
    total_coriolis,
    gyro,
    qdot_b,
    nu,
    nq,
):
    P = parent[b]
    r = p_GB[b] - p_GB[P]
    shifted = np.empty(6)
    shift_motion_to_child(V_GB[P], r, shifted)
    rel = np.zeros(6)
    add_h_times(H_G[b], nu, ub, 0, rel)
    V_GB[b] = shifted + rel
    V_FM[b] = 0.0
    add_h_times(H_FM[b], nu, ub, 0, V_FM[b])
    if nq > 0:
        N = np.zeros((nq, nu))
        n_matrix_any(t, qb, params, euler, R_FM[b], N)
        qdot_b[:] = N @ ub
    # local Coriolis acceleration (velocity terms of A_GB given A_GP and udot = 0)
    hd = np.zeros(6)
    hdot_u_any(t, qb, ub, params, euler, R_FM[b], p_FM[b], hd)
    w_P = V_GB[P][0:3]
    w_rel = rel[0:3]
    v_rel = rel[3:6]
    hdw = R_GF[b] @ hd[0:3]
    hdv = R_GF[b] @ hd[3:6]
    pmb = p_MB_G[b]
    cw = cross3(w_P, w_rel) + hdw
    cv = (
        cross3(w_P, cross3(w_P, r))
        + 2.0 * cross3(w_P, v_rel)
        + hdv
        + cross3(hdw, pmb)
        + cross3(w_rel, cross3(w_rel, pmb))
    )
    coriolis[b][0:3] = cw
    coriolis[b][3:6] = cv
    shift_motion_to_child(total_coriolis[P], r, shifted)
    total_coriolis[b] = shifted + coriolis[b]
    # gyroscopic force b = [w x (I w), m w x (w x c)]
    w = V_GB[b][0:3]
    Iw = Phi_G[b][0:3, 0:3] @ w
    gyro[b][0:3] = cross3(w, Iw)
    gyro[b][3:6] = mass[b] * cross3(w, cross3(w, com_G[b]))


@njit(cache=True)
def calc_velocity_kinematics(
    mtype,
    parent,
    qs,
    nqs,
    us,
    nus,
    params,
    euler,
    q,
    u,
    p_GB,
    R_FM,
    p_FM,
    H_FM,
    H_G,
    R_GF,
    p_MB_G,
    Phi_G,
    com_G,
    mass,
    V_GB,
    V_FM,
    coriolis,
    total_coriolis,
    gyro,
    qdot,
):
    """Fill the Velocity-stage arrays from u; returns the kinetic energy."""
    nb = parent.shape[0]
    ke = 0.0
    for b in range(1, nb):
        qb = q[qs[b] : qs[b] + nqs[b]]
        ub = u[us[b] : us[b] + nus[b]]
        _velocity_step(
            b,
            mtype[b],
            qb,
            ub,
            params[b],
            euler,
            parent,
            p_GB,
            R_FM,
            p_FM,
            H_FM,
            H_G,
            R_GF,
            p_MB_G,
            Phi_G,
            com_G,
            mass,
            V_GB,
            V_FM,
            coriolis,
            total_coriolis,
            gyro,
            qdot[qs[b] : qs[b] + nqs[b]],
            nus[b],
            nqs[b],
        )
        ke += 0.5 * V_GB[b] @ (Phi_G[b] @ V_GB[b])
    return ke
