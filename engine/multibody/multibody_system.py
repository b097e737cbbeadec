"""MultibodySystem: a System with a matter subsystem and force subsystems.

Subsystem layout (as Simbody's): 0 DefaultSystemSubsystem, 1
MultibodySystemGlobalSubsystem (the applied-force accumulators), then the
SimbodyMatterSubsystem and the force subsystems in the order they are created.
At Dynamics stage the global subsystem zeroes the accumulators and every force
subsystem adds its body forces (at Bo, in G) and mobility forces into them; the
matter subsystem uses their sum at Acceleration stage.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import SimTKError
from engine.common.stage import Stage
from engine.common.stage_arg import stage_value
from engine.common.state import State
from engine.common.system import System
from engine.multibody.fused_realization import FusedRealization
from engine.multibody.global_subsystem import MultibodySystemGlobalSubsystem
from engine.multibody.kernels.n_operators import scale_dq
from engine.multibody.kernels.weighted_error_norm import NOT_FINITE, weighted_error_norm


class MultibodySystem(System):
    """A System for multibody dynamics (Simbody's MultibodySystem)."""

    def __init__(self) -> None:
        super().__init__("MultibodySystem", "3.7")
        self._global = MultibodySystemGlobalSubsystem()
        self.adoptSubsystem(self._global)
        self._matter = None
        self._force_subsystems: list = []
        self._decorations = None
        self._fused_realization = FusedRealization(self)

    def setMatterSubsystem(self, matter) -> int:
        if self._matter is not None:
            raise SimTKError("this MultibodySystem already has a matter subsystem")
        self._matter = matter
        return self.adoptSubsystem(matter)

    def getMatterSubsystem(self):
        if self._matter is None:
            raise SimTKError(
                "this MultibodySystem has no matter subsystem; create one with "
                "SimbodyMatterSubsystem(system)"
            )
        return self._matter

    updMatterSubsystem = getMatterSubsystem

    def setDecorationSubsystem(self, decorations) -> int:
        """Adopt the System's DecorationSubsystem (its constructor calls this)."""
        if self._decorations is not None:
            raise SimTKError("this MultibodySystem already has a DecorationSubsystem")
        self._decorations = decorations
        return self.adoptSubsystem(decorations)

    def hasDecorationSubsystem(self) -> bool:
        return self._decorations is not None

    def getDecorationSubsystem(self):
        if not self.hasDecorationSubsystem():
            raise SimTKError(
                "this MultibodySystem has no DecorationSubsystem; create one with "
                "DecorationSubsystem(system)"
            )
        return self._decorations

    updDecorationSubsystem = getDecorationSubsystem

    def addForceSubsystem(self, forces) -> int:
        self._force_subsystems.append(forces)
        return self.adoptSubsystem(forces)

    def getGlobalSubsystem(self) -> MultibodySystemGlobalSubsystem:
        return self._global

    def getAppliedForces(self, state: State) -> tuple[np.ndarray, np.ndarray]:
        """Sum of all applied forces: (body forces (nb, 6) at Bo in G, mobility forces)."""
        if state.getSubsystemStage(self._global.getMySubsystemIndex()) < Stage.Dynamics:
            raise SimTKError("applied forces are known from Dynamics stage on")
        return self._global.updForces(state)

    def getRigidBodyForces(self, state: State, stage: Stage = Stage.Dynamics) -> np.ndarray:
        """Applied body forces (nb, 2, 3) at Bo in G (Dynamics stage)."""
        stage_value(stage, "getRigidBodyForces")
        body, _ = self.getAppliedForces(state)
        return body.reshape(-1, 2, 3).copy()

    def getMobilityForces(self, state: State, stage: Stage = Stage.Dynamics) -> np.ndarray:
        """Applied mobility forces (Dynamics stage)."""
        stage_value(stage, "getMobilityForces")
        return self.getAppliedForces(state)[1].copy()

    def _matter_holds_all_q_and_u(self, state: State) -> bool:
        """True if the matter subsystem's q and u are all of the State's q and u."""
        sx = self._matter.getMySubsystemIndex()
        return state.getNQ() == state.getNQ(sx) and state.getNU() == state.getNU(sx)

    def _scaleDQ(self, state: State, uWeights: np.ndarray, dq: np.ndarray) -> np.ndarray | None:
        """``N Wu pinv(N) dq`` (the integrators' q error scaling, see
        ``error_norm.scaleDQ``) in one kernel when the matter subsystem holds every q and
        u and has no Custom mobilizer; None otherwise (or below Position stage)."""
        args = self._scale_dq_arguments(state)
        if args is None:
            return None
        out = np.empty(dq.size)
        scale_dq(
            *args[0],
            np.array(uWeights, dtype=np.float64),
            np.array(dq, dtype=np.float64),
            out,
            *args[1],
        )
        return out

    def _calcErrorNorm(
        self, state: State, yErrEst, uScale, zScale, useInfinityNorm: bool
    ) -> tuple[float, int] | None:
        """``error_norm.calcErrorNorm`` in one kernel (``weighted_error_norm``, the same
        numbers) where ``_scaleDQ`` has its kernel and the arrays are float64 vectors of
        the State's sizes; None otherwise, or if the estimate or a norm is not finite (the
        caller's path then names the bad entry)."""
        args = self._scale_dq_arguments(state)
        if args is None:
            return None
        nq, nu, nz = state._nq, state._nu, state._nz
        for arr, n in ((yErrEst, nq + nu + nz), (uScale, nu), (zScale, nz)):
            if type(arr) is not np.ndarray or arr.dtype != np.float64 or arr.shape != (n,):
                return None
        before, after, scratch = args
        norm, worst = weighted_error_norm(
            nq,
            nu,
            yErrEst,
            uScale,
            zScale,
            bool(useInfinityNorm),
            scratch[0],
            scratch[1],
            *before,
            state.getUWeights(),
            *after,
        )
        return None if worst == NOT_FINITE else (norm, worst)

    def _scale_dq_arguments(self, state: State) -> tuple | None:
        """scale_dq's arguments before and after (w_u, dq, out) for this State, with
        two scratch vectors of length ny for the error norm; None if the kernel cannot be
        used (below Position stage, another subsystem has q or u, or a Custom
        mobilizer). Kept in the matter context: fixed while it lives (until Model stage
        changes)."""
        matter = self._matter
        if matter is None or state._system_stage < Stage.Position:
            return None
        ctx = matter._context(state)
        args = ctx.scratch.get("scale_dq")
        if args is None:
            args = ctx.scratch["scale_dq"] = self._new_scale_dq_arguments(state, matter, ctx)
        return args or None

    def _new_scale_dq_arguments(self, state: State, matter, ctx) -> tuple:
        """The tuple ``_scale_dq_arguments`` keeps, () where the kernel cannot be used."""
        if not self._matter_holds_all_q_and_u(state) or matter._has_custom_bodies():
            return ()
        topo = ctx.topo
        before = (
            topo.mtype,
            topo.qs,
            topo.nqs,
            topo.us,
            topo.nus,
            topo.params,
            ctx.euler,
            ctx.pc.R_FM,
            ctx.q,
        )
        ny = state._nq + state._nu + state._nz
        after = (np.zeros((7, 7)), np.zeros((7, 7)), np.zeros(7))
        return before, after, (np.empty(ny), np.empty(ny))

    def calcKineticEnergy(self, state: State) -> float:
        return self.getMatterSubsystem().calcKineticEnergy(state)

    def calcPotentialEnergy(self, state: State) -> float:
        """Sum of every force subsystem's potential energy, J. Position stage is enough for
        elements whose energy depends only on positions; an element whose energy needs more
        (HuntCrossleyForce: Dynamics) refuses with a StageTooLowError naming that stage."""
        return float(sum(f.calcPotentialEnergy(state) for f in self._force_subsystems))

    def calcEnergy(self, state: State) -> float:
        return self.calcKineticEnergy(state) + self.calcPotentialEnergy(state)
