"""Solid decorations: sphere, ellipsoid, brick, cylinder, circle, torus and cone.

All are defined in the decoration's local frame D (see DecorativeGeometry); lengths are in the
model's length unit. Defaults follow Simbody 3.7.
"""

from __future__ import annotations

import numpy as np

from engine.common.decorations.base import (
    DecorativeGeometry,
    check_positive,
    check_positive_vec3,
    frozen,
)
from engine.common.exceptions import InvalidArgumentError
from engine.math.vec import as_vec3


class DecorativeSphere(DecorativeGeometry):
    """A sphere of radius ``radius`` centred at D's origin (default radius 0.5)."""

    def __init__(self, radius: float = 0.5) -> None:
        super().__init__()
        self._radius = check_positive(radius, "sphere radius")

    def setRadius(self, radius: float):
        """Set the radius (> 0)."""
        self._radius = check_positive(radius, "sphere radius")
        return self

    def getRadius(self) -> float:
        return self._radius

    def implementGeometry(self, geometryImpl) -> None:
        geometryImpl.implementSphereGeometry(self)

    def _describe(self) -> str:
        return f"radius={self._radius:g}"


class DecorativeEllipsoid(DecorativeGeometry):
    """An ellipsoid centred at D's origin with semi-axes ``radii`` along D's x, y, z.

    Default radii (1/2, 1/3, 1/4), as Simbody.
    """

    def __init__(self, radii=(0.5, 1.0 / 3.0, 0.25)) -> None:
        super().__init__()
        self._radii = check_positive_vec3(radii, "ellipsoid radii")

    def setRadii(self, radii):
        """Set the three semi-axis lengths (all > 0)."""
        self._radii = check_positive_vec3(radii, "ellipsoid radii")
        return self

    def getRadii(self) -> np.ndarray:
        return self._radii

    def implementGeometry(self, geometryImpl) -> None:
        geometryImpl.implementEllipsoidGeometry(self)

    def _describe(self) -> str:
        return f"radii={self._radii.tolist()}"


class DecorativeBrick(DecorativeGeometry):
    """A box centred at D's origin, aligned with D, with half-lengths along x, y, z.

    The default is a unit cube (half-lengths 0.5).
    """

    def __init__(self, halfLengths=(0.5, 0.5, 0.5)) -> None:
        super().__init__()
        self._halfLengths = check_positive_vec3(halfLengths, "brick half-lengths")

    def setHalfLengths(self, halfLengths):
        """Set the half-lengths along D's axes (all > 0)."""
        self._halfLengths = check_positive_vec3(halfLengths, "brick half-lengths")
        return self

    def getHalfLengths(self) -> np.ndarray:
        return self._halfLengths

    def implementGeometry(self, geometryImpl) -> None:
        geometryImpl.implementBrickGeometry(self)

    def _describe(self) -> str:
        return f"halfLengths={self._halfLengths.tolist()}"


class DecorativeCylinder(DecorativeGeometry):
    """A capped cylinder centred at D's origin with its axis along D's **y** axis (as Simbody).

    It extends from y = -halfHeight to y = +halfHeight. Defaults: radius 0.5, halfHeight 0.5.
    """

    def __init__(self, radius: float = 0.5, halfHeight: float = 0.5) -> None:
        super().__init__()
        self._radius = check_positive(radius, "cylinder radius")
        self._halfHeight = check_positive(halfHeight, "cylinder halfHeight")

    def setRadius(self, radius: float):
        self._radius = check_positive(radius, "cylinder radius")
        return self

    def setHalfHeight(self, halfHeight: float):
        self._halfHeight = check_positive(halfHeight, "cylinder halfHeight")
        return self

    def getRadius(self) -> float:
        return self._radius

    def getHalfHeight(self) -> float:
        return self._halfHeight

    def implementGeometry(self, geometryImpl) -> None:
        geometryImpl.implementCylinderGeometry(self)

    def _describe(self) -> str:
        return f"radius={self._radius:g}, halfHeight={self._halfHeight:g}"


