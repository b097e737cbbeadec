"""Constraint.NoSlip1D: two moving bodies roll without slip along one direction.

One nonholonomic equation ``n . (v_P1 - v_P0)``, differentiated as Simbody does to
``n . (a_P1 - a_P0 - w_C x (v_P1 - v_P0))`` with the material points' accelerations.
P is a contact point fixed in the case body C, n a direction fixed in C, and P0/P1 the
material points of moving bodies 0/1 at P's location (velocities in the ancestor A).
Multiplier lambda gives ``+lambda n`` on moving body 1 at P and ``-lambda n`` on moving
body 0 at P.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.common.index_arg import index_value
from engine.multibody.constraints.constraint import Constraint, as_unit_vec3, as_vec3
from engine.multibody.constraints.kinematics import cross


class NoSlip1D(Constraint):
    """``NoSlip1D(caseBody, P_C, n_C, movingBody0, movingBody1)``."""

    NUM_EQUATIONS = (0, 1, 0)
    TYPE_NAME = "NoSlip1D"

    def __init__(self, caseBody, P_C, n_C, movingBody0, movingBody1) -> None:
        self._P = as_vec3(P_C, "NoSlip1D contact point")
        self._n = as_unit_vec3(n_C, "NoSlip1D direction")
        if movingBody0 is movingBody1 or (
            hasattr(movingBody0, "getMobilizedBodyIndex")
            and hasattr(movingBody1, "getMobilizedBodyIndex")
            and movingBody0.getMobilizedBodyIndex() == movingBody1.getMobilizedBodyIndex()
        ):
            raise InvalidArgumentError(
                "Constraint.NoSlip1D: the two moving bodies must be different bodies"
            )
        super().__init__([caseBody, movingBody0, movingBody1], distinct=False)

    def getContactPointOnCaseBody(self) -> np.ndarray:
        return self._P.copy()

    def getDirectionOnCaseBody(self) -> np.ndarray:
        return self._n.copy()

    def getCaseMobilizedBody(self):
        return self._bodies[0]

    def getMovingBodyMobilizedBody(self, which: int):
        which = index_value(which, "getMovingBodyMobilizedBody: which")
        if which not in (0, 1):
            raise InvalidArgumentError(
                f"getMovingBodyMobilizedBody: which: NoSlip1D moving body index must be 0 or 1, "
                f"got {which}"
            )
        return self._bodies[1 + which]

    def _points(self, k):
        p = k.station(0, self._P)
        return p, k.station_in_body(1, p), k.station_in_body(2, p)

    def _verr(self, k):
        _, s0, s1 = self._points(k)
        n = k.R[0] @ self._n
        return np.array([n @ (k.station_velocity(2, s1) - k.station_velocity(1, s0))])

    def _vaerr(self, k):
        # Simbody's equation: the material points' accelerations, and n's rotation with
        # the case body, n . (a_P1 - a_P0 - w_C x (v_P1 - v_P0)).
        _, s0, s1 = self._points(k)
        n = k.R[0] @ self._n
        v0, v1 = k.station_velocity(1, s0), k.station_velocity(2, s1)
        a0, a1 = k.station_acceleration(1, s0), k.station_acceleration(2, s1)
        return np.array([n @ (a1 - a0 - cross(k.w[0], v1 - v0))])

    def _forces(self, k, out, lam_p, lam_v, lam_a):
        _, s0, s1 = self._points(k)
        f = lam_v[0] * (k.R[0] @ self._n)
        out.station_force(2, s1, f)
        out.station_force(1, s0, -f)
