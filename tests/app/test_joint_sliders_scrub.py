"""The Joints panel while scrubbing the history of a long chain: the rows in view show the
scrubbed State at once, a row scrolled into view shows it as it appears, and every row shows
it once the scrubbing stops (driven by real clicks on the timeline and the scroll bar)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QStyle, QStyleOptionSlider

from app.document.examples import example_path
from app.main_window import MainWindow
from app.widgets.joint_sliders import quaternion_to_xyz_degrees

pytestmark = pytest.mark.gui


def _angles(snap, sliders, body: str):
    idx = [sliders._global_index[(body, k)] for k in range(4)]
    return quaternion_to_xyz_degrees([snap.q[i] for i in idx])


def _drag_scroll_bar_to_end(bar) -> None:
    """Drag the handle of the scroll bar ``bar`` to its end with the mouse."""
    assert bar.isVisible() and bar.maximum() > 0
    option = QStyleOptionSlider()
    bar.initStyleOption(option)
    handle = bar.style().subControlRect(
        QStyle.ComplexControl.CC_ScrollBar, option, QStyle.SubControl.SC_ScrollBarSlider, bar
    )
    QTest.mousePress(bar, Qt.MouseButton.LeftButton, pos=handle.center())
    QTest.mouseMove(bar, QPoint(handle.center().x(), bar.height() - 1))
    QTest.mouseRelease(
        bar, Qt.MouseButton.LeftButton, pos=QPoint(handle.center().x(), bar.height() - 1)
    )


def test_rows_show_the_scrubbed_state_in_view_on_scroll_and_after_a_pause(qtbot, qsettings):
    window = MainWindow(model_path=example_path("chain50"), settings=qsettings)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    panel, timeline = window.simulation, window.timeline.timeline
    try:
        qtbot.waitUntil(lambda: panel.snapshot is not None, timeout=30000)
        sliders = panel.sliders
        bodies = list(dict.fromkeys(body for body, _ in sliders.euler_rows))
        first, last = bodies[0], bodies[-1]
        assert len(bodies) == 50
        button = window.toolbar.widgetForAction(window.sim_actions["play"])
        QTest.mouseClick(button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: panel.snapshot.time > 0.3, timeout=30000)
        button = window.toolbar.widgetForAction(window.sim_actions["pause"])
        QTest.mouseClick(button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
        qtbot.waitUntil(lambda: timeline.end == panel.session.history_span()[1], timeout=5000)
        row_first = sliders.euler_rows[(first, 1)]
        row_last = sliders.euler_rows[(last, 1)]
        assert not row_first.visibleRegion().isEmpty() and row_last.visibleRegion().isEmpty()

        # Click the timeline at a third of the run: the first link's rows (in view) show
        # that State with the frame that shows it.
        x = round(timeline.x_of(timeline.start + (timeline.end - timeline.start) / 3))
        wanted = panel.session.recorded_time(timeline.time_at(x))
        shown = []
        panel.snapshot_shown.connect(
            lambda snap: (
                shown.append((snap.time, row_first.spin.value())) if snap.time == wanted else None
            )
        )
        QTest.mouseClick(timeline, Qt.MouseButton.LeftButton, pos=QPoint(x, timeline.height() // 2))
        qtbot.waitUntil(lambda: bool(shown), timeout=5000)
        expected = _angles(panel.snapshot, sliders, first)[1]
        assert shown[0][1] == pytest.approx(expected, abs=0.01)

        # Scroll the Joints panel to its end with clicks on the scroll bar: the last link's
        # rows show the State shown.
        _drag_scroll_bar_to_end(sliders._scroll.verticalScrollBar())
        qtbot.waitUntil(lambda: not row_last.visibleRegion().isEmpty(), timeout=3000)
        assert row_last.spin.value() == pytest.approx(
            _angles(panel.snapshot, sliders, last)[1], abs=0.01
        )
        # Another moment; once the scrubbing stops every row shows it, in view or not.
        x = round(timeline.x_of(timeline.start + 2 * (timeline.end - timeline.start) / 3))
        wanted = panel.session.recorded_time(timeline.time_at(x))
        QTest.mouseClick(timeline, Qt.MouseButton.LeftButton, pos=QPoint(x, timeline.height() // 2))
        qtbot.waitUntil(lambda: panel.snapshot.time == wanted, timeout=5000)
        snap = panel.snapshot
        for body in (first, bodies[25], last):
            for axis in range(3):
                row = sliders.euler_rows[(body, axis)]
                angle = _angles(snap, sliders, body)[axis]
                qtbot.waitUntil(lambda r=row, a=angle: abs(r.spin.value() - a) < 0.01, timeout=3000)
    finally:
        window.close()


def test_running_rows_out_of_view_are_set_as_they_come_into_view_and_all_at_the_pause(
    qtbot, qsettings
):
    """While the chain runs, the rows out of view are left alone (reformatting 150 rows nobody
    sees cost a quarter of the GUI thread running fast); scrolled into view they show the
    latest State, and the pause shows the paused State in every row."""
    window = MainWindow(model_path=example_path("chain50"), settings=qsettings)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    panel = window.simulation
    try:
        qtbot.waitUntil(lambda: panel.snapshot is not None, timeout=30000)
        sliders = panel.sliders
        bodies = list(dict.fromkeys(body for body, _ in sliders.euler_rows))
        first, middle, last = bodies[0], bodies[25], bodies[-1]
        row_last = sliders.euler_rows[(last, 2)]  # the chain swings in the x-y plane
        assert row_last.visibleRegion().isEmpty()
        start_last = row_last.spin.value()
        button = window.toolbar.widgetForAction(window.sim_actions["play"])
        QTest.mouseClick(button, Qt.MouseButton.LeftButton)
        # running: the row out of view is not touched while its angle changes
        qtbot.waitUntil(
            lambda: abs(_angles(panel.snapshot, sliders, last)[2] - start_last) > 1.0,
            timeout=30000,
        )
        qtbot.wait(600)  # longer than the paused panel's flush of rows out of view
        assert panel.snapshot.running and row_last.spin.value() == start_last

        _drag_scroll_bar_to_end(sliders._scroll.verticalScrollBar())
        qtbot.waitUntil(
            lambda: (
                not row_last.visibleRegion().isEmpty()
                and abs(row_last.spin.value() - _angles(sliders._snap, sliders, last)[2]) < 0.01
            ),
            timeout=5000,
        )
        assert row_last.spin.value() != start_last

        button = window.toolbar.widgetForAction(window.sim_actions["pause"])
        QTest.mouseClick(button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
        snap = panel.snapshot
        for body in (first, middle, last):  # in view or not
            for axis in range(3):
                row = sliders.euler_rows[(body, axis)]
                angle = _angles(snap, sliders, body)[axis]
                qtbot.waitUntil(lambda r=row, a=angle: abs(r.spin.value() - a) < 0.01, timeout=3000)
    finally:
        window.close()
