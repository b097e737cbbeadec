"""A model file is decoded in pieces (issue 22: the standard JSON decoder read a 20,000-body file
in one call that held the interpreter a third of a second, every other thread, the GUI's too,
waiting although the file is read off the GUI thread). The pieces give exactly what
``json.loads`` gives, malformed text is refused with ``json.loads``'s own words, and another
thread keeps running while a large file is decoded."""

from __future__ import annotations

import json
import sys
import threading
import time

import pytest

from app.document import model_io
from app.document.examples import EXAMPLES_DIR
from app.simulation import collection

MALFORMED = [
    "",
    " ",
    "{",
    '{"a":1,}',
    '{"a" 1}',
    "[1,2",
    '{"a":[1,2]} x',
    '{"model":{"bodies":[{"x":1},]}}',
    '{"model":{"bodies":[{"x":1} {"y":2}]}}',
    '{"model":{"bodies":[{"x":"\\ud800 \x01"}]}}',
    "{1:2}",
    "\ufeff{}",
]
WELL_FORMED = [
    "NaN",
    '"text"',
    '{"a":NaN, "b": Infinity, "c": 1e999, "d": -0, "e": ' + "9" * 500 + "}",
    "[[[[[[[[1]]]]]]]]",
    '{"a":1,"a":2, "b": {"a": [1, {"c": 3}], "a": true}}',
    '{"model": {"bodies": [ ] , "x" : { } } }\n',
    ' {"model": {"bodies": [{"name": "b", "mass": 1}, {"name": "c", "mass": 2}]}} ',
]


def _standard(text: str):
    return json.loads(text, parse_int=model_io._parse_int)  # noqa: SLF001


def _outcome(decode, text: str):
    try:
        return ("value", json.dumps(decode(text)))
    except ValueError as exc:
        return (type(exc).__name__, str(exc))


@pytest.mark.parametrize("text", MALFORMED + WELL_FORMED)
def test_pieces_decode_as_the_standard_decoder(text):
    assert _outcome(model_io._decode, text) == _outcome(_standard, text)  # noqa: SLF001


def _chain_text(n: int) -> str:
    data = json.loads((EXAMPLES_DIR / "chain50.mbs.json").read_text())
    link = data["model"]["bodies"][1]
    data["model"]["bodies"] = [
        dict(link, name=f"b{i}", parent="Ground" if i == 0 else f"b{i - 1}") for i in range(n)
    ]
    return json.dumps(data, indent=1)


def test_examples_and_a_large_chain_decode_as_the_standard_decoder():
    for path in sorted(EXAMPLES_DIR.glob("*.mbs.json")):
        text = path.read_text()
        assert model_io._decode(text) == _standard(text), path.name  # noqa: SLF001
    text = _chain_text(300)
    assert model_io._decode(text) == _standard(text)  # noqa: SLF001
    assert len(model_io.loads(text).bodies) == 300


def _longest_wait_while(work) -> float:
    """The longest this thread waited between two turns of a loop while ``work`` ran in
    another thread (seconds)."""
    worker = threading.Thread(target=work)
    longest = 0.0
    last = time.perf_counter()
    worker.start()
    while worker.is_alive():
        now = time.perf_counter()
        longest = max(longest, now - last)
        last = now
    worker.join()
    return longest


def test_another_thread_runs_while_a_large_file_is_decoded():
    text = _chain_text(4000)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.001)
    try:
        with collection.paused():  # (as the studio reads a file: see background_load)
            ratios = []
            for _ in range(3):  # (a loaded machine may stop this thread now and then)
                start = time.perf_counter()
                _standard(text)
                whole = time.perf_counter() - start  # one call: the interpreter held throughout
                wait = _longest_wait_while(lambda: model_io._decode(text))  # noqa: SLF001
                ratios.append(wait / whole)
                if ratios[-1] < 0.5:
                    break
    finally:
        sys.setswitchinterval(interval)
    assert min(ratios) < 0.5, f"longest wait / whole decode: {ratios}"
