"""UnilateralContact: the base of Simbody's conditional (one-sided) constraints.

A unilateral contact has a scalar position error ``perr`` (>= 0 when the constraint is
satisfied: a gap, a distance to a hard stop, the slack of a rope), its time derivative
``verr = Jn u`` and, for contacts between surfaces, a friction plane with two slip-velocity
rows ``Jt u``. The SemiExplicitEulerTimeStepper reads these rows (``calcContactRows``) and
finds contact impulses with an ImpulseSolver. Units are SI; vectors are in Ground.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.common.stage import Stage
from engine.common.state import State


def check_cor(value, what: str) -> float:
    """A coefficient of restitution in [0, 1]."""
    v = _finite(value, what)
    if not 0.0 <= v <= 1.0:
        raise InvalidArgumentError(
            f"{what}: a coefficient of restitution must be in [0, 1], got {v}"
        )
    return v


def check_friction(mu_s, mu_d, mu_v, what: str) -> tuple[float, float, float]:
    """Friction coefficients with 0 <= mu_d <= mu_s and mu_v >= 0."""
    s, d, v = (
        _finite(x, f"{what}: {n}") for x, n in ((mu_s, "mu_s"), (mu_d, "mu_d"), (mu_v, "mu_v"))
    )
    for val, name in ((s, "mu_s"), (d, "mu_d"), (v, "mu_v")):
        if val < 0:
            raise InvalidArgumentError(
                f"{what}: friction coefficient {name} must be >= 0, got {val}"
            )
    if d > s:
        raise InvalidArgumentError(
            f"{what}: the dynamic friction coefficient mu_d={d} exceeds the static one mu_s={s}"
        )
    return s, d, v


def check_positive(value, what: str) -> float:
    v = _finite(value, what)
    if v <= 0:
        raise InvalidArgumentError(f"{what} must be positive, got {v}")
    return v


def _finite(value, what: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            f"{what}: expected a number, got {type(value).__name__}"
        ) from None
    if not math.isfinite(v):
        raise InvalidArgumentError(f"{what}: expected a finite number, got {v}")
    return v


def mobod_of(mobod, what: str):
    from engine.multibody.mobilized_body import MobilizedBody

    if not isinstance(mobod, MobilizedBody):
        raise InvalidArgumentError(f"{what}: expected a MobilizedBody, got {type(mobod).__name__}")
    return mobod


def tangent_basis(n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two unit vectors completing the unit normal n to a right-handed frame (t1, t2, n)."""
    a = np.array([1.0, 0.0, 0.0]) if abs(n[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    t1 = np.cross(a, n)
    t1 /= np.linalg.norm(t1)
    return t1, np.cross(n, t1)


@dataclass
class ContactRows:
    """One contact's constraint-space data at the State's positions.

    ``perr``: position error (>= 0 when satisfied); ``normal``: the nu-row with
    d(perr)/dt = normal @ u; ``friction``: (2, nu) slip-velocity rows or None; ``point``:
    the contact point in Ground (for display)."""

    perr: float
    normal: np.ndarray
    friction: np.ndarray | None
    point: np.ndarray


class ConditionalConstraint:
    """What Simbody's conditional constraints share: the index and matter subsystem given
    when adopted, the bodies they connect, and a switch in the State (the matter
    subsystem's discrete variable ``_SWITCH``; flipping it is an Instance-stage change, and
    copies of the State keep it)."""

    #: the matter subsystem's switch variable of this kind of conditional constraint
    _SWITCH = ""
    #: the SimbodyMatterSubsystem method that adopts this kind
    _ADOPT = ""

    def __init__(self) -> None:
        self._index = -1
        self._matter = None

    def getMyIndex(self) -> int:
        """The index the adopting method gave (-1 before)."""
        return self._index

    def _adopted(self, matter, index: int) -> None:
        self._matter = matter
        self._index = index

    def _bodies(self) -> list:
        """The MobilizedBodies this constraint connects."""
        raise NotImplementedError

    def getMatterSubsystem(self):
        if self._matter is None:
            raise InvalidArgumentError(
                f"{type(self).__name__}: not adopted yet; call matter.{self._ADOPT} first"
            )
        return self._matter

    def isEnabled(self, state: State) -> bool:
        """Whether this constraint is switched on in ``state``."""
        return self.getMatterSubsystem()._conditional_flag(state, self._SWITCH, self._index)

    def enable(self, state: State) -> bool:
        """Switch it on in ``state`` (an Instance-stage change)."""
        self.getMatterSubsystem()._set_conditional_flag(state, self._SWITCH, self._index, True)
        return True

    def disable(self, state: State) -> None:
        """Switch it off in ``state`` (an Instance-stage change)."""
        self.getMatterSubsystem()._set_conditional_flag(state, self._SWITCH, self._index, False)


class UnilateralContact(ConditionalConstraint):
    """Simbody's ``UnilateralContact``: a one-sided constraint the time stepper switches on
    (enables) while it is proximal and off when it separates (off at first). ``sign`` is
    Simbody's sign convention (+1: perr >= 0 is allowed)."""

    _SWITCH = "unilateral_enabled"
    _ADOPT = "adoptUnilateralContact"

    def __init__(self, sign: float = 1.0, minCOR: float = 0.0) -> None:  # noqa: N803
        super().__init__()
        if sign not in (1, -1, 1.0, -1.0):
            raise InvalidArgumentError(f"UnilateralContact: sign must be +1 or -1, got {sign}")
        self._sign = float(sign)
        self._minCOR = check_cor(minCOR, f"{type(self).__name__}: minCOR")

    def getSignConvention(self) -> float:
        return self._sign

    # ------------------------------------------------------------- properties
    def getMinCOR(self) -> float:
        """The coefficient of restitution for impacts faster than the min-COR speed."""
        return self._minCOR

    def setMinCOR(self, minCOR: float) -> None:  # noqa: N803
        self._minCOR = check_cor(minCOR, f"{type(self).__name__}.setMinCOR")

    @staticmethod
    def calcEffectiveCOR(minCOR, captureSpeed, minCORSpeed, impactSpeed) -> float:  # noqa: N803
        """Simbody's restitution curve: 0 at or below ``captureSpeed``; ``minCOR`` at or above
        ``minCORSpeed``; between them the line ``1 - (1 - minCOR) v / minCORSpeed`` (1 at rest
        falling to minCOR at minCORSpeed). Speeds are >= 0, captureSpeed <= minCORSpeed."""
        e = check_cor(minCOR, "calcEffectiveCOR: minCOR")
        vc = _finite(captureSpeed, "calcEffectiveCOR: captureSpeed")
        vm = _finite(minCORSpeed, "calcEffectiveCOR: minCORSpeed")
        v = _finite(impactSpeed, "calcEffectiveCOR: impactSpeed")
        if vc < 0 or vm < vc or v < 0:
            raise InvalidArgumentError(
                "calcEffectiveCOR: need 0 <= captureSpeed <= minCORSpeed and impactSpeed >= 0, "
                f"got {vc}, {vm}, {v}"
            )
        if v <= vc:
            return 0.0
        if v >= vm:
            return e
        return 1.0 - (1.0 - e) * v / vm

    def hasFriction(self, state: State | None = None) -> bool:
        return False

    def getStaticFrictionCoef(self) -> float:
        return 0.0

    def getDynamicFrictionCoef(self) -> float:
        return 0.0

    def getViscousFrictionCoef(self) -> float:
        return 0.0

    def getFrictionCoefficient(self, slipSpeed: float, transitionVelocity: float) -> float:  # noqa: N803
        """mu_s while the slip speed is at or below ``transitionVelocity``, else
        mu_d + mu_v * slipSpeed."""
        if slipSpeed <= transitionVelocity:
            return self.getStaticFrictionCoef()
        return self.getDynamicFrictionCoef() + self.getViscousFrictionCoef() * slipSpeed

    # ------------------------------------------------------------- kinematics
    def calcContactRows(self, state: State) -> ContactRows:
        """This contact's ContactRows at ``state`` (Position stage)."""
        matter = self.getMatterSubsystem()
        matter._require(state, Stage.Position, f"{type(self).__name__}.calcContactRows")
        return self._rows(state, matter)

    def _rows(self, state: State, matter) -> ContactRows:
        raise NotImplementedError

    def getPerr(self, state: State) -> float:
        """Position error (Position stage); >= 0 when the constraint is satisfied."""
        return self.calcContactRows(state).perr

    def getVerr(self, state: State) -> float:
        """d(perr)/dt (Velocity stage)."""
        self.getMatterSubsystem()._require(state, Stage.Velocity, f"{type(self).__name__}.getVerr")
        return float(self.calcContactRows(state).normal @ state.getU())

    def getAerr(self, state: State) -> float:
        """d^2(perr)/dt^2 (Acceleration stage), by a central difference of verr along the
        State's own motion (q +- eps qdot, u +- eps udot)."""
        matter = self.getMatterSubsystem()
        matter._require(state, Stage.Acceleration, f"{type(self).__name__}.getAerr")
        system = matter.getSystem()
        q, u = state.getQ().copy(), state.getU().copy()
        qd, ud = state.getQDot().copy(), state.getUDot().copy()
        eps = 1e-6
        vals = []
        for sgn in (1.0, -1.0):
            s = state.copy()
            s.setQ(q + sgn * eps * qd)
            s.setU(u + sgn * eps * ud)
            system.realize(s, Stage.Velocity)
            vals.append(self.getVerr(s))
        return (vals[0] - vals[1]) / (2 * eps)

    def isProximal(self, state: State, posTol: float) -> bool:  # noqa: N803
        return self.getPerr(state) <= posTol

    def whereToDisplay(self, state: State) -> np.ndarray:
        """A point in Ground where the contact is drawn (Position stage)."""
        return self.calcContactRows(state).point

    def getSlipVelocity(self, state: State) -> np.ndarray:
        """The (2,) tangential slip velocity in the friction plane (Velocity stage); zeros
        for a contact without friction."""
        rows = self.calcContactRows(state)
        if rows.friction is None:
            return np.zeros(2)
        return rows.friction @ state.getU()


def body_frame(matter, state, mobod) -> tuple[np.ndarray, np.ndarray]:
    """(R_GB, p_GB) of a mobilized body from the Position cache."""
    pc = matter._position_cache(state)
    b = mobod.getMobilizedBodyIndex()
    return pc.R_GB[b], pc.p_GB[b]


def station_rows(matter, state, b1: int, p1_G: np.ndarray, b2: int, p2_G: np.ndarray, dirs):
    """Rows ``d . (v2 - v1)`` for each direction d in ``dirs`` (k, 3): v1 the velocity of the
    material point of body b1 at p1_G, v2 of body b2 at p2_G (points in Ground)."""
    bodies = np.array([b1, b2], dtype=np.int64)
    p_GS = np.ascontiguousarray(np.array([p1_G, p2_G], dtype=np.float64))
    J = matter._task_jacobian(state, bodies, p_GS).reshape(2, 2, 3, -1)
    return np.asarray(dirs) @ (J[1, 1] - J[0, 1])
