"""Short pauses of Python's cyclic garbage collector in the studio.

The studio imports a few hundred thousand long-lived objects (VTK's and Qt's wrappers, the
engine, numba, pyqtgraph). Every full collection of the cyclic garbage collector walks all
of them: about 0.2 s on an idle machine, close to a second under load, during which no
thread runs Python (a scrub of the timeline or a frame waits that long). None of them is
ever garbage, so ``freeze_imported_modules()`` imports those modules once at start-up,
collects, and moves every object alive into the collector's permanent generation
(``gc.freeze``): later full collections only walk what the studio made since (models,
States, history), and objects of a model that is closed are collected as before (nothing
frozen refers to them).
"""

from __future__ import annotations

import gc
import importlib

#: The modules whose import makes most of the long-lived objects.
HEAVY_MODULES = (
    "engine",
    "app.main_window",
    "app.simulation_ui",
    "app.timeline_ui",
    "app.tree.editor",
    "app.ensemble_ui",
    "app.importers.urdf.gui",
    "app.widgets.plots",
    "pyqtgraph",
)


def freeze_imported_modules() -> int:
    """Import HEAVY_MODULES, collect, and freeze everything alive (once a process; later
    calls do nothing). Returns the number of objects frozen."""
    if gc.get_freeze_count():
        return gc.get_freeze_count()
    for name in HEAVY_MODULES:
        importlib.import_module(name)
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
