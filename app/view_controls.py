"""The 3-D view's commands: camera actions, keyboard shortcuts and the Help reference.

``install_view_controls(window)`` (called by MainWindow once the simulation panel exists) adds

* View > Zoom to fit (F), the camera presets front (1), back (Ctrl+1), right (3), left (Ctrl+3),
  top (7), bottom (Ctrl+7) and isometric (0), all relative to the System's up direction and
  zoomed to fit the bodies; View > Follow selected body (T, a toggle); View > Full screen
  (F11); a "View" toolbar with the same actions;
* Space (play / pause), Esc (stop: pause a run or a Step in progress, stop a replay, and
  when nothing runs leave full screen) and Backspace (reset) for the simulation;
* the Ctrl + drag body puller (app.view_interaction.BodyDragger);
* Help > Keyboard and mouse (F1): every binding, mouse and keys, in one dialog.

Every shortcut is a window shortcut: it works wherever the focus is, except in text fields,
which keep their own keys (Backspace, Space and digits edit the text there).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QMainWindow,
    QMenu,
    QTableWidget,
    QTableWidgetItem,
    QToolBar,
    QToolButton,
    QVBoxLayout,
)

from app.view_interaction import BodyDragger

# key, text, shortcut, tip
CAMERA_VIEWS = (
    ("front", "&Front", "1", "Look at the model from the front"),
    ("back", "&Back", "Ctrl+1", "Look at the model from the back"),
    ("right", "&Right", "3", "Look at the model from its right side"),
    ("left", "&Left", "Ctrl+3", "Look at the model from its left side"),
    ("top", "&Top", "7", "Look down on the model from above"),
    ("bottom", "Botto&m", "Ctrl+7", "Look up at the model from below"),
    ("isometric", "&Isometric", "0", "Look from the front, right and above at once"),
)

MOUSE_BINDINGS = (
    ("Left click on a body", "Select the body (tree, status bar, yellow triad)"),
    ("Left drag", "Rotate the camera about the focal point"),
    ("Shift + left drag, middle drag", "Pan the camera"),
    ("Right drag, wheel", "Zoom the camera"),
    ("Ctrl + left drag on a body", "Pull the body toward the mouse (drag its pose when paused)"),
    ("Ctrl + right drag on a body", "Turn the body like a knob (its pose when paused)"),
    ("Ctrl + Shift + right drag on a body", "Tumble the body about the screen's axes"),
)


class ViewControls(QObject):
    """The actions described in the module docstring; ``actions`` by key."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.actions: dict[str, QAction] = {}
        self.dragger = BodyDragger(window)
        self._create_actions()
        self._install_menus()
        self._install_toolbar()
        window.simulation.snapshot_shown.connect(self._snapshot_shown)
        window.simulation.body_picked.connect(self._selection_changed)
        window.installEventFilter(self)

    # -- construction ---------------------------------------------------------------------------

    def _action(self, key: str, text: str, shortcut, tip: str, slot) -> QAction:
        action = QAction(text, self.window)
        action.setObjectName(f"{key}Action")
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
            tip = f"{tip} ({action.shortcut().toString()})"
        action.setToolTip(tip)
        action.setStatusTip(tip)
        action.triggered.connect(slot)
        self.window.addAction(action)  # a window shortcut even when no menu shows it
        self.actions[key] = action
        return action

    def _create_actions(self) -> None:
        viewport = self.window.viewport
        self._action(
            "zoom_fit",
            "&Zoom to fit",
            "F",
            "Zoom to fit the bodies (not the floor)",
            lambda _=False: viewport.zoom_to_fit(),
        )
        for key, text, shortcut, tip in CAMERA_VIEWS:
            self._action(
                f"view_{key}", text, shortcut, tip, lambda _=False, k=key: viewport.view(k)
            )
        follow = self._action(
            "follow",
            "F&ollow selected body",
            "T",
            "Keep the camera on the selected body as it moves",
            self._follow_toggled,
        )
        follow.setCheckable(True)
        self._action(
            "full_screen", "F&ull screen", "F11", "Full screen on or off", self._toggle_full
        )
        leave = self._action(
            "leave_full_screen",
            "Leave full screen",
            None,
            "Back to the normal window",
            lambda _=False: self.window.showNormal(),
        )
        leave.setEnabled(False)  # only while the window is full screen
        self._action(
            "stop",
            "Stop",
            "Esc",
            "Stop what runs (Play, a Step in progress, a replay); else leave full screen",
            self._stop,
        )
        self._action(
            "play_pause",
            "Play / pause",
            "Space",
            "Run or pause the simulation",
            self._play_pause,
        )
        reset = self.window.sim_actions.get("reset")
        if reset is not None:
            reset.setShortcuts([*reset.shortcuts(), QKeySequence("Backspace")])
        self._action(
            "key_help",
            "&Keyboard and mouse",
            "F1",
            "Every mouse and key binding of the studio",
            self.show_help,
        )

    def _menu(self, title: str) -> QMenu | None:
        for action in self.window.menuBar().actions():
            if action.menu() is not None and action.text().replace("&", "") == title:
                return action.menu()
        return None

    def _install_menus(self) -> None:
        view_menu = self._menu("View")
        if view_menu is not None:
            first = view_menu.actions()[0] if view_menu.actions() else None
            view_menu.insertAction(first, self.actions["zoom_fit"])
            presets = QMenu("&Camera", view_menu)
            presets.setObjectName("cameraMenu")
            for key, *_ in CAMERA_VIEWS:
                presets.addAction(self.actions[f"view_{key}"])
            view_menu.insertMenu(first, presets)
            view_menu.insertAction(first, self.actions["follow"])
            view_menu.insertAction(first, self.actions["full_screen"])
            view_menu.insertSeparator(first)
            self.camera_menu = presets
        sim_menu = self._menu("Simulation")
        if sim_menu is not None:
            sim_menu.addSeparator()
            sim_menu.addAction(self.actions["play_pause"])
            sim_menu.addAction(self.actions["stop"])
        help_menu = self._menu("Help")
        if help_menu is not None:
            first = help_menu.actions()[0] if help_menu.actions() else None
            help_menu.insertAction(first, self.actions["key_help"])

    def _install_toolbar(self) -> None:
        toolbar = QToolBar("View", self.window)
        toolbar.setObjectName("viewToolbar")
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        toolbar.addAction(self.actions["zoom_fit"])
        button = QToolButton(toolbar)
        button.setObjectName("cameraButton")
        button.setText("Camera")
        button.setToolTip("Camera presets (relative to the model's up direction)")
        button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        button.setMenu(getattr(self, "camera_menu", None) or QMenu(button))
        toolbar.addWidget(button)
        toolbar.addAction(self.actions["follow"])
        toolbar.addAction(self.actions["full_screen"])
        # a row of its own: beside the simulation toolbar it would not fit 1280 px and would
        # hide behind the >> chevron
        self.window.addToolBarBreak(Qt.ToolBarArea.TopToolBarArea)
        self.window.addToolBar(Qt.ToolBarArea.TopToolBarArea, toolbar)
        self.toolbar = toolbar
        view_menu = self._menu("View")
        if view_menu is not None:
            view_menu.addAction(toolbar.toggleViewAction())

    # -- commands -------------------------------------------------------------------------------

    def _play_pause(self, _checked: bool = False) -> None:
        panel = self.window.simulation
        if panel.session is None:
            return
        snap = panel.snapshot
        running = panel.session.running or (snap is not None and snap.running)
        if running:
            panel.pause()
        else:
            panel.play()

    def _stop(self, _checked: bool = False) -> None:
        """Esc: pause a run or drop a Step in progress (as Pause does) and stop a replay; when
        nothing runs, leave full screen."""
        window = self.window
        panel = window.simulation
        session = panel.session
        snap = panel.snapshot
        stopped = False
        if session is not None and (
            session.running or session.stepping or (snap is not None and snap.running)
        ):
            panel.pause()
            stopped = True
        timeline = getattr(window, "timeline", None)
        if timeline is not None and timeline.replaying():
            timeline.replay(0)
            stopped = True
        if not stopped and window.isFullScreen():
            window.showNormal()

    def _toggle_full(self, _checked: bool = False) -> None:
        window = self.window
        if window.isFullScreen():
            window.showNormal()
        else:
            window.showFullScreen()

    def eventFilter(self, watched, event) -> bool:  # noqa: N802  (Qt's name)
        if watched is self.window and event.type() == QEvent.Type.WindowStateChange:
            self.actions["leave_full_screen"].setEnabled(self.window.isFullScreen())
        return False

    def _selected_index(self) -> int | None:
        panel = self.window.simulation
        snap = panel.snapshot
        if snap is None or snap.model is None or panel.selected_body is None:
            return None
        names = list(snap.model.body_names)
        if panel.selected_body not in names:
            return None
        index = names.index(panel.selected_body)
        return index if index > 0 else None

    def _follow_toggled(self, checked: bool) -> None:
        body = self._selected_index() if checked else None
        if checked and body is None:
            self.window.statusBar().showMessage("Select a body to follow first", 4000)
            self.actions["follow"].setChecked(False)
            return
        self.window.viewport.follow_body(body)
        self._followed = body

    def _selection_changed(self, _name: str) -> None:
        if self.actions["follow"].isChecked():
            self._follow_toggled(True)

    def _snapshot_shown(self, _snap) -> None:
        # A tree selection (not only a pick) may change the followed body.
        if self.actions["follow"].isChecked():
            body = self._selected_index()
            if body != getattr(self, "_followed", None):
                self._follow_toggled(True)

    # -- help -----------------------------------------------------------------------------------

    def bindings(self) -> list[tuple[str, str]]:
        """(input, what it does) for every mouse binding and every action with a shortcut."""
        rows = list(MOUSE_BINDINGS)
        seen = set()
        for action in self.window.findChildren(QAction) + list(self.window.actions()):
            native = QKeySequence.SequenceFormat.NativeText
            shortcuts = [s.toString(native) for s in action.shortcuts() if s.toString(native)]
            text = action.text().replace("&", "").rstrip("…").strip()
            if not shortcuts or not text or id(action) in seen:
                continue
            seen.add(id(action))
            tip = action.statusTip() or action.toolTip()
            what = text if not tip or tip.startswith(text) else f"{text}: {tip}"
            rows.append((", ".join(shortcuts), what))
        return rows

    def show_help(self, _checked: bool = False) -> QDialog:
        """The Help > Keyboard and mouse dialog (non-modal; returned for tests)."""
        dialog = QDialog(self.window)
        dialog.setObjectName("keyHelpDialog")
        dialog.setWindowTitle("Keyboard and mouse")
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        rows = self.bindings()
        table = QTableWidget(len(rows), 2, dialog)
        table.setObjectName("keyHelpTable")
        table.setHorizontalHeaderLabels(["Input", "Action"])
        table.verticalHeader().hide()
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        for r, (key, what) in enumerate(rows):
            table.setItem(r, 0, QTableWidgetItem(key))
            table.setItem(r, 1, QTableWidgetItem(what))
        header = table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, dialog)
        buttons.rejected.connect(dialog.close)
        layout = QVBoxLayout(dialog)
        layout.addWidget(table)
        layout.addWidget(buttons)
        dialog.resize(640, 520)
        dialog.show()
        self.help_dialog = dialog
        return dialog


def install_view_controls(window: QMainWindow) -> ViewControls:
    """Create the view controls of ``window`` (see the module docstring)."""
    return ViewControls(window)
