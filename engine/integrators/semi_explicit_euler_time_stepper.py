"""SemiExplicitEulerTimeStepper: fixed-step, velocity-level time stepping with rigid
(unilateral) contact, impacts and Coulomb friction (Simbody's SemiExplicitEulerTimeStepper.h).

Each ``stepTo(t + h)`` takes one step of length h (the caller picks h by its stepTo
increments, as in Simbody):

1. Impact phase. Contacts with ``perr <= constraintTol`` are proximal (enabled; the others
   are disabled). Proximal contacts, and contacts that the present velocity would carry
   across their surface within this step (anticipated impacts, resolved up to h * speed
   early so that no impact is missed or resolved from inside the surface), that approach
   faster than the impact capture velocity are impacts; their normal velocities after
   impact are driven by the restitution model with the effective COR
   ``UnilateralContact.calcEffectiveCOR(minCOR, vCapture, vMinCOR, vImpact)``:
   Newton ``v+ >= -e v-``; Poisson: a compression solve (``v+ >= 0``) followed by an extra
   normal impulse e times the compression impulse; NoRestitution ``v+ >= 0``. The induced
   impact model decides which contacts take part in each round: Simultaneous (all proximal
   contacts, one round), Sequential (only the current impacts; contacts driven together by
   a round become impacts of the next round, up to ``maxInducedImpactsPerStep`` more rounds),
   Mixed (as Sequential, but the other proximal contacts take part as perfectly plastic
   observers).
2. Contact phase. Forces (with the post-impact u) give ``u_free = u + h udot``. Proximal
   contacts, and contacts that would cross into penetration during the step, are one-sided
   velocity constraints ``v_n >= -max(perr, 0)/h`` (a gap may close, never be overrun),
   with Coulomb friction on the proximal ones (mu_s while the slip speed is below the
   friction transition velocity, else mu_d + mu_v * slip); StateLimitedFrictions limit their
   impulses to mu N(state) h; bilateral constraints are velocity rows of G.
3. ``q += h N(q) u_new``; a contact whose impact was anticipated is moved by the gap
   ``(1 + e) perr0`` it would have closed before rebounding (clamped at the surface); then
   position projection: Bilateral pulls every contact that took
   an impulse or penetrates to perr = 0, Unilateral pushes penetrating contacts out to
   perr >= 0, NoPositionProjection leaves them; bilateral constraints and quaternions are
   projected by the System.

All impulse problems are solved by the ImpulseSolver (PGS; PLUS is not implemented here).
"""

from __future__ import annotations

import math
from enum import IntEnum

import numpy as np

from engine.common.exceptions import InvalidArgumentError, SimTKError, StageTooLowError
from engine.common.stage import Stage
from engine.common.state import State
from engine.integrators.impulse_solver import ImpulseProblem, ImpulseSolver
from engine.integrators.integrator import SuccessfulStepStatus
from engine.integrators.pgs_impulse_solver import PGSImpulseSolver
from engine.multibody.unilateral.unilateral_contact import UnilateralContact


class RestitutionModel(IntEnum):
    Poisson = 0
    Newton = 1
    NoRestitution = 2


class InducedImpactModel(IntEnum):
    Simultaneous = 0
    Sequential = 1
    Mixed = 2


class PositionProjectionMethod(IntEnum):
    Bilateral = 0
    Unilateral = 1
    NoPositionProjection = 2


class ImpulseSolverType(IntEnum):
    PLUS = 0
    PGS = 1


def _positive(value, what: str, allow_zero: bool = False) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            f"{what}: expected a number, got {type(value).__name__}"
        ) from None
    if not math.isfinite(v) or v < 0 or (v == 0 and not allow_zero):
        raise InvalidArgumentError(f"{what} must be {'>= 0' if allow_zero else '> 0'}, got {value}")
    return v


