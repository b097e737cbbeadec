"""The stage inspector's version numbers stay readable after long runs: shown compactly
(1.2k, 12k, .1M, 12M) so they fit the table's narrow columns; the tooltip has the exact one."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QFontMetrics

from app.main_window import MainWindow
from app.widgets.stage_inspector import compact_version
from tests.app.sim_models import chain

pytestmark = pytest.mark.gui


def test_compact_versions_are_at_most_four_characters():
    values = (0, 999, 1000, 1299, 9999, 12345, 99_999, 100_000, 999_999, 1_234_567, 99_999_999)
    assert [compact_version(v) for v in values] == [
        "0",
        "999",
        "1.0k",
        "1.2k",
        "9.9k",
        "12k",
        "99k",
        ".1M",
        ".9M",
        "1M",
        "99M",
    ]
    assert all(len(compact_version(10**k - 1)) <= 4 for k in range(1, 13))


def _shown_chain(qtbot, qsettings) -> MainWindow:
    """A shown window simulating a one-link chain, its first snapshot shown."""
    window = MainWindow(settings=qsettings, restore_layout=False)
    qtbot.addWidget(window)
    window.resize(1280, 900)
    window.show()
    qtbot.waitExposed(window)
    window.simulation.load_built(chain(1))
    qtbot.waitUntil(lambda: window.simulation.snapshot is not None, timeout=10000)
    return window


def test_long_run_versions_fit_the_stage_table_columns(qtbot, qsettings):
    window = _shown_chain(qtbot, qsettings)
    panel = window.simulation
    table = panel.stage_inspector.table
    qtbot.waitUntil(lambda: table.item(0, 0) is not None, timeout=5000)
    metrics = QFontMetrics(table.font())
    widest = max(
        metrics.horizontalAdvance(compact_version(v))
        for v in (8888, 88_888, 888_888, 88_888_888, 888_888_888, 88_888_888_888)
    )
    for col in range(table.columnCount()):
        assert widest + 6 <= table.columnWidth(col), (col, table.columnWidth(col), widest)
    window.close()


def test_versions_fit_with_the_contact_subsystems_rows(qtbot, qsettings):
    """A model with contact has two more rows (the tracker and the compliant contact
    subsystem); their labels stay short, so the version columns keep their width."""
    from pathlib import Path

    model = Path(__file__).resolve().parents[2] / "resources/examples/bouncing_balls.mbs.json"
    window = MainWindow(model_path=model, settings=qsettings, restore_layout=False)
    qtbot.addWidget(window)
    window.resize(1280, 1000)
    window.show()
    qtbot.waitExposed(window)
    panel = window.simulation
    qtbot.waitUntil(lambda: panel.snapshot is not None, timeout=60000)
    table = panel.stage_inspector.table
    qtbot.waitUntil(lambda: table.rowCount() >= 7, timeout=5000)
    labels = [table.verticalHeaderItem(r).text() for r in range(table.rowCount())]
    assert "Tracker" in labels and "Contact" in labels, labels
    metrics = QFontMetrics(table.font())
    widest = max(metrics.horizontalAdvance(compact_version(v)) for v in (888, 8888, 88_888_888))
    for col in range(table.columnCount()):
        assert widest + 6 <= table.columnWidth(col), (col, table.columnWidth(col), widest)
    assert not table.horizontalScrollBar().isVisible()
    window.model_editor.undo_stack.setClean()
    window.close()


def test_hovering_a_stage_cell_shows_its_exact_version(qtbot, qsettings):
    """The tooltip of a cell is written when the pointer rests on it (a ToolTip event at the
    cell's pixel): the stage, realized or not, and the exact version."""
    from PySide6.QtCore import QEvent, QPoint
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QApplication, QToolTip

    window = _shown_chain(qtbot, qsettings)
    panel = window.simulation
    table = panel.stage_inspector.table
    qtbot.waitUntil(lambda: table.item(0, 5) is not None and bool(table.item(0, 5).text()))
    stage, realized, version, *_ = panel.stage_inspector._cells[(0, 5)][2]
    rect = table.visualItemRect(table.item(0, 5))
    viewport = table.viewport()
    event = QHelpEvent(QEvent.Type.ToolTip, rect.center(), viewport.mapToGlobal(rect.center()))
    QApplication.sendEvent(viewport, event)
    qtbot.waitUntil(QToolTip.isVisible, timeout=3000)
    text = QToolTip.text()
    assert text.startswith(f"{stage.getName()}: ") and f"version {version}" in text
    assert ("not realized" in text) == (not realized)
    # the pointer over no cell gives the table's own explanation
    QToolTip.hideText()
    below = QPoint(5, viewport.height() - 3)
    QApplication.sendEvent(
        viewport, QHelpEvent(QEvent.Type.ToolTip, below, viewport.mapToGlobal(below))
    )
    qtbot.waitUntil(QToolTip.isVisible, timeout=3000)
    assert QToolTip.text().startswith("Version number of each stage")
    window.close()
