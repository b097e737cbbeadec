"""The default window layout shows a newcomer enough of the model tree to find a body."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

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


def test_a_long_chain_is_listed_without_running_off_the_model_dock(qtbot, qsettings):
    window = MainWindow(model_path=example_path("chain50"), settings=qsettings)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    try:
        tree = window.model_editor.tree
        qtbot.waitUntil(lambda: tree.model.index_of("body:link50").isValid(), timeout=10000)
        view = tree.view
        index = tree.model.index_of("body:link50")
        view.scrollTo(index)
        rect = view.visualRect(index)
        # the deepest link's name starts inside the dock, where a click selects it
        assert 0 <= rect.left() < view.viewport().width() // 2, rect
        assert not view.horizontalScrollBar().isVisible()
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
        qtbot.waitUntil(lambda: tree.selected_bodies() == ["link50"], timeout=5000)
    finally:
        window.close()
