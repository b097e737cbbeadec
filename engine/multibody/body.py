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
        #: the decoration list is shared with clones until one of them changes it or hands
        #: out its items (copy on write; see clone)
        self._decorations_shared = False
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
        self._own_decorations()
        self._decorations.append((Transform(X_BD), geometry.clone()))  # a copy, as Simbody's
        return len(self._decorations) - 1

    def getNumDecorations(self) -> int:
        return len(self._decorations)

    def getDecorations(self) -> list:
        """(X_BD, geometry) pairs: this Body's own decorations (changing one changes it)."""
        self._own_decorations()
        return list(self._decorations)

    def _decoration_items(self) -> list:
        """The (X_BD, geometry) pairs for reading only (they may be shared with clones of
        this Body): whoever keeps or changes one must clone it."""
        return self._decorations

    def _own_decorations(self) -> None:
        """Give this Body its own decoration list and items if it shares them with a clone."""
        if getattr(self, "_decorations_shared", False):
            self._decorations = [(X_BD, g.clone()) for X_BD, g in self._decorations]
            self._decorations_shared = False

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
        """An independent copy: same type and mass properties, its own decoration list
        (copied when either Body first changes it or hands out its items).

        A MobilizedBody keeps a clone of the Body it is given (as Simbody copies it), so one
        Body description can serve as a template for many mobilized bodies.
        """
        copy = type(self).__new__(type(self))
        copy.__dict__.update(self.__dict__)
        if self._decorations:  # shared until either Body changes it or hands out its items
            self._decorations_shared = copy._decorations_shared = True
        else:
            copy._decorations = []
        surfaces = getattr(self, "_contact_surfaces", None)
        copy._contact_surfaces = (
            [(Transform(X_BS), surface.clone()) for X_BS, surface in surfaces] if surfaces else []
        )
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
