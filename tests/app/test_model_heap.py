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
        gc.collect()
        assert large_system() is None
    finally:
        session.stop()
