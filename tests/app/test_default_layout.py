"""The default window layout shows a newcomer enough of the model tree to find a body."""

from __future__ import annotations

import pytest

from app.document.examples import example_path
from app.main_window import MainWindow

pytestmark = pytest.mark.gui


def test_the_default_layout_shows_eight_bodies_of_the_model_tree(qtbot, qsettings):
    window = MainWindow(model_path=example_path("ragdoll"), settings=qsettings)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    try:
        tree = window.model_editor.tree
        view = tree.view
        qtbot.waitUntil(lambda: tree.model.index_of("body:pelvis").isValid(), timeout=10000)
        view.expandAll()
        row = view.sizeHintForRow(0)
        assert row > 0
        # ragdoll: Ground, then bodies; the eighth row from the top is drawn inside the view
        index = view.indexBelow(view.model().index(0, 0))
        for _ in range(7):
            index = view.indexBelow(index)
        assert index.isValid()
        rect = view.visualRect(index)
        assert view.viewport().rect().contains(rect), (rect, view.viewport().rect())
    finally:
        window.close()
