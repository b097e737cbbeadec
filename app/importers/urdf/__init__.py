"""URDF import: ``import_urdf(path) -> ImportResult`` (a ModelData and the findings).

- xml_check.py: well-formed XML, joint types, numbers, tree structure, with line numbers;
- packages.py: ``package://`` and relative file names;
- joints.py: URDF joints to mobilizers and their frames;
- inertia.py: URDF inertials to mass properties about the body origin; checks and fixes;
- geometry.py: visual and collision geometry, meshes, materials;
- convert.py: the whole robot; ``relative_to`` for saving beside the meshes;
- bundle.py: copying (and decimating) the meshes and licences beside a model file;
- command.py: ``mbstudio import``; gui.py: File > Import URDF… and drops.

The names below are imported on first use, so that ``mbstudio --help`` (which registers the
command) does not load the engine.
"""

from __future__ import annotations

_EXPORTS = {
    "ImportResult": "app.importers.urdf.convert",
    "import_urdf": "app.importers.urdf.convert",
    "relative_to": "app.importers.urdf.convert",
    "Finding": "app.importers.urdf.errors",
    "UrdfImportError": "app.importers.urdf.errors",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
