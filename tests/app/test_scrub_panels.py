"""What the panels beside the 3-D view do while the user scrubs the timeline: a cache
inspector behind another dock's tab is left alone, and shows the scrubbed State as soon as
its tab is clicked (real clicks on the timeline and the tab bar)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QTabBar

from app.document.examples import example_path
from app.main_window import MainWindow

pytestmark = pytest.mark.gui


def _tab(window, text: str) -> tuple[QTabBar, int]:
    for bar in window.findChildren(QTabBar):
        for i in range(bar.count()):
            if bar.tabText(i) == text and bar.isVisible():
                return bar, i
    raise AssertionError(f"no tab {text!r}")


def test_a_cache_inspector_behind_a_tab_waits_and_shows_the_scrubbed_state_when_clicked(
    qtbot, qsettings
):
    window = MainWindow(model_path=example_path("double_pendulum"), settings=qsettings)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    panel, timeline = window.simulation, window.timeline.timeline
    try:
        qtbot.waitUntil(lambda: panel.snapshot is not None, timeout=10000)
        play = window.toolbar.widgetForAction(window.sim_actions["play"])
        QTest.mouseClick(play, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: panel.snapshot.time > 0.4, timeout=15000)
        pause = window.toolbar.widgetForAction(window.sim_actions["pause"])
        QTest.mouseClick(pause, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
        qtbot.waitUntil(lambda: timeline.end == panel.session.history_span()[1], timeout=5000)
        inspector = panel.cache_inspector
        assert inspector.visibleRegion().isEmpty()  # the stage inspector's tab is in front
        updates = inspector.updates
        y = timeline.height() // 2
        for fraction in (0.2, 0.5, 0.8):
            x = round(timeline.x_of(timeline.start + fraction * (timeline.end - timeline.start)))
            wanted = panel.session.recorded_time(timeline.time_at(x))
            QTest.mouseClick(timeline, Qt.MouseButton.LeftButton, pos=QPoint(x, y))
            qtbot.waitUntil(lambda w=wanted: panel.snapshot.time == w, timeout=5000)
        assert inspector.updates == updates  # nobody sees it: not refreshed
        bar, index = _tab(window, "Cache inspector")
        QTest.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(index).center())
        qtbot.waitUntil(lambda: not inspector.visibleRegion().isEmpty(), timeout=3000)
        qtbot.waitUntil(
            lambda: inspector.header.text().startswith(f"t = {wanted:.6g} "), timeout=5000
        )
        # In front, it follows each scrub.
        x = round(timeline.x_of(timeline.start + 0.35 * (timeline.end - timeline.start)))
        wanted = panel.session.recorded_time(timeline.time_at(x))
        QTest.mouseClick(timeline, Qt.MouseButton.LeftButton, pos=QPoint(x, y))
        qtbot.waitUntil(
            lambda: inspector.header.text().startswith(f"t = {wanted:.6g} "), timeout=5000
        )
    finally:
        window.close()


def _compare_two_moments(window, qtbot) -> None:
    """Bookmark two moments by clicks and B presses, and compare them in the State diff."""
    panel, timeline = window.simulation, window.timeline.timeline
    view = window.timeline.diff_view
    play = window.toolbar.widgetForAction(window.sim_actions["play"])
    QTest.mouseClick(play, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.snapshot.time > 0.3, timeout=15000)
    pause = window.toolbar.widgetForAction(window.sim_actions["pause"])
    QTest.mouseClick(pause, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
    qtbot.waitUntil(lambda: timeline.end == panel.session.history_span()[1], timeout=5000)
    y = timeline.height() // 2
    for fraction in (0.2, 0.8):
        x = round(timeline.x_of(timeline.start + fraction * (timeline.end - timeline.start)))
        wanted = panel.session.recorded_time(timeline.time_at(x))
        QTest.mouseClick(timeline, Qt.MouseButton.LeftButton, pos=QPoint(x, y))
        qtbot.waitUntil(lambda w=wanted: panel.snapshot.time == w, timeout=5000)
        QTest.keyClick(timeline, Qt.Key.Key_B)
    bar, index = _tab(window, "State diff")
    QTest.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(index).center())
    qtbot.waitUntil(lambda: view.moment_b.count() >= 3, timeout=3000)
    view.moment_a.setFocus()
    QTest.keyClick(view.moment_a, Qt.Key.Key_Home)
    QTest.keyClick(view.moment_a, Qt.Key.Key_Down)  # Bookmark 1
    view.moment_b.setFocus()
    QTest.keyClick(view.moment_b, Qt.Key.Key_End)  # Bookmark 2
    QTest.mouseClick(view.compare_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.table.rowCount() > 5, timeout=10000)


def test_the_state_diff_of_a_closed_model_is_cleared_and_a_new_one_shows(qtbot, qsettings):
    window = MainWindow(model_path=example_path("double_pendulum"), settings=qsettings)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.model_editor.interactive = False
    view = window.timeline.diff_view
    try:
        qtbot.waitUntil(lambda: window.simulation.snapshot is not None, timeout=10000)
        _compare_two_moments(window, qtbot)
        names = {view.table.item(i, 0).text() for i in range(view.table.rowCount())}
        assert "lower.q0" in names
        # Another model: the rows of the double pendulum go; comparing in it works.
        assert window.model_editor.open_path(example_path("pendulum"), modal=False)
        qtbot.waitUntil(lambda: view.table.rowCount() == 0, timeout=10000)
        qtbot.waitUntil(lambda: window.timeline.bookmarks == [], timeout=5000)
        _compare_two_moments(window, qtbot)
        names = {view.table.item(i, 0).text() for i in range(view.table.rowCount())}
        assert "lower.q0" not in names and any(n.endswith(".q0") for n in names)
    finally:
        window.close()
