"""Opening a large model never holds the GUI thread for all of its tree rows (issue 22: the
model tree of a 20,000-body chain was made in one go, a 2-3 s pause of the event loop): the
rows of a model of more than ``FILL_IN_STEPS_ABOVE`` bodies are made in short steps while the
event loop runs, end up as the rows made in one go, and an edit made while they are being made
(a body added with the tree's button) finds every row it needs."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QHBoxLayout, QWidget

from app.tree import tree_model
from tests.app.test_large_model_edits import _chain_document, _rows

N = 6000
MAX_GAP_S = 1.0  # the event loop's longest pause while the rows are made (steps of ~30 ms)


@pytest.fixture
def editor(qtbot):
    from app.tree.editor import ModelEditor

    editor = ModelEditor(None)
    editor.interactive = False
    window = QWidget()
    qtbot.addWidget(window)
    layout = QHBoxLayout(window)
    layout.addWidget(editor.tree)
    layout.addWidget(editor.properties)
    window.resize(900, 600)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    yield editor
    editor.shutdown()
    for menu in (editor.examples_menu, editor.recent_menu):  # (see test_large_model_edits)
        menu.deleteLater()
    editor.deleteLater()


class _Gaps:
    """The longest gap between ticks of a 5 ms timer, from ``start()``."""

    def __init__(self) -> None:
        self.timer = QTimer()
        self.timer.setInterval(5)
        self.timer.timeout.connect(self._tick)
        self.longest = 0.0

    def start(self) -> None:
        self.last = time.perf_counter()
        self.timer.start()

    def _tick(self) -> None:
        now = time.perf_counter()
        self.longest = max(self.longest, now - self.last)
        self.last = now


def _made_in_one_go(document, monkeypatch):
    monkeypatch.setattr(tree_model, "FILL_IN_STEPS_ABOVE", 10**9)
    model = tree_model.ModelTreeModel(document)
    rows = _rows(model)
    model.detach()
    monkeypatch.undo()
    return rows


@pytest.mark.gui
def test_a_large_model_s_rows_are_made_in_steps_while_the_event_loop_runs(
    editor, qtbot, monkeypatch
):
    document = _chain_document(N)
    model = editor.tree.model
    editor.set_document(document, None, simulate=False)
    ground = model._body_items["Ground"]  # noqa: SLF001
    assert model.filling() and ground.rowCount() == tree_model.FIRST_ROWS
    gaps = _Gaps()
    gaps.start()
    qtbot.waitUntil(lambda: not model.filling(), timeout=60000)
    gaps.timer.stop()
    assert gaps.longest < MAX_GAP_S, f"the event loop paused {gaps.longest:.2f} s"
    assert ground.rowCount() == N
    assert _rows(model) == _made_in_one_go(document, monkeypatch)
    assert editor.tree.view.isExpanded(ground.index())


@pytest.mark.gui
def test_a_body_added_while_the_rows_are_made_finds_every_row(editor, qtbot, monkeypatch):
    document = _chain_document(N)
    model, tree = editor.tree.model, editor.tree
    editor.set_document(document, None, simulate=False)
    assert model.filling()
    view = tree.view
    rect = view.visualRect(model.index_of("body:b3"))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: editor.properties.key == "body:b3", timeout=3000)
    qtbot.mouseClick(tree.add_body_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(document.bodies) == N + 1, timeout=5000)
    added = document.bodies[-1].name
    assert document.body(added).parent == "b3"
    assert not model.filling()
    assert model._body_items["Ground"].rowCount() == N + 1  # noqa: SLF001
    assert _rows(model) == _made_in_one_go(document, monkeypatch)
