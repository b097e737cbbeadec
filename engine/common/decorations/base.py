"""DecorativeGeometry: the base class of Simbody's renderer-independent decorations.

A decoration is something drawn to help a person see a model (a sphere on a body, a line for a
spring, a frame triad, a text label). It never affects the physics. Each decoration is defined in
its own local frame D, which is placed on a body frame B by the transform ``X_BD``
(``setTransform``); ``bodyId`` says which body (0 is Ground). Lengths are in the model's length
unit (metres by default).

Conventions (as Simbody 3.7):

- Properties that can be left to the renderer use the sentinel -1 for "unset": colour
  ``Vec3(-1, -1, -1)``, opacity, resolution, line thickness, each scale factor, face-camera.
- ``setResolution``, ``setScaleFactors`` and ``setLineThickness`` follow Simbody's documented rule:
  a value <= 0 means "use the default" and is stored as -1.
- ``setColor`` takes three components in [0, 1], or exactly ``(-1, -1, -1)`` to reset to unset.
- ``setOpacity`` takes a value in [0, 1] (0 = invisible), or exactly -1 to reset to unset.
  (Simbody maps 0 to "unset"; here 0 really hides the object.)
- Every setter returns ``self`` so calls chain, and raises InvalidArgumentError on bad input
  (not finite, wrong length, out of range).
- Copies (``clone()``) are deep, except ``userRef`` which is shared, as in Simbody.
"""

from __future__ import annotations

import math
from enum import IntEnum

import numpy as np

from engine.common.count_arg import count_value as check_int
from engine.common.exceptions import InvalidArgumentError
from engine.math.transform import Transform
from engine.math.vec import as_vec3


def _color(r: float, g: float, b: float) -> np.ndarray:
    c = np.array([r, g, b], dtype=np.float64)
    c.flags.writeable = False
    return c


# Some common RGB values (Simbody's names).
Black = _color(0.0, 0.0, 0.0)
Gray = _color(0.5, 0.5, 0.5)
Red = _color(1.0, 0.0, 0.0)
Green = _color(0.0, 1.0, 0.0)
Blue = _color(0.0, 0.0, 1.0)
Yellow = _color(1.0, 1.0, 0.0)
Orange = _color(1.0, 0.5, 0.0)
Magenta = _color(1.0, 0.0, 1.0)
Purple = _color(0.5, 0.0, 0.5)
Cyan = _color(0.0, 1.0, 1.0)
White = _color(1.0, 1.0, 1.0)

_UNSET3 = _color(-1.0, -1.0, -1.0)


class Representation(IntEnum):
    """How a surface is drawn: points, wireframe, shaded surface, or the renderer's choice."""

    DrawPoints = 1
    DrawWireframe = 2
    DrawSurface = 3
    DrawDefault = -1


def check_real(value, name: str) -> float:
    """Return ``value`` as a finite float, or raise InvalidArgumentError naming ``name``."""
    if isinstance(value, bool):
        raise InvalidArgumentError(f"{name} must be a number, got the bool {value!r}")
    try:
        x = float(value)
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(f"{name} must be a number, got {value!r}") from exc
    if not math.isfinite(x):
        raise InvalidArgumentError(f"{name} must be finite, got {x}")
    return x


def check_positive(value, name: str) -> float:
    """Return ``value`` as a finite float > 0, or raise InvalidArgumentError naming ``name``."""
    x = check_real(value, name)
    if x <= 0.0:
        raise InvalidArgumentError(f"{name} must be > 0, got {x}")
    return x


def check_positive_vec3(value, name: str) -> np.ndarray:
    """Return ``value`` as a read-only Vec3 with all components > 0."""
    v = as_vec3(value, name)
    if np.any(v <= 0.0):
        raise InvalidArgumentError(f"{name} must have all components > 0, got {v.tolist()}")
    return frozen(v)


def frozen(v) -> np.ndarray:
    """A read-only float64 copy of ``v``."""
    a = np.array(v, dtype=np.float64)
    a.flags.writeable = False
    return a


