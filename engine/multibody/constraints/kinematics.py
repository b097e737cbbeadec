"""ConstraintKinematics: one constraint's view of its constrained bodies, in its ancestor A.

Simbody writes every constraint's equations in the constraint's ancestor frame A
(the deepest common ancestor of the constrained bodies): poses ``X_AB``, spatial
velocities ``V_AB`` and accelerations ``A_AB`` of each constrained body, measured
and expressed in A. This module converts the Ground-frame body kinematics of the
matter subsystem into those quantities, per constrained body ``k`` (its position in
the constraint's body list), and offers Simbody's station helpers.
"""

from __future__ import annotations

import numpy as np


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.array(
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    )


_EYE = np.eye(3)
_EYE.setflags(write=False)


class ConstraintKinematics:
    """Kinematics of a constraint's bodies in its ancestor frame A, plus mobility data.

    Attributes (k = constrained body number):
    ``R[k]``, ``p[k]``: R_AB, p_AB; ``w[k]``, ``v[k]``: angular velocity and Bo velocity
    in A (None below velocity level); ``b[k]``, ``a[k]``: angular and Bo acceleration in A
    (None below acceleration level); ``t``: time; ``q``, ``u``, ``udot``: the matter
    subsystem's full vectors (``u`` may be a u-like input of an operator).
    """

    __slots__ = ("R", "p", "w", "v", "b", "a", "t", "q", "u", "udot", "R_GA")

    def __init__(
        self,
        bodies: list[int],
        ancestor: int,
        R_GB: np.ndarray,
        p_GB: np.ndarray,
        V_GB: np.ndarray | None,
        A_GB: np.ndarray | None,
        t: float,
        q: np.ndarray,
        u: np.ndarray | None,
        udot: np.ndarray | None,
    ) -> None:
        self.t, self.q, self.u, self.udot = t, q, u, udot
        n = len(bodies)
        a = ancestor
        if a == 0:  # Ground: A = G, nothing to convert
            self.R_GA = _EYE
            self.R = [R_GB[b] for b in bodies]
            self.p = [p_GB[b] for b in bodies]
            self.w = self.v = self.b = self.a = None
            if V_GB is not None:
                self.w = [V_GB[b, 0:3] for b in bodies]
                self.v = [V_GB[b, 3:6] for b in bodies]
                if A_GB is not None:
                    self.b = [A_GB[b, 0:3] for b in bodies]
                    self.a = [A_GB[b, 3:6] for b in bodies]
            return
        R_GA = R_GB[a]
        p_GA = p_GB[a]
        self.R_GA = R_GA
        self.R = [R_GA.T @ R_GB[b] for b in bodies]
        self.p = [R_GA.T @ (p_GB[b] - p_GA) for b in bodies]
        self.w = self.v = self.b = self.a = None
        if V_GB is None:
            return
        w_GA, v_GA = V_GB[a, 0:3], V_GB[a, 3:6]
        self.w, self.v = [None] * n, [None] * n
        for k, body in enumerate(bodies):
            r = p_GB[body] - p_GA
            self.w[k] = R_GA.T @ (V_GB[body, 0:3] - w_GA)
            self.v[k] = R_GA.T @ (V_GB[body, 3:6] - v_GA - _cross(w_GA, r))
        if A_GB is None:
            return
        b_GA, a_GA = A_GB[a, 0:3], A_GB[a, 3:6]
        self.b, self.a = [None] * n, [None] * n
        for k, body in enumerate(bodies):
            r = p_GB[body] - p_GA
            w_GB, v_GB = V_GB[body, 0:3], V_GB[body, 3:6]
            dv = v_GB - v_GA
            self.b[k] = R_GA.T @ (A_GB[body, 0:3] - b_GA - _cross(w_GA, w_GB))
            self.a[k] = R_GA.T @ (
                A_GB[body, 3:6]
                - a_GA
                - _cross(b_GA, r)
                - 2.0 * _cross(w_GA, dv)
                + _cross(w_GA, _cross(w_GA, r))
            )

    # ------------------------------------------------------------ stations
    def station(self, k: int, s_B: np.ndarray) -> np.ndarray:
        """p_AS: location in A of station s (given in body k's frame)."""
        return self.p[k] + self.R[k] @ s_B

    def station_velocity(self, k: int, s_B: np.ndarray) -> np.ndarray:
        """v_AS: velocity in A of the station s fixed on body k."""
        return self.v[k] + _cross(self.w[k], self.R[k] @ s_B)

    def station_acceleration(self, k: int, s_B: np.ndarray) -> np.ndarray:
        """a_AS: acceleration in A of the station s fixed on body k."""
        r = self.R[k] @ s_B
        w = self.w[k]
        return self.a[k] + _cross(self.b[k], r) + _cross(w, _cross(w, r))

    def station_in_body(self, k: int, p_AS: np.ndarray) -> np.ndarray:
        """The station of body k (in its frame) at the A-frame location p_AS."""
        return self.R[k].T @ (p_AS - self.p[k])


class ConstraintForces:
    """Accumulates one constraint's forces: per constrained body a spatial force at Bo in
    A ([torque, force]) and per constrained mobility a generalized force."""

    __slots__ = ("kin", "F", "f")

    def __init__(self, kin: ConstraintKinematics | None, nbodies: int, nmobilities: int):
        self.kin = kin
        self.F = np.zeros((nbodies, 6))
        self.f = np.zeros(nmobilities)

    def station_force(self, k: int, s_B: np.ndarray, f_A: np.ndarray) -> None:
        """Add force f_A (in A) applied at station s_B of constrained body k."""
        r = self.kin.R[k] @ s_B
        self.F[k, 0:3] += _cross(r, f_A)
        self.F[k, 3:6] += f_A

    def torque(self, k: int, t_A: np.ndarray) -> None:
        self.F[k, 0:3] += t_A


cross = _cross
