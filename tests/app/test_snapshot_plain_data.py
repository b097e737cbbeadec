"""A snapshot is plain data (issue 20, item 5): the GUI thread reads it while the worker steps
the State, so nothing in it may be the live System, a subsystem, a State, or any mutable
object the live model or State holds (read-only arrays and enum members may be shared)."""

from __future__ import annotations

import enum
import gc
import time
import types

import numpy as np
import pytest

from app.document import build, model_io
from app.document.examples import example_path
from app.simulation import overlay_data
from app.simulation.session import Pacing, Settings, SimulationSession
from engine import MobilizedBody, State, Subsystem, System

_SKIPPED = (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType)
_IMMUTABLE = (str, bytes, int, float, complex, bool, type(None), tuple, frozenset, enum.Enum)


def _reachable(root, shared_by_design=None) -> dict[int, tuple[object, str]]:
    """Every object reachable from ``root`` by id, with a path to it, not looking into
    ``shared_by_design``."""
    found: dict[int, tuple[object, str]] = {}
    stack = [(root, type(root).__name__)]
    while stack:
        obj, path = stack.pop()
        if id(obj) in found or isinstance(obj, _SKIPPED) or obj is shared_by_design:
            continue
        found[id(obj)] = (obj, path)
        stack.extend((r, f"{path}>{type(r).__name__}") for r in gc.get_referents(obj))
    return found


def _may_be_shared(obj: object) -> bool:
    if isinstance(obj, _IMMUTABLE):
        return True
    if isinstance(obj, np.ndarray):
        return not obj.flags.writeable
    # an enum member's attribute dict (Stage is an enum)
    return isinstance(obj, dict) and "_value_" in obj and "_name_" in obj


@pytest.mark.parametrize("example", ["double_pendulum", "bouncing_balls", "four_bar"])
def test_a_snapshot_shares_nothing_mutable_with_the_live_model(example):
    session = SimulationSession(
        build(model_io.load(example_path(example)), True), Settings(pacing=Pacing.FAST)
    )
    session.overlay_kinds = overlay_data.KINDS
    session.start()
    try:
        session.play()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            snap = session.latest()
            if snap is not None and snap.time > 0.05 and snap.cache is not None:
                break
            session.request_cache_report()
            time.sleep(0.02)
        session.pause()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and session.latest().running:
            time.sleep(0.02)
        snap = session.latest()
        assert snap.cache is not None and snap.overlays is not None and snap.geometry
        state = session._state  # noqa: SLF001
        with state.getStateLock():
            live = _reachable((session.built, state))
        # (the plot samples are shared by design: the buffer has its own lock)
        in_snapshot = _reachable(snap, snap.model.samples)
    finally:
        session.stop()
    engine_objects = [
        path
        for obj, path in in_snapshot.values()
        if isinstance(obj, (System, Subsystem, State, MobilizedBody))
    ]
    assert not engine_objects, engine_objects[:5]
    shared = [
        path for key, (obj, path) in in_snapshot.items() if key in live and not _may_be_shared(obj)
    ]
    assert not shared, shared[:5]
