"""The thread that owns cyclic garbage collection (app.simulation.collection): no other
thread collects, the owner's ticks run the generations due, handed work runs on the owner,
and pauses nest across threads."""

from __future__ import annotations

import gc
import threading

import pytest

from app.simulation import collection


class _Cycle:
    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def collecting_threads():
    """The names of the threads each collection started on, while the test runs."""
    names: list[str] = []

    def record(phase: str, info: dict) -> None:
        if phase == "start":
            names.append(threading.current_thread().name)

    gc.collect()
    gc.callbacks.append(record)
    yield names
    gc.callbacks.remove(record)


@pytest.fixture
def owned():
    """The test's thread owns collection until the test ends."""
    enabled = gc.isenabled()
    collection.own()
    yield
    collection.disown()
    assert gc.isenabled() == enabled


def _make_garbage(count: int) -> None:
    for _ in range(count):
        _Cycle()


def test_no_other_thread_collects_while_a_thread_owns_collection(owned, collecting_threads):
    worker = threading.Thread(target=_make_garbage, args=(50_000,), name="garbage-maker")
    worker.start()
    worker.join()
    assert "garbage-maker" not in collecting_threads
    assert gc.get_count()[0] > gc.get_threshold()[0]  # a collection is due...
    collection.tick()  # ...and the owner's tick runs it
    assert collecting_threads == [threading.current_thread().name]
    assert gc.get_count()[0] < gc.get_threshold()[0]


def test_without_an_owner_the_allocating_thread_collects(collecting_threads):
    assert collection.owner() is None and gc.isenabled()
    worker = threading.Thread(target=_make_garbage, args=(50_000,), name="garbage-maker")
    worker.start()
    worker.join()
    assert "garbage-maker" in collecting_threads


def test_ticks_collect_the_older_generations_as_their_thresholds_fall_due(owned):
    threshold0, threshold1, _ = gc.get_threshold()
    before = list(collection.collections)
    for _ in range(threshold1 + 1):
        _make_garbage(threshold0 + 10)
        collection.tick()
    done = [after - b for after, b in zip(collection.collections, before, strict=True)]
    assert done[0] == threshold1 and done[1] + done[2] == 1


def test_a_full_collection_waits_for_a_quarter_more_long_lived_objects(owned):
    gc.collect()
    long_lived = len(gc.get_objects(2))  # what the full collection left in the oldest
    threshold0, threshold1, threshold2 = gc.get_threshold()
    full = collection.collections[2]
    for _ in range((threshold1 + 1) * (threshold2 + 2)):  # garbage only: nothing survives
        _make_garbage(threshold0 + 10)
        collection.tick()
    assert gc.get_count()[2] > threshold2  # due by count alone, not by CPython's rule
    assert collection.collections[2] == full
    kept: list[list] = []
    batch = threshold0 + 10
    while collection.collections[2] == full:  # survivors: a quarter more comes due
        kept.extend([] for _ in range(batch))
        collection.tick()
        assert len(kept) < long_lived + 20 * batch, "no full collection came due"
    # (survivors are counted at each middle-generation collection, every threshold1 + 1
    # ticks; the full one comes at the first of them due after the quarter is passed)
    assert long_lived // 8 <= len(kept) <= long_lived // 4 + 2 * (threshold1 + 1) * batch


def test_work_handed_over_by_another_thread_runs_at_the_owners_tick(owned):
    ran_on: list[str] = []
    results: list[bool] = []
    worker = threading.Thread(
        target=lambda: results.append(
            collection.run_on_owner(lambda: ran_on.append(threading.current_thread().name))
        ),
        name="hander",
    )
    worker.start()
    worker.join()
    assert results == [False] and ran_on == []
    collection.tick()
    assert ran_on == [threading.current_thread().name]
    assert collection.run_on_owner(lambda: ran_on.append("now")) is True
    assert ran_on[-1] == "now"


def test_overlapping_pauses_on_two_threads_leave_the_collector_as_it_was():
    assert gc.isenabled()
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()

    def first() -> None:
        with collection.paused():
            first_in.set()
            second_in.wait(5)
        first_out.set()

    thread = threading.Thread(target=first)
    thread.start()
    first_in.wait(5)
    with collection.paused():
        second_in.set()
        first_out.wait(5)
        assert not gc.isenabled() and collection.is_paused()  # the second pause still holds
    thread.join()
    assert gc.isenabled() and not collection.is_paused()


def test_a_paused_owner_collects_nothing_until_the_pause_ends(owned, collecting_threads):
    with collection.paused():
        _make_garbage(50_000)
        collection.tick()
        assert collecting_threads == []
    collection.tick()
    assert len(collecting_threads) == 1


def test_a_settle_asked_for_by_the_worker_collects_on_the_owner(owned, collecting_threads):
    from app.simulation import model_heap

    model_heap.expect_garbage()  # (a large model was dropped: the settle collects)
    results: list[int] = []
    worker = threading.Thread(
        target=lambda: results.append(model_heap.settle()), name="simulation-worker"
    )
    try:
        worker.start()
        worker.join()
        assert results == [1] and collecting_threads == []
        collection.tick()
        assert collecting_threads == [threading.current_thread().name]
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
