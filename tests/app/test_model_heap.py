"""A large model's heap frozen out of the collector's full collections once shown, the model an
edit replaced freed by the next settle, and nothing left frozen by a stopped session."""

from __future__ import annotations

import gc
import time
import weakref

import pytest

from app.document import ModelData, ModelDocument, build
from app.document.examples import rod_body
from app.simulation import model_heap
from app.simulation.session import SimulationSession


class ModelVersion:
    """One version of a document's content, as the studio hands it to ``rebuild``."""

    def __init__(self, data) -> None:
        self.data = data
        self.base_dir = None


def wait_for(predicate, timeout: float = 20.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, "condition not met in time"
        time.sleep(0.01)


def chain(n: int) -> ModelDocument:
    bodies = [rod_body(f"b{i}", "Ground" if i == 0 else f"b{i - 1}", 0.3, 1.0) for i in range(n)]
    return ModelDocument(ModelData("chain", bodies))


@pytest.fixture
def large_from_30(monkeypatch):
    monkeypatch.setattr(model_heap, "FREEZE_FROM_BODIES", 30)
    monkeypatch.setattr(model_heap, "SETTLE_AFTER", 0.0)
    monkeypatch.setattr(model_heap, "SETTLE_AFTER_OPEN", 0.0)
    # Earlier tests' windows left as cyclic garbage are freed here, on the GUI thread: a
    # settle's full collection on the worker must not destroy Qt objects (their destructors
    # and the GUI thread's deferred deletions can wait on each other for good).
    gc.collect()
    yield
    gc.unfreeze()


def test_a_large_model_is_frozen_and_the_one_an_edit_replaced_is_freed(large_from_30):
    gc.unfreeze()
    doc = chain(40)
    session = SimulationSession(build(doc.data, True))
    first_system = weakref.ref(session.system)
    session.start()
    try:
        wait_for(lambda: session._heap_frozen and session._settle_due is None)
        assert gc.get_freeze_count() > 0
        assert not gc.get_count()[2]  # everything alive is in the permanent generation
        doc.add_body(rod_body("leaf", "b20", 0.3, 1.0))
        session.rebuild(ModelVersion(doc.data), "topology")
        wait_for(lambda: session.matter.getNumBodies() == 42)
        wait_for(lambda: first_system() is None)  # freed by the next settle
        wait_for(lambda: session._settle_due is None)
        assert session._heap_frozen and gc.get_freeze_count() > 0
        second_system = weakref.ref(session.system)
    finally:
        session.stop()
    assert gc.get_freeze_count() == 0  # a stopped session leaves nothing frozen
    session = None
    gc.collect()
    assert second_system() is None


def test_a_small_model_is_not_frozen_and_hands_a_large_one_s_heap_back(large_from_30):
    gc.unfreeze()
    small = SimulationSession(build(chain(5).data, True))
    small.start()
    try:
        time.sleep(0.6)  # a few turns of the worker's loop
        assert not small._heap_frozen and gc.get_freeze_count() == 0
    finally:
        small.stop()
    doc = chain(40)
    session = SimulationSession(build(doc.data, True))
    session.start()
    try:
        wait_for(lambda: session._heap_frozen and session._settle_due is None)
        large_system = weakref.ref(session.system)
        session.rebuild(ModelVersion(chain(5).data), "topology")
        wait_for(lambda: session.matter.getNumBodies() == 6)
        # (the worker adopts the matter before it hands the heap back)
        wait_for(lambda: not session._heap_frozen and gc.get_freeze_count() == 0, 5.0)
        # (the worker's frames hold the large model until its command returns)
        wait_for(lambda: gc.collect() >= 0 and large_system() is None, 5.0)
    finally:
        session.stop()


def _full_collections() -> tuple[list, object]:
    """A list that gets an entry at each full (generation 2) collection, and its callback."""
    seen: list = []

    def watch(phase, info) -> None:
        if phase == "start" and info["generation"] == 2:
            seen.append(info)

    gc.callbacks.append(watch)
    return seen, watch


def test_a_settle_collects_only_when_a_large_model_was_dropped(large_from_30):
    """An open's settle only freezes (a read and build leave a few hundred objects of
    garbage: no full collection holding every thread); once a large model's heap was handed
    back (its session stopped) or an edit replaced one, the next settle collects it."""
    model_heap.settle()  # whatever earlier tests dropped
    seen, watch = _full_collections()
    try:
        junk = [[] for _ in range(1000)]
        model_heap.freeze_new()  # (as an open's workers end: no walk)
        assert gc.get_count()[0] < 100 and not seen  # (the young generation emptied)
        del junk
        model_heap.settle()
        assert not seen and gc.get_freeze_count() > 0
        model_heap.release()
        assert gc.get_freeze_count() == 0
        model_heap.settle()
        assert len(seen) == 1 and gc.get_freeze_count() > 0
        model_heap.expect_garbage()
        model_heap.settle()
        assert len(seen) == 2
    finally:
        gc.callbacks.remove(watch)


def test_the_settle_waits_while_the_gui_holds_it_off(large_from_30):
    """While the GUI thread holds settles off (the 3-D view drawing a large model in steps),
    the worker does not settle; it does once the GUI has been quiet for the time asked."""
    gc.unfreeze()
    model_heap.hold_off(1.0)
    session = SimulationSession(build(chain(40).data, True))
    session.start()
    try:
        time.sleep(0.5)
        assert session._settle_due is not None  # due at once, but held off
        wait_for(lambda: session._settle_due is None, 10.0)
        assert model_heap.quiet()
    finally:
        session.stop()
