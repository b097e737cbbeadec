# ruff: noqa: N803, N806  (monogram names: X_LI, I_C)
"""URDF <inertial> to the document's mass properties, and the checks published URDFs need.

URDF gives the mass, the inertial frame I in the link frame L (``origin``: the mass centre and
the orientation of the inertia's axes) and the inertia about the mass centre in I. The
document wants the mass centre in L and the inertia about L's origin in L:
``I_L = R_LI I_C R_LI^T + m (|c|^2 E - c c^T)`` (parallel-axis theorem), exactly.
"""

from __future__ import annotations

import numpy as np

#: Masses below this (kg) on a link group that a joint moves are "tiny": the mass matrix is
#: (nearly) singular. ``fix_inertias`` raises them to FIX_MASS.
TINY_MASS = 1e-6
FIX_MASS = 1e-3
#: Inertia given to a fixed body (kg m^2 about its mass centre, per principal axis).
FIX_INERTIA = 1e-6


def about_body_origin(mass: float, X_LI: np.ndarray, I_C: np.ndarray):
    """(com, inertia) of the document: com in L (m) and the inertia about L's origin in L as
    (xx, yy, zz, xy, xz, yz) (kg m^2)."""
    R = np.asarray(X_LI, dtype=np.float64)[:3, :3]
    c = np.asarray(X_LI, dtype=np.float64)[:3, 3]
    I_L = R @ np.asarray(I_C, dtype=np.float64) @ R.T
    I_L = 0.5 * (I_L + I_L.T)
    I_L = I_L + mass * (float(c @ c) * np.eye(3) - np.outer(c, c))
    inertia = (I_L[0, 0], I_L[1, 1], I_L[2, 2], I_L[0, 1], I_L[0, 2], I_L[1, 2])
    return tuple(float(v) for v in c), tuple(float(v) for v in inertia)


def physical_problem(mass: float, com, inertia) -> str | None:
    """Why these mass properties (document form) are not physical, or None."""
    from app.document.validation import DocumentError, check_mass_properties

    try:
        check_mass_properties(mass, com, inertia)
    except DocumentError as exc:
        return exc.message
    return None


def nearest_physical(I_C: np.ndarray) -> np.ndarray:
    """The central inertia with the same principal axes whose principal moments are made
    non-negative and then raised just enough to satisfy the triangle inequality."""
    I_C = 0.5 * (np.asarray(I_C, dtype=np.float64) + np.asarray(I_C, dtype=np.float64).T)
    w, V = np.linalg.eigh(I_C)
    w = np.maximum(w, 0.0)
    for _ in range(3):
        for k in range(3):
            others = w[(k + 1) % 3] + w[(k + 2) % 3]
            if w[k] > others:  # raise the two others equally
                lift = 0.5 * (w[k] - others) * (1 + 1e-9)
                w[(k + 1) % 3] += lift
                w[(k + 2) % 3] += lift
    return V @ np.diag(w) @ V.T