class DecorativeGeometry:
    """Base class of all decorations: placement on a body plus appearance requests.

    Placement: the decoration's local frame D is at ``X_BD`` (``getTransform()``) in the frame of
    body ``getBodyId()`` (0 = Ground). Scale factors stretch the object along D's axes before
    placement. Appearance values are requests to the renderer; -1 means "renderer's default".
    Subclasses are the concrete kinds (DecorativeSphere, ...). Use ``implementGeometry(visitor)``
    to dispatch to a DecorativeGeometryImplementation.
    """

    Representation = Representation
    DrawPoints = Representation.DrawPoints
    DrawWireframe = Representation.DrawWireframe
    DrawSurface = Representation.DrawSurface
    DrawDefault = Representation.DrawDefault
    # Short aliases used in the brief and in Python code.
    Points = Representation.DrawPoints
    Wireframe = Representation.DrawWireframe
    Surface = Representation.DrawSurface

    def __init__(self) -> None:
        self._bodyId = 0
        self._indexOnBody = -1
        self._userRef = None
        self._X_BD = Transform()
        self._resolution = -1.0
        self._scaleFactors = _UNSET3
        self._color = _UNSET3
        self._opacity = -1.0
        self._lineThickness = -1.0
        self._faceCamera = -1
        self._representation = Representation.DrawDefault

    # -- placement and identification -----------------------------------------------------------

    def setBodyId(self, bodyId: int):
        """Attach to body ``bodyId`` (a MobilizedBodyIndex in Simbody; 0 = Ground)."""
        self._bodyId = check_int(bodyId, "bodyId", 0)
        return self

    def getBodyId(self) -> int:
        """The body the decoration is attached to; 0 (Ground) unless set."""
        return self._bodyId

    def setIndexOnBody(self, index: int):
        """Store an identifying index (e.g. the decoration's position in its body's list)."""
        self._indexOnBody = check_int(index, "indexOnBody", -1)
        return self

    def getIndexOnBody(self) -> int:
        """The index stored with setIndexOnBody(); -1 unless set."""
        return self._indexOnBody

    def setUserRef(self, userRef):
        """Store any object (e.g. the model element that made this decoration), for picking."""
        self._userRef = userRef
        return self

    def getUserRef(self):
        """The object stored with setUserRef(); None unless set."""
        return self._userRef

    def setTransform(self, X_BD: Transform):
        """Place the decoration's frame D on the body frame B; replaces any earlier transform."""
        if not isinstance(X_BD, Transform):
            raise InvalidArgumentError(
                f"setTransform needs a Transform X_BD, got {type(X_BD).__name__}"
            )
        self._X_BD = X_BD
        return self

    def getTransform(self) -> Transform:
        """X_BD, the pose of the decoration frame D in the body frame B (identity unless set)."""
        return self._X_BD

    # -- size and tessellation ------------------------------------------------------------------

    def setResolution(self, resolution: float):
        """Scale the default tessellation density (1 = default; <= 0 means use the default)."""
        r = check_real(resolution, "resolution")
        self._resolution = r if r > 0.0 else -1.0
        return self

    def getResolution(self) -> float:
        """The resolution factor, or -1 for "use the default"."""
        return self._resolution

    def setScaleFactors(self, scale):
        """Stretch the object along D's x, y, z axes (a factor <= 0 means 1, stored as -1)."""
        s = as_vec3(scale, "scale factors")
        self._scaleFactors = frozen(np.where(s > 0.0, s, -1.0))
        return self

    def setScale(self, scale: float):
        """Set all three scale factors to ``scale``."""
        s = check_real(scale, "scale")
        return self.setScaleFactors((s, s, s))

    def getScaleFactors(self) -> np.ndarray:
        """The scale factors; a component of -1 means "default" (1)."""
        return self._scaleFactors

    # -- appearance -----------------------------------------------------------------------------

    def setColor(self, rgb):
        """Request an RGB colour, each component in [0, 1]; ``(-1, -1, -1)`` resets to unset."""
        c = as_vec3(rgb, "color")
        if np.all(c == -1.0):
            self._color = _UNSET3
            return self
        if np.any(c < 0.0) or np.any(c > 1.0):
            raise InvalidArgumentError(
                f"color components must be in [0, 1] (or all -1 for unset), got {c.tolist()}"
            )
        self._color = frozen(c)
        return self

    def getColor(self) -> np.ndarray:
        """The requested RGB colour, or ``(-1, -1, -1)`` when the renderer should choose."""
        return self._color

    def setOpacity(self, opacity: float):
        """Request an opacity in [0, 1] (1 opaque, 0 invisible); -1 resets to unset."""
        o = check_real(opacity, "opacity")
        if o != -1.0 and not 0.0 <= o <= 1.0:
            raise InvalidArgumentError(f"opacity must be in [0, 1] (or -1 for unset), got {o}")
        self._opacity = o
        return self

    def getOpacity(self) -> float:
        """The requested opacity, or -1 when unset (renderers draw opaque)."""
        return self._opacity

    def setLineThickness(self, thickness: float):
        """Request a line width in pixels for lines and curves (<= 0 means default, stored -1)."""
        t = check_real(thickness, "line thickness")
        self._lineThickness = t if t > 0.0 else -1.0
        return self

    def getLineThickness(self) -> float:
        """The requested line width in pixels, or -1 for the default."""
        return self._lineThickness

    def setFaceCamera(self, shouldFace):
        """Billboard mode: 1 (or True) always faces the camera, 0 never, -1 renderer's default."""
        if isinstance(shouldFace, bool):
            self._faceCamera = int(shouldFace)
            return self
        f = check_int(shouldFace, "faceCamera", -(2**62))
        self._faceCamera = 0 if f == 0 else (1 if f > 0 else -1)
        return self

    def getFaceCamera(self) -> int:
        """1 face the camera, 0 don't, -1 renderer's default (text faces the camera)."""
        return self._faceCamera

    def setRepresentation(self, representation):
        """Request points, wireframe, surface, or DrawDefault (renderer's choice)."""
        try:
            self._representation = Representation(representation)
        except ValueError as exc:
            allowed = ", ".join(f"{r.name}={r.value}" for r in Representation)
            raise InvalidArgumentError(
                f"representation must be one of {allowed}; got {representation!r}"
            ) from exc
        return self

    def getRepresentation(self) -> Representation:
        """The requested drawing mode; DrawDefault (-1) unless set."""
        return self._representation

    # -- dispatch and copying -------------------------------------------------------------------

    def implementGeometry(self, geometryImpl) -> None:
        """Call the visitor method for this kind, e.g. ``implementSphereGeometry(self)``."""
        raise NotImplementedError(f"{type(self).__name__} does not implement implementGeometry")

    def clone(self):
        """A deep copy (the userRef object itself is shared, as in Simbody)."""
        cls = type(self)
        dup = cls.__new__(cls)  # a shallow copy of the attributes (copy.copy is ~5x slower)
        dup.__dict__.update(self.__dict__)
        dup._copy_members_from(self)
        return dup

    def _copy_members_from(self, other: DecorativeGeometry) -> None:
        """Hook for subclasses holding mutable members (arrays are read-only, so shared)."""

    def _inheritPropertiesFrom(self, parent: DecorativeGeometry) -> None:
        """Combine this element's properties with its compound parent's (Simbody's rule).

        Body, index and userRef come from the parent unconditionally; placements compose
        (X_BD = X_BP * X_PD); scale factors, resolution, opacity and line thickness multiply
        (an unset value counts as 1); colour, face-camera and representation are taken from the
        parent only when unset here.
        """
        self._bodyId = parent._bodyId
        self._indexOnBody = parent._indexOnBody
        self._userRef = parent._userRef
        self._X_BD = parent._X_BD * self._X_BD
        self._scaleFactors = frozen(
            [_compose(a, b) for a, b in zip(self._scaleFactors, parent._scaleFactors, strict=True)]
        )
        self._resolution = _compose(self._resolution, parent._resolution)
        self._opacity = _compose(self._opacity, parent._opacity)
        self._lineThickness = _compose(self._lineThickness, parent._lineThickness)
        if self._color[0] == -1.0:
            self._color = parent._color
        if self._faceCamera == -1:
            self._faceCamera = parent._faceCamera
        if self._representation == Representation.DrawDefault:
            self._representation = parent._representation

    def _describe(self) -> str:
        """Kind-specific constructor arguments for repr()."""
        return ""

    def __repr__(self) -> str:
        extra = [self._describe()] if self._describe() else []
        if self._bodyId:
            extra.append(f"bodyId={self._bodyId}")
        if self._color[0] >= 0.0:
            extra.append(f"color={self._color.tolist()}")
        return f"{type(self).__name__}({', '.join(extra)})"


def _compose(a: float, b: float) -> float:
    """Multiply two optional factors (negative = unset); unset if both are unset."""
    a, b = float(a), float(b)
    if a >= 0.0:
        return a * b if b >= 0.0 else a
    if b >= 0.0:
        return b
    return -1.0
