"""GeneralForceSubsystem: a container of Force elements, each enable-able per State.

At Dynamics stage every enabled element adds its body forces (at Bo, in G) and
mobility forces into the MultibodySystem's accumulators; the total potential
energy is computed when first asked for (a lazy cache entry, valid from
Dynamics stage until q or a parameter changes). Elements whose ``dependsOnlyOnPositions()``
is True are evaluated once per configuration: their summed forces live in a
lazy cache entry that depends on Position stage. Each realize stage is passed
on to the enabled elements (``Force._realize``), as is the request for
decorative geometry.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import IndexOutOfRangeError, StageTooLowError
from engine.common.index_arg import index_value
from engine.common.stage import Stage
from engine.common.state import State
from engine.common.subsystem import Subsystem
from engine.forces.force import Force


def _owner(cls: type, name: str) -> type | None:
    """The class of ``cls``'s MRO that defines attribute ``name``."""
    return next((k for k in cls.__mro__ if name in k.__dict__), None)


def _term_matches_calc_force(cls: type) -> bool:
    """True if ``cls``'s ``_compiled_term`` is defined by the class that defines the
    ``calcForce`` it uses (a subclass overriding calcForce alone has no valid term)."""
    return _owner(cls, "_compiled_term") is _owner(cls, "calcForce")


