"""Kinematic maps between angular velocity and the rates of rotation coordinates.

These are Simbody's ``Rotation`` statics (exposed there as ``Rotation.calcN...`` etc.). Frames:
P is the parent (inboard, e.g. the mobilizer's F frame), B the child (e.g. M). ``w_PB`` is the
angular velocity of B in P, in rad/s; "InParentFrame" / "_P" means expressed in P, "InBodyFrame"
/ "_B" means expressed in B.

Body-fixed x-y-z Euler angles ``q = (qx, qy, qz)`` (``R_PB = Rx(qx) Ry(qy) Rz(qz)``):

- ``qdot = N_P(q) w_PB_P`` and ``w_PB_P = NInv_P(q) qdot``; ``NInv_P`` is the W(a) of
  docs/conventions.md §4 (columns ``Px | Rx(qx) y | Rx(qx) Ry(qy) z``). This is the map used by
  Gimbal, Bushing and the Euler-angle mode of Ball/Free (``u = w_FM`` expressed in F).
- ``qdot = N_B(q) w_PB_B`` likewise with the angular velocity expressed in B.
- N is singular when ``cos(qy) = 0`` (gimbal lock); asking for N there raises
  InvalidArgumentError rather than returning infinities.

Quaternions ``q = [w, x, y, z]`` (possibly unnormalized, used as stored):
``qdot = N(q) w_PB_P`` with ``N = E(q)/2``, ``NInv = 2 E(q)^T`` (so ``NInv N = |q|^2 I``), and
``NDot = E(qdot)/2``.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.math.vec import as_vec3, as_vector

# |cos(qy)| below this makes the body-fixed x-y-z N matrix singular.
_GIMBAL_LOCK_COS = 8.0 * float(np.finfo(np.float64).eps)


# --------------------------------------------------------------------------- argument helpers


def _cos_sin(args: tuple, n_extra: int, func: str) -> tuple[np.ndarray, np.ndarray, tuple]:
    """Split ``(q, *extra)`` or ``(cq, sq, *extra)`` into cosines, sines and the extras."""
    if len(args) == 1 + n_extra:
        q = as_vec3(args[0], f"{func}: angles q")
        return np.cos(q), np.sin(q), args[1:]
    if len(args) == 2 + n_extra:
        cq = as_vec3(args[0], f"{func}: cosines cq")
        sq = as_vec3(args[1], f"{func}: sines sq")
        return cq, sq, args[2:]
    forms = "(q" + ", x" * n_extra + ") or (cq, sq" + ", x" * n_extra + ")"
    raise InvalidArgumentError(f"{func} takes {forms}; got {len(args)} arguments")


def _inv_cos(c: float, func: str) -> float:
    if abs(c) < _GIMBAL_LOCK_COS:
        raise InvalidArgumentError(
            f"{func}: the x-y-z angle sequence is singular (gimbal lock) when the middle angle "
            f"is +-pi/2; cos(qy) = {c:.3g}"
        )
    return 1.0 / c


def _vec2(v, name: str) -> np.ndarray:
    return as_vector(v, 2, name)


# --------------------------------------------------------------------------- body-fixed XYZ, B


def calcNForBodyXYZInBodyFrame(*args) -> np.ndarray:
    """N_B(q), 3x3: ``qdot = N_B w_PB_B``. Call with ``(q)`` or ``(cos(q), sin(q))``."""
    cq, sq, _ = _cos_sin(args, 0, "calcNForBodyXYZInBodyFrame")
    s1, s2, c2 = sq[1], sq[2], cq[2]
    ooc1 = _inv_cos(cq[1], "calcNForBodyXYZInBodyFrame")
    return np.array(
        [
            [c2 * ooc1, -s2 * ooc1, 0.0],
            [s2, c2, 0.0],
            [-s1 * c2 * ooc1, s1 * s2 * ooc1, 1.0],
        ]
    )


def calcNInvForBodyXYZInBodyFrame(*args) -> np.ndarray:
    """NInv_B(q), 3x3: ``w_PB_B = NInv_B qdot`` (never singular). ``(q)`` or ``(cq, sq)``."""
    cq, sq, _ = _cos_sin(args, 0, "calcNInvForBodyXYZInBodyFrame")
    s1, c1, s2, c2 = sq[1], cq[1], sq[2], cq[2]
    return np.array([[c1 * c2, s2, 0.0], [-c1 * s2, c2, 0.0], [s1, 0.0, 1.0]])


def calcNDotForBodyXYZInBodyFrame(*args) -> np.ndarray:
    """d/dt N_B, 3x3: ``qdotdot = N_B wdot_PB_B + NDot_B w_PB_B``. ``(q, qdot)`` or
    ``(cq, sq, qdot)``."""
    cq, sq, (qdot,) = _cos_sin(args, 1, "calcNDotForBodyXYZInBodyFrame")
    qd = as_vec3(qdot, "calcNDotForBodyXYZInBodyFrame: qdot")
    s1, s2, c2 = sq[1], sq[2], cq[2]
    ooc1 = _inv_cos(cq[1], "calcNDotForBodyXYZInBodyFrame")
    t = qd[1] * s1 * ooc1
    a = t * s2 * ooc1 + qd[2] * c2 * ooc1  # d/dt (s2/c1)
    b = t * c2 * ooc1 - qd[2] * s2 * ooc1  # d/dt (c2/c1)
    return np.array(
        [
            [b, -a, 0.0],
            [qd[2] * c2, -qd[2] * s2, 0.0],
            [-(s1 * b + qd[1] * c2), s1 * a + qd[1] * s2, 0.0],
        ]
    )


# --------------------------------------------------------------------------- body-fixed XYZ, P


def calcNForBodyXYZInParentFrame(*args) -> np.ndarray:
    """N_P(q), 3x3: ``qdot = N_P w_PB_P`` (= W(q)^-1 of docs/conventions.md §4).
    ``(q)`` or ``(cq, sq)``."""
    cq, sq, _ = _cos_sin(args, 0, "calcNForBodyXYZInParentFrame")
    s0, c0, s1 = sq[0], cq[0], sq[1]
    ooc1 = _inv_cos(cq[1], "calcNForBodyXYZInParentFrame")
    return np.array(
        [
            [1.0, s1 * s0 * ooc1, -s1 * c0 * ooc1],
            [0.0, c0, s0],
            [0.0, -s0 * ooc1, c0 * ooc1],
        ]
    )


def calcNInvForBodyXYZInParentFrame(*args) -> np.ndarray:
    """NInv_P(q) = W(q), 3x3: ``w_PB_P = NInv_P qdot`` (never singular). ``(q)`` or
    ``(cq, sq)``."""
    cq, sq, _ = _cos_sin(args, 0, "calcNInvForBodyXYZInParentFrame")
    s0, c0, s1, c1 = sq[0], cq[0], sq[1], cq[1]
    return np.array([[1.0, 0.0, s1], [0.0, c0, -s0 * c1], [0.0, s0, c0 * c1]])


def calcNDotForBodyXYZInParentFrame(*args) -> np.ndarray:
    """d/dt N_P, 3x3: ``qdotdot = N_P wdot_PB_P + NDot_P w_PB_P``.

    Call with ``(q, qdot)`` or, as Simbody's fast form, ``((cos qx, cos qy), (sin qx, sin qy),
    1/cos qy, qdot)``.
    """
    func = "calcNDotForBodyXYZInParentFrame"
    if len(args) == 2:
        q = as_vec3(args[0], f"{func}: angles q")
        c0, c1, s0, s1 = np.cos(q[0]), np.cos(q[1]), np.sin(q[0]), np.sin(q[1])
        ooc1 = _inv_cos(c1, func)
        qdot = args[1]
    elif len(args) == 4:
        (c0, c1), (s0, s1) = _vec2(args[0], "cosxy"), _vec2(args[1], "sinxy")
        ooc1 = float(as_vector([args[2]], 1, "oocosy")[0])
        qdot = args[3]
    else:
        raise InvalidArgumentError(
            f"{func} takes (q, qdot) or (cosxy, sinxy, oocosy, qdot); got {len(args)} arguments"
        )
    qd = as_vec3(qdot, f"{func}: qdot")
    t = qd[1] * s1 * ooc1
    a = t * s0 * ooc1 + qd[0] * c0 * ooc1  # d/dt (s0/c1)
    b = t * c0 * ooc1 - qd[0] * s0 * ooc1  # d/dt (c0/c1)
    return np.array(
        [
            [0.0, s1 * a + qd[1] * s0, -(s1 * b + qd[1] * c0)],
            [0.0, -qd[0] * s0, qd[0] * c0],
            [0.0, -a, b],
        ]
    )


def multiplyByBodyXYZ_N_P(cosxy, sinxy, oocosy: float, w_PB) -> np.ndarray:
    """``N_P w_PB`` from cos/sin of (qx, qy) and 1/cos(qy), without forming N_P."""
    (c0, _), (s0, s1) = _vec2(cosxy, "cosxy"), _vec2(sinxy, "sinxy")
    w = as_vec3(w_PB, "w_PB")
    t = (s0 * w[1] - c0 * w[2]) * float(oocosy)
    return np.array([w[0] + t * s1, c0 * w[1] + s0 * w[2], -t])


def multiplyByBodyXYZ_NT_P(cosxy, sinxy, oocosy: float, q) -> np.ndarray:
    """``N_P^T q`` (q-like in, u-like out) without forming N_P."""
    (c0, _), (s0, s1) = _vec2(cosxy, "cosxy"), _vec2(sinxy, "sinxy")
    v = as_vec3(q, "q")
    t = (v[0] * s1 - v[2]) * float(oocosy)
    return np.array([v[0], c0 * v[1] + t * s0, s0 * v[1] - t * c0])


def multiplyByBodyXYZ_NInv_P(cosxy, sinxy, qdot) -> np.ndarray:
    """``w_PB_P = NInv_P qdot`` without forming NInv_P."""
    (c0, c1), (s0, s1) = _vec2(cosxy, "cosxy"), _vec2(sinxy, "sinxy")
    qd = as_vec3(qdot, "qdot")
    return np.array(
        [qd[0] + s1 * qd[2], c0 * qd[1] - s0 * c1 * qd[2], s0 * qd[1] + c0 * c1 * qd[2]]
    )


def multiplyByBodyXYZ_NInvT_P(cosxy, sinxy, v_P) -> np.ndarray:
    """``NInv_P^T v_P`` (u-like in, q-like out) without forming NInv_P."""
    (c0, c1), (s0, s1) = _vec2(cosxy, "cosxy"), _vec2(sinxy, "sinxy")
    w = as_vec3(v_P, "v_P")
    return np.array([w[0], c0 * w[1] + s0 * w[2], s1 * w[0] - s0 * c1 * w[1] + c0 * c1 * w[2]])


def convertAngVelInParentToBodyXYZDot(cosxy, sinxy, oocosy: float, w_PB) -> np.ndarray:
    """x-y-z angle rates ``qdot = N_P w_PB`` (w_PB expressed in P)."""
    return multiplyByBodyXYZ_N_P(cosxy, sinxy, oocosy, w_PB)


def convertAngAccInParentToBodyXYZDotDot(cosxy, sinxy, oocosy: float, qdot, b_PB) -> np.ndarray:
    """x-y-z angle second derivatives ``N_P b_PB + NDot_P w_PB`` given qdot and the angular
    acceleration ``b_PB`` (in P); the second term is computed from qdot."""
    (_, c1), (_, s1) = _vec2(cosxy, "cosxy"), _vec2(sinxy, "sinxy")
    qd = as_vec3(qdot, "qdot")
    oocosy = float(oocosy)
    nb = multiplyByBodyXYZ_N_P(cosxy, sinxy, oocosy, b_PB)
    q1oc1 = qd[1] * oocosy
    ndot_w = np.array(
        [(qd[0] * s1 - qd[2]) * q1oc1, qd[0] * qd[2] * c1, (qd[2] * s1 - qd[0]) * q1oc1]
    )
    return nb + ndot_w


def convertAngVelInBodyFrameToBodyXYZDot(*args) -> np.ndarray:
    """``qdot = N_B w_PB_B``. ``(q, w_PB_B)`` or ``(cq, sq, w_PB_B)``."""
    n = calcNForBodyXYZInBodyFrame(*args[:-1])
    return n @ as_vec3(args[-1], "w_PB_B")


def convertBodyXYZDotToAngVelInBodyFrame(*args) -> np.ndarray:
    """``w_PB_B = NInv_B qdot``. ``(q, qdot)`` or ``(cq, sq, qdot)``."""
    ninv = calcNInvForBodyXYZInBodyFrame(*args[:-1])
    return ninv @ as_vec3(args[-1], "qdot")


def convertAngVelDotInBodyFrameToBodyXYZDotDot(*args) -> np.ndarray:
    """``qdotdot = N_B wdot + NDot_B w``. ``(q, w_PB_B, wdot_PB_B)`` or with ``(cq, sq, ...)``."""
    if len(args) not in (3, 4):
        raise InvalidArgumentError(
            "convertAngVelDotInBodyFrameToBodyXYZDotDot takes (q, w, wdot) or (cq, sq, w, wdot)"
        )
    head = args[:-2]
    w = as_vec3(args[-2], "w_PB_B")
    wdot = as_vec3(args[-1], "wdot_PB_B")
    n = calcNForBodyXYZInBodyFrame(*head)
    ndot = calcNDotForBodyXYZInBodyFrame(*head, n @ w)
    return n @ wdot + ndot @ w


# --------------------------------------------------------------------------- quaternions


def _e_matrix(q: np.ndarray) -> np.ndarray:
    w, x, y, z = q
    return np.array([[-x, -y, -z], [w, z, -y], [-z, w, x], [y, -x, w]])


def calcUnnormalizedNForQuaternion(q) -> np.ndarray:
    """N(q) = E(q)/2, 4x3: ``qdot = N w_PB_P``; q is used as given (not normalized)."""
    return 0.5 * _e_matrix(as_vector(q, 4, "quaternion q"))


def calcUnnormalizedNDotForQuaternion(qdot) -> np.ndarray:
    """NDot = E(qdot)/2, 4x3, the time derivative of N(q)."""
    return 0.5 * _e_matrix(as_vector(qdot, 4, "quaternion derivative qdot"))


def calcUnnormalizedNInvForQuaternion(q) -> np.ndarray:
    """NInv = 2 E(q)^T, 3x4: ``w_PB_P = NInv qdot``; ``NInv N = |q|^2 I``."""
    return 2.0 * _e_matrix(as_vector(q, 4, "quaternion q")).T


def convertAngVelToQuaternionDot(q, w_PB_P) -> np.ndarray:
    """Quaternion derivative ``qdot = E(q) w_PB_P / 2`` (w expressed in the parent P)."""
    return calcUnnormalizedNForQuaternion(q) @ as_vec3(w_PB_P, "angular velocity w_PB_P")


def convertQuaternionDotToAngVel(q, qdot) -> np.ndarray:
    """Angular velocity ``w_PB_P = 2 E(q)^T qdot`` (expressed in P)."""
    return calcUnnormalizedNInvForQuaternion(q) @ as_vector(qdot, 4, "quaternion derivative")


def convertAngVelDotToQuaternionDotDot(q, w_PB, b_PB) -> np.ndarray:
    """Quaternion second derivative ``N(q) b_PB - |w_PB|^2 q / 4`` (w, b expressed in P).

    This is ``N b + NDot w`` with ``NDot = E(qdot)/2`` and ``qdot = N w``; the second term
    simplifies to ``-|w|^2 q / 4``.
    """
    qv = as_vector(q, 4, "quaternion q")
    w = as_vec3(w_PB, "angular velocity w_PB")
    b = as_vec3(b_PB, "angular acceleration b_PB")
    return 0.5 * _e_matrix(qv) @ b - 0.25 * float(w @ w) * qv
