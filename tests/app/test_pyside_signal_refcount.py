"""Regression guard for PySide6 6.12.0, whose ``Signal.emit()`` drops a reference to ``True``
each call until Python aborts (``Fatal Python error: bool_dealloc``)."""

from __future__ import annotations

import sys

import PySide6
from PySide6.QtCore import QObject, Signal

EMITS = 20_000


class _Emitter(QObject):
    fired = Signal(object)


def test_pyside6_version_is_pinned_below_6_12():
    version = tuple(PySide6.__version_info__[:2])
    assert (6, 11) <= version < (6, 12), f"PySide6 {PySide6.__version__} is outside [6.11, 6.12)"


def test_signal_emit_keeps_reference_to_true():
    emitter = _Emitter()
    received = []
    emitter.fired.connect(received.append)
    payload = {"t": 0.0}
    emitter.fired.emit(payload)  # warm up any one-time caches
    received.clear()

    before = sys.getrefcount(True)
    for _ in range(EMITS):
        emitter.fired.emit(payload)
    after = sys.getrefcount(True)

    assert len(received) == EMITS
    assert before - after < 100, f"refcount of True fell by {before - after} over {EMITS} emits"
