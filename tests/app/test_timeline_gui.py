"""The timeline under the 3-D view, driven by real mouse and key input: scrubbing shows the
recorded State, arrow keys step one report, B bookmarks, and the recording saves."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLineEdit

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
    # The stage inspector says which State it shows and that restoring it was the last edit.
    inspector = panel.stage_inspector
    assert inspector.summary.text().endswith(f"(t = {following:.6g})")
    assert f"restored the recorded State at t = {following:.4g}" in inspector.cascade_label.text()
    QTest.keyClick(timeline, Qt.Key.Key_B)
    assert window.timeline.bookmarks == [(following, "Bookmark 1")]

    # Play goes on from the shown State.
    _click_action(window, "play")
    qtbot.waitUntil(lambda: panel.snapshot.time > following + 0.05, timeout=10000)
    _click_action(window, "pause")
    qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
    # The plots drew the new future in place of the old one: time only goes forward.
    panel.plots.refresh()
    t, _ = panel.plots.plotted_data("total energy")
    assert len(t) > 10 and np.all(np.diff(t) > 0) and t[-1] < end

    path = tmp_path / "run.npz"
    window.timeline.save_recording(path)
    saved = load_recording(path)
    assert saved.bookmarks == [(following, "Bookmark 1")]
    assert saved.records[0].t == 0.0 and len(saved.records) == session.history_span()[2]


def test_state_diff_dock_compares_two_bookmarks_chosen_with_keyboard_and_mouse(window, qtbot):
    panel, timeline = window.simulation, window.timeline.timeline
    view = window.timeline.diff_view
    _click_action(window, "play")
    qtbot.waitUntil(lambda: panel.snapshot.time > 0.4, timeout=15000)
    _click_action(window, "pause")
    qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
    y = timeline.height() // 2
    marks = []
    for fraction in (0.2, 0.8):
        qtbot.waitUntil(lambda: timeline.end > timeline.start, timeout=3000)
        x = round(timeline.x_of(timeline.start + fraction * (timeline.end - timeline.start)))
        wanted = panel.session.recorded_time(timeline.time_at(x))
        QTest.mouseClick(timeline, Qt.MouseButton.LeftButton, pos=QPoint(x, y))
        qtbot.waitUntil(lambda w=wanted: panel.snapshot.time == w, timeout=5000)
        QTest.keyClick(timeline, Qt.Key.Key_B)
        marks.append(wanted)
    window.docks["State diff"].raise_()
    qtbot.waitUntil(lambda: view.moment_a.count() == 3, timeout=3000)
    view.moment_a.setFocus()
    QTest.keyClick(view.moment_a, Qt.Key.Key_Home)
    QTest.keyClick(view.moment_a, Qt.Key.Key_Down)  # Bookmark 1
    view.moment_b.setFocus()
    QTest.keyClick(view.moment_b, Qt.Key.Key_End)  # Bookmark 2
    assert view.moment_a.currentText().startswith("Bookmark 1")
    assert view.moment_b.currentText().startswith("Bookmark 2")
    QTest.mouseClick(view.compare_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.table.rowCount() > 10, timeout=10000)
    names = [view.table.item(i, 0).text() for i in range(view.table.rowCount())]
    assert "t" in names and "kinetic energy" in names
    assert view.table.horizontalHeaderItem(2).text() == f"A (t = {marks[0]:.4g})"
    # Keep only the derived quantities.
    view.group_box.setFocus()
    index = view.group_box.findText("derived")
    while view.group_box.currentIndex() != index:
        QTest.keyClick(view.group_box, Qt.Key.Key_Down)
    groups = {view.table.item(i, 4).text() for i in range(view.table.rowCount())}
    assert view.table.horizontalHeaderItem(1).text() == "B − A"  # beside the name
    assert groups == {"derived"} and view.table.rowCount() < len(names)


def test_replay_buttons_play_the_recording_forward_and_backward(window, qtbot):
    panel, timeline = window.simulation, window.timeline.timeline
    bar = window.timeline
    _click_action(window, "play")
    qtbot.waitUntil(lambda: panel.snapshot.time > 0.5, timeout=15000)
    _click_action(window, "pause")
    qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
    start, end, _ = panel.session.history_span()
    QTest.mouseClick(timeline, Qt.MouseButton.LeftButton, pos=QPoint(2, timeline.height() // 2))
    qtbot.waitUntil(lambda: panel.snapshot.time == start, timeout=5000)
    bar.replay_speed.setValue(1.0)
    seen = []
    panel.snapshot_shown.connect(lambda snap: seen.append(snap.time))
    QTest.mouseClick(bar.forward_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not bar.forward_button.isChecked(), timeout=10000)
    qtbot.waitUntil(lambda: panel.snapshot.time == end, timeout=5000)
    assert len(seen) >= 3 and seen == sorted(seen)  # shown in order, not a jump
    assert not panel.snapshot.running  # replaying does not run the simulation
    QTest.mouseClick(bar.reverse_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not bar.reverse_button.isChecked(), timeout=10000)
    qtbot.waitUntil(lambda: panel.snapshot.time == start, timeout=5000)


def _bare_window(qtbot, qsettings):
    window = MainWindow(settings=qsettings, restore_layout=False)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return window


def test_a_failed_projection_is_explained_and_its_remedy_is_one_click_away(qtbot, qsettings):
    from tests.app.sim_models import chain

    window = _bare_window(qtbot, qsettings)
    panel, explainer = window.simulation, window.timeline.explainer
    try:
        # A Rod 3 m long where the ball can be at most 2 m from its other end.
        panel.load_built(chain(1, q0=0.5, rod_length=3.0))
        qtbot.waitUntil(lambda: panel.snapshot is not None, timeout=10000)
        _click_action(window, "play")
        qtbot.waitUntil(explainer.isVisible, timeout=10000)
        assert explainer.title.text() == "The constraints cannot be satisfied"
        assert "Rod" in explainer.text.text() and "length" in explainer.text.text()
        assert "project" in explainer.details.text() and not explainer.details.isVisible()
        QTest.mouseClick(explainer.details_button, Qt.MouseButton.LeftButton)
        assert explainer.details.isVisible()
        QTest.mouseClick(explainer.buttons["assemble"], Qt.MouseButton.LeftButton)
        # No pose fits this Rod: the assembly fails too, and says so in plain words.
        qtbot.waitUntil(
            lambda: (
                explainer.isVisible() and explainer.title.text() == "The model cannot be assembled"
            ),
            timeout=10000,
        )
        assert len(window.timeline.timeline.marks) == 2  # both failures on the timeline
    finally:
        window.close()


def test_go_back_after_a_failed_step_shows_the_last_good_state(qtbot, qsettings):
    from tests.app.sim_models import chain

    window = _bare_window(qtbot, qsettings)
    panel, explainer = window.simulation, window.timeline.explainer
    try:
        panel.load_built(chain(1, q0=0.5, fail_after=0.3))
        qtbot.waitUntil(lambda: panel.snapshot is not None, timeout=10000)
        _click_action(window, "play")
        qtbot.waitUntil(explainer.isVisible, timeout=15000)
        failed_at = window.timeline.timeline.marks[-1][0]
        assert 0.25 < failed_at <= 0.31
        QTest.mouseClick(explainer.buttons["go_back"], Qt.MouseButton.LeftButton)
        qtbot.waitUntil(
            lambda: panel.snapshot.status.startswith("Showing the recorded State"), timeout=5000
        )
        assert panel.snapshot.time < failed_at and not explainer.isVisible()
    finally:
        window.close()


def test_a_saved_recording_opens_again_with_its_states_and_bookmarks(window, qtbot, tmp_path):
    panel, timeline = window.simulation, window.timeline.timeline
    _click_action(window, "play")
    qtbot.waitUntil(lambda: panel.snapshot.time > 0.4, timeout=15000)
    _click_action(window, "pause")
    qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
    QTest.keyClick(timeline, Qt.Key.Key_B)
    path = tmp_path / "run.npz"
    window.timeline.save_recording(path)
    saved = load_recording(path)

    assert window.model_editor.open_path(example_path("pendulum"), modal=False)  # another model
    qtbot.waitUntil(lambda: len(panel.snapshot.q) == 1, timeout=10000)
    assert window.model_editor.open_path(path, modal=False)
    qtbot.waitUntil(lambda: panel.session.history_span()[2] == len(saved.records), timeout=10000)
    qtbot.waitUntil(lambda: panel.snapshot.time == saved.records[0].t, timeout=5000)
    assert window.timeline.bookmarks == saved.bookmarks
    qtbot.waitUntil(lambda: timeline.bookmarks == saved.bookmarks, timeout=5000)
    # The plots show the recorded curves again.
    energy = saved.sample_columns.index("total energy")
    assert len(saved.samples) >= len(saved.records) - 1

    def plotted() -> bool:
        panel.plots.refresh()
        t, y = panel.plots.plotted_data("total energy")
        return np.array_equal(t, saved.samples[:, 0]) and np.array_equal(
            y, saved.samples[:, energy]
        )

    qtbot.waitUntil(plotted, timeout=5000)
    # Scrubbing to the end shows the last recorded State exactly.
    last = saved.records[-1]
    qtbot.waitUntil(lambda: timeline.end == last.t, timeout=5000)
    right_end = QPoint(timeline.width() - 1, timeline.height() // 2)
    QTest.mouseClick(timeline, Qt.MouseButton.LeftButton, pos=right_end)
    qtbot.waitUntil(lambda: panel.snapshot.time == last.t, timeout=5000)
    assert np.array_equal(panel.snapshot.q, last.q)

    broken = tmp_path / "broken.npz"
    broken.write_bytes(path.read_bytes()[:100])
    assert not window.model_editor.open_path(broken, modal=False)
    assert panel.session.history_span()[2] == len(saved.records)  # nothing lost


def test_going_on_from_an_earlier_moment_keeps_the_old_future_as_a_branch(window, qtbot):
    panel, timeline, bar = window.simulation, window.timeline.timeline, window.timeline
    _click_action(window, "play")
    qtbot.waitUntil(lambda: panel.snapshot.time > 0.5, timeout=15000)
    _click_action(window, "pause")
    qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
    session = panel.session
    old_end = session.history_span()[1]
    old_future = {r.t: r.q.copy() for r in session.history_records() if r.t > 0.25}
    assert not bar.branch_box.isVisible()
    x = round(timeline.x_of(0.2))
    fork = session.recorded_time(timeline.time_at(x))
    QTest.mouseClick(timeline, Qt.MouseButton.LeftButton, pos=QPoint(x, timeline.height() // 2))
    qtbot.waitUntil(lambda: panel.snapshot.time == fork, timeout=5000)
    window.simulation.integrator_box.setCurrentText("RungeKutta3")  # another way on
    _click_action(window, "play")
    qtbot.waitUntil(lambda: panel.snapshot.time > fork + 0.1, timeout=10000)
    _click_action(window, "pause")
    qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
    qtbot.waitUntil(bar.branch_box.isVisible, timeout=5000)
    assert bar.branch_box.count() == 2 and bar.branch_box.itemText(1).startswith("Branch 1")
    # Choose the old future with the keyboard: it comes back, bit for bit.
    bar.branch_box.setFocus()
    QTest.keyClick(bar.branch_box, Qt.Key.Key_Down)
    qtbot.waitUntil(lambda: session.history_span()[1] == old_end, timeout=5000)
    qtbot.waitUntil(lambda: panel.snapshot.time == old_end, timeout=5000)
    back = {r.t: r.q for r in session.history_records() if r.t > fork}
    assert all(np.array_equal(back[t], q) for t, q in old_future.items() if t > fork)
    qtbot.waitUntil(lambda: bar.branch_box.count() == 2, timeout=5000)
    assert bar.branch_box.itemText(1).startswith("Main line")  # the newer future is kept too
    qtbot.waitUntil(lambda: bar.branch_box.itemText(0) == "Branch 1 (shown)", timeout=5000)


def test_history_memory_budget_is_typed_in_and_kept(window, qtbot, qsettings):
    box = window.timeline.budget_box
    assert box.value() == 512
    box.setFocus()
    box.selectAll()
    QTest.keyClicks(box, "64")
    QTest.keyClick(box, Qt.Key.Key_Return)
    assert box.value() == 64 and int(qsettings.value("history/budget_mb")) == 64
    qtbot.waitUntil(
        lambda: window.simulation.session.history.budget_bytes == 64 * 1024 * 1024, timeout=3000
    )


def _chain_with_events():
    """The one-link chain with a reporter every 0.1 s and a handler at t = 0.25 s that stops
    the link (sets its u to 0)."""
    from engine import PeriodicEventReporter, ScheduledEventHandler
    from tests.app.sim_models import chain

    class Every(PeriodicEventReporter):
        name = "Every tenth"

        def handleEvent(self, state) -> None:  # noqa: N802
            pass

    class Stop(ScheduledEventHandler):
        name = "Stop the link"

        def getNextEventTime(self, state, includeCurrentTime):  # noqa: N802, N803
            t = state.getTime()
            return 0.25 if t < 0.25 or (includeCurrentTime and t == 0.25) else float("inf")

        def handleEvent(self, state, accuracy):  # noqa: N802
            state.updU()[0] = 0.0
            return False

    built = chain(1, q0=0.5)
    built.system.addEventReporter(Every(0.1))
    built.system.addEventHandler(Stop())
    built.state = built.system.realizeTopology()
    built.system.realizeModel(built.state)
    return built


def test_events_are_marked_and_a_click_on_one_shows_its_state(qtbot, qsettings):
    window = _bare_window(qtbot, qsettings)
    panel, timeline = window.simulation, window.timeline.timeline
    try:
        panel.load_built(_chain_with_events())
        qtbot.waitUntil(lambda: panel.snapshot is not None, timeout=10000)
        _click_action(window, "play")
        qtbot.waitUntil(lambda: panel.snapshot.time > 0.45, timeout=15000)
        _click_action(window, "pause")
        qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
        qtbot.waitUntil(lambda: len(timeline.event_marks) >= 5, timeout=5000)
        handled = [(t, text) for t, kind, text in timeline.event_marks if kind == "handled"]
        reported = [t for t, kind, _ in timeline.event_marks if kind == "reported"]
        assert handled == [(0.25, "Scheduled event handled by Stop the link")]
        assert reported[:5] == pytest.approx([0.0, 0.1, 0.2, 0.3, 0.4])
        # Clicking near the handler's mark shows the State there (reported before the
        # handler acts); the next report shows what the handler did: the link nearly stopped.
        x = round(timeline.x_of(0.25)) + 3
        QTest.mouseClick(timeline, Qt.MouseButton.LeftButton, pos=QPoint(x, timeline.height() // 2))
        qtbot.waitUntil(lambda: abs(panel.snapshot.time - 0.25) < 1e-9, timeout=5000)
        assert abs(panel.snapshot.u[0]) > 0.5
        QTest.keyClick(timeline, Qt.Key.Key_Right)
        qtbot.waitUntil(lambda: panel.snapshot.time > 0.25 + 1e-9, timeout=5000)
        assert abs(panel.snapshot.u[0]) < 0.2
        # Its cause shows in the tooltip under the pointer.
        assert timeline.mark_at(x) == (0.25, "Scheduled event handled by Stop the link")
    finally:
        window.close()


def test_a_bookmark_is_renamed_by_double_click_and_the_name_is_saved(window, qtbot, tmp_path):
    panel, timeline = window.simulation, window.timeline.timeline
    _click_action(window, "play")
    qtbot.waitUntil(lambda: panel.snapshot.time > 0.3, timeout=15000)
    _click_action(window, "pause")
    qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
    qtbot.waitUntil(lambda: timeline.end > 0.3, timeout=5000)
    x = round(timeline.x_of(0.1))
    QTest.mouseClick(timeline, Qt.MouseButton.LeftButton, pos=QPoint(x, timeline.height() // 2))
    qtbot.waitUntil(lambda: abs(panel.snapshot.time - 0.1) < 0.02, timeout=5000)
    QTest.keyClick(timeline, Qt.Key.Key_B)
    t_mark = window.timeline.bookmarks[0][0]
    QTest.mouseDClick(
        timeline, Qt.MouseButton.LeftButton, pos=QPoint(round(timeline.x_of(t_mark)), 3)
    )
    dialog = window.timeline.rename_dialog
    qtbot.waitUntil(lambda: dialog is not None and dialog.isVisible(), timeout=3000)
    editor = dialog.findChild(QLineEdit)
    editor.selectAll()
    QTest.keyClicks(editor, "  lift  off ")
    QTest.keyClick(editor, Qt.Key.Key_Return)
    assert window.timeline.bookmarks == [(t_mark, "lift off")]
    assert timeline.bookmarks == [(t_mark, "lift off")]
    assert window.timeline.diff_view.moment_a.itemText(1).startswith("lift off")
    path = tmp_path / "named.npz"
    window.timeline.save_recording(path)
    assert load_recording(path).bookmarks == [(t_mark, "lift off")]


def test_editing_a_parameter_at_a_past_moment_forks_and_the_plots_overlay_the_branch(
    window, qtbot, tmp_path
):
    panel, timeline, bar = window.simulation, window.timeline.timeline, window.timeline
    window.model_editor.interactive = False  # closing the edited model asks nothing
    plots = panel.plots
    _click_action(window, "play")
    qtbot.waitUntil(lambda: panel.snapshot.time > 0.5, timeout=15000)
    _click_action(window, "pause")
    qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
    session = panel.session
    old_records = {r.t: r for r in session.history_records()}
    old_end = max(old_records)
    x = round(timeline.x_of(0.2))
    fork = session.recorded_time(timeline.time_at(x))
    QTest.mouseClick(timeline, Qt.MouseButton.LeftButton, pos=QPoint(x, timeline.height() // 2))
    qtbot.waitUntil(lambda: panel.snapshot.time == fork, timeout=5000)
    QTest.keyClick(timeline, Qt.Key.Key_B)
    # Click "lower" in the model tree and type a new mass.
    editor = window.model_editor
    view = editor.tree.view
    rect = view.visualRect(editor.tree.model.index_of("body:lower"))
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    field = editor.properties.field("mass")
    field.setFocus()
    field.selectAll()
    QTest.keyClicks(field, "3")
    QTest.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: session.branches() != [], timeout=5000)
    # The new model is simulated (its first snapshot shown) from the fork on.
    qtbot.waitUntil(lambda: panel.snapshot.model is session.model_info, timeout=5000)
    ((name, fork_time, end),) = session.branches()
    assert name == "Branch 1, before the edit" and end == old_end
    assert fork_time == min(t for t in old_records if t > fork)  # the branch's first State
    # The past is kept bit for bit; the run goes on from the fork with the new mass.
    past = session.history_records()
    assert [r.t for r in past] == [t for t in sorted(old_records) if t <= fork]
    assert all(np.array_equal(r.q, old_records[r.t].q) for r in past)
    assert panel.snapshot.time == fork and window.timeline.bookmarks == [(fork, "Bookmark 1")]
    _click_action(window, "play")
    qtbot.waitUntil(lambda: panel.snapshot.time > fork + 0.2, timeout=10000)
    _click_action(window, "pause")
    qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
    new = {r.t: r for r in session.history_records()}
    later = [t for t in new if fork < t <= old_end and t in old_records]
    assert later and not any(np.array_equal(new[t].q, old_records[t].q) for t in later)
    # The plots draw the branch's total energy dashed beside the current run's.
    qtbot.waitUntil(lambda: ("total energy", "Branch 1") in plots.branch_curves, timeout=5000)
    t_branch, _ = plots.branch_curves[("total energy", "Branch 1")].getData()
    legend = [label.text for _sample, label in plots.plot.plotItem.legend.items]
    assert legend == ["total energy (J)", "total energy (J), Branch 1"]  # the dashed one named
    assert t_branch[0] > fork and t_branch[-1] == old_end
    t_now, _ = plots.plotted_data("total energy")
    assert t_now[0] < 0.05 and np.all(np.diff(t_now) > 0)  # the past was kept
    # Choosing the branch brings the old future back, bit for bit.
    bar.branch_box.setFocus()
    QTest.keyClick(bar.branch_box, Qt.Key.Key_Down)
    qtbot.waitUntil(lambda: session.history_span()[1] == old_end, timeout=5000)
    back = {r.t: r for r in session.history_records()}
    assert all(np.array_equal(back[t].q, old_records[t].q) for t in old_records)
    # The recording keeps the branch: saved and opened again, it is there.
    qtbot.waitUntil(lambda: [n for n, *_ in session.branches()] == ["Main line"], timeout=5000)
    path = tmp_path / "forked.npz"
    bar.save_recording(path)
    assert window.model_editor.open_path(path, modal=False)
    qtbot.waitUntil(
        lambda: [n for n, *_ in panel.session.branches()] == ["Main line"], timeout=10000
    )
    qtbot.waitUntil(lambda: bar.branch_box.count() == 2, timeout=5000)
    qtbot.waitUntil(lambda: bar.branch_box.itemText(0) == "Branch 1 (shown)", timeout=5000)
    # The branch was run with mass 3 (the file's model has the mass before the edit): it
    # comes back with that mass.
    mass = window.model_editor.document.data.body("lower").mass
    assert mass != 3.0
    _choose_branch(bar, qtbot)
    qtbot.waitUntil(
        lambda: window.model_editor.document.data.body("lower").mass == 3.0, timeout=5000
    )
    qtbot.waitUntil(lambda: panel.session.built.data.body("lower").mass == 3.0, timeout=5000)


def test_diff_draws_the_other_state_as_a_ghost_and_highlights_the_moved_bodies(window, qtbot):
    from app.simulation.snapshot import body_poses

    panel, timeline, bar = window.simulation, window.timeline.timeline, window.timeline
    view, ghost = bar.diff_view, bar.ghost
    _click_action(window, "play")
    qtbot.waitUntil(lambda: panel.snapshot.time > 0.4, timeout=15000)
    _click_action(window, "pause")
    qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
    y = timeline.height() // 2
    for fraction in (0.1, 0.9):
        x = round(timeline.x_of(timeline.start + fraction * (timeline.end - timeline.start)))
        wanted = panel.session.recorded_time(timeline.time_at(x))
        QTest.mouseClick(timeline, Qt.MouseButton.LeftButton, pos=QPoint(x, y))
        qtbot.waitUntil(lambda w=wanted: panel.snapshot.time == w, timeout=5000)
        QTest.keyClick(timeline, Qt.Key.Key_B)
    (t_a, _), (t_b, _) = bar.bookmarks
    # Looking back, the plots mark the displayed moment with a cursor line.
    plots = panel.plots
    qtbot.waitUntil(lambda: plots.cursor.isVisible() and plots.cursor.value() == t_b, timeout=5000)
    window.docks["State diff"].raise_()
    qtbot.waitUntil(lambda: view.moment_a.count() == 3, timeout=3000)
    view.moment_a.setFocus()
    QTest.keyClick(view.moment_a, Qt.Key.Key_Home)
    QTest.keyClick(view.moment_a, Qt.Key.Key_Down)  # Bookmark 1 (A); B is the displayed one
    QTest.mouseClick(view.compare_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: ghost.visible, timeout=10000)
    assert view.moved_label.text() == "Moved (orange in the view): upper, lower"
    # The ghost is State A (the one not displayed): its actors sit at A's body poses.
    built = panel.session.built
    records = {r.t: r for r in panel.session.history_records()}
    from app.history import restore
    from engine import Stage, State

    state = State(built.state)
    restore(records[t_a], state)
    built.system.realize(state, Stage.Position)
    x_a = body_poses(built.matter, state)
    for body, local, actor in ghost.ghost_actors:
        m = np.array([actor.GetUserMatrix().GetElement(i, j) for i in range(4) for j in range(4)])
        assert np.allclose(m.reshape(4, 4), x_a[body] @ local)
        assert actor.GetProperty().GetOpacity() < 1.0
    assert sorted({b for b, *_ in ghost.highlight_actors}) == [1, 2]
    # It is drawn: pixels where A's lower body is change when the ghost is switched off.
    scene = window.viewport.scene
    lower = next(a for b, _, a in ghost.ghost_actors if b == 2)
    cx, cy = scene.world_to_display(np.array(lower.GetBounds()).reshape(3, 2).mean(axis=1))
    with_ghost = scene.capture()
    QTest.mouseClick(view.ghost_box, Qt.MouseButton.LeftButton)
    assert not ghost.visible and not view.ghost_box.isChecked()
    without = scene.capture()
    row, col = with_ghost.shape[0] - 1 - round(cy), round(cx)
    patch = (slice(row - 2, row + 3), slice(col - 2, col + 3))
    assert np.abs(with_ghost[patch].astype(int) - without[patch].astype(int)).max() > 20
    QTest.mouseClick(view.ghost_box, Qt.MouseButton.LeftButton)
    assert ghost.visible


def test_a_recording_made_by_simulate_opens_in_the_studio(window, qtbot, tmp_path):
    from app.cli import main

    path = tmp_path / "headless.npz"
    model = str(example_path("double_pendulum"))
    assert main(["simulate", model, "--until", "0.3", "--dt", "0.05", "--record", str(path)]) == 0
    saved = load_recording(path)
    panel, timeline = window.simulation, window.timeline.timeline
    assert window.model_editor.open_path(path, modal=False)
    qtbot.waitUntil(lambda: panel.session.history_span()[2] == len(saved.records), timeout=10000)
    qtbot.waitUntil(lambda: timeline.end == saved.records[-1].t, timeout=5000)
    # The file holds no plot samples: they are computed from its States.
    assert saved.samples is None

    def plotted() -> bool:
        panel.plots.refresh()
        return np.array_equal(
            panel.plots.plotted_data("total energy")[0], [r.t for r in saved.records]
        )

    qtbot.waitUntil(plotted, timeout=5000)
    right_end = QPoint(timeline.width() - 1, timeline.height() // 2)
    QTest.mouseClick(timeline, Qt.MouseButton.LeftButton, pos=right_end)
    qtbot.waitUntil(lambda: panel.snapshot.time == saved.records[-1].t, timeout=5000)
    assert np.array_equal(panel.snapshot.q, saved.records[-1].q)
    assert np.array_equal(panel.snapshot.u, saved.records[-1].u)
    assert not panel.snapshot.error


def test_going_on_from_a_bookmark_without_an_edit_reproduces_the_old_future_bit_for_bit(
    window, qtbot
):
    panel, timeline = window.simulation, window.timeline.timeline
    box = panel.pacing_box  # every report sampled: the steps end where the first run's did
    box.setFocus()
    QTest.keyClick(box, Qt.Key.Key_End)
    assert box.currentText() == "sampled"
    _click_action(window, "play")
    qtbot.waitUntil(lambda: panel.snapshot.time > 0.3, timeout=15000)
    _click_action(window, "pause")
    qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
    session = panel.session
    old = {r.t: r for r in session.history_records()}
    old_end = max(old)
    x = round(timeline.x_of(0.1))
    QTest.mouseClick(timeline, Qt.MouseButton.LeftButton, pos=QPoint(x, timeline.height() // 2))
    fork = session.recorded_time(timeline.time_at(x))
    qtbot.waitUntil(lambda: panel.snapshot.time == fork, timeout=5000)
    QTest.keyClick(timeline, Qt.Key.Key_B)
    _click_action(window, "play")
    qtbot.waitUntil(lambda: panel.snapshot.time > old_end, timeout=15000)
    _click_action(window, "pause")
    qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
    assert [name for name, *_ in session.branches()] == ["Branch 1"]
    new = {r.t: r for r in session.history_records()}
    again = [t for t in old if t > fork]
    assert len(again) > 8 and all(t in new for t in again)
    assert all(new[t].same_values(old[t]) for t in again)


def _choose_branch(bar, qtbot) -> None:
    """Open the branch switcher with a mouse click and choose the (one) branch in its list."""
    box = bar.branch_box
    assert box.count() == 2  # the line shown, and one branch
    QTest.mouseClick(box, Qt.MouseButton.LeftButton)
    view = box.view()
    qtbot.waitUntil(view.isVisible, timeout=3000)
    QTest.keyClick(view, Qt.Key.Key_Down)  # from the line shown to the branch in the list
    QTest.keyClick(view, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not view.isVisible(), timeout=3000)


def _poses_of(built, record):
    """The body poses (nbodies, 4, 4) ``record`` has in ``built``'s model."""
    from app.history import restore
    from app.simulation.snapshot import body_poses
    from engine import Stage, State

    state = State(built.state)
    restore(record, state)
    built.system.realize(state, Stage.Position)
    return body_poses(built.matter, state)


