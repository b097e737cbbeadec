"""Motion.Custom: a Motion whose level, method and prescribed values come from a Python
``Motion.Custom.Implementation`` (Simbody's Motion::Custom::Implementation). Out-parameters
are return values: ``calcPrescribedPosition(state, nq) -> (nq,)`` array, and so on. Only
the methods for the Implementation's level are needed: Position level needs
calcPrescribedPosition/Dot/DotDot (q, qdot, qdotdot; Simbody maps qdot to u), Velocity
level calcPrescribedVelocity/Dot, Acceleration level calcPrescribedAcceleration."""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.multibody.motions.motion import Motion, MotionLevel, MotionMethod, as_level


class Implementation:
    """Subclass and override getLevel (required), getLevelMethod (default Prescribed) and
    the calcPrescribed... methods of your level."""

    def getLevel(self, state) -> MotionLevel:
        raise NotImplementedError("Motion.Custom.Implementation.getLevel must be overridden")

    def getLevelMethod(self, state) -> MotionMethod:
        return MotionMethod.Prescribed

    def _missing(self, name: str):
        raise NotImplementedError(
            f"{type(self).__name__}.{name} is needed for this Motion's level but was not overridden"
        )

    def calcPrescribedPosition(self, state, nq: int):
        self._missing("calcPrescribedPosition")

    def calcPrescribedPositionDot(self, state, nq: int):
        self._missing("calcPrescribedPositionDot")

    def calcPrescribedPositionDotDot(self, state, nq: int):
        self._missing("calcPrescribedPositionDotDot")

    def calcPrescribedVelocity(self, state, nu: int):
        self._missing("calcPrescribedVelocity")

    def calcPrescribedVelocityDot(self, state, nu: int):
        self._missing("calcPrescribedVelocityDot")

    def calcPrescribedAcceleration(self, state, nu: int):
        self._missing("calcPrescribedAcceleration")

    def realizeTopology(self, state) -> None:
        """Optional: allocate State variables."""


class Custom(Motion):
    """Custom(mobod, implementation)."""

    Implementation = Implementation

    def __init__(self, mobod, implementation: Implementation) -> None:
        if not isinstance(implementation, Implementation):
            raise InvalidArgumentError(
                "Motion.Custom: the implementation must be a Motion.Custom.Implementation, "
                f"got {type(implementation).__name__}"
            )
        self._impl = implementation
        super().__init__(mobod)

    def getImplementation(self) -> Implementation:
        return self._impl

    updImplementation = getImplementation

    def getLevel(self, state) -> MotionLevel:
        level = as_level(self._impl.getLevel(state), "Motion.Custom getLevel")
        if level == MotionLevel.NoLevel:
            raise InvalidArgumentError("Motion.Custom: getLevel returned NoLevel")
        return level

    def getLevelMethod(self, state) -> MotionMethod:
        try:
            method = MotionMethod(int(self._impl.getLevelMethod(state)))
        except (ValueError, TypeError):
            raise InvalidArgumentError("Motion.Custom: getLevelMethod returned no Method") from None
        if method in (MotionMethod.NoMethod, MotionMethod.Fast):
            raise InvalidArgumentError(
                f"Motion.Custom: method {method.name} is not supported (use Prescribed, Zero, "
                "Discrete or Free)"
            )
        if method == MotionMethod.Free and self.getLevel(state) != MotionLevel.Acceleration:
            raise InvalidArgumentError("Motion.Custom: Free is only allowed at Acceleration level")
        return method

    def _realize_topology(self, state, matter) -> None:
        self._impl.realizeTopology(state)

    def _call(self, name: str, state, n: int) -> np.ndarray:
        out = np.asarray(getattr(self._impl, name)(state, n), dtype=np.float64).reshape(-1)
        if out.shape != (n,) or not np.all(np.isfinite(out)):
            raise InvalidArgumentError(
                f"Motion.Custom: {type(self._impl).__name__}.{name} must return {n} finite "
                f"values, got {out.shape}"
            )
        return out

    def calcPrescribedPosition(self, state, nq: int) -> np.ndarray:
        return self._call("calcPrescribedPosition", state, nq)

    def calcPrescribedPositionDot(self, state, nq: int) -> np.ndarray:
        return self._call("calcPrescribedPositionDot", state, nq)

    def calcPrescribedPositionDotDot(self, state, nq: int) -> np.ndarray:
        return self._call("calcPrescribedPositionDotDot", state, nq)

    def calcPrescribedVelocity(self, state, nu: int) -> np.ndarray:
        return self._call("calcPrescribedVelocity", state, nu)

    def calcPrescribedVelocityDot(self, state, nu: int) -> np.ndarray:
        return self._call("calcPrescribedVelocityDot", state, nu)

    def calcPrescribedAcceleration(self, state, nu: int) -> np.ndarray:
        return self._call("calcPrescribedAcceleration", state, nu)
