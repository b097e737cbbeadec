"""Constraint.Custom: a constraint whose equations are written in Python.

Subclass ``Constraint.Custom.Implementation``, declare the constrained bodies and
mobilities in its constructor, and override the error methods for the equation
counts given (mp, mv, ma). Each method receives a ``ConstraintKinematics`` ``k``
(poses/velocities/accelerations of the constrained bodies in the ancestor frame A,
``k.station(...)`` helpers, ``k.t``, ``k.q``, ``k.u``, ``k.udot``) and returns a
sequence of numbers::

    class Slot(Constraint.Custom.Implementation):
        def __init__(self, body1, body2):
            super().__init__(body1.getMatterSubsystem(), 1, 0, 0)
            self.b1 = self.addConstrainedBody(body1)
            self.b2 = self.addConstrainedBody(body2)
        def calcPositionErrors(self, k): ...
        def calcPositionDotErrors(self, k): ...
        def calcPositionDotDotErrors(self, k): ...
        def addInPositionConstraintForces(self, k, multipliers, forces):
            forces.station_force(self.b2, point, f_A)   # f_A in A, at a station

    Constraint.Custom(Slot(body1, body2))

``getConstrainedUIndex(k, i)`` gives the matter u index of constrained mobility i.
Forces must be the transpose of the velocity-level Jacobian (G^T lambda = J^T F + f).
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.common.index_arg import index_value
from engine.multibody.constraints.constraint import Constraint


class Implementation:
    """User side of a Constraint.Custom: the equations and their forces."""

    def __init__(self, matter, mp: int = 0, mv: int = 0, ma: int = 0) -> None:
        if min(mp, mv, ma) < 0 or mp + mv + ma == 0:
            raise InvalidArgumentError(
                "Constraint.Custom.Implementation needs nonnegative equation counts, not all 0"
            )
        self._matter = matter
        self._counts = (int(mp), int(mv), int(ma))
        self._bodies: list = []
        self._mobilities: list = []
        self._owner: Custom | None = None

    def addConstrainedBody(self, mobod) -> int:
        """Declare a constrained body; returns its constrained-body number k."""
        self._bodies.append(mobod)
        return len(self._bodies) - 1

    def addConstrainedMobilizer(self, mobod, which: int = 0) -> int:
        """Declare a constrained mobility (u number ``which`` of ``mobod``)."""
        which = index_value(which, "addConstrainedMobilizer: which")
        self._mobilities.append((mobod, which))
        return len(self._mobilities) - 1

    def getConstrainedUIndex(self, i: int) -> int:
        return int(self._owner._u_ix[i])

    def getConstrainedQIndex(self, i: int) -> int:
        return int(self._owner._q_ix[i])

    # Equations (override those with a nonzero count).
    def calcPositionErrors(self, k):
        raise NotImplementedError("calcPositionErrors")

    def calcPositionDotErrors(self, k):
        raise NotImplementedError("calcPositionDotErrors")

    def calcPositionDotDotErrors(self, k):
        raise NotImplementedError("calcPositionDotDotErrors")

    def calcVelocityErrors(self, k):
        raise NotImplementedError("calcVelocityErrors")

    def calcVelocityDotErrors(self, k):
        raise NotImplementedError("calcVelocityDotErrors")

    def calcAccelerationErrors(self, k):
        raise NotImplementedError("calcAccelerationErrors")

    def addInPositionConstraintForces(self, k, multipliers, forces) -> None:
        raise NotImplementedError("addInPositionConstraintForces")

    def addInVelocityConstraintForces(self, k, multipliers, forces) -> None:
        raise NotImplementedError("addInVelocityConstraintForces")

    def addInAccelerationConstraintForces(self, k, multipliers, forces) -> None:
        raise NotImplementedError("addInAccelerationConstraintForces")


class Custom(Constraint):
    """``Custom(implementation)``: adopt a Python ``Implementation``."""

    TYPE_NAME = "Custom"
    Implementation = Implementation

    def __init__(self, implementation: Implementation) -> None:
        if not isinstance(implementation, Implementation):
            raise InvalidArgumentError(
                "Constraint.Custom needs a Constraint.Custom.Implementation instance"
            )
        self._impl = implementation
        self.NUM_EQUATIONS = implementation._counts
        implementation._owner = self
        super().__init__(
            implementation._bodies,
            implementation._mobilities,
            distinct=False,
            matter=implementation._matter,
        )

    def getImplementation(self) -> Implementation:
        return self._impl

    def _call(self, name: str, n: int, k) -> np.ndarray:
        out = np.asarray(getattr(self._impl, name)(k), dtype=np.float64).reshape(-1)
        if out.size != n:
            raise InvalidArgumentError(
                f"Constraint.Custom {self._index}: {name} returned {out.size} values, expected {n}"
            )
        return out

    def _perr(self, k):
        return self._call("calcPositionErrors", self.NUM_EQUATIONS[0], k)

    def _pverr(self, k):
        return self._call("calcPositionDotErrors", self.NUM_EQUATIONS[0], k)

    def _paerr(self, k):
        return self._call("calcPositionDotDotErrors", self.NUM_EQUATIONS[0], k)

    def _verr(self, k):
        return self._call("calcVelocityErrors", self.NUM_EQUATIONS[1], k)

    def _vaerr(self, k):
        return self._call("calcVelocityDotErrors", self.NUM_EQUATIONS[1], k)

    def _aerr(self, k):
        return self._call("calcAccelerationErrors", self.NUM_EQUATIONS[2], k)

    def _forces(self, k, out, lam_p, lam_v, lam_a):
        mp, mv, ma = self.NUM_EQUATIONS
        if mp:
            self._impl.addInPositionConstraintForces(k, np.asarray(lam_p), out)
        if mv:
            self._impl.addInVelocityConstraintForces(k, np.asarray(lam_v), out)
        if ma:
            self._impl.addInAccelerationConstraintForces(k, np.asarray(lam_a), out)