class DecorativeCircle(DecorativeGeometry):
    """A flat disc of radius ``radius`` in D's x-y plane, centred at the origin (default 0.5)."""

    def __init__(self, radius: float = 0.5) -> None:
        super().__init__()
        self._radius = check_positive(radius, "circle radius")

    def setRadius(self, radius: float):
        self._radius = check_positive(radius, "circle radius")
        return self

    def getRadius(self) -> float:
        return self._radius

    def implementGeometry(self, geometryImpl) -> None:
        geometryImpl.implementCircleGeometry(self)

    def _describe(self) -> str:
        return f"radius={self._radius:g}"


class DecorativeTorus(DecorativeGeometry):
    """A torus centred at D's origin with its axis along D's z axis.

    ``torusRadius`` is the radius of the tube's centre circle (in the x-y plane), ``tubeRadius``
    the radius of the tube's cross-section. Defaults 1 and 0.1, as Simbody.
    """

    def __init__(self, torusRadius: float = 1.0, tubeRadius: float = 0.1) -> None:
        super().__init__()
        self._torusRadius = check_positive(torusRadius, "torus radius")
        self._tubeRadius = check_positive(tubeRadius, "torus tube radius")

    def setTorusRadius(self, torusRadius: float):
        self._torusRadius = check_positive(torusRadius, "torus radius")
        return self

    def setTubeRadius(self, tubeRadius: float):
        self._tubeRadius = check_positive(tubeRadius, "torus tube radius")
        return self

    def getTorusRadius(self) -> float:
        return self._torusRadius

    def getTubeRadius(self) -> float:
        return self._tubeRadius

    def implementGeometry(self, geometryImpl) -> None:
        geometryImpl.implementTorusGeometry(self)

    def _describe(self) -> str:
        return f"torusRadius={self._torusRadius:g}, tubeRadius={self._tubeRadius:g}"


def _unit_direction(direction, name: str) -> np.ndarray:
    d = as_vec3(direction, name)
    n = float(np.linalg.norm(d))
    if n == 0.0:
        raise InvalidArgumentError(f"{name} must not be the zero vector")
    return frozen(d / n)


class DecorativeCone(DecorativeGeometry):
    """A solid cone: base disc centred at ``origin``, tip at ``origin + height * direction``.

    ``direction`` is normalized (the zero vector is rejected). Defaults as Simbody: origin 0,
    direction +z, height 1, baseRadius 0.5.
    """

    def __init__(
        self,
        origin=(0.0, 0.0, 0.0),
        direction=(0.0, 0.0, 1.0),
        height: float = 1.0,
        baseRadius: float = 0.5,
    ) -> None:
        super().__init__()
        self._origin = frozen(as_vec3(origin, "cone origin"))
        self._direction = _unit_direction(direction, "cone direction")
        self._height = check_positive(height, "cone height")
        self._baseRadius = check_positive(baseRadius, "cone base radius")

    def setOrigin(self, origin):
        """Set the centre of the base (in D)."""
        self._origin = frozen(as_vec3(origin, "cone origin"))
        return self

    def setDirection(self, direction):
        """Set the axis direction from base to tip (in D; normalized here)."""
        self._direction = _unit_direction(direction, "cone direction")
        return self

    def setHeight(self, height: float):
        self._height = check_positive(height, "cone height")
        return self

    def setBaseRadius(self, baseRadius: float):
        self._baseRadius = check_positive(baseRadius, "cone base radius")
        return self

    def getOrigin(self) -> np.ndarray:
        return self._origin

    def getDirection(self) -> np.ndarray:
        return self._direction

    def getHeight(self) -> float:
        return self._height

    def getBaseRadius(self) -> float:
        return self._baseRadius

    def implementGeometry(self, geometryImpl) -> None:
        geometryImpl.implementConeGeometry(self)

    def _describe(self) -> str:
        return (
            f"origin={self._origin.tolist()}, direction={self._direction.tolist()}, "
            f"height={self._height:g}, baseRadius={self._baseRadius:g}"
        )
