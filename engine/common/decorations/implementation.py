"""DecorativeGeometryImplementation: the visitor that turns decorations into something drawable.

A renderer (or an exporter, or a test) subclasses this and overrides one method per kind, with
Simbody's names. ``geometry.implementGeometry(visitor)`` calls the method for the geometry's kind;
a compound ``Decorations`` calls it once per contained element, with the element's properties
already combined with the compound's. The base methods raise NotImplementedError naming the
missing method, so an incomplete implementation fails clearly.
"""

from __future__ import annotations


class DecorativeGeometryImplementation:
    """Visitor over the decoration kinds; override the methods for the kinds you support."""

    def _missing(self, geom) -> None:
        raise NotImplementedError(
            f"{type(self).__name__} does not implement {type(geom).__name__} "
            f"(override implement{type(geom).__name__.removeprefix('Decorative')}Geometry)"
        )

    def implementPointGeometry(self, geom) -> None:
        """Draw a DecorativePoint."""
        self._missing(geom)

    def implementLineGeometry(self, geom) -> None:
        """Draw a DecorativeLine."""
        self._missing(geom)

    def implementBrickGeometry(self, geom) -> None:
        """Draw a DecorativeBrick."""
        self._missing(geom)

    def implementCylinderGeometry(self, geom) -> None:
        """Draw a DecorativeCylinder."""
        self._missing(geom)

    def implementCircleGeometry(self, geom) -> None:
        """Draw a DecorativeCircle."""
        self._missing(geom)

    def implementSphereGeometry(self, geom) -> None:
        """Draw a DecorativeSphere."""
        self._missing(geom)

    def implementEllipsoidGeometry(self, geom) -> None:
        """Draw a DecorativeEllipsoid."""
        self._missing(geom)

    def implementFrameGeometry(self, geom) -> None:
        """Draw a DecorativeFrame."""
        self._missing(geom)

    def implementTextGeometry(self, geom) -> None:
        """Draw a DecorativeText."""
        self._missing(geom)

    def implementMeshGeometry(self, geom) -> None:
        """Draw a DecorativeMesh."""
        self._missing(geom)

    def implementMeshFileGeometry(self, geom) -> None:
        """Draw a DecorativeMeshFile."""
        self._missing(geom)

    def implementArrowGeometry(self, geom) -> None:
        """Draw a DecorativeArrow."""
        self._missing(geom)

    def implementTorusGeometry(self, geom) -> None:
        """Draw a DecorativeTorus."""
        self._missing(geom)

    def implementConeGeometry(self, geom) -> None:
        """Draw a DecorativeCone."""
        self._missing(geom)
