"""A large model dropped by the studio is freed by reference counting, not by a full
collection of the whole heap (which holds every thread for most of a second at 20,000
bodies): its System's reference cycles are broken (``model_release``) once its session has
stopped. Opened over another large model in the real window (File > Open's path), the old
model's System is gone at once and the next settle of the heap only freezes."""

from __future__ import annotations

import gc
import weakref

import pytest

from app.document import build
from app.document.examples import chain50
from app.simulation import collection, model_heap, model_release
from app.simulation.session import SimulationSession
from tests.app.test_open_large import _chain_file


def test_a_system_with_its_cycles_broken_is_freed_by_reference_counting():
    built = build(chain50(30), True)
    assert gc.is_tracked(built.system)
    gc.collect()
    with collection.paused():
        system = weakref.ref(built.system)
        body = weakref.ref(built.matter.getMobilizedBody(7))
        del built
        assert system() is not None  # held by its own cycles
        refs = model_release.break_cycles([system(), system()])
        assert len(refs) == 1 and refs[0]() is system()
        assert system() is None and body() is None  # no collection ran


def test_a_stopped_session_breaks_the_cycles_of_every_model_it_holds():
    session = SimulationSession(build(chain50(12), True))
    first = weakref.ref(session.system)
    reset_to = build(chain50(12), True)
    session._reset_built = reset_to  # (as after an edit of the initial State)
    gc.collect()
    with collection.paused():
        refs = session.break_model_cycles()
        assert {r() for r in refs} == {first(), reset_to.system}
        del session, reset_to
        assert first() is None and all(r() is None for r in refs)


@pytest.mark.gui
def test_a_large_model_opened_over_another_frees_it_without_a_collection(
    main_window, qtbot, tmp_path, monkeypatch
):
    monkeypatch.setattr(model_heap, "FREEZE_FROM_BODIES", 100)  # (a small "large" chain)
    window = main_window
    editor, panel = window.model_editor, window.simulation
    editor.interactive = False
    path = _chain_file(tmp_path, 150)
    assert editor.open_path(path, modal=False)
    qtbot.waitUntil(
        lambda: panel.snapshot is not None and len(panel.snapshot.model.body_names) == 151,
        timeout=30000,
    )
    first = panel.session
    old = weakref.ref(first.system)
    del first
    full: list[int] = []  # full collections (each walks the whole heap, holding every thread)

    def collection(phase, info) -> None:
        if phase == "start" and info["generation"] == 2:
            full.append(1)

    gc.callbacks.append(collection)
    try:
        assert editor.open_path(path, modal=False)  # the same chain again, over itself
        qtbot.waitUntil(lambda: old() is None or bool(full), timeout=30000)
        assert full == [] and old() is None  # freed before (without) any full collection
    finally:
        gc.callbacks.remove(collection)
    qtbot.waitUntil(lambda: panel.session is not None, timeout=30000)
    assert panel.session.matter.getNumBodies() == 151
    # the next settle only freezes: no full collection
    gc.callbacks.append(collection)
    try:
        assert model_heap.settle() == 1
    finally:
        gc.callbacks.remove(collection)
    assert full == []


def test_a_settle_collects_unless_the_dropped_model_was_freed_by_refcount():
    class Held:
        pass

    full: list[int] = []

    def collection(phase, info) -> None:
        if phase == "start" and info["generation"] == 2:
            full.append(1)

    gc.callbacks.append(collection)
    try:
        gone, alive = Held(), Held()
        refs = [weakref.ref(gone), weakref.ref(alive)]
        del gone
        for freed, collects in (([refs[0]], False), (refs, True), (None, True)):
            full.clear()
            model_heap.release()
            if freed is not None:
                model_heap.freed_by_refcount(freed)
            assert model_heap.settle() == 1
            assert full == ([1] if collects else [])
        model_heap.release()
        model_heap.freed_by_refcount([refs[0]])
        model_heap.expect_garbage()  # (another large model dropped with its cycles)
        full.clear()
        model_heap.settle()
        assert full == [1]
    finally:
        gc.callbacks.remove(collection)
        gc.unfreeze()
