"""Shared helpers for the per-type ``setQToFit*`` / ``setUToFit*`` functions (plain Python).

Every mobilizer file defines, beside its numba kernels, four plain-Python functions that
write the best fit of a desired mobilizer pose or velocity into the mobilizer's own q / u
block (modified in place; slots a fit does not concern keep their values):

* ``fit_q_rotation(q, params, euler, R_FM)``: q best reproducing the rotation R_FM (3x3);
* ``fit_q_translation(q, params, euler, p_FM)``: q best reproducing p_FM (in F, m);
* ``fit_u_angular(q, u, params, euler, w_FM)``: u best reproducing w_FM (in F, rad/s);
* ``fit_u_linear(q, u, params, euler, v_FM)``: u best reproducing v_FM (of Mo, in F, m/s).

As in Simbody, a mobilizer fits only what its freedoms can represent: a Pin takes the angle of
the rotation about z, a Slider the x translation, and so on. The functions used by several
types are here.
"""

from __future__ import annotations

import numpy as np

from engine.math.angle_sequences import BodyRotationSequence, three_angles, two_angles
from engine.math.quaternion import quaternion_from_rotation_matrix

_TINY = 1e-14


def rotation_matrix(R_FM) -> np.ndarray:
    """R_FM as a 3x3 float64 array (accepts a Rotation or anything array-like)."""
    if hasattr(R_FM, "asMat33"):
        return np.asarray(R_FM.asMat33(), dtype=np.float64)
    return np.asarray(R_FM, dtype=np.float64).reshape(3, 3)


def angle_about_z(R: np.ndarray) -> float:
    """The angle of R viewed as a rotation about z only (best fit)."""
    return float(np.arctan2(R[1, 0] - R[0, 1], R[0, 0] + R[1, 1]))


def xyz_angles(R: np.ndarray) -> np.ndarray:
    """Body-fixed x-y-z angles with R = Rx(a0) Ry(a1) Rz(a2) (principal values)."""
    return three_angles(R, BodyRotationSequence, 0, 1, 2)


def xy_angles(R: np.ndarray) -> np.ndarray:
    """Body-fixed x-y angles (a0, a1) best reproducing R = Rx(a0) Ry(a1)."""
    return two_angles(R, BodyRotationSequence, 0, 1)


def zy_angles(R: np.ndarray) -> np.ndarray:
    """Body-fixed z-y angles (a0, a1) best reproducing R = Rz(a0) Ry(a1)."""
    return two_angles(R, BodyRotationSequence, 2, 1)


def fit_orientation_slots(q: np.ndarray, euler: bool, R: np.ndarray) -> None:
    """The 4 rotational slots of a ball-like mobilizer: quaternion [w,x,y,z] with w >= 0, or
    x-y-z angles in Euler mode (the unused 4th slot keeps its value)."""
    if euler:
        q[0:3] = xyz_angles(R)
    else:
        q[0:4] = quaternion_from_rotation_matrix(R)


def xyz_angle_rates(a: np.ndarray, w_F: np.ndarray) -> np.ndarray:
    """Angle rates adot of body-fixed x-y-z angles a best reproducing w_F = W(a) adot (least
    squares, so a gimbal-locked W still gives an answer)."""
    c0, s0 = np.cos(a[0]), np.sin(a[0])
    c1, s1 = np.cos(a[1]), np.sin(a[1])
    W = np.array([[1.0, 0.0, s1], [0.0, c0, -s0 * c1], [0.0, s0, c0 * c1]])
    return np.linalg.lstsq(W, w_F, rcond=None)[0]


def least_squares(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    """x minimizing |A x - b| (minimum norm)."""
    return np.linalg.lstsq(A, b, rcond=None)[0]


def rotate_axis_z_to(R: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The rotation closest to R whose z axis is the unit vector n: R turned by the smallest
    rotation taking R's z axis onto n."""
    z = R[:, 2]
    axis = np.cross(z, n)
    s = float(np.linalg.norm(axis))
    c = float(np.dot(z, n))
    if s < _TINY:
        if c > 0.0:
            return R.copy()
        # half turn about R's x axis
        return R @ np.diag([1.0, -1.0, -1.0])
    k = axis / s
    K = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    turn = np.eye(3) + s * K + (1.0 - c) * (K @ K)
    return turn @ R
