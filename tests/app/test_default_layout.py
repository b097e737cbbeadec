"""The default window layout shows a newcomer enough of the model tree to find a body."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

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


def test_a_body_added_below_the_deepest_one_shows_its_whole_name(qtbot, qsettings):
    """Add body under double_pendulum's lower body (one level deeper than any row when the
    name column was fitted) and rename it to a long name: both rows' names fit the column."""
    window = MainWindow(model_path=example_path("double_pendulum"), settings=qsettings)
    window.model_editor.interactive = False  # closing an edited model asks nothing
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    try:
        tree = window.model_editor.tree
        view = tree.view
        qtbot.waitUntil(lambda: tree.model.index_of("body:lower").isValid(), timeout=10000)
        index = tree.model.index_of("body:lower")
        qtbot.mouseClick(
            view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(index).center()
        )
        qtbot.waitUntil(lambda: tree.selected_bodies() == ["lower"], timeout=5000)
        qtbot.mouseClick(tree.add_body_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: tree.model.index_of("body:body").isValid(), timeout=5000)

        def name_fits(name: str) -> bool:
            index = tree.model.index_of(f"body:{name}")
            text = view.fontMetrics().horizontalAdvance(name)
            rect = view.visualRect(index)
            return rect.isValid() and rect.width() >= text

        qtbot.waitUntil(lambda: name_fits("body"), timeout=5000)
        index = tree.model.index_of("body:body")
        view.scrollTo(index)
        view.edit(index)  # what double-click or F2 starts
        editor = view.indexWidget(index) or QApplication.focusWidget()
        qtbot.keyClick(editor, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        qtbot.keyClicks(editor, "forearm_with_a_long_name")
        qtbot.keyClick(editor, Qt.Key.Key_Return)
        qtbot.waitUntil(
            lambda: tree.model.index_of("body:forearm_with_a_long_name").isValid(), timeout=5000
        )
        qtbot.waitUntil(lambda: name_fits("forearm_with_a_long_name"), timeout=5000)
    finally:
        window.close()
