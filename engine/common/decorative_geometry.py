"""Decorative geometry: renderer-independent descriptions of what to draw (Simbody's names).

A decoration never affects the physics. Each is defined in its own frame D, placed on body
``getBodyId()`` (0 = Ground) at ``X_BD = getTransform()``; lengths are in the model's length unit.
Appearance values are requests; -1 means "renderer's default" (see ``decorations.base``).
A renderer implements ``DecorativeGeometryImplementation`` (one ``implement<Kind>Geometry``
method per kind) and calls ``geometry.implementGeometry(visitor)``.

Kinds: DecorativePoint, DecorativeLine, DecorativeCircle, DecorativeSphere, DecorativeEllipsoid,
DecorativeBrick, DecorativeCylinder (axis along y), DecorativeFrame, DecorativeText,
DecorativeMesh, DecorativeMeshFile, DecorativeArrow, DecorativeTorus, DecorativeCone, and the
compound Decorations.
"""

from __future__ import annotations

from engine.common.decorations.annotations import (
    DecorativeArrow,
    DecorativeFrame,
    DecorativeLine,
    DecorativePoint,
    DecorativeText,
)
from engine.common.decorations.base import (
    Black,
    Blue,
    Cyan,
    DecorativeGeometry,
    Gray,
    Green,
    Magenta,
    Orange,
    Purple,
    Red,
    Representation,
    White,
    Yellow,
)
from engine.common.decorations.compound import Decorations
from engine.common.decorations.implementation import DecorativeGeometryImplementation
from engine.common.decorations.meshes import (
    MESH_FILE_EXTENSIONS,
    DecorativeMesh,
    DecorativeMeshFile,
    MeshData,
)
from engine.common.decorations.shapes import (
    DecorativeBrick,
    DecorativeCircle,
    DecorativeCone,
    DecorativeCylinder,
    DecorativeEllipsoid,
    DecorativeSphere,
    DecorativeTorus,
)

__all__ = [
    "MESH_FILE_EXTENSIONS",
    "Black",
    "Blue",
    "Cyan",
    "DecorativeArrow",
    "DecorativeBrick",
    "DecorativeCircle",
    "DecorativeCone",
    "DecorativeCylinder",
    "DecorativeEllipsoid",
    "DecorativeFrame",
    "DecorativeGeometry",
    "DecorativeGeometryImplementation",
    "DecorativeLine",
    "DecorativeMesh",
    "DecorativeMeshFile",
    "DecorativePoint",
    "DecorativeSphere",
    "DecorativeText",
    "DecorativeTorus",
    "Decorations",
    "Gray",
    "Green",
    "Magenta",
    "MeshData",
    "Orange",
    "Purple",
    "Red",
    "Representation",
    "White",
    "Yellow",
]
