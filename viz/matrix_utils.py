"""Small 4x4 homogeneous-matrix helpers shared by the VTK builder, the scene and instancing.

All matrices are float64 numpy arrays; ``M @ [x, y, z, 1]`` maps local points to the parent frame.
"""

from __future__ import annotations

import numpy as np


def scale4(s) -> np.ndarray:
    """diag(sx, sy, sz, 1)."""
    m = np.eye(4)
    m[0, 0], m[1, 1], m[2, 2] = s
    return m


def translate4(p) -> np.ndarray:
    """A pure translation by p."""
    m = np.eye(4)
    m[:3, 3] = p
    return m


def rotation_x_to(d) -> np.ndarray:
    """A 3x3 rotation whose first column (the image of +x) is the unit vector along ``d``.

    ``d`` must be non-zero; the other two columns are an arbitrary right-handed completion.
    """
    x = np.asarray(d, dtype=np.float64)
    x = x / np.linalg.norm(x)
    helper = np.array([0.0, 0.0, 1.0]) if abs(x[2]) < 0.9 else np.array([0.0, 1.0, 0.0])
    y = np.cross(helper, x)
    y /= np.linalg.norm(y)
    z = np.cross(x, y)
    return np.column_stack([x, y, z])


def place_x_axis(origin, direction, sx: float, syz: float) -> np.ndarray:
    """T(origin) R(x -> direction) diag(sx, syz, syz): put a +x-aligned unit shape on a segment."""
    m = np.eye(4)
    m[:3, :3] = rotation_x_to(direction) * np.array([sx, syz, syz])
    m[:3, 3] = origin
    return m


def quaternions_from_rotations(r: np.ndarray) -> np.ndarray:
    """Unit quaternions (w, x, y, z) for an (n, 3, 3) stack of rotation matrices (vectorized)."""
    n = r.shape[0]
    q = np.empty((n, 4))
    tr = r[:, 0, 0] + r[:, 1, 1] + r[:, 2, 2]
    good = tr > -0.9  # |w| > 0.16: the trace formula is accurate
    if good.all():
        _from_trace(r, tr, q)
    elif good.any():
        sub = np.empty((int(good.sum()), 4))
        _from_trace(r[good], tr[good], sub)
        q[good] = sub
    bad = ~good
    if bad.any():
        q[bad] = _from_largest_diagonal(r[bad])
    return q


def _from_trace(r: np.ndarray, tr: np.ndarray, out: np.ndarray) -> None:
    s = 0.5 / np.sqrt(tr + 1.0)
    out[:, 0] = 0.25 / s
    out[:, 1] = (r[:, 2, 1] - r[:, 1, 2]) * s
    out[:, 2] = (r[:, 0, 2] - r[:, 2, 0]) * s
    out[:, 3] = (r[:, 1, 0] - r[:, 0, 1]) * s


def _from_largest_diagonal(r: np.ndarray) -> np.ndarray:
    """Quaternions for rotations near 180 degrees, from the largest diagonal element."""
    q = np.empty((r.shape[0], 4))
    axis_of = np.argmax(np.stack([r[:, 0, 0], r[:, 1, 1], r[:, 2, 2]], axis=1), axis=1)
    for axis in (0, 1, 2):
        m = axis_of == axis
        if not m.any():
            continue
        i, j, k = axis, (axis + 1) % 3, (axis + 2) % 3
        s = np.sqrt(1.0 + r[m, i, i] - r[m, j, j] - r[m, k, k]) * 2.0
        q[m, 0] = (r[m, k, j] - r[m, j, k]) / s
        q[m, 1 + i] = 0.25 * s
        q[m, 1 + j] = (r[m, j, i] + r[m, i, j]) / s
        q[m, 1 + k] = (r[m, k, i] + r[m, i, k]) / s
    return q
