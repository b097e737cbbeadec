"""Annotation decorations: point, line, arrow, coordinate frame and text.

Points and ends are given in the decoration's local frame D; lengths in the model's length unit;
line thickness (``setLineThickness``) is a request in pixels. Defaults follow Simbody 3.7.
"""

from __future__ import annotations

import numpy as np

from engine.common.decorations.base import DecorativeGeometry, check_positive, frozen
from engine.common.exceptions import InvalidArgumentError
from engine.math.vec import as_vec3


class DecorativePoint(DecorativeGeometry):
    """A point of interest at ``p`` (in D); drawn as a dot of fixed pixel size."""

    def __init__(self, p=(0.0, 0.0, 0.0)) -> None:
        super().__init__()
        self._point = frozen(as_vec3(p, "point"))

    def setPoint(self, p):
        self._point = frozen(as_vec3(p, "point"))
        return self

    def getPoint(self) -> np.ndarray:
        return self._point

    def implementGeometry(self, geometryImpl) -> None:
        geometryImpl.implementPointGeometry(self)

    def _describe(self) -> str:
        return f"p={self._point.tolist()}"


class DecorativeLine(DecorativeGeometry):
    """A line segment from ``p1`` to ``p2`` (in D); default (0,0,0) to (1,1,1), as Simbody.

    Equal end points are allowed (the line is then not drawn).
    """

    def __init__(self, p1=(0.0, 0.0, 0.0), p2=(1.0, 1.0, 1.0)) -> None:
        super().__init__()
        self._point1 = frozen(as_vec3(p1, "line point1"))
        self._point2 = frozen(as_vec3(p2, "line point2"))

    def setPoint1(self, p1):
        self._point1 = frozen(as_vec3(p1, "line point1"))
        return self

    def setPoint2(self, p2):
        self._point2 = frozen(as_vec3(p2, "line point2"))
        return self

    def setEndpoints(self, p1, p2):
        """Set both end points at once."""
        return self.setPoint1(p1).setPoint2(p2)

    def getPoint1(self) -> np.ndarray:
        return self._point1

    def getPoint2(self) -> np.ndarray:
        return self._point2

    def implementGeometry(self, geometryImpl) -> None:
        geometryImpl.implementLineGeometry(self)

    def _describe(self) -> str:
        return f"p1={self._point1.tolist()}, p2={self._point2.tolist()}"


class DecorativeArrow(DecorativeGeometry):
    """An arrow from ``startPoint`` to ``endPoint`` (in D) whose head is ``tipLength`` long.

    Defaults as Simbody 3.7: from (0,0,0) to (1,1,1) with tipLength 0.35. A tip longer than the
    arrow is drawn as long as the arrow; a zero-length arrow is not drawn.
    """

    def __init__(self, startPoint=(0.0, 0.0, 0.0), endPoint=(1.0, 1.0, 1.0), tipLength=0.35):
        super().__init__()
        self._start = frozen(as_vec3(startPoint, "arrow startPoint"))
        self._end = frozen(as_vec3(endPoint, "arrow endPoint"))
        self._tipLength = check_positive(tipLength, "arrow tipLength")

    def setStartPoint(self, startPoint):
        self._start = frozen(as_vec3(startPoint, "arrow startPoint"))
        return self

    def setEndPoint(self, endPoint):
        self._end = frozen(as_vec3(endPoint, "arrow endPoint"))
        return self

    def setTipLength(self, tipLength: float):
        self._tipLength = check_positive(tipLength, "arrow tipLength")
        return self

    def getStartPoint(self) -> np.ndarray:
        return self._start

    def getEndPoint(self) -> np.ndarray:
        return self._end

    def getTipLength(self) -> float:
        return self._tipLength

    def implementGeometry(self, geometryImpl) -> None:
        geometryImpl.implementArrowGeometry(self)

    def _describe(self) -> str:
        return (
            f"start={self._start.tolist()}, end={self._end.tolist()}, tipLength={self._tipLength:g}"
        )


class DecorativeFrame(DecorativeGeometry):
    """A coordinate-frame triad: lines from D's origin along +x, +y, +z, ``axisLength`` long.

    With no colour set, renderers draw x red, y green, z blue; a set colour applies to all axes.
    """

    def __init__(self, axisLength: float = 1.0) -> None:
        super().__init__()
        self._axisLength = check_positive(axisLength, "frame axisLength")

    def setAxisLength(self, axisLength: float):
        self._axisLength = check_positive(axisLength, "frame axisLength")
        return self

    def getAxisLength(self) -> float:
        return self._axisLength

    def implementGeometry(self, geometryImpl) -> None:
        geometryImpl.implementFrameGeometry(self)

    def _describe(self) -> str:
        return f"axisLength={self._axisLength:g}"


class DecorativeText(DecorativeGeometry):
    """A text label whose baseline starts at D's origin.

    Its character height is the x scale factor (1 length unit by default, as Simbody; use
    ``setScale(0.1)`` for smaller text). Text faces the camera unless ``setFaceCamera(0)``.
    ``setIsScreenText(True)`` pins it to the screen (top-left) instead of the scene.
    """

    def __init__(self, text: str = "") -> None:
        super().__init__()
        self._text = _check_text(text)
        self._isScreenText = False

    def setText(self, text: str):
        self._text = _check_text(text)
        return self

    def getText(self) -> str:
        return self._text

    def setIsScreenText(self, isScreen: bool):
        """True: draw in a fixed spot on the screen rather than in the scene."""
        self._isScreenText = bool(isScreen)
        return self

    def getIsScreenText(self) -> bool:
        return self._isScreenText

    def implementGeometry(self, geometryImpl) -> None:
        geometryImpl.implementTextGeometry(self)

    def _describe(self) -> str:
        return repr(self._text)


def _check_text(text) -> str:
    if not isinstance(text, str):
        raise InvalidArgumentError(f"text must be a str, got {type(text).__name__}")
    return text
