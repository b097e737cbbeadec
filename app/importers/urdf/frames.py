# ruff: noqa: N802, N803, N806  (monogram names: X_PF, R_JA)
"""Homogeneous transforms (4x4 arrays) to the document's FrameSpec and back."""

from __future__ import annotations

import numpy as np

from app.document.specs import FrameSpec


def frame_spec(X: np.ndarray) -> FrameSpec:
    """The FrameSpec of a 4x4 transform (rotation as body-fixed X-Y-Z angles)."""
    R = np.asarray(X, dtype=np.float64)[:3, :3]
    rpy = body_fixed_xyz(_orthonormal(R))
    p = np.asarray(X, dtype=np.float64)[:3, 3]
    # + 0.0 writes -0.0 as 0.0
    return FrameSpec(tuple(float(v) + 0.0 for v in p), tuple(float(v) + 0.0 for v in rpy))


def body_fixed_xyz(R: np.ndarray) -> tuple[float, float, float]:
    """Angles (a, b, c) with R = Rx(a) Ry(b) Rz(c), accurate to roundoff also near b = ±90°:
    a from the last column, then c from the matrix with Rx(a) removed, then b, so the three
    stay consistent where a and c alone are ill-determined (they rebuild R to ~1e-16)."""
    a = np.arctan2(-R[1, 2], R[2, 2])
    ca, sa = np.cos(a), np.sin(a)
    c = np.arctan2(ca * R[1, 0] + sa * R[2, 0], ca * R[1, 1] + sa * R[2, 1])
    b = np.arctan2(R[0, 2], ca * R[2, 2] - sa * R[1, 2])
    return float(a), float(b), float(c)


def _orthonormal(R: np.ndarray) -> np.ndarray:
    u, _, vt = np.linalg.svd(R)
    Q = u @ vt
    return Q if np.linalg.det(Q) > 0 else u @ np.diag([1.0, 1.0, -1.0]) @ vt


def rotation_taking(axis_index: int, direction) -> np.ndarray:
    """A rotation R_JA whose column ``axis_index`` (0 = x, 2 = z) is the unit ``direction``:
    the frame A it defines in J has that axis along ``direction``."""
    d = np.asarray(direction, dtype=np.float64)
    d = d / np.linalg.norm(d)
    # a second unit vector perpendicular to d, from the coordinate axis least aligned with it
    helper = np.eye(3)[int(np.argmin(np.abs(d)))]
    e1 = np.cross(d, helper)
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(d, e1)
    # right-handed frame with the named axis along d: (d, e1, e2) cyclically from axis_index
    R = np.empty((3, 3))
    R[:, axis_index] = d
    R[:, (axis_index + 1) % 3] = e1
    R[:, (axis_index + 2) % 3] = e2
    return R


def rotation4(R: np.ndarray) -> np.ndarray:
    X = np.eye(4)
    X[:3, :3] = R
    return X
