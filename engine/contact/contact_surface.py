"""ContactSurface: a ContactGeometry with a ContactMaterial, attached to a Body.

Surfaces that share a contact clique never interact (nor do two surfaces on one body).
Cliques are labelled by :class:`ContactCliqueId` values from
:meth:`ContactSurface.createNewContactClique`.
"""

from __future__ import annotations

import itertools
import threading

from engine.common.decorations.base import check_real
from engine.common.exceptions import InvalidArgumentError
from engine.contact.contact_geometry import ContactGeometry
from engine.contact.contact_material import ContactMaterial


class ContactCliqueId(int):
    """Label of a contact clique (an int)."""

    def __repr__(self) -> str:
        return f"ContactCliqueId({int(self)})"


class ContactSurfaceIndex(int):
    """Index of a surface in a ContactTrackerSubsystem (by body, then order added)."""


_clique_counter = itertools.count(1)
_clique_lock = threading.Lock()


def _check_geometry(geometry) -> ContactGeometry:
    if not isinstance(geometry, ContactGeometry) or type(geometry) is ContactGeometry:
        raise InvalidArgumentError(
            "a ContactSurface needs a ContactGeometry such as ContactGeometry.Sphere(r), "
            f"got {type(geometry).__name__}"
        )
    return geometry


def _check_material(material) -> ContactMaterial:
    if not isinstance(material, ContactMaterial):
        raise InvalidArgumentError(
            f"a ContactSurface needs a ContactMaterial, got {type(material).__name__}"
        )
    return material


def _check_thickness(thickness) -> float:
    x = check_real(thickness, "ContactSurface thickness")
    if x < 0.0:
        raise InvalidArgumentError(f"ContactSurface thickness must be >= 0, got {x}")
    return x


class ContactSurface:
    """A shape with a material (and an elastic-layer thickness, metres) for compliant contact."""

    def __init__(
        self, geometry: ContactGeometry, material: ContactMaterial, thickness: float = 1.0
    ) -> None:
        self._geometry = _check_geometry(geometry).clone()
        self._material = _check_material(material).clone()
        self._thickness = _check_thickness(thickness)
        self._cliques: list[ContactCliqueId] = []

    @staticmethod
    def createNewContactClique() -> ContactCliqueId:
        """A new clique id, unique in this process."""
        with _clique_lock:
            return ContactCliqueId(next(_clique_counter))

    def joinClique(self, clique) -> ContactSurface:
        """Put this surface in ``clique`` (a ContactCliqueId, >= 0); joining twice is a no-op."""
        if isinstance(clique, bool) or not hasattr(clique, "__index__"):
            raise InvalidArgumentError(f"joinClique needs a ContactCliqueId, got {clique!r}")
        cid = ContactCliqueId(clique.__index__())
        if cid < 0:
            raise InvalidArgumentError(f"a ContactCliqueId is >= 0, got {int(cid)}")
        if cid not in self._cliques:
            self._cliques.append(cid)
            self._cliques.sort()
        return self

    def getCliques(self) -> tuple:
        """The clique ids this surface belongs to, ascending."""
        return tuple(self._cliques)

    def isInSameClique(self, other: ContactSurface) -> bool:
        return any(c in other._cliques for c in self._cliques)

    def getShape(self) -> ContactGeometry:
        return self._geometry

    updShape = getShape

    def setShape(self, geometry: ContactGeometry) -> ContactSurface:
        self._geometry = _check_geometry(geometry).clone()
        return self

    def getMaterial(self) -> ContactMaterial:
        return self._material

    updMaterial = getMaterial

    def setMaterial(self, material: ContactMaterial) -> ContactSurface:
        self._material = _check_material(material).clone()
        return self

    def getThickness(self) -> float:
        return self._thickness

    def setThickness(self, thickness: float) -> ContactSurface:
        self._thickness = _check_thickness(thickness)
        return self

    def clone(self) -> ContactSurface:
        copy = ContactSurface.__new__(ContactSurface)
        copy._geometry = self._geometry.clone()
        copy._material = self._material.clone()
        copy._thickness = self._thickness
        copy._cliques = list(self._cliques)
        return copy

    def __repr__(self) -> str:
        return f"ContactSurface({self._geometry!r}, {self._material!r}, cliques={self._cliques})"
