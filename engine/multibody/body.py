"""Body: the mass properties (and decorations) a MobilizedBody carries."""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import IndexOutOfRangeError, InvalidArgumentError
from engine.math.mass_properties import MassProperties
from engine.math.transform import Transform


class Body:
    """A rigid body's mass properties in its own frame B (kg, m, kg·m² about Bo, in B)."""

    def __init__(self, massProperties: MassProperties | None = None) -> None:
        if massProperties is not None and not isinstance(massProperties, MassProperties):
            raise InvalidArgumentError(
                f"a Body needs MassProperties, got {type(massProperties).__name__}"
            )
        self._mass_properties = massProperties or MassProperties(0.0, (0, 0, 0), _zero_inertia())
        self._decorations: list = []
        self._contact_surfaces: list = []

    def getDefaultRigidBodyMassProperties(self) -> MassProperties:
        return self._mass_properties

    def setDefaultRigidBodyMassProperties(self, massProperties: MassProperties) -> Body:
        if not isinstance(massProperties, MassProperties):
            raise InvalidArgumentError("setDefaultRigidBodyMassProperties needs MassProperties")
        self._mass_properties = massProperties
        return self

    def addDecoration(self, *args) -> int:
        """``addDecoration(geometry)`` or ``addDecoration(X_BD, geometry)``; returns its index."""
        if len(args) == 1:
            X_BD, geometry = Transform(), args[0]
        elif len(args) == 2:
            X_BD, geometry = args
        else:
            raise InvalidArgumentError("addDecoration takes (geometry) or (X_BD, geometry)")
        self._decorations.append((Transform(X_BD), geometry))
        return len(self._decorations) - 1

    def getNumDecorations(self) -> int:
        return len(self._decorations)

    def getDecorations(self) -> list:
        """(X_BD, geometry) pairs."""
        return list(self._decorations)

    def addContactSurface(self, X_BS, surface) -> int:
        """Attach a copy of ``surface`` (a ContactSurface) at X_BS; returns its ordinal here."""
        from engine.contact.contact_surface import ContactSurface

        if not isinstance(surface, ContactSurface):
            raise InvalidArgumentError(
                f"addContactSurface needs a ContactSurface, got {type(surface).__name__}"
            )
        X = Transform(X_BS)
        if not (np.all(np.isfinite(X.R().asMat33())) and np.all(np.isfinite(X.p()))):
            raise InvalidArgumentError("addContactSurface: X_BS must be finite")
        self._contact_surfaces.append((X, surface.clone()))
        return len(self._contact_surfaces) - 1

    def getNumContactSurfaces(self) -> int:
        return len(self._contact_surfaces)

    def _check_surface_ordinal(self, i) -> int:
        if isinstance(i, bool) or not hasattr(i, "__index__"):
            raise InvalidArgumentError(f"a contact surface ordinal must be an int, got {i!r}")
        k = i.__index__()
        if not 0 <= k < len(self._contact_surfaces):
            raise IndexOutOfRangeError(
                f"contact surface {k} does not exist: this body has {len(self._contact_surfaces)}"
            )
        return k

    def getContactSurface(self, i: int):
        return self._contact_surfaces[self._check_surface_ordinal(i)][1]

    updContactSurface = getContactSurface

    def getContactSurfaceTransform(self, i: int) -> Transform:
        """X_BS of contact surface ``i`` on this body."""
        return self._contact_surfaces[self._check_surface_ordinal(i)][0]

    def setContactSurfaceTransform(self, i: int, X_BS) -> Body:
        k = self._check_surface_ordinal(i)
        self._contact_surfaces[k] = (Transform(X_BS), self._contact_surfaces[k][1])
        return self

    def clone(self) -> Body:
        """An independent copy: same type and mass properties, its own decoration list.

        A MobilizedBody keeps a clone of the Body it is given (as Simbody copies it), so one
        Body description can serve as a template for many mobilized bodies.
        """
        copy = type(self).__new__(type(self))
        copy.__dict__.update(self.__dict__)
        copy._decorations = [(X_BD, geometry.clone()) for X_BD, geometry in self._decorations]
        copy._contact_surfaces = [
            (Transform(X_BS), surface.clone())
            for X_BS, surface in getattr(self, "_contact_surfaces", [])
        ]
        return copy


def _zero_inertia():
    from engine.math.inertia import Inertia

    return Inertia(0.0)


class _RigidBody(Body):
    """Body.Rigid: a rigid body with the given mass properties."""


class _GroundBody(Body):
    """Body.Ground: infinitely massive."""


Body.Rigid = _RigidBody  # type: ignore[attr-defined]
Body.Ground = _GroundBody  # type: ignore[attr-defined]
