"""ContactMaterial: the elastic, dissipative and frictional properties of a contact surface.

* ``stiffness`` k (> 0): Hertz contact uses it as a Young's-modulus-like pressure per unit
  strain (N/m^2); BrickHalfSpacePenalty uses it as force per metre of depth per vertex (N/m).
* ``dissipation`` c (>= 0, s/m): Hunt-Crossley dissipation, force grows by ``(1 + 3/2 c xdot)``.
* ``staticFriction`` us >= ``dynamicFriction`` ud >= 0, ``viscousFriction`` uv >= 0 (s/m).
"""

from __future__ import annotations

from engine.common.decorations.base import check_real
from engine.common.exceptions import InvalidArgumentError


def _nonnegative(value, name: str) -> float:
    x = check_real(value, f"ContactMaterial {name}")
    if x < 0.0:
        raise InvalidArgumentError(f"ContactMaterial {name} must be >= 0, got {x}")
    return x


def _stiffness(value) -> float:
    x = check_real(value, "ContactMaterial stiffness")
    if x <= 0.0:
        raise InvalidArgumentError(
            f"ContactMaterial stiffness must be > 0 (N/m^2 for Hertz, N/m for a brick), got {x}"
        )
    return x


def _friction(us, ud, uv) -> tuple[float, float, float]:
    us = _nonnegative(us, "staticFriction")
    ud = _nonnegative(ud, "dynamicFriction")
    uv = _nonnegative(uv, "viscousFriction")
    if ud > us:
        raise InvalidArgumentError(
            f"ContactMaterial dynamicFriction ({ud}) must not exceed staticFriction ({us})"
        )
    return us, ud, uv


class ContactMaterial:
    """Material of a ContactSurface (Simbody's ``ContactMaterial``)."""

    def __init__(
        self,
        stiffness: float = 1.0,
        dissipation: float = 0.0,
        staticFriction: float = 0.0,
        dynamicFriction: float = 0.0,
        viscousFriction: float = 0.0,
    ) -> None:
        self._stiffness = _stiffness(stiffness)
        self._dissipation = _nonnegative(dissipation, "dissipation")
        self._us, self._ud, self._uv = _friction(staticFriction, dynamicFriction, viscousFriction)

    # -- getters --------------------------------------------------------------------------
    def getStiffness(self) -> float:
        return self._stiffness

    def getStiffness23(self) -> float:
        """``stiffness^(2/3)``, the form Hertz contact combines."""
        return self._stiffness ** (2.0 / 3.0)

    def getDissipation(self) -> float:
        return self._dissipation

    def getStaticFriction(self) -> float:
        return self._us

    def getDynamicFriction(self) -> float:
        return self._ud

    def getViscousFriction(self) -> float:
        return self._uv

    # -- setters (each returns self, as Simbody's return a reference) ----------------------
    def setStiffness(self, stiffness: float) -> ContactMaterial:
        self._stiffness = _stiffness(stiffness)
        return self

    def setDissipation(self, dissipation: float) -> ContactMaterial:
        self._dissipation = _nonnegative(dissipation, "dissipation")
        return self

    def setFriction(
        self, staticFriction: float, dynamicFriction: float, viscousFriction: float = 0.0
    ) -> ContactMaterial:
        self._us, self._ud, self._uv = _friction(staticFriction, dynamicFriction, viscousFriction)
        return self

    # -- helpers Simbody offers -----------------------------------------------------------
    @staticmethod
    def calcPlaneStrainStiffness(youngsModulus: float, poissonsRatio: float) -> float:
        """``E / (1 - nu^2)``: the stiffness to use for a material with Young's modulus E."""
        E = check_real(youngsModulus, "youngsModulus")
        nu = check_real(poissonsRatio, "poissonsRatio")
        if E <= 0.0 or not 0.0 <= nu < 1.0:
            raise InvalidArgumentError(
                f"calcPlaneStrainStiffness needs E > 0 and 0 <= nu < 1, got E={E}, nu={nu}"
            )
        return E / (1.0 - nu * nu)

    @staticmethod
    def calcConfinedCompressionStiffness(youngsModulus: float, poissonsRatio: float) -> float:
        """``E (1 - nu) / ((1 + nu)(1 - 2 nu))`` (elastic-foundation stiffness)."""
        E = check_real(youngsModulus, "youngsModulus")
        nu = check_real(poissonsRatio, "poissonsRatio")
        if E <= 0.0 or not 0.0 <= nu < 0.5:
            raise InvalidArgumentError(
                "calcConfinedCompressionStiffness needs E > 0 and 0 <= nu < 0.5, "
                f"got E={E}, nu={nu}"
            )
        return E * (1.0 - nu) / ((1.0 + nu) * (1.0 - 2.0 * nu))

    def clone(self) -> ContactMaterial:
        copy = ContactMaterial.__new__(ContactMaterial)
        copy.__dict__.update(self.__dict__)
        return copy

    def __repr__(self) -> str:
        return (
            f"ContactMaterial(stiffness={self._stiffness:g}, dissipation={self._dissipation:g}, "
            f"staticFriction={self._us:g}, dynamicFriction={self._ud:g}, "
            f"viscousFriction={self._uv:g})"
        )
