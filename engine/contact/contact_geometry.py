"""ContactGeometry: the shapes a ContactSurface can have (Simbody 3.7's names).

Every shape is described in its own surface frame S:

* ``HalfSpace()`` occupies ``x > 0`` of S; its outward normal is ``-Sx`` and its boundary
  plane passes through So.
* ``Sphere(radius)`` and ``Ellipsoid(radii)`` are centred at So (the ellipsoid's semi-axes
  along Sx, Sy, Sz).
* ``Brick(halfLengths)`` is centred at So, aligned with S.
* ``Cylinder(radius)`` is infinitely long along Sz, centred on the Sz axis.

Sizes are in metres; a size that is not a finite number > 0 is refused with
:class:`~engine.common.exceptions.InvalidArgumentError`.
"""

from __future__ import annotations

import math

import numpy as np

from engine.common.decorations.base import check_positive, check_positive_vec3, frozen
from engine.common.decorations.shapes import (
    DecorativeBrick,
    DecorativeCylinder,
    DecorativeEllipsoid,
    DecorativeSphere,
)
from engine.math.rotation import Rotation
from engine.math.transform import Transform

#: half-lengths (along Sy and Sz) of the slab drawn for a HalfSpace, and its half thickness
HALF_SPACE_DRAWN_HALF_WIDTH = 10.0
HALF_SPACE_DRAWN_HALF_THICKNESS = 0.005
#: half length drawn for the infinite Cylinder
CYLINDER_DRAWN_HALF_LENGTH = 1.0


class ContactGeometry:
    """Base of the contact shapes; use the nested kinds (``ContactGeometry.Sphere(r)``...)."""

    #: type name as Simbody reports it (``getTypeName``)
    TYPE_NAME = "ContactGeometry"
    #: small integer identifying the kind (used by the pair table and the kernels)
    TYPE_ID = -1

    def getTypeName(self) -> str:
        return self.TYPE_NAME

    def getTypeId(self) -> int:
        return self.TYPE_ID

    @classmethod
    def classTypeId(cls) -> int:
        """The type id of this kind (``ContactGeometry.Sphere.classTypeId()``)."""
        return cls.TYPE_ID

    @classmethod
    def isInstance(cls, geometry) -> bool:
        return isinstance(geometry, cls)

    @classmethod
    def getAs(cls, geometry):
        if not isinstance(geometry, cls):
            from engine.common.exceptions import InvalidArgumentError

            raise InvalidArgumentError(
                f"this ContactGeometry is a {type(geometry).__name__}, not a {cls.__name__}"
            )
        return geometry

    def isConvex(self) -> bool:
        return True

    def isFinite(self) -> bool:
        return True

    def createDecorativeGeometry(self):
        """A DecorativeGeometry drawing this shape in the surface frame S."""
        raise NotImplementedError

    def findNearestPoint(self, position):
        """(nearest surface point in S, whether ``position`` is inside, outward unit normal
        there) for a point given in S; HalfSpace, Sphere and TriangleMesh answer it."""
        p = np.asarray(position, dtype=np.float64)
        if p.shape != (3,) or not np.all(np.isfinite(p)):
            from engine.common.exceptions import InvalidArgumentError

            raise InvalidArgumentError(f"position must be 3 finite numbers, got {position!r}")
        near, inside, normal = self.nearestPoints(p[None])
        return frozen(near[0]), bool(inside[0]), frozen(normal[0])

    def nearestPoints(self, points):
        """Vectorized findNearestPoint: (nearest (k, 3), inside (k,), outward normal (k, 3))
        in S of the points (k, 3) given in S; the kinds that answer it override this."""
        from engine.common.exceptions import InvalidArgumentError

        raise InvalidArgumentError(
            f"findNearestPoint is not available for a {self.getTypeName()} here"
        )

    def clone(self) -> ContactGeometry:
        copy = type(self).__new__(type(self))
        copy.__dict__.update(self.__dict__)
        return copy

    def sizes(self) -> np.ndarray:
        """The shape's size parameters as 3 floats (radius padded with zeros), for the kernels."""
        return np.zeros(3)

    def __repr__(self) -> str:
        return f"ContactGeometry.{self.TYPE_NAME}()"


class _HalfSpace(ContactGeometry):
    """The half space ``x > 0`` of S; outward normal ``-Sx``."""

    TYPE_NAME = "HalfSpace"
    TYPE_ID = 0

    def isFinite(self) -> bool:
        return False

    def getNormal(self) -> np.ndarray:
        """The outward normal in S: ``(-1, 0, 0)``."""
        return frozen((-1.0, 0.0, 0.0))

    def nearestPoints(self, points):
        P = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        near = P.copy()
        near[:, 0] = 0.0
        normal = np.zeros_like(P)
        normal[:, 0] = -1.0
        return near, P[:, 0] > 0.0, normal

    def createDecorativeGeometry(self):
        """A thin square slab on the ``x > 0`` side whose face ``x = 0`` is the boundary plane."""
        h = HALF_SPACE_DRAWN_HALF_THICKNESS
        w = HALF_SPACE_DRAWN_HALF_WIDTH
        brick = DecorativeBrick((h, w, w))
        brick.setTransform(Transform((h, 0.0, 0.0)))
        return brick


