"""Force.Custom: a force element whose physics a user writes in Python."""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError, NonPhysicalError
from engine.common.stage import Stage
from engine.common.stage_arg import stage_value
from engine.common.state import State
from engine.forces.force import Force


class CustomImplementation:
    """Force.Custom.Implementation: subclass it (or duck-type it) and give Force.Custom.

    ``calcForce(state, bodyForces, particleForces, mobilityForces)`` adds into
    bodyForces ((nb, 2, 3): torque, force at Bo, in G) and mobilityForces ((nu,)) in
    place; ``calcPotentialEnergy(state)`` returns J. The optional hooks are as
    Simbody's: ``dependsOnlyOnPositions()`` (True lets the subsystem evaluate the force
    once per configuration), ``realizeTopology(state)`` ... ``realizeReport(state)``,
    and ``calcDecorativeGeometryAndAppend(state, stage, geometry)``.
    """

    def calcForce(self, state: State, bodyForces, particleForces, mobilityForces) -> None:
        raise NotImplementedError("a Force.Custom implementation must define calcForce")

    def calcPotentialEnergy(self, state: State) -> float:
        raise NotImplementedError("a Force.Custom implementation must define calcPotentialEnergy")

    def dependsOnlyOnPositions(self) -> bool:
        return False

    def realizeTopology(self, state: State) -> None: ...

    def realizeModel(self, state: State) -> None: ...

    def realizeInstance(self, state: State) -> None: ...

    def realizeTime(self, state: State) -> None: ...

    def realizePosition(self, state: State) -> None: ...

    def realizeVelocity(self, state: State) -> None: ...

    def realizeDynamics(self, state: State) -> None: ...

    def realizeAcceleration(self, state: State) -> None: ...

    def realizeReport(self, state: State) -> None: ...

    def calcDecorativeGeometryAndAppend(self, state: State, stage: Stage, geometry) -> None: ...


class Custom(Force):
    """Custom(forces, implementation): applies ``implementation``'s forces.

    The implementation needs ``calcForce`` and ``calcPotentialEnergy``; the other
    hooks of Force.Custom.Implementation are optional. Forces it adds must be
    finite (a non-finite value is refused with a NonPhysicalError naming the element).
    """

    Implementation = CustomImplementation

    def __init__(self, forces, implementation) -> None:
        self._bind(forces)
        for name in ("calcForce", "calcPotentialEnergy"):
            if not callable(getattr(implementation, name, None)):
                raise InvalidArgumentError(
                    f"Force.Custom: the implementation ({type(implementation).__name__}) has no "
                    f"{name} method"
                )
        self._impl = implementation
        super().__init__(forces)

    def getImplementation(self):
        return self._impl

    updImplementation = getImplementation

    def _hook(self, name: str):
        return getattr(self._impl, name, None)

    def dependsOnlyOnPositions(self) -> bool:
        hook = self._hook("dependsOnlyOnPositions")
        return bool(hook()) if hook is not None else False

    def _realize_topology(self, forces, state: State) -> None:
        hook = self._hook("realizeTopology")
        if hook is not None:
            hook(state)

    def _realize(self, stage: Stage, state: State) -> None:
        hook = self._hook(f"realize{Stage(stage).getName()}")
        if hook is not None:
            hook(state)

    def calcForce(self, state: State, bodyForces, particleForces, mobilityForces) -> None:
        body = np.zeros_like(bodyForces)
        mobility = np.zeros_like(mobilityForces)
        particles = np.zeros_like(particleForces) if particleForces is not None else None
        self._impl.calcForce(state, body, particles, mobility)
        if not (np.all(np.isfinite(body)) and np.all(np.isfinite(mobility))):
            raise NonPhysicalError(
                f"Force.Custom {self._index} ({type(self._impl).__name__}) produced a "
                "non-finite force"
            )
        bodyForces += body
        mobilityForces += mobility

    def calcPotentialEnergy(self, state: State) -> float:
        pe = float(self._impl.calcPotentialEnergy(state))
        if not np.isfinite(pe):
            raise NonPhysicalError(
                f"Force.Custom {self._index} ({type(self._impl).__name__}) returned a "
                f"non-finite potential energy {pe}"
            )
        return pe

    def calcDecorativeGeometryAndAppend(self, state: State, stage: Stage, geometry: list) -> None:
        stage = stage_value(stage, "calcDecorativeGeometryAndAppend")
        hook = self._hook("calcDecorativeGeometryAndAppend")
        if hook is not None:
            hook(state, stage, geometry)


Force.Custom = Custom  # type: ignore[attr-defined]
