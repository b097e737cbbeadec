"""Decorations: one decoration made of several others, placed and styled together."""

from __future__ import annotations

from engine.common.decorations.base import DecorativeGeometry
from engine.common.exceptions import IndexOutOfRangeError, InvalidArgumentError
from engine.math.transform import Transform


class Decorations(DecorativeGeometry):
    """A compound decoration: a list of elements sharing one frame D and one identity.

    Each element's transform places it in D. When drawn (``implementGeometry``), each element is
    visited as a copy whose properties are combined with the compound's (Simbody's rule): body,
    indexOnBody and userRef come from the compound; placements compose (X_BE = X_BD * X_DE);
    scale factors, resolution, opacity and line thickness multiply; colour, face-camera and
    representation are inherited only when the element leaves them unset. Compounds nest.
    """

    def __init__(self, decoration: DecorativeGeometry | None = None) -> None:
        super().__init__()
        self._elements: list[DecorativeGeometry] = []
        if decoration is not None:
            self.addDecoration(decoration)

    def addDecoration(self, *args):
        """``addDecoration(geom)`` or ``addDecoration(X_DE, geom)``; stores a copy; returns self.

        With ``X_DE`` the element is re-placed in D: its transform becomes X_DE * (its own).
        """
        if len(args) == 1:
            placement, geom = None, args[0]
        elif len(args) == 2:
            placement, geom = args
            if not isinstance(placement, Transform):
                raise InvalidArgumentError(
                    f"addDecoration(X_DE, geom) needs a Transform, got {type(placement).__name__}"
                )
        else:
            raise InvalidArgumentError(f"addDecoration takes 1 or 2 arguments, got {len(args)}")
        if not isinstance(geom, DecorativeGeometry):
            raise InvalidArgumentError(
                f"addDecoration needs a DecorativeGeometry, got {type(geom).__name__}"
            )
        element = geom.clone()
        if placement is not None:
            element.setTransform(placement * element.getTransform())
        self._elements.append(element)
        return self

    def getNumDecorations(self) -> int:
        return len(self._elements)

    def getDecoration(self, i: int) -> DecorativeGeometry:
        """The i'th element as stored (its own properties, not combined with the compound's)."""
        if not 0 <= i < len(self._elements):
            raise IndexOutOfRangeError(
                f"decoration index {i} out of range; this Decorations holds {len(self._elements)}"
            )
        return self._elements[i]

    def implementGeometry(self, geometryImpl) -> None:
        """Visit each element, with properties combined with this compound's."""
        for element in self._elements:
            combined = element.clone()
            combined._inheritPropertiesFrom(self)
            combined.implementGeometry(geometryImpl)

    def _copy_members_from(self, other: DecorativeGeometry) -> None:
        self._elements = [e.clone() for e in other._elements]

    def _describe(self) -> str:
        return f"{len(self._elements)} elements"