class _Sphere(ContactGeometry):
    """A sphere of the given radius centred at So."""

    TYPE_NAME = "Sphere"
    TYPE_ID = 1

    def __init__(self, radius: float) -> None:
        self._radius = check_positive(radius, "ContactGeometry.Sphere radius")

    def getRadius(self) -> float:
        return self._radius

    def setRadius(self, radius: float):
        self._radius = check_positive(radius, "ContactGeometry.Sphere radius")
        return self

    def nearestPoints(self, points):
        P = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        dist = np.linalg.norm(P, axis=1)
        normal = np.zeros_like(P)
        ok = dist > 0
        normal[ok] = P[ok] / dist[ok, None]
        normal[~ok, 0] = 1.0
        return self._radius * normal, dist < self._radius, normal

    def createDecorativeGeometry(self):
        return DecorativeSphere(self._radius)

    def sizes(self) -> np.ndarray:
        return np.array([self._radius, 0.0, 0.0])

    def __repr__(self) -> str:
        return f"ContactGeometry.Sphere({self._radius:g})"


class _Ellipsoid(ContactGeometry):
    """An ellipsoid centred at So with semi-axis lengths ``radii`` along Sx, Sy, Sz."""

    TYPE_NAME = "Ellipsoid"
    TYPE_ID = 2

    def __init__(self, radii) -> None:
        self._radii = check_positive_vec3(radii, "ContactGeometry.Ellipsoid radii")

    def getRadii(self) -> np.ndarray:
        return self._radii

    def setRadii(self, radii):
        self._radii = check_positive_vec3(radii, "ContactGeometry.Ellipsoid radii")
        return self

    def createDecorativeGeometry(self):
        return DecorativeEllipsoid(self._radii)

    def sizes(self) -> np.ndarray:
        return np.array(self._radii, dtype=float)

    def __repr__(self) -> str:
        return f"ContactGeometry.Ellipsoid({self._radii.tolist()})"


class _Brick(ContactGeometry):
    """A box centred at So, aligned with S, with half-lengths along Sx, Sy, Sz.

    Vertex k is at ``(k&4 ? +hx : -hx, k&2 ? +hy : -hy, k&1 ? +hz : -hz)``.
    """

    TYPE_NAME = "Brick"
    TYPE_ID = 3

    def __init__(self, halfLengths) -> None:
        self._half_lengths = check_positive_vec3(halfLengths, "ContactGeometry.Brick halfLengths")

    def getHalfLengths(self) -> np.ndarray:
        return self._half_lengths

    def setHalfLengths(self, halfLengths):
        self._half_lengths = check_positive_vec3(halfLengths, "ContactGeometry.Brick halfLengths")
        return self

    def getVertexPos(self, vertex: int) -> np.ndarray:
        """Position in S of vertex ``vertex`` (0..7)."""
        if isinstance(vertex, bool) or not hasattr(vertex, "__index__") or not 0 <= vertex < 8:
            from engine.common.exceptions import IndexOutOfRangeError

            raise IndexOutOfRangeError(f"a Brick has vertices 0..7, got {vertex!r}")
        h = self._half_lengths
        return frozen(
            (
                h[0] if vertex & 4 else -h[0],
                h[1] if vertex & 2 else -h[1],
                h[2] if vertex & 1 else -h[2],
            )
        )

    def createDecorativeGeometry(self):
        return DecorativeBrick(self._half_lengths)

    def sizes(self) -> np.ndarray:
        return np.array(self._half_lengths, dtype=float)

    def __repr__(self) -> str:
        return f"ContactGeometry.Brick({self._half_lengths.tolist()})"


class _Cylinder(ContactGeometry):
    """An infinitely long cylinder of the given radius whose axis is Sz."""

    TYPE_NAME = "Cylinder"
    TYPE_ID = 4

    def __init__(self, radius: float) -> None:
        self._radius = check_positive(radius, "ContactGeometry.Cylinder radius")

    def isFinite(self) -> bool:
        return False

    def getRadius(self) -> float:
        return self._radius

    def setRadius(self, radius: float):
        self._radius = check_positive(radius, "ContactGeometry.Cylinder radius")
        return self

    def createDecorativeGeometry(self):
        """A finite piece (half length 1 m, or 5 radii if longer) along Sz."""
        half = max(CYLINDER_DRAWN_HALF_LENGTH, 5.0 * self._radius)
        cylinder = DecorativeCylinder(self._radius, half)
        # DecorativeCylinder's axis is its y axis: turn y onto Sz.
        cylinder.setTransform(Transform(Rotation(math.pi / 2, 0)))  # about x by +90 deg
        return cylinder

    def sizes(self) -> np.ndarray:
        return np.array([self._radius, 0.0, 0.0])

    def __repr__(self) -> str:
        return f"ContactGeometry.Cylinder({self._radius:g})"


ContactGeometry.HalfSpace = _HalfSpace  # type: ignore[attr-defined]
ContactGeometry.Sphere = _Sphere  # type: ignore[attr-defined]
ContactGeometry.Ellipsoid = _Ellipsoid  # type: ignore[attr-defined]
ContactGeometry.Brick = _Brick  # type: ignore[attr-defined]
ContactGeometry.Cylinder = _Cylinder  # type: ignore[attr-defined]
for _cls in (_HalfSpace, _Sphere, _Ellipsoid, _Brick, _Cylinder):
    _cls.__qualname__ = f"ContactGeometry.{_cls.TYPE_NAME}"

# ContactGeometry.TriangleMesh is registered by its own module (engine.contact.triangle_mesh),
# which the engine package imports beside this one.
