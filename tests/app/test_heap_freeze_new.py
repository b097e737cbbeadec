"""A structural edit of a large model with its heap frozen puts the new System straight into
the collector's permanent generation (``model_heap.freeze_new``): the young collections do
not walk it before the settle planned at its adoption, which then frees the System it
replaced; a stopped session still leaves nothing frozen."""

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
    def __init__(self, data) -> None:
        self.data, self.base_dir = data, None


def wait_for(predicate, timeout: float = 20.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, "condition not met in time"
        time.sleep(0.01)


@pytest.fixture
def large_from_30(monkeypatch):
    monkeypatch.setattr(model_heap, "FREEZE_FROM_BODIES", 30)
    monkeypatch.setattr(model_heap, "SETTLE_AFTER_OPEN", 0.0)
    monkeypatch.setattr(model_heap, "SETTLE_AFTER", 3600.0)  # no settle after the edit
    gc.collect()  # earlier tests' Qt garbage freed on this thread, not by a settle on the worker
    yield
    gc.unfreeze()


def _tracked(obj) -> bool:
    """Whether ``obj`` is in one of the collector's generations (not frozen)."""
    return any(o is obj for o in gc.get_objects())


def test_the_system_an_edit_builds_is_frozen_until_the_next_settle(large_from_30):
    gc.unfreeze()
    bodies = [rod_body(f"b{i}", "Ground" if i == 0 else f"b{i - 1}", 0.3, 1.0) for i in range(40)]
    doc = ModelDocument(ModelData("chain", bodies))
    session = SimulationSession(build(doc.data, True))
    session.start()
    try:
        wait_for(lambda: session._heap_frozen)
        first = weakref.ref(session.system)
        doc.add_body(rod_body("leaf", "b20", 0.3, 1.0))
        session.rebuild(ModelVersion(doc.data), "topology")
        # (published once the command is done)
        wait_for(lambda: len(session.latest().model.body_names) == 42)
        system, matter = session.system, session.matter
        assert not _tracked(system) and not _tracked(matter.getMobilizedBody(41))
        assert first() is not None  # (frozen too, until the settle)
        model_heap.settle()
        assert first() is None
        # a structural edit that cannot be built freezes nothing: its garbage is collectable
        frozen = gc.get_freeze_count()
        serial = session.latest().serial
        doc.add_body(rod_body("massless", "leaf", 0.3, 0.0))
        session.rebuild(ModelVersion(doc.data), "topology")
        wait_for(lambda: session.latest().serial > serial and session.latest().error)
        assert gc.get_freeze_count() <= frozen  # (frozen objects freed since leave it)
    finally:
        session.stop()
    assert gc.get_freeze_count() == 0
