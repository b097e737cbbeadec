"""The recorded-history side of the main window: a Timeline under the 3-D view wired to the
simulation session's history.

``install_timeline(window)`` (called by MainWindow after the simulation panel) adds

* the Timeline below the 3-D view: dragging it shows the recorded State nearest the pointer
  (the worker restores it as the live State: the view, Joints panel, stage and cache
  inspectors all show it, and Play goes on from there); Left/Right step one report;
  B (or Simulation > Add bookmark, Ctrl+B) bookmarks the displayed moment; double-clicking a
  bookmark (or Simulation > Rename bookmark…, for the one nearest the displayed moment) names
  it; the names are saved in recordings;
* event marks on the timeline: events handled and reported, assemblies, failures (clicking
  one shows the State there);
* replay buttons beside it: play the recording backward or forward at a speed factor,
  optionally looping (the simulation itself does not run meanwhile);
* a memory budget for the history (megabytes, kept in the settings; default 512);
* a branch box: going on from an earlier moment (also after editing the model's parameters
  there) keeps the old future as a branch, and choosing a branch brings it back (the future
  it replaces becomes a branch in turn, with its model: the model tree and Properties then
  show the parameters that branch was run with); the plots overlay the branches' curves,
  dashed, and each branch keeps its event and failure marks; a switch that changes the
  model's parameters is undoable (Edit > Undo switches back, see ``app.branch_switch``);
* a status-bar label with the seconds of history held;
* Simulation > Save recording… (an ``.npz`` file: the model, every recorded State, the
  bookmarks and the branches, see ``app.history.recording_file``), read back by File > Open
  and ``mbstudio diff``;
* a "State diff" dock: two moments (the displayed one, bookmarks) compared in full by the
  worker (``SimulationSession.compare_recorded``); the other State is drawn as a translucent
  ghost over the 3-D view and the bodies that moved are highlighted (``app.diff_ghost``);
* a failure explainer above the view: when a run stops on an error it says in plain words
  what happened and offers remedies (re-assemble, go back to the last good State, tighten
  the accuracy, the implicit integrator); failures are marked on the timeline.
"""

from __future__ import annotations

import time
import weakref
from pathlib import Path

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDockWidget,
    QDoubleSpinBox,
    QFileDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLayout,
    QMainWindow,
    QMessageBox,
    QSizePolicy,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.branch_switch import BranchSwitch, BranchSwitchCommand
from app.diff_ghost import DiffGhost
from app.history.explain import explain
from app.widgets.failure_explainer import FailureExplainer
from app.widgets.state_diff import StateDiffView
from app.widgets.timeline import Timeline

REPLAY_TICK_MS = 33
BUDGET_KEY = "history/budget_mb"
DEFAULT_BUDGET_MB = 512


