# ruff: noqa: N802, N803, N806  (monogram names: X_PJ, X_PF, X_BM, R_JA)
"""URDF joints to Simbody mobilizers.

A URDF joint places its frame J in the parent link P (``origin``, X_PJ); the child link C
coincides with J at zero and moves relative to J about (or along) the joint ``axis`` given in
J. The mobilizer keeps the body frame B equal to the URDF link frame C and puts its own axis
on the URDF axis with a constant rotation R_JA (a frame A in J whose z, or x for a Slider, is
the axis):

    X_PF = X_PJ * R_JA,   X_BM = R_JA,   so   X_PC(q) = X_PJ * R_JA * X_FM(q) * R_JA^T,

which is X_PJ * rotation(axis, q) for a Pin (X_FM = Rz(q)) and X_PJ * translation(axis * q)
for a Slider (X_FM = translation along x): q is the URDF joint value with the same sign and
zero at the URDF's zero configuration.

Mapping: revolute and continuous -> Pin, prismatic -> Slider, planar -> Planar (its z along
the URDF axis, the plane's normal; q = angle, then x and y in that plane), floating -> Free,
fixed -> Weld. A fixed joint keeps its child as a separate body welded to the parent (not
merged into it) so every URDF link keeps its name, frame, geometry and place in the tree,
and a user can later change the weld into a joint; the cost is one body without mobilities.
"""

from __future__ import annotations

import numpy as np

from app.importers.urdf.frames import rotation4, rotation_taking

#: URDF joint type -> (mobilizer, which axis of the mobilizer frames the URDF axis becomes)
MOBILIZERS = {
    "revolute": ("Pin", 2),
    "continuous": ("Pin", 2),
    "prismatic": ("Slider", 0),
    "planar": ("Planar", 2),
    "floating": ("Free", None),
    "fixed": ("Weld", None),
}

ONE_DOF = ("revolute", "continuous", "prismatic")


def mobilizer_frames(joint_type: str, X_PJ: np.ndarray, axis) -> tuple[str, np.ndarray, np.ndarray]:
    """(mobilizer name, X_PF, X_BM) as 4x4 arrays for a URDF joint of this type."""
    name, axis_index = MOBILIZERS[joint_type]
    if axis_index is None:
        return name, np.asarray(X_PJ, dtype=np.float64), np.eye(4)
    a = np.asarray(axis if axis is not None else (1.0, 0.0, 0.0), dtype=np.float64)
    X_JA = rotation4(rotation_taking(axis_index, a))
    return name, np.asarray(X_PJ, dtype=np.float64) @ X_JA, X_JA
