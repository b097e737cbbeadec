"""The timeline under the 3-D view, driven by real mouse and key input: scrubbing shows the
recorded State, arrow keys step one report, B bookmarks, and the recording saves."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from app.document.examples import example_path
from app.history import load_recording
from app.main_window import MainWindow

pytestmark = pytest.mark.gui


@pytest.fixture
def window(qtbot, qsettings):
    w = MainWindow(model_path=example_path("double_pendulum"), settings=qsettings)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    qtbot.waitUntil(lambda: w.simulation.snapshot is not None, timeout=10000)
    yield w
    w.close()


def _click_action(window, key: str) -> None:
    button = window.toolbar.widgetForAction(window.sim_actions[key])
    QTest.mouseClick(button, Qt.MouseButton.LeftButton)


def test_scrub_step_and_bookmark_with_mouse_and_keys(window, qtbot, tmp_path):
    panel, timeline = window.simulation, window.timeline.timeline
    _click_action(window, "play")
    qtbot.waitUntil(lambda: panel.snapshot.time > 0.6, timeout=15000)
    _click_action(window, "pause")
    qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
    session = panel.session
    start, end, count = session.history_span()
    assert start == 0.0 and end >= 0.6 and count > 30
    qtbot.waitUntil(lambda: timeline.end == end, timeout=3000)
    assert window.timeline.history_label.text() == f"history {end:.1f} s"

    # Drag the cursor to a quarter of the span: that recorded State becomes the shown one.
    y = timeline.height() // 2
    QTest.mousePress(timeline, Qt.MouseButton.LeftButton, pos=QPoint(timeline.width() // 2, y))
    x = round(timeline.x_of(start + 0.25 * (end - start)))
    QTest.mouseMove(timeline, QPoint(x, y))
    QTest.mouseRelease(timeline, Qt.MouseButton.LeftButton, pos=QPoint(x, y))
    wanted = session.recorded_time(timeline.time_at(x))
    records = {r.t: r for r in session.history_records()}
    qtbot.waitUntil(lambda: panel.snapshot.time == wanted, timeout=5000)
    assert np.array_equal(panel.snapshot.q, records[wanted].q)
    assert panel.snapshot.status.startswith("Showing the recorded State")
    assert session.history_span()[1] == end  # looking back keeps the future

    # Right arrow: the next recorded State; B: a bookmark there.
    QTest.keyClick(timeline, Qt.Key.Key_Right)
    following = min(t for t in records if t > wanted)
    qtbot.waitUntil(lambda: panel.snapshot.time == following, timeout=5000)
    assert np.array_equal(panel.snapshot.q, records[following].q)
    QTest.keyClick(timeline, Qt.Key.Key_B)
    assert window.timeline.bookmarks == [(following, "Bookmark 1")]

    # Play goes on from the shown State.
    _click_action(window, "play")
    qtbot.waitUntil(lambda: panel.snapshot.time > following + 0.05, timeout=10000)
    _click_action(window, "pause")
    qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)

    path = tmp_path / "run.npz"
    window.timeline.save_recording(path)
    saved = load_recording(path)
    assert saved.bookmarks == [(following, "Bookmark 1")]
    assert saved.records[0].t == 0.0 and len(saved.records) == session.history_span()[2]