class TimelinePanel(QObject):
    """See the module docstring."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.simulation = window.simulation
        self.bookmarks: list[tuple[float, str]] = []
        self._pending_bookmarks: list[tuple[float, str]] = []  # of a recording being opened
        self._model_serial = None
        self._events_shown = None
        self.timeline = Timeline()
        central = window.centralWidget().layout()
        self.explainer = FailureExplainer()
        self.explainer.remedy_chosen.connect(self._apply_remedy)
        self._explained = ""
        self.simulation.run_errors_explained = True
        central.insertWidget(max(0, central.indexOf(window.viewport)), self.explainer)
        central.addWidget(self._replay_bar())
        self._replay_direction = 0  # -1 backward, +1 forward, 0 stopped
        self._replay_clock = (0.0, 0.0)  # (wall time, recorded time) at the last tick
        self._replay_timer = QTimer(self)
        self._replay_timer.setInterval(REPLAY_TICK_MS)
        self._replay_timer.timeout.connect(self._replay_tick)
        self.history_label = QLabel("history –")
        self.history_label.setObjectName("historyLabel")
        self.history_label.setToolTip("Simulated seconds of recorded States held")
        window.statusBar().addPermanentWidget(self.history_label)
        self.timeline.scrubbed.connect(self._show)
        self.timeline.scrubbed.connect(lambda _t: self.replay(0))
        window.sim_actions["play"].triggered.connect(lambda: self.replay(0))
        self.timeline.step_requested.connect(self._step)
        self.timeline.bookmark_requested.connect(self.add_bookmark)
        self.timeline.bookmark_rename_requested.connect(self.rename_bookmark)
        self.rename_dialog: QInputDialog | None = None
        self.simulation.snapshot_shown.connect(self._snapshot_shown)
        self._add_actions()
        self.diff_view = StateDiffView()
        self.diff_view.compare_requested.connect(self._compare)
        self.diff_view.ghost_toggled.connect(self._show_ghost)
        self.ghost = DiffGhost(window.viewport.renderer)
        self._comparison_poses: tuple | None = None
        self._comparison_serial = 0
        dock = QDockWidget("State diff", window)
        dock.setObjectName("State diff")
        dock.setWidget(self.diff_view)
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
        window.tabifyDockWidget(window.docks["Cache inspector"], dock)
        window.docks["Stage inspector"].raise_()
        window.docks["State diff"] = dock
        self._add_to_view_menu(dock)

    def _replay_bar(self) -> QWidget:
        bar = QWidget()
        bar.setObjectName("replayBar")
        # The timeline has the view's whole width; the replay controls are on a row below it.
        rows = QVBoxLayout(bar)
        rows.setContentsMargins(4, 0, 4, 0)
        rows.setSpacing(2)
        # The bar never sets the window's minimum width (it shrinks with the view).
        rows.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)
        rows.addWidget(self.timeline)
        layout = QHBoxLayout()
        layout.setContentsMargins(0, 0, 0, 0)
        rows.addLayout(layout)
        bar.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.reverse_button = QToolButton()
        self.reverse_button.setObjectName("replayBackward")
        self.reverse_button.setText("◀")
        self.reverse_button.setToolTip("Replay the recording backward")
        self.reverse_button.setCheckable(True)
        self.forward_button = QToolButton()
        self.forward_button.setObjectName("replayForward")
        self.forward_button.setText("▶")
        self.forward_button.setToolTip("Replay the recording forward")
        self.forward_button.setCheckable(True)
        self.reverse_button.clicked.connect(lambda on: self.replay(-1 if on else 0))
        self.forward_button.clicked.connect(lambda on: self.replay(1 if on else 0))
        self.replay_speed = QDoubleSpinBox()
        self.replay_speed.setObjectName("replaySpeed")
        self.replay_speed.setRange(0.05, 20.0)
        self.replay_speed.setValue(1.0)
        self.replay_speed.setSuffix("×")
        self.replay_speed.setToolTip("Replay speed: recorded seconds per second")
        self.replay_loop = QCheckBox("Loop")
        self.replay_loop.setObjectName("replayLoop")
        for widget in (self.reverse_button, self.forward_button, self.replay_speed):
            layout.addWidget(widget)
        layout.addWidget(self.replay_loop)
        self.budget_box = QSpinBox()
        self.budget_box.setObjectName("historyBudget")
        self.budget_box.setRange(16, 65536)
        self.budget_box.setSingleStep(64)
        self.budget_box.setPrefix("History ")  # what the megabytes are for, without hovering
        self.budget_box.setSuffix(" MB")
        self.budget_box.setToolTip(
            "Memory the recorded history may use; beyond it the oldest branches, then the "
            "oldest States, are dropped"
        )
        settings = getattr(self.window, "_settings", None)
        try:
            budget = int(settings.value(BUDGET_KEY, DEFAULT_BUDGET_MB)) if settings else 0
        except (TypeError, ValueError):
            budget = DEFAULT_BUDGET_MB
        self.budget_box.setValue(budget if budget >= 16 else DEFAULT_BUDGET_MB)
        self.budget_box.valueChanged.connect(self._budget_changed)
        self._budget_session = None
        layout.addWidget(self.budget_box)
        self.branch_box = QComboBox()
        self.branch_box.setObjectName("branchBox")
        self.branch_box.setToolTip(
            "Futures left behind when the run went on from an earlier moment: choose one to "
            "bring it back"
        )
        self.branch_box.activated.connect(self._branch_chosen)
        self.branch_box.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.branch_box.setMinimumContentsLength(14)
        self.branch_box.hide()
        self._branch_items: tuple = ()
        layout.addWidget(self.branch_box, 1)
        layout.addStretch(0)
        return bar

    def _budget_changed(self, megabytes: int) -> None:
        settings = getattr(self.window, "_settings", None)
        if settings is not None:
            settings.setValue(BUDGET_KEY, megabytes)
        session = self.simulation.session
        if session is not None:
            session.set_history_budget(megabytes * 1024 * 1024)

    def _show_branches(self, branches: list[tuple[str, float, float]], current: str) -> None:
        if (branches, current) == self._branch_items:
            return
        self._branch_items = (branches, current)
        session = self.simulation.session
        if self.simulation._plots is not None and session is not None:
            self.simulation.plots.set_branches(session.branch_samples())
        self.branch_box.clear()
        self.branch_box.addItem(f"{current} (shown)")
        held = session.history_branches() if session is not None else []
        for k, (name, fork, end) in enumerate(branches):
            # from the moment the run left it (an edit at t = 0, not its first step's time)
            left = held[k].left_at if k < len(held) else None
            start = fork if left is None else left
            self.branch_box.addItem(f"{name} ({start:.3g}–{end:.3g} s)")
        self.branch_box.setCurrentIndex(0)
        self.branch_box.setVisible(bool(branches))

    def _branch_chosen(self, index: int) -> None:
        """Bring back the branch at ``index`` of the box (0 is the line shown); a branch run
        with other parameters is switched to by an undoable command (see app.branch_switch)."""
        panel = self.simulation
        session = panel.session
        branches = session.history_branches() if session is not None else []
        if not 0 < index <= len(branches):
            return
        self.replay(0)
        branch = branches[index - 1]
        data = getattr(branch.model, "data", None)
        document = panel.document
        if data is None or document is None or document.data == data:
            session.switch_to_branch(BranchSwitch(branch))
            return
        command = BranchSwitchCommand(panel, branch, branch.name, document.data, data)
        self.window.model_editor.undo_stack.push(command)
        self.window.statusBar().showMessage(
            f"The model's parameters are those {branch.name} was run with (Undo switches back)",
            5000,
        )

    def replaying(self) -> bool:
        """Whether the recording is being replayed (either way)."""
        return self._replay_direction != 0

    def replay(self, direction: int) -> None:
        """Replay the recording backward (-1) or forward (+1) from the displayed moment, or
        stop replaying (0). Pauses the simulation."""
        self.reverse_button.setChecked(direction < 0)
        self.forward_button.setChecked(direction > 0)
        self._replay_direction = direction
        session = self.simulation.session
        if direction == 0 or session is None:
            self._replay_timer.stop()
            return
        if session.running:
            self.simulation.pause()
        self._replay_clock = (time.perf_counter(), self.timeline.cursor_time)
        self._replay_timer.start()

    def _replay_tick(self) -> None:
        session = self.simulation.session
        if session is None or self._replay_direction == 0:
            self.replay(0)
            return
        start, end, count = session.history_span()
        now = time.perf_counter()
        wall, t = self._replay_clock
        t += self._replay_direction * self.replay_speed.value() * (now - wall)
        if not start <= t <= end:
            if not self.replay_loop.isChecked() or count < 2:
                t = min(max(t, start), end)
                session.show_recorded(t)
                self.replay(0)
                return
            t = start if self._replay_direction > 0 else end
        self._replay_clock = (now, t)
        session.show_recorded(t)

    def _add_to_view_menu(self, dock: QDockWidget) -> None:
        for action in self.window.menuBar().actions():
            if action.text().replace("&", "") == "View" and action.menu() is not None:
                action.menu().addAction(dock.toggleViewAction())
                return

    def _add_actions(self) -> None:
        for action in self.window.menuBar().actions():
            if action.text().replace("&", "") == "Simulation" and action.menu() is not None:
                menu = action.menu()
                menu.addSeparator()
                bookmark = menu.addAction("Add &bookmark", self.add_bookmark)
                bookmark.setShortcut(QKeySequence("Ctrl+B"))
                bookmark.setObjectName("addBookmarkAction")
                rename = menu.addAction("Re&name bookmark…", self._rename_nearest)
                rename.setShortcut(QKeySequence("Ctrl+Shift+B"))
                rename.setObjectName("renameBookmarkAction")
                save = menu.addAction("Save &recording…", self._save_dialog)
                save.setObjectName("saveRecordingAction")
                self.save_action = save
                return

    # -- snapshots --------------------------------------------------------------------------

    def _snapshot_shown(self, snap) -> None:
        session = self.simulation.session
        if session is None:
            return
        budgeted = self._budget_session
        if budgeted is None or budgeted() is not session:
            # (a weak reference: a replaced session's models are freed as soon as it stops)
            self._budget_session = weakref.ref(session)
            session.set_history_budget(self.budget_box.value() * 1024 * 1024)
        model_key = (id(session), snap.model_serial)  # a new session counts from 1 again
        if model_key != self._model_serial:
            if self._model_serial is None or self._model_serial[0] != model_key[0]:
                # Another model: its comparisons are numbered from 1 again, and the one
                # shown was of States that are gone.
                self._comparison_serial = 0
                self.diff_view.clear()
            self._model_serial = model_key
            self.ghost.clear()  # of another model (or another run of it)
            self._comparison_poses = None
            self.diff_view.set_moved(None)
            if not (session.history_kept and not self._pending_bookmarks):
                self.bookmarks, self._pending_bookmarks = self._pending_bookmarks, []
            self.timeline.set_bookmarks(self.bookmarks)
        self.diff_view.set_moments(snap.time, self.bookmarks)
        self.timeline.set_marks(session.marks())
        if self._events_shown != (id(session), session.events.version):
            self._events_shown = (id(session), session.events.version)
            marks = session.events.marks()
            self.timeline.set_event_marks([(m.t, m.kind, m.text) for m in marks])
        self._show_branches(session.branches(), session.current_line())
        if snap.error and snap.error != self._explained:
            self.explainer.show_explanation(explain(snap.error))
        elif not snap.error and self.explainer.isVisible() and self._explained:
            self.explainer.hide()
        self._explained = snap.error
        comparison = session.comparison()
        if comparison is not None and comparison[0] != self._comparison_serial:
            self._comparison_serial, t_a, t_b, rows, *poses = comparison
            self.diff_view.show_rows(t_a, t_b, rows)
            self._comparison_poses = (t_a, t_b, *poses)
            self._show_ghost(self.diff_view.ghost_box.isChecked())
        elif self.ghost.visible and snap.x_gb is not None:
            self.ghost.follow(snap.x_gb)
        start, end, count = session.history_span()
        self.timeline.set_span(start, end)
        self.timeline.set_cursor(snap.time)
        if not snap.running and count and snap.time < end:
            self.simulation.plots.set_cursor(snap.time)  # looking back: mark the moment
        elif self.simulation._plots is not None:
            self.simulation.plots.set_cursor(None)
        self.history_label.setText(f"history {end - start:.1f} s" if count else "history –")

    # -- commands ---------------------------------------------------------------------------

    def _show(self, t: float) -> None:
        session = self.simulation.session
        if session is not None:
            session.show_recorded(t)

    def _apply_remedy(self, key: str) -> None:
        session = self.simulation.session
        if session is None:
            return
        if key == "assemble":
            session.assemble()
        elif key == "go_back":
            marks = session.marks()
            t = marks[-1][0] if marks else self.timeline.end
            previous = session.recorded_time(t, -1)
            if previous is not None:
                session.show_recorded(previous)
        elif key == "tighten_accuracy":
            box = self.simulation.accuracy_box
            box.set_accuracy(box.accuracy() / 10)
        elif key == "implicit":
            self.simulation.integrator_box.setCurrentText("CPodes")

    def _show_ghost(self, on: bool) -> None:
        """Draw (or remove) the ghost of the compared State not displayed (the one farther
        from the displayed moment) and highlight the bodies that moved between the two."""
        self.ghost.clear()
        snap = self.simulation.snapshot
        if on and self._comparison_poses is not None and snap is not None:
            t_a, t_b, x_a, x_b = self._comparison_poses
            if x_a is not None and x_b is not None:
                near_a = abs(snap.time - t_a) <= abs(snap.time - t_b)
                other, shown = (x_b, x_a) if near_a else (x_a, x_b)
                self.ghost.show(snap.geometry, other, shown)
                if snap.x_gb is not None:
                    self.ghost.follow(snap.x_gb)
                names = snap.model.body_names
                self.diff_view.set_moved([str(names[k]) for k in self.ghost.moved])
        if not self.ghost.visible and self._comparison_poses is None:
            self.diff_view.set_moved(None)
        self.window.viewport.request_render()

    def _compare(self, t_a: float, t_b: float) -> None:
        session = self.simulation.session
        if session is not None:
            session.compare_recorded(t_a, t_b)

    def _step(self, steps: int) -> None:
        session = self.simulation.session
        if session is None:
            return
        t = session.recorded_time(self.timeline.cursor_time, steps)
        if t is not None:
            session.show_recorded(t)

    def add_bookmark(self) -> None:
        """Bookmark the displayed moment (named "Bookmark N")."""
        snap = self.simulation.snapshot
        if snap is None:
            return
        name = f"Bookmark {len(self.bookmarks) + 1}"
        self.bookmarks.append((float(snap.time), name))
        self.timeline.set_bookmarks(self.bookmarks)
        self.diff_view.set_moments(snap.time, self.bookmarks)
        self.window.statusBar().showMessage(f"{name} at t = {snap.time:.4g} s", 3000)

    def rename_bookmark(self, index: int) -> None:
        """Ask for a new name of bookmark ``index`` (a dialog; Enter keeps the name typed)."""
        if not 0 <= index < len(self.bookmarks):
            return
        t, name = self.bookmarks[index]
        dialog = QInputDialog(self.window)
        dialog.setObjectName("renameBookmarkDialog")
        dialog.setWindowTitle("Rename bookmark")
        dialog.setLabelText(f"Name of the bookmark at t = {t:.4g} s:")
        dialog.setTextValue(name)
        dialog.textValueSelected.connect(lambda text: self._renamed(t, name, text))
        dialog.finished.connect(dialog.deleteLater)
        self.rename_dialog = dialog
        dialog.open()

    def _renamed(self, t: float, old: str, text: str) -> None:
        text = " ".join(text.split())
        if not text or (t, old) not in self.bookmarks:
            return
        self.bookmarks[self.bookmarks.index((t, old))] = (t, text)
        self.timeline.set_bookmarks(self.bookmarks)
        self.diff_view.set_moments(self.timeline.cursor_time, self.bookmarks)
        self.window.statusBar().showMessage(f"Bookmark renamed to {text}", 3000)

    def _rename_nearest(self) -> None:
        if self.bookmarks:
            cursor = self.timeline.cursor_time
            nearest = min(
                range(len(self.bookmarks)), key=lambda i: abs(self.bookmarks[i][0] - cursor)
            )
            self.rename_bookmark(nearest)

    def open_recording(self, path: Path, modal: bool = True) -> bool:
        """Open a recording file: its model (as a new, untitled model) and its States, shown
        from the first one; False (with the reason reported) if it cannot be read."""
        from app.document import model_io
        from app.history import RecordingFileError, load_recording

        editor = self.window.model_editor
        try:
            recording = load_recording(path)
            document = model_io.loads(recording.model_json, path)
        except (RecordingFileError, model_io.ModelFileError) as exc:
            editor.report(f"Cannot open {Path(path).name}: {exc}", modal)
            return False
        if not editor.confirm_discard():
            return False
        editor.set_document(document, None)
        session = self.simulation.session
        if session is None:
            editor.report(f"Cannot replay {Path(path).name}: its model does not run", modal)
            return False
        for branch in recording.branches:  # a branch run with other parameters: its model
            if isinstance(branch.model, str):
                branch.model = self._branch_built(branch.model, path)
        samples = (recording.sample_columns, recording.samples)
        session.load_history(
            recording.records, recording.branches, samples, recording.events, recording.line_name
        )
        self.bookmarks = list(recording.bookmarks)
        self._model_serial = None
        self._pending_bookmarks = list(recording.bookmarks)
        self.window.statusBar().showMessage(f"Opened the recording {path}", 5000)
        return True

    @staticmethod
    def _branch_built(model_json: str, path: Path):
        """The BuiltModel of a branch's model JSON text, or None (the recording's model is
        used) if it cannot be built."""
        from app.document import build, model_io

        try:
            return build(model_io.loads(model_json, path))
        except Exception:  # noqa: BLE001  (a branch's model that does not build is not fatal)
            return None

    def save_recording(self, path: Path) -> None:
        """Write the model, the recorded States, the bookmarks, the branches, the plot
        samples and the event marks to ``path`` (.npz)."""
        from app.document.model_io import dumps
        from app.history import save_recording

        session = self.simulation.session
        if session is None or session.built.data is None:
            raise ValueError("no model is being simulated")
        records = session.history_records()
        branches = session.history_branches()
        samples = (session.samples.columns, session.samples.all())
        save_recording(
            path,
            dumps(session.built.data),
            records,
            self.bookmarks,
            branches,
            samples=samples,
            events=session.events.marks(),
            line_name=session.current_line(),
        )

    def _save_dialog(self) -> None:
        name, _ = QFileDialog.getSaveFileName(
            self.window, "Save recording", "recording.npz", "Recordings (*.npz)"
        )
        if not name:
            return
        path = Path(name) if name.endswith(".npz") else Path(name + ".npz")
        try:
            self.save_recording(path)
        except (OSError, ValueError) as exc:
            QMessageBox.warning(self.window, "Save recording", f"Cannot save {path}: {exc}")
            return
        self.window.statusBar().showMessage(f"Recording saved to {path}", 5000)


def install_timeline(window: QMainWindow) -> TimelinePanel:
    """Create the timeline of ``window`` (see the module docstring)."""
    return TimelinePanel(window)
