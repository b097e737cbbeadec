"""Custom mobilizer implementations written the way a user would (plain numpy), each the twin of
a built-in type, for the property and random-tree tests:

* ``CustomPin`` (nq = nu = 1) ~ Pin;
* ``CustomUniversal`` (nq = nu = 2, q-dependent H, nonzero HDot) ~ Universal;
* ``CustomBallXYZ`` (q = body-fixed x-y-z angles, u = w_FM in F, so N = W(q)^-1 is not the
  identity) ~ Ball in Euler-angle mode;
* ``CustomBallQuat`` (q = quaternion [w, x, y, z], u = w_FM in F: nq = 4 != nu = 3) ~ Ball in
  quaternion mode.
"""

from __future__ import annotations

import numpy as np

from engine import MobilizedBody, Rotation, Transform

Implementation = MobilizedBody.Custom.Implementation


def _rx(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def _ry(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def _rz(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


class CustomPin(Implementation):
    """Rotation about the common z axis."""

    def __init__(self, matter) -> None:
        super().__init__(matter, 1, 1, 1)

    def calcMobilizerTransformFromQ(self, state, q):
        return Transform(Rotation(_rz(q[0])), np.zeros(3))

    def multiplyByHMatrix(self, state, u):
        return np.array([[0.0, 0.0, u[0]], [0.0, 0.0, 0.0]])

    def multiplyByHDotMatrix(self, state, u):
        return np.zeros((2, 3))


class CustomUniversal(Implementation):
    """Rx(q0) Ry(q1); w_FM = u0 Fx + u1 My with My = Rx(q0) y."""

    def __init__(self, matter) -> None:
        super().__init__(matter, 2, 2, 2)

    def calcMobilizerTransformFromQ(self, state, q):
        return Transform(Rotation(_rx(q[0]) @ _ry(q[1])), np.zeros(3))

    def multiplyByHMatrix(self, state, u):
        q0 = self.getQ(state)[0]
        my = np.array([0.0, np.cos(q0), np.sin(q0)])
        return np.array([u[0] * np.array([1.0, 0.0, 0.0]) + u[1] * my, np.zeros(3)])

    def multiplyByHDotMatrix(self, state, u):
        q0 = self.getQ(state)[0]
        q0dot = self.getU(state)[0]
        my_dot = q0dot * np.array([0.0, -np.sin(q0), np.cos(q0)])
        return np.array([u[1] * my_dot, np.zeros(3)])


def _w_matrix(a):
    """w_F = W(a) adot for body-fixed x-y-z angles."""
    c0, s0, c1, s1 = np.cos(a[0]), np.sin(a[0]), np.cos(a[1]), np.sin(a[1])
    return np.array([[1.0, 0.0, s1], [0.0, c0, -s0 * c1], [0.0, s0, c0 * c1]])


def _w_dot(a, adot):
    c0, s0, c1, s1 = np.cos(a[0]), np.sin(a[0]), np.cos(a[1]), np.sin(a[1])
    d0, d1 = adot[0], adot[1]
    return np.array(
        [
            [0.0, 0.0, c1 * d1],
            [0.0, -s0 * d0, -c0 * c1 * d0 + s0 * s1 * d1],
            [0.0, c0 * d0, -s0 * c1 * d0 - c0 * s1 * d1],
        ]
    )


class CustomBallXYZ(Implementation):
    """Ball with x-y-z angles as q and the angular velocity w_FM (in F) as u."""

    def __init__(self, matter) -> None:
        super().__init__(matter, 3, 3, 3)

    def calcMobilizerTransformFromQ(self, state, q):
        return Transform(Rotation(_rx(q[0]) @ _ry(q[1]) @ _rz(q[2])), np.zeros(3))

    def multiplyByHMatrix(self, state, u):
        return np.array([u, np.zeros(3)])

    def multiplyByHDotMatrix(self, state, u):
        return np.zeros((2, 3))

    def multiplyByN(self, state, matrixOnRight, inp):
        Wi = np.linalg.inv(_w_matrix(self.getQ(state)))
        return (Wi.T if matrixOnRight else Wi) @ inp

    def multiplyByNInv(self, state, matrixOnRight, inp):
        W = _w_matrix(self.getQ(state))
        return (W.T if matrixOnRight else W) @ inp

    def multiplyByNDot(self, state, matrixOnRight, inp):
        q = self.getQ(state)
        Wi = np.linalg.inv(_w_matrix(q))
        NDot = -Wi @ _w_dot(q, self.getQDot(state)) @ Wi
        return (NDot.T if matrixOnRight else NDot) @ inp


def _e_matrix(q):
    """qdot = 0.5 E(q) w_F for a quaternion [w, x, y, z]."""
    w, x, y, z = q
    return np.array([[-x, -y, -z], [w, z, -y], [-z, w, x], [y, -x, w]])


class CustomBallQuat(Implementation):
    """Ball with a quaternion as q (4 values, not normalized by the engine) and w_FM as u."""

    def __init__(self, matter) -> None:
        super().__init__(matter, 3, 4, 0)

    def getDefaultQ(self):
        return np.array([1.0, 0.0, 0.0, 0.0])

    def calcMobilizerTransformFromQ(self, state, q):
        w, x, y, z = np.asarray(q) / np.linalg.norm(q)
        R = np.array(
            [
                [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
            ]
        )
        return Transform(Rotation(R), np.zeros(3))

    def multiplyByHMatrix(self, state, u):
        return np.array([u, np.zeros(3)])

    def multiplyByHDotMatrix(self, state, u):
        return np.zeros((2, 3))

    def multiplyByN(self, state, matrixOnRight, inp):
        N = 0.5 * _e_matrix(self.getQ(state))
        return (N.T if matrixOnRight else N) @ inp

    def multiplyByNInv(self, state, matrixOnRight, inp):
        NInv = 2.0 * _e_matrix(self.getQ(state)).T
        return (NInv.T if matrixOnRight else NInv) @ inp

    def multiplyByNDot(self, state, matrixOnRight, inp):
        NDot = 0.5 * _e_matrix(self.getQDot(state))
        return (NDot.T if matrixOnRight else NDot) @ inp


CUSTOM_EXAMPLES = {
    "CustomPin": (CustomPin, "Pin"),
    "CustomUniversal": (CustomUniversal, "Universal"),
    "CustomBallXYZ": (CustomBallXYZ, "Ball"),
    "CustomBallQuat": (CustomBallQuat, "Ball"),
}
