"""Force: the base of every force element in a GeneralForceSubsystem.

A force element implements ``calcForce(state, bodyForces, particleForces,
mobilityForces)``, adding body forces ((nb, 2, 3): torque and force at Bo, in
G) and mobility forces ((nu,)), and ``calcPotentialEnergy(state)`` (J).
``Force.Gravity``, ``Force.Custom`` and the other elements are attributes of
this class (registered by their modules, see ``engine.forces.builtins``).

Parameters that Simbody keeps in the State live here in one discrete variable
per element (a dict), allocated at Topology with a copy of the element's
defaults. ``setDefault...`` changes the defaults (a Topology change: the System
must be ``realizeTopology()``'d again); ``set...(state, ...)`` changes the
State's copy, which invalidates the stage the element declares (Dynamics for
most: the State falls back to Velocity).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine.common.exceptions import (
    IndexOutOfRangeError,
    InvalidArgumentError,
    NonPhysicalError,
    StageTooLowError,
)
from engine.common.stage import Stage
from engine.common.stage_arg import stage_value
from engine.common.state import State


class Force:
    """Base class and handle of a force element."""

    #: the stage a change of a State parameter invalidates (None: no State parameters)
    _PARAMS_INVALIDATE: Stage | None = None

    def __init__(self, forces, defaults: dict[str, Any] | None = None) -> None:
        """Adopt this element into ``forces``; subclasses check their arguments first
        (after ``_bind(forces)``) so that a refused element leaves nothing behind."""
        self._bind(forces)
        self._disabled_by_default = False
        self._defaults: dict[str, Any] = dict(defaults or {})
        self._params_index = -1
        self._index = forces.adoptForce(self)

    def _bind(self, forces) -> None:
        # (a GeneralForceSubsystem says so by ADOPTS_FORCES: this module is imported by it)
        if not getattr(type(forces), "ADOPTS_FORCES", False):
            raise InvalidArgumentError(
                f"the first argument of Force.{type(self).__name__} is the "
                f"GeneralForceSubsystem to add it to, got {type(forces).__name__}"
            )
        self._forces = forces

    # ------------------------------------------------------------ bookkeeping
    def getForceIndex(self) -> int:
        return self._index

    def getForceSubsystem(self):
        return self._forces

    def disable(self, state: State) -> None:
        """Disable this element in ``state`` (an Instance-stage change: back to Model)."""
        self._forces.setForceIsDisabled(state, self._index, True)

    def enable(self, state: State) -> None:
        """Enable this element in ``state`` (an Instance-stage change: back to Model)."""
        self._forces.setForceIsDisabled(state, self._index, False)

    def isDisabled(self, state: State) -> bool:
        return self._forces.isForceDisabled(state, self._index)

    def setDisabledByDefault(self, disabled: bool) -> None:
        """Topology change: whether the default State has this element disabled."""
        self._disabled_by_default = bool(disabled)
        self._forces.invalidateSubsystemTopologyCache()

    def isDisabledByDefault(self) -> bool:
        return self._disabled_by_default

    # ------------------------------------------------------------ computation
    def calcForce(self, state: State, bodyForces, particleForces, mobilityForces) -> None:
        """Add this element's forces (default: none)."""

    def calcPotentialEnergy(self, state: State) -> float:
        """This element's potential energy, J (default 0)."""
        return 0.0

    def dependsOnlyOnPositions(self) -> bool:
        """True if the forces depend only on t and q (they are then cached per q)."""
        return False

    def _compiled_term(self, state: State, excluded: list[int]):
        """This element as a compiled force term ``(opcode, ints, floats)`` with the
        State's current parameters (see ``engine.forces.compiled_terms``; body lists go
        into ``excluded``), or None if it has none: its subsystem then realizes Dynamics
        element by element. Defined beside ``calcForce`` and giving the same forces."""
        return None

    def _why_no_compiled_term(self, state: State) -> str:
        """Why ``_compiled_term`` gives None for this element's current model, when it has
        a reason worth showing ("" otherwise); ``System.whyNotFused`` quotes it."""
        return ""

    def calcForceContribution(self, state: State):
        """(bodyForces (nb, 2, 3) at Bo in G, particleForces (0, 3), mobilityForces (nu,))
        this element alone would apply in ``state`` (zeros if it is disabled).
        The State must be realized far enough for the element (Velocity is always enough)."""
        matter = self._forces.getSystem().getMatterSubsystem()
        body = np.zeros((matter.getNumBodies(), 2, 3))
        mobility = np.zeros(matter.getNumMobilities())
        particles = np.zeros((0, 3))
        if not self.isDisabled(state):
            self.calcForce(state, body, particles, mobility)
        return body, particles, mobility

    def calcPotentialEnergyContribution(self, state: State) -> float:
        """This element's potential energy in ``state`` (0 if it is disabled), J."""
        if self.isDisabled(state):
            return 0.0
        return float(self.calcPotentialEnergy(state))

    def calcDecorativeGeometryAndAppend(self, state: State, stage: Stage, geometry: list) -> None:
        """Append decorations that show this element at ``stage`` (default: none)."""
        stage_value(stage, "calcDecorativeGeometryAndAppend")

    # ------------------------------------------------- realization hooks
    def _realize_topology(self, forces, state: State) -> None:
        """Allocate per-State variables: the parameter variable if the element has one."""
        if self._PARAMS_INVALIDATE is not None:
            self._params_index = forces.allocateDiscreteVariable(
                state,
                self._PARAMS_INVALIDATE,
                self._copy_params(self._defaults),
                name=f"{type(self).__name__} {self._index} parameters",
            )

    def _realize(self, stage: Stage, state: State) -> None:
        """Stage hook called for enabled elements from Model stage on (default: nothing)."""

    # ------------------------------------------------- State parameters
    @staticmethod
    def _copy_params(params: dict) -> dict:
        return {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in params.items()}

    def _params(self, state: State) -> dict:
        if self._params_index < 0 or not self._forces.subsystemTopologyHasBeenRealized():
            raise StageTooLowError(
                f"Force.{type(self).__name__}: its parameters are in the State only after "
                "system.realizeTopology(); call it (again, after any change of the model)",
                needed=Stage.Topology,
                current=Stage.Empty,
            )
        return self._forces.getDiscreteVariable(state, self._params_index)

    def _param(self, state: State, name: str):
        value = self._params(state)[name]
        return value.copy() if isinstance(value, np.ndarray) else value

    def _update(self, state: State, **changes) -> None:
        params = self._copy_params(self._params(state))
        params.update(changes)
        self._forces.setDiscreteVariable(state, self._params_index, params)

    def _set_default(self, **changes) -> Force:
        self._defaults.update(changes)
        self._forces.invalidateSubsystemTopologyCache()
        return self

    def _default(self, name: str):
        value = self._defaults[name]
        return value.copy() if isinstance(value, np.ndarray) else value

    # ------------------------------------------------- argument checking
    def _where(self) -> str:
        return f"Force.{type(self).__name__}"

    def _real(self, value, what: str) -> float:
        try:
            x = float(value)
        except (TypeError, ValueError) as exc:
            raise InvalidArgumentError(f"{self._where()}: {what} must be a number") from exc
        if not math.isfinite(x):
            raise InvalidArgumentError(f"{self._where()}: {what} must be finite, got {x}")
        return x

    def _nonnegative(self, value, what: str) -> float:
        x = self._real(value, what)
        if x < 0:
            raise NonPhysicalError(f"{self._where()}: {what} must be >= 0, got {x}")
        return x

    def _vec(self, value, n: int, what: str, nonnegative: bool = False) -> np.ndarray:
        if hasattr(value, "asVec3"):  # a CoordinateDirection / UnitVec3 such as -YAxis
            value = value.asVec3()
        try:
            arr = np.array(value, dtype=np.float64).reshape(-1)
        except (TypeError, ValueError) as exc:
            raise InvalidArgumentError(f"{self._where()}: {what} must be {n} numbers") from exc
        if arr.size != n:
            raise InvalidArgumentError(
                f"{self._where()}: {what} must have {n} components, got {arr.size}"
            )
        if not np.all(np.isfinite(arr)):
            raise InvalidArgumentError(f"{self._where()}: {what} must be finite, got {arr}")
        if nonnegative and np.any(arr < 0):
            raise NonPhysicalError(f"{self._where()}: {what} must be >= 0, got {arr.tolist()}")
        return arr

    def _check_mobod(self, mobod, what: str = "body"):
        """The MobilizedBody ``mobod`` after checking it belongs to this force's System."""
        from engine.multibody.mobilized_body import MobilizedBody

        if not isinstance(mobod, MobilizedBody):
            raise InvalidArgumentError(
                f"{self._where()}: {what} must be a MobilizedBody, got {type(mobod).__name__}"
            )
        matter = mobod.getMatterSubsystem()
        if (
            matter.isInSystem()
            and self._forces.isInSystem()
            and not matter.isInSameSystem(self._forces)
        ):
            raise InvalidArgumentError(
                f"{self._where()}: {what} (mobilized body {mobod.getMobilizedBodyIndex()}) "
                "belongs to a different MultibodySystem than this force subsystem"
            )
        return mobod

    def _check_matter(self, matter):
        from engine.multibody.simbody_matter_subsystem import SimbodyMatterSubsystem

        if not isinstance(matter, SimbodyMatterSubsystem):
            raise InvalidArgumentError(
                f"{self._where()}: expected the SimbodyMatterSubsystem, got {type(matter).__name__}"
            )
        if matter.isInSystem() and self._forces.isInSystem():
            if not matter.isInSameSystem(self._forces):
                raise InvalidArgumentError(
                    f"{self._where()}: the matter subsystem belongs to a different System"
                )
        return matter

    def _check_mobility(self, mobod, which, kind: str) -> int:
        """Index ``which`` of one of ``mobod``'s q's (kind "q") or u's (kind "u")."""
        module = mobod._module
        n = 0 if module is None else (module.NQ_SLOTS if kind == "q" else module.NU)
        try:
            i = int(which)
        except (TypeError, ValueError) as exc:
            raise InvalidArgumentError(
                f"{self._where()}: which{kind.upper()} must be an int"
            ) from exc
        if i != which or isinstance(which, bool):
            raise InvalidArgumentError(
                f"{self._where()}: which{kind.upper()} must be an integer, got {which!r}"
            )
        if not 0 <= i < n:
            raise IndexOutOfRangeError(
                f"{self._where()}: mobilized body {mobod.getMobilizedBodyIndex()} "
                f"({mobod.getMobilizerTypeName()}) has {n} {kind}'s; index {which} is out of range"
            )
        return i

    def __repr__(self) -> str:
        return f"<Force.{type(self).__name__} index={getattr(self, '_index', None)}>"


def station_force(bodyForces, b: int, r_G: np.ndarray, f_G: np.ndarray) -> None:
    """Add force ``f_G`` acting at the point ``r_G`` from body ``b``'s origin (both in G)."""
    bodyForces[b, 0] += np.cross(r_G, f_G)
    bodyForces[b, 1] += f_G
