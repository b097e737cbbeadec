"""The model document (Qt-free): what the studio edits, saves and builds into an engine System.

- ``ModelDocument`` (document.py): content, edits with validation, change notifications;
- specs.py: BodySpec, GeometrySpec, FrameSpec, ElementSpec, Hints, ModelData;
- registry.py: mobilizer types, geometry kinds, constraint and force types as data;
- builder.py: ``build(document) -> BuiltModel``, ``carry_state``, ``apply_hints``;
- model_io.py: ``load`` / ``save`` the versioned JSON file;
- examples.py: the bundled examples.
"""

from app.document.builder import BuildError, BuiltModel, apply_hints, build, carry_state
from app.document.document import CHANGE_KINDS, Change, ModelDocument
from app.document.specs import (
    GROUND,
    BodySpec,
    ElementSpec,
    FrameSpec,
    GeometrySpec,
    Hints,
    ModelData,
)
from app.document.validation import DocumentError

__all__ = [
    "CHANGE_KINDS",
    "GROUND",
    "BodySpec",
    "BuildError",
    "BuiltModel",
    "Change",
    "DocumentError",
    "ElementSpec",
    "FrameSpec",
    "GeometrySpec",
    "Hints",
    "ModelData",
    "ModelDocument",
    "apply_hints",
    "build",
    "carry_state",
]
