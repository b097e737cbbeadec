"""viz: VTK rendering of the engine's DecorativeGeometry (no Qt outside ``viz.qt_*`` modules).

Main entry points (imported lazily, so ``import viz`` stays cheap):

- ``Scene`` (viz.scene): a Qt-free scene; ``set_geometry``, ``update_poses``, ``render``.
- ``render_geometry_to_png``, ``render_to_png``, ``FrameWriter`` (viz.offscreen): headless images.
- ``collect_decorations`` (viz.system_decorations): a System's decorations, static and per-frame.
- ``SceneView`` (viz.qt_view): the Qt widget; import it from ``viz.qt_view`` explicitly.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "Scene": "viz.scene",
    "PickResult": "viz.scene",
    "render_geometry_to_png": "viz.offscreen",
    "render_to_png": "viz.offscreen",
    "write_png": "viz.offscreen",
    "FrameWriter": "viz.offscreen",
    "collect_decorations": "viz.system_decorations",
    "SystemDecorations": "viz.system_decorations",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'viz' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