class GeneralForceSubsystem(Subsystem):
    """Applies its force elements at Dynamics stage (Simbody's GeneralForceSubsystem)."""

    #: what ``Force``'s constructors check their first argument for
    ADOPTS_FORCES = True

    def __init__(self, system=None) -> None:
        super().__init__("GeneralForceSubsystem", "3.7")
        self._forces: list = []
        self._enabled_index = -1
        self._pe_entry = -1
        self._position_only_entry = -1
        self._with_hooks: list = []  # elements that override Force._realize
        self._position_only: list[bool] = []  # per element: dependsOnlyOnPositions()
        if system is not None:
            system.addForceSubsystem(self)

    def adoptForce(self, force) -> int:
        """Add a force element; returns its ForceIndex."""
        self._forces.append(force)
        self.invalidateSubsystemTopologyCache()
        return len(self._forces) - 1

    def getNumForces(self) -> int:
        return len(self._forces)

    def getForce(self, index: int):
        i = index_value(index, "the force index")
        if not 0 <= i < len(self._forces):
            raise IndexOutOfRangeError(
                f"no force {i}: this subsystem has {len(self._forces)} forces"
            )
        return self._forces[i]

    updForce = getForce

    # --------------------------------------------------------------- enabling
    def isForceDisabled(self, state: State, index: int) -> bool:
        self.getForce(index)
        return not self.getDiscreteVariable(state, self._enabled_index)[
            index_value(index, "the force index")
        ]

    def setForceIsDisabled(self, state: State, index: int, disabled: bool) -> None:
        """Disable or enable one force element (an Instance-stage change: the State goes
        back to Model stage)."""
        self.getForce(index)
        flags = list(self.getDiscreteVariable(state, self._enabled_index))
        flags[index_value(index, "the force index")] = not disabled
        self.setDiscreteVariable(state, self._enabled_index, flags)

    def _enabled(self, state: State) -> list:
        flags = self.getDiscreteVariable(state, self._enabled_index)
        return [f for f, on in zip(self._forces, flags, strict=True) if on]

    # ------------------------------------------------------------ realization
    def realizeSubsystemTopologyImpl(self, state: State) -> None:
        for force in self._forces:
            force._realize_topology(self, state)
        self._with_hooks = [
            (i, f) for i, f in enumerate(self._forces) if type(f)._realize is not Force._realize
        ]
        self._position_only = [bool(f.dependsOnlyOnPositions()) for f in self._forces]
        defaults = [not f._disabled_by_default for f in self._forces]
        self._enabled_index = self.allocateDiscreteVariable(
            state, Stage.Instance, defaults, name="force enabled flags"
        )

    def realizeSubsystemModelImpl(self, state: State) -> None:
        self._pe_entry = self.allocateLazyCacheEntry(
            state, Stage.Dynamics, 0.0, name="potential energy"
        )
        matter = self.getSystem().getMatterSubsystem()
        nb, nu = matter.getNumBodies(), matter.getNumMobilities()
        self._position_only_entry = self.allocateLazyCacheEntry(
            state,
            Stage.Position,
            (np.zeros((nb, 2, 3)), np.zeros(nu)),
            name="forces of the position-only elements",
        )
        for force in self._forces:
            force._realize(Stage.Model, state)

    def _realize_enabled(self, stage: Stage, state: State) -> None:
        if not self._with_hooks:
            return
        flags = self.getDiscreteVariable(state, self._enabled_index)
        for i, force in self._with_hooks:
            if flags[i]:
                force._realize(stage, state)

    def realizeSubsystemInstanceImpl(self, state: State) -> None:
        self._realize_enabled(Stage.Instance, state)

    def realizeSubsystemTimeImpl(self, state: State) -> None:
        self._realize_enabled(Stage.Time, state)

    def realizeSubsystemPositionImpl(self, state: State) -> None:
        self._realize_enabled(Stage.Position, state)

    def realizeSubsystemVelocityImpl(self, state: State) -> None:
        self._realize_enabled(Stage.Velocity, state)

    def realizeSubsystemDynamicsImpl(self, state: State) -> None:
        self._realize_enabled(Stage.Dynamics, state)
        body, mobility = self.getSystem().getGlobalSubsystem().updForces(state)
        body_view = body.reshape(body.shape[0], 2, 3)
        particles = np.zeros((0, 3))
        flags = self.getDiscreteVariable(state, self._enabled_index)
        position_only = self._position_only
        if any(position_only):
            entry = self._position_only_entry
            cached_body, cached_mobility = self.updCacheEntry(state, entry)
            if not self.isCacheValueRealized(state, entry):
                cached_body[:] = 0.0
                cached_mobility[:] = 0.0
                for force, on, only_q in zip(self._forces, flags, position_only, strict=True):
                    if on and only_q:
                        force.calcForce(state, cached_body, particles, cached_mobility)
                self.markCacheValueRealized(state, entry)
            body_view += cached_body
            mobility += cached_mobility
        for force, on, only_q in zip(self._forces, flags, position_only, strict=True):
            if on and not only_q:
                force.calcForce(state, body_view, particles, mobility)

    def _compiled_terms(self, state: State, excluded: list[int]) -> list | None:
        """The enabled elements as compiled force terms (see
        ``engine.forces.compiled_terms``; their body lists are appended to ``excluded``)
        with the State's current parameters, or None if this subsystem's stage hooks must
        run as Python: an enabled element without a term (or whose ``calcForce`` is
        overridden below the class that defines its term), one whose forces are cached
        per configuration, a Force with its own stage hooks, or z variables."""
        if self._with_hooks or self.getNZ(state):
            return None
        flags = self.getDiscreteVariable(state, self._enabled_index)
        terms: list = []
        for force, on, only_q in zip(self._forces, flags, self._position_only, strict=True):
            if not on:
                continue
            if only_q or not _term_matches_calc_force(type(force)):
                return None
            term = force._compiled_term(state, excluded)
            if term is None:
                return None
            if isinstance(term, list):  # an element of several rows (HuntCrossleyForce)
                terms.extend(term)
            else:
                terms.append(term)
        return terms

    def _uncompiled_element(self, state: State) -> str:
        """The first enabled element without a compiled force term, as "ClassName index"
        with the element's reason if it gives one ("" if every element has a term)."""
        flags = self.getDiscreteVariable(state, self._enabled_index)
        for index, (force, on) in enumerate(zip(self._forces, flags, strict=True)):
            if not on:
                continue
            if _term_matches_calc_force(type(force)):
                if force._compiled_term(state, []) is not None:
                    continue
            why = force._why_no_compiled_term(state)
            return f"{type(force).__name__} {index}" + (f": {why}" if why else "")
        return ""

    def realizeSubsystemAccelerationImpl(self, state: State) -> None:
        if self.getNZ(state):
            state.updZDot(self.getMySubsystemIndex())[:] = 0.0
        self._realize_enabled(Stage.Acceleration, state)

    def realizeSubsystemReportImpl(self, state: State) -> None:
        self._realize_enabled(Stage.Report, state)

    def calcDecorativeGeometryAndAppendImpl(self, state: State, stage: Stage, geometry) -> None:
        for force in self._enabled(state):
            force.calcDecorativeGeometryAndAppend(state, stage, geometry)

    # ---------------------------------------------------------------- results
    def calcPotentialEnergy(self, state: State) -> float:
        """Total potential energy of the enabled elements, J. As Simbody, it needs only the
        positions (Position stage); from Dynamics stage on it is cached."""
        current = self.getStage(state)
        if current < Stage.Position:
            raise StageTooLowError(
                "calcPotentialEnergy needs the State realized to Position stage, but the force "
                f"subsystem is at {current.getName()}; call system.realize(state, Stage.Position)",
                needed=Stage.Position,
                current=current,
            )
        if current < Stage.Dynamics:
            return float(sum(float(f.calcPotentialEnergy(state)) for f in self._enabled(state)))
        entry = self._pe_entry
        if not self.isCacheValueRealized(state, entry):
            pe = sum(float(f.calcPotentialEnergy(state)) for f in self._enabled(state))
            state.setCacheEntryValue(self.getMySubsystemIndex(), entry, pe)
            self.markCacheValueRealized(state, entry)
        return float(self.getCacheEntry(state, entry))
