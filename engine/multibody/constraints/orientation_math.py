"""Shared equations of the constraints that keep two frames' axes perpendicular.

For a base frame RB (on constrained body ``kb``) and a follower frame RF (on body
``kf``), both in A, the three equations are ``RF.x.RB.y, RF.y.RB.z, RF.z.RB.x``
(ConstantOrientation, and the rotational half of Weld). With ``n_i = f_i x g_i`` for
the pairs (RF.x, RB.y), (RF.y, RB.z), (RF.z, RB.x), the derivative is
``(w_F - w_B) . n_i`` and a multiplier lambda_i gives the torque ``lambda_i n_i`` on the
follower and its negative on the base.
"""

from __future__ import annotations

import numpy as np

from engine.multibody.constraints.kinematics import cross

_PAIRS = ((0, 1), (1, 2), (2, 0))  # (column of RF, column of RB)


def frame_pairs(k, kb: int, R_B, kf: int, R_F):
    RB = k.R[kb] @ R_B
    RF = k.R[kf] @ R_F
    return [(RF[:, i], RB[:, j]) for i, j in _PAIRS]


def orientation_errors(k, kb: int, R_B, kf: int, R_F, level: str) -> np.ndarray:
    pairs = frame_pairs(k, kb, R_B, kf, R_F)
    if level == "p":
        return np.array([f @ g for f, g in pairs])
    w_rel = k.w[kf] - k.w[kb]
    if level == "v":
        return np.array([w_rel @ cross(f, g) for f, g in pairs])
    b_rel = k.b[kf] - k.b[kb]
    wf, wb = k.w[kf], k.w[kb]
    return np.array(
        [
            b_rel @ cross(f, g) + w_rel @ (cross(cross(wf, f), g) + cross(f, cross(wb, g)))
            for f, g in pairs
        ]
    )


def orientation_forces(k, out, kb: int, R_B, kf: int, R_F, lam) -> None:
    pairs = frame_pairs(k, kb, R_B, kf, R_F)
    t = sum(lam[i] * cross(f, g) for i, (f, g) in enumerate(pairs))
    out.torque(kf, t)
    out.torque(kb, -t)