class SemiExplicitEulerTimeStepper:
    """``SemiExplicitEulerTimeStepper(system)`` for a MultibodySystem whose matter subsystem
    owns UnilateralContacts / StateLimitedFrictions (see the module docstring)."""

    RestitutionModel = RestitutionModel
    InducedImpactModel = InducedImpactModel
    PositionProjectionMethod = PositionProjectionMethod
    ImpulseSolverType = ImpulseSolverType
    Poisson, Newton, NoRestitution = RestitutionModel
    Simultaneous, Sequential, Mixed = InducedImpactModel
    Bilateral, Unilateral, NoPositionProjection = PositionProjectionMethod
    PLUS, PGS = ImpulseSolverType

    def __init__(self, system) -> None:
        if not hasattr(system, "getMatterSubsystem"):
            raise InvalidArgumentError(
                f"SemiExplicitEulerTimeStepper needs a MultibodySystem, got {type(system).__name__}"
            )
        self._system = system
        self._accuracy = 1e-2
        self._consTol = 1e-3
        self._restitution = RestitutionModel.Poisson
        self._induced = InducedImpactModel.Mixed
        self._maxInduced = 10
        self._projection = PositionProjectionMethod.Bilateral
        self._solverType = ImpulseSolverType.PGS
        self._solver: ImpulseSolver = PGSImpulseSolver()
        self._vCapture = 1e-2
        self._vMinCOR = 1.0
        self._vTransition = 1e-2
        self._state: State | None = None
        self._numSteps = 0
        self._lastImpact: dict[int, np.ndarray] = {}
        self._lastContact: dict[int, np.ndarray] = {}

    # ---------------------------------------------------------------- settings
    def getMultibodySystem(self):
        return self._system

    def setAccuracy(self, accuracy: float) -> None:
        """Relative accuracy; the impulse solver converges to accuracy * 1e-8 (relative)."""
        self._accuracy = _positive(accuracy, "setAccuracy: accuracy")
        self._solver.setConvergenceTol(self._accuracy * 1e-8)

    def getAccuracy(self) -> float:
        return self._accuracy

    def setConstraintTol(self, consTol: float) -> None:  # noqa: N803
        """Position tolerance (m or rad): contacts closer than this are proximal, and
        projection leaves position errors below it."""
        self._consTol = _positive(consTol, "setConstraintTol: tolerance")

    def getConstraintTol(self) -> float:
        return self._consTol

    def setRestitutionModel(self, model) -> None:
        self._restitution = self._enum(RestitutionModel, model, "setRestitutionModel")

    def getRestitutionModel(self) -> RestitutionModel:
        return self._restitution

    def setInducedImpactModel(self, model) -> None:
        self._induced = self._enum(InducedImpactModel, model, "setInducedImpactModel")

    def getInducedImpactModel(self) -> InducedImpactModel:
        return self._induced

    def setMaxInducedImpactsPerStep(self, maxInduced: int) -> None:  # noqa: N803
        if (
            isinstance(maxInduced, bool)
            or not isinstance(maxInduced, (int, np.integer))
            or maxInduced < 0
        ):
            raise InvalidArgumentError(
                f"setMaxInducedImpactsPerStep: need an int >= 0, got {maxInduced!r}"
            )
        self._maxInduced = int(maxInduced)

    def getMaxInducedImpactsPerStep(self) -> int:
        return self._maxInduced

    def setPositionProjectionMethod(self, method) -> None:
        self._projection = self._enum(
            PositionProjectionMethod, method, "setPositionProjectionMethod"
        )

    def getPositionProjectionMethod(self) -> PositionProjectionMethod:
        return self._projection

    def setImpulseSolverType(self, solverType) -> None:  # noqa: N803
        kind = self._enum(ImpulseSolverType, solverType, "setImpulseSolverType")
        if kind == ImpulseSolverType.PLUS:
            raise InvalidArgumentError(
                "setImpulseSolverType: the PLUS impulse solver is not implemented in mbstudio; "
                "use SemiExplicitEulerTimeStepper.PGS (projected Gauss-Seidel)"
            )
        self._solverType = kind

    def getImpulseSolverType(self) -> ImpulseSolverType:
        return self._solverType

    def getImpulseSolver(self) -> ImpulseSolver:
        return self._solver

    def setDefaultImpactCaptureVelocity(self, vCapture: float) -> None:  # noqa: N803
        """Impacts slower than this are perfectly plastic (COR 0)."""
        self._vCapture = _positive(vCapture, "setDefaultImpactCaptureVelocity", allow_zero=True)
        self._vMinCOR = max(self._vMinCOR, self._vCapture)

    def getDefaultImpactCaptureVelocity(self) -> float:
        return self._vCapture

    def setDefaultImpactMinCORVelocity(self, vMinCOR: float) -> None:  # noqa: N803
        """Impacts at least this fast use the contact's minCOR."""
        v = _positive(vMinCOR, "setDefaultImpactMinCORVelocity", allow_zero=True)
        if v < self._vCapture:
            raise InvalidArgumentError(
                f"setDefaultImpactMinCORVelocity: {v} is below the capture velocity "
                f"{self._vCapture}"
            )
        self._vMinCOR = v

    def getDefaultImpactMinCORVelocity(self) -> float:
        return self._vMinCOR

    def setDefaultFrictionTransitionVelocity(self, vTransition: float) -> None:  # noqa: N803
        """Slip speeds at or below this use static friction (mu_s)."""
        self._vTransition = _positive(vTransition, "setDefaultFrictionTransitionVelocity", True)

    def getDefaultFrictionTransitionVelocity(self) -> float:
        return self._vTransition

    def getImpactCaptureVelocityInUse(self) -> float:
        return self._vCapture

    def getImpactMinCORVelocityInUse(self) -> float:
        return self._vMinCOR

    def getFrictionTransitionVelocityInUse(self) -> float:
        return self._vTransition

    @staticmethod
    def _enum(cls, value, what: str):
        try:
            return cls(int(value))
        except (TypeError, ValueError):
            names = ", ".join(m.name for m in cls)
            raise InvalidArgumentError(f"{what}: expected one of {names}, got {value!r}") from None

    # ------------------------------------------------------------- simulation
    def initialize(self, initState: State) -> None:  # noqa: N803
        """Start from a copy of ``initState`` (realized here through Velocity)."""
        if not isinstance(initState, State):
            raise InvalidArgumentError(
                f"initialize: expected a State, got {type(initState).__name__}"
            )
        self._state = initState.copy()
        self._system.realize(self._state, Stage.Velocity)
        self._numSteps = 0

    def _require_state(self, what: str) -> State:
        if self._state is None:
            raise StageTooLowError(f"{what}: call initialize(state) first")
        return self._state

    def getState(self) -> State:
        return self._require_state("getState")

    def updState(self) -> State:
        return self._require_state("updState")

    def getTime(self) -> float:
        return self._require_state("getTime").getTime()

    def getNumSteps(self) -> int:
        return self._numSteps

    getNumStepsTaken = getNumSteps

    def getLastImpactImpulses(self) -> dict[int, np.ndarray]:
        """Impact-phase impulses of the last step, {contact index: [normal, t1, t2]}."""
        return {k: v.copy() for k, v in self._lastImpact.items()}

    def getLastContactImpulses(self) -> dict[int, np.ndarray]:
        """Contact-phase impulses of the last step, {contact index: [normal, t1, t2]}."""
        return {k: v.copy() for k, v in self._lastContact.items()}

    def stepTo(self, time: float) -> SuccessfulStepStatus:
        """Advance to ``time`` in one step."""
        s = self._require_state("stepTo")
        t = float(time)
        h = t - s.getTime()
        if not math.isfinite(t) or h <= 0:
            raise InvalidArgumentError(
                f"stepTo: the time {time} must be finite and later than the current {s.getTime()}"
            )
        self._step(s, h)
        self._numSteps += 1
        return SuccessfulStepStatus.ReachedReportTime

    # ---------------------------------------------------------------- the step
    def _step(self, s: State, h: float) -> None:
        system = self._system
        matter = system.getMatterSubsystem()
        contacts = [
            matter.getUnilateralContact(i) for i in range(matter.getNumUnilateralContacts())
        ]
        frictions = [
            f
            for f in (
                matter.getStateLimitedFriction(i)
                for i in range(matter.getNumStateLimitedFrictions())
            )
            if f.isEnabled(s)
        ]
        system.realize(s, Stage.Velocity)
        rows = [c.calcContactRows(s) for c in contacts]
        proximal = [k for k, r in enumerate(rows) if r.perr <= self._consTol]
        for k, c in enumerate(contacts):
            c.enable(s) if k in proximal else c.disable(s)
        system.realize(s, Stage.Velocity)  # a switch that changed is an Instance-stage change
        u = s.getU().copy()
        # Contacts that would be crossed during this step at their present speed take part
        # in the impact phase too, so an impact is never missed or resolved from inside.
        impacting = proximal + [
            k
            for k, r in enumerate(rows)
            if k not in proximal and r.perr + h * float(r.normal @ u) <= 0
        ]
        self._lastImpact = {}
        self._impactCOR: dict[int, float] = {}
        if impacting:
            u = self._impacts(s, contacts, rows, impacting, u)
            s.setU(u)
        system.realize(s, Stage.Acceleration)
        u_free = u + h * s.getUDot()
        u_new, took_impulse = self._contact_phase(
            s, contacts, frictions, rows, proximal, u, u_free, h
        )
        qdot = matter.multiplyByN(s, False, u_new)
        q = s.getQ() + h * qdot
        s.setTime(s.getTime() + h)
        s.setQ(q)
        s.setU(u_new)
        system.realize(s, Stage.Position)
        # An anticipated impact happened inside the step, at the surface: move the contact by
        # the gap it closed before rebounding, (1 + e) * gap0, as the exact motion would.
        targets = {
            k: max(
                contacts[k].calcContactRows(s).perr
                - (1 + self._impactCOR.get(k, 0.0)) * rows[k].perr,
                0.0,
            )
            for k in impacting
            if k not in proximal and k in self._lastImpact
        }
        self._project_positions(s, contacts, took_impulse, targets)
        self._project_bilateral(s, matter)
        system.realize(s, Stage.Velocity)

    # ---------------------------------------------------------------- helpers
    def _weights(self, s: State, J: np.ndarray) -> np.ndarray:
        """W = M^-1 J^T (nu x m), one O(n) solve per row."""
        matter = self._system.getMatterSubsystem()
        return (
            np.column_stack([matter.multiplyByMInv(s, row) for row in J])
            if len(J)
            else np.zeros((s.getNU(), 0))
        )

    def _bilateral_rows(self, s: State) -> np.ndarray:
        matter = self._system.getMatterSubsystem()
        if matter.getNumConstraints() == 0:
            return np.zeros((0, s.getNU()))
        mpv = matter.getNumPositionConstraintEquationsInUse(
            s
        ) + matter.getNumVelocityConstraintEquationsInUse(s)
        if mpv == 0:
            return np.zeros((0, s.getNU()))
        m = mpv + matter.getNumAccelerationConstraintEquationsInUse(s)
        rows = np.empty((mpv, s.getNU()))
        for i in range(mpv):  # row i of G is G^T e_i: m O(n) products instead of nu
            e = np.zeros(m)
            e[i] = 1.0
            rows[i] = matter.multiplyByGTranspose(s, e)
        return rows

    def _assemble(self, s, contacts, rows, members, v_of, u, with_friction, mu_slip_u):
        """Rows of J, v0 targets and the problem's index lists for contacts ``members``.
        ``v_of(k, vn)`` gives the normal row's v0 from its current velocity."""
        J: list[np.ndarray] = []
        v0: list[float] = []
        prob = ImpulseProblem(np.zeros((0, 0)), np.zeros(0))
        where: dict[int, tuple[int, int, int]] = {}
        for k in members:
            r = rows[k]
            n_ix = len(J)
            J.append(r.normal)
            v0.append(v_of(k, float(r.normal @ u)))
            prob.unilateral.append(n_ix)
            ti = tj = -1
            if with_friction(k) and r.friction is not None:
                slip = float(np.linalg.norm(r.friction @ mu_slip_u))
                mu = contacts[k].getFrictionCoefficient(slip, self._vTransition)
                if mu > 0:
                    ti, tj = len(J), len(J) + 1
                    J.extend([r.friction[0], r.friction[1]])
                    v0.extend(list(r.friction @ u))
                    prob.friction.append((ti, tj, n_ix, mu))
            where[k] = (n_ix, ti, tj)
        return J, v0, prob, where

    def _solve(self, s, J, v0, prob) -> tuple[np.ndarray, np.ndarray]:
        Jm = np.array(J)
        W = self._weights(s, Jm)
        prob.A = Jm @ W
        prob.v0 = np.array(v0)
        pi = self._solver.solve(prob)
        return pi, W

    @staticmethod
    def _record(store: dict, where: dict, pi: np.ndarray) -> None:
        for k, (n_ix, ti, tj) in where.items():
            imp = np.array([pi[n_ix], pi[ti] if ti >= 0 else 0.0, pi[tj] if tj >= 0 else 0.0])
            store[k] = store.get(k, np.zeros(3)) + imp

    def _impacts(self, s, contacts, rows, proximal, u) -> np.ndarray:
        vc, vm = self._vCapture, self._vMinCOR
        G = self._bilateral_rows(s)
        rounds = 0
        u_pre = u.copy()
        while True:
            vn = {k: float(rows[k].normal @ u) for k in proximal}
            impacters = [k for k in proximal if vn[k] < -vc]
            if not impacters or rounds > self._maxInduced:
                break
            if self._induced == InducedImpactModel.Sequential:
                members = impacters
            else:
                members = list(proximal)
            cor = {
                k: UnilateralContact.calcEffectiveCOR(contacts[k].getMinCOR(), vc, vm, -vn[k])
                if k in impacters
                else 0.0
                for k in members
            }
            newton = self._restitution == RestitutionModel.Newton

            def v_of(k, v, cor=cor, newton=newton):
                return v + cor[k] * v if newton and v < 0 else v

            J, v0, prob, where = self._assemble(
                s, contacts, rows, members, v_of, u, lambda k: True, u_pre
            )
            for g in G:
                prob.bilateral.append(len(J))
                J.append(g)
                v0.append(float(g @ u))
            pi, W = self._solve(s, J, v0, prob)
            u = u + W @ pi
            if self._restitution == RestitutionModel.Poisson:
                extra = np.zeros(len(pi))
                for k, (n_ix, _ti, _tj) in where.items():
                    extra[n_ix] = cor[k] * pi[n_ix]
                if np.any(extra):
                    u = u + W @ extra
                    pi = pi + extra
            self._record(self._lastImpact, where, pi)
            self._impactCOR.update({k: cor[k] for k in impacters})
            rounds += 1
            if self._induced == InducedImpactModel.Simultaneous:
                break
        return u

    def _contact_phase(self, s, contacts, frictions, rows, proximal, u, u_free, h):
        tol = self._consTol
        members = list(proximal) + [
            k
            for k, r in enumerate(rows)
            if k not in proximal and r.perr + h * float(r.normal @ u_free) < 0
        ]
        self._lastContact = {}
        if not members and not frictions:
            return u_free, set()

        def v_of(k, v):
            return v + max(rows[k].perr, 0.0) / h

        J, v0, prob, where = self._assemble(
            s, contacts, rows, members, v_of, u_free, lambda k: rows[k].perr <= tol, u
        )
        for f in frictions:
            row = f.calcSlipRow(s)
            slip = abs(float(row @ u))
            limit = (
                f.getFrictionCoefficient(slip, self._vTransition) * f.getNormalForceMagnitude(s) * h
            )
            prob.bounded.append((len(J), limit))
            J.append(row)
            v0.append(float(row @ u_free))
        for g in self._bilateral_rows(s):
            prob.bilateral.append(len(J))
            J.append(g)
            v0.append(float(g @ u_free))
        pi, W = self._solve(s, J, v0, prob)
        self._record(self._lastContact, where, pi)
        took = {k for k, (n_ix, _a, _b) in where.items() if pi[n_ix] > 0}
        return u_free + W @ pi, took

    def _project_positions(self, s, contacts, active: set, targets: dict) -> None:
        if not contacts:
            return
        if self._projection == PositionProjectionMethod.NoPositionProjection:
            if not targets:
                return
            active = set()
        system = self._system
        matter = system.getMatterSubsystem()
        bilateral = self._projection == PositionProjectionMethod.Bilateral
        for _ in range(8):
            rows = [c.calcContactRows(s) for c in contacts]
            fixed = [k for k in targets]
            if bilateral:
                free = [
                    k
                    for k, r in enumerate(rows)
                    if k not in targets and (k in active or r.perr < 0)
                ]
                worst = max((abs(rows[k].perr) for k in free), default=0.0)
            elif self._projection == PositionProjectionMethod.Unilateral:
                free = [k for k, r in enumerate(rows) if k not in targets and r.perr < 0]
                worst = max((-rows[k].perr for k in free), default=0.0)
            else:
                free = []
                worst = 0.0
            worst = max([worst] + [abs(rows[k].perr - targets[k]) for k in fixed])
            if worst <= 1e-3 * self._consTol:
                return
            prob = ImpulseProblem(np.zeros((0, 0)), np.zeros(0))
            members = fixed + free
            J = [rows[k].normal for k in members]
            if bilateral:
                prob.bilateral = list(range(len(J)))
            else:
                prob.bilateral = list(range(len(fixed)))
                prob.unilateral = list(range(len(fixed), len(J)))
            residual = [rows[k].perr - targets[k] for k in fixed] + [rows[k].perr for k in free]
            pi, W = self._solve(s, J, residual, prob)
            du = W @ pi
            s.setQ(s.getQ() + matter.multiplyByN(s, False, du))
            system.realize(s, Stage.Position)
        rows = [c.calcContactRows(s) for c in contacts]
        if min((r.perr for r in rows), default=0.0) < -self._consTol:
            raise SimTKError(
                "SemiExplicitEulerTimeStepper: position projection could not bring the contacts "
                f"within the constraint tolerance {self._consTol}"
            )

    def _project_bilateral(self, s, matter) -> None:
        if matter.getNumConstraints() == 0 and matter.getNumQuaternionsInUse(s) == 0:
            return
        self._system.realize(s, Stage.Velocity)
        qerr, uerr = s.getQErr(), s.getUErr()
        tol = self._consTol
        if (qerr.size == 0 or np.max(np.abs(qerr)) <= tol) and (
            uerr.size == 0 or np.max(np.abs(uerr)) <= tol
        ):
            return
        self._system.project(s, tol)
