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