def test_switching_to_a_branch_shows_the_model_it_was_run_with(qtbot, qsettings):
    from app.document import model_io

    window = MainWindow(model_path=example_path("double_pendulum"), settings=qsettings)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.simulation.snapshot is not None, timeout=10000)
    panel, timeline, bar = window.simulation, window.timeline.timeline, window.timeline
    window.model_editor.interactive = False
    try:
        _click_action(window, "play")
        qtbot.waitUntil(lambda: panel.snapshot.time > 0.5, timeout=15000)
        _click_action(window, "pause")
        qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
        session = panel.session
        old_built = session.built
        old_end = session.history_span()[1]
        x = round(timeline.x_of(0.2))
        fork = session.recorded_time(timeline.time_at(x))
        QTest.mouseClick(timeline, Qt.MouseButton.LeftButton, pos=QPoint(x, timeline.height() // 2))
        qtbot.waitUntil(lambda: panel.snapshot.time == fork, timeout=5000)
        # Type a new mass for "lower" in Properties: the run forks there.
        editor = window.model_editor
        view = editor.tree.view
        rect = view.visualRect(editor.tree.model.index_of("body:lower"))
        QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
        field = editor.properties.field("mass")
        old_mass = float(field.text())
        field.setFocus()
        field.selectAll()
        QTest.keyClicks(field, "3")
        QTest.keyClick(field, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: session.branches() != [], timeout=5000)
        new_built = session.built
        assert new_built is not old_built and new_built.data.body("lower").mass == 3.0
        _click_action(window, "play")
        qtbot.waitUntil(lambda: panel.snapshot.time > old_end + 0.05, timeout=10000)
        _click_action(window, "pause")
        qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
        new_end = session.history_span()[1]
        new_last = session.history_records()[-1]
        near_old_end = min(session.history_records(), key=lambda r: abs(r.t - old_end))
        # (poses in the edited model while it is simulated: both models may share a System)
        edited_poses = _poses_of(new_built, near_old_end)
        qtbot.waitUntil(bar.branch_box.isVisible, timeout=5000)

        # Switch to the branch left by the edit: its model, its marks, its last pose.
        _choose_branch(bar, qtbot)
        qtbot.waitUntil(lambda: session.history_span()[1] == old_end, timeout=5000)
        qtbot.waitUntil(lambda: panel.snapshot.time == old_end, timeout=5000)
        assert session.built is old_built
        qtbot.waitUntil(lambda: editor.document.data.body("lower").mass == old_mass, timeout=5000)
        qtbot.waitUntil(
            lambda: float(editor.properties.field("mass").text()) == old_mass, timeout=5000
        )
        qtbot.waitUntil(lambda: panel.snapshot.model is session.model_info, timeout=5000)
        expected = _poses_of(old_built, session.history_records()[-1])
        assert not np.allclose(edited_poses, expected)  # the poses differ
        qtbot.waitUntil(
            lambda: np.allclose(window.viewport.scene._poses, expected, atol=1e-12),
            timeout=5000,
        )
        assert [n for n, *_ in session.branches()] == ["Main line"]  # nothing forked again
        qtbot.waitUntil(lambda: bar.branch_box.itemText(1).startswith("Main line"), timeout=5000)
        # Back to the edited future: mass 3 again, no marks, its own last pose.
        _choose_branch(bar, qtbot)
        qtbot.waitUntil(lambda: session.history_span()[1] == new_end, timeout=5000)
        qtbot.waitUntil(lambda: editor.document.data.body("lower").mass == 3.0, timeout=5000)
        assert session.built is new_built
        qtbot.waitUntil(lambda: float(editor.properties.field("mass").text()) == 3.0, timeout=5000)
        expected = _poses_of(new_built, new_last)
        qtbot.waitUntil(
            lambda: np.allclose(window.viewport.scene._poses, expected, atol=1e-12),
            timeout=5000,
        )
        assert model_io.dumps(editor.document.data) == model_io.dumps(new_built.data)
        qtbot.waitUntil(lambda: bar.branch_box.itemText(1).startswith("Branch 1"), timeout=5000)
        _choose_branch(bar, qtbot)  # and back once more
        qtbot.waitUntil(lambda: editor.document.data.body("lower").mass == old_mass, timeout=5000)
        qtbot.waitUntil(
            lambda: float(editor.properties.field("mass").text()) == old_mass, timeout=5000
        )
    finally:
        window.close()


def test_a_branch_keeps_its_event_marks_when_switched_to_and_back(qtbot, qsettings):
    window = _bare_window(qtbot, qsettings)
    panel, timeline, bar = window.simulation, window.timeline.timeline, window.timeline
    try:
        panel.load_built(_chain_with_events())
        qtbot.waitUntil(lambda: panel.snapshot is not None, timeout=10000)
        _click_action(window, "play")
        qtbot.waitUntil(lambda: panel.snapshot.time > 0.45, timeout=15000)
        _click_action(window, "pause")
        qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
        qtbot.waitUntil(lambda: len(timeline.event_marks) >= 6, timeout=5000)
        old_marks = list(timeline.event_marks)
        assert (0.25, "handled", "Scheduled event handled by Stop the link") in old_marks
        # Go on from t = 0.15 with another integrator, a little way only.
        x = round(timeline.x_of(0.15))
        QTest.mouseClick(timeline, Qt.MouseButton.LeftButton, pos=QPoint(x, timeline.height() // 2))
        fork = panel.session.recorded_time(timeline.time_at(x))
        qtbot.waitUntil(lambda: panel.snapshot.time == fork, timeout=5000)
        panel.integrator_box.setCurrentText("RungeKutta3")
        _click_action(window, "play")
        qtbot.waitUntil(lambda: panel.snapshot.time > fork + 0.02, timeout=10000)
        _click_action(window, "pause")
        qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
        qtbot.waitUntil(bar.branch_box.isVisible, timeout=5000)
        new_end = panel.session.history_span()[1]
        qtbot.waitUntil(lambda: all(t <= new_end for t, *_ in timeline.event_marks), timeout=5000)
        new_marks = list(timeline.event_marks)
        assert new_marks[:2] == old_marks[:2]  # the common past (reports at 0 and 0.1)
        for _ in range(2):  # to the branch and back, twice: each keeps its own marks
            _choose_branch(bar, qtbot)
            qtbot.waitUntil(lambda: timeline.event_marks == old_marks, timeout=5000)
            qtbot.waitUntil(lambda: "(shown)" in bar.branch_box.itemText(0), timeout=5000)
            _choose_branch(bar, qtbot)
            qtbot.waitUntil(lambda: timeline.event_marks == new_marks, timeout=5000)
    finally:
        window.close()
