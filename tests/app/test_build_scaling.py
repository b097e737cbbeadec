"""Reading, building and editing a chain cost O(n) (issue 22: a 20,000-body chain took 29 s
to load and minutes per edit, quadratic costs). Four times the bodies may cost at most about
four times as much: the ratio of the CPU seconds at 1,200 and 300 bodies (best of three,
this thread's CPU time, garbage collector off) stays well under the 16 of a quadratic cost."""

from __future__ import annotations

import gc
import json
import time

import pytest

from app.document import model_io
from app.document.examples import example_path
from app.simulation import collection

SMALL, LARGE = 300, 1200
#: linear is 4; quadratic would be 16
MAX_RATIO = 7.0


def _chain_text(n: int) -> str:
    data = json.loads(example_path("chain50").read_text())
    model = data["model"]
    link = model["bodies"][1]
    model["bodies"] = [
        dict(link, name=f"b{i}", parent="Ground" if i == 0 else f"b{i - 1}") for i in range(n)
    ]
    return json.dumps(data)


def _cpu(fn, repeats: int = 3) -> float:
    best = float("inf")
    gc.collect()
    with collection.paused():
        for _ in range(repeats):
            start = time.thread_time()
            fn()
            best = min(best, time.thread_time() - start)
    return best


@pytest.fixture(scope="module")
def chains():
    return {n: _chain_text(n) for n in (SMALL, LARGE)}


def test_reading_and_building_a_chain_cost_o_n(chains):
    from app.document import build

    read = {n: _cpu(lambda t=text: model_io.loads(t)) for n, text in chains.items()}
    documents = {n: model_io.loads(text) for n, text in chains.items()}
    built = {n: _cpu(lambda d=doc: build(d)) for n, doc in documents.items()}
    assert read[LARGE] / read[SMALL] < MAX_RATIO, read
    assert built[LARGE] / built[SMALL] < MAX_RATIO, built


def test_an_in_place_edit_costs_o_n(chains):
    """A mass edit set on the live System (app.document.in_place): its realization is O(n)
    whole-array work; nothing per body is made again."""
    from app.document import build, in_place

    cost = {}
    for n, text in chains.items():
        document = model_io.loads(text)
        built = build(document)
        masses = iter([2.0, 3.0, 4.0, 5.0])

        def edit(document=document, built=built, masses=masses, n=n) -> None:
            old = document.data
            body = document.body(f"b{n // 2}")
            m = next(masses)  # (the inertia about Bo scales with the mass)
            inertia = tuple(m / body.mass * v for v in body.inertia)
            document.set_body(body.name, mass=m, inertia=inertia)
            in_place.apply(built, in_place.plan(old, document.data), document.data)

        cost[n] = _cpu(edit)
        assert built.mobilized_bodies[f"b{n // 2}"].getDefaultMassProperties().getMass() == 4.0
        assert built.data is not document.data and built.data.bodies == document.data.bodies
    assert cost[LARGE] / cost[SMALL] < MAX_RATIO, cost
