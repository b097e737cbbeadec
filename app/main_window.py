"""The studio's main window: 3-D viewport, docks, simulation toolbar and status bar."""

from __future__ import annotations

import functools
from pathlib import Path

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QAction, QGuiApplication, QIcon, QKeySequence, QPixmap
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QDockWidget,
    QFrame,
    QLabel,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QStyle,
    QToolBar,
    QWidget,
)

from app import gui_collector
from app.viewport import ViewportWidget

ICONS_DIR = Path(__file__).resolve().parent.parent / "resources" / "icons"

# (title, area); the title doubles as the dock's objectName, which QMainWindow.saveState() needs.
DOCKS = (
    ("Model", Qt.DockWidgetArea.LeftDockWidgetArea),
    ("Stage inspector", Qt.DockWidgetArea.RightDockWidgetArea),
    ("Cache inspector", Qt.DockWidgetArea.RightDockWidgetArea),
    ("Plots", Qt.DockWidgetArea.BottomDockWidgetArea),
)

# key: (text, shortcut, tooltip, icon file, fallback standard icon)
SIMULATION_ACTIONS = {
    "play": ("Play", "F5", "Run the simulation", "play.svg", QStyle.StandardPixmap.SP_MediaPlay),
    "pause": (
        "Pause",
        "Shift+F5",
        "Pause the simulation",
        "pause.svg",
        QStyle.StandardPixmap.SP_MediaPause,
    ),
    "step": (
        "Step",
        "F10",
        "Advance the simulation by one reporting interval",
        "step.svg",
        QStyle.StandardPixmap.SP_MediaSkipForward,
    ),
    "reset": (
        "Reset",
        "Ctrl+Shift+F5",
        "Return to the initial state (t = 0)",
        "reset.svg",
        QStyle.StandardPixmap.SP_MediaSkipBackward,
    ),
}

SETTINGS_GEOMETRY = "main_window/geometry"
SETTINGS_STATE = "main_window/state"
DEFAULT_SIZE = (1280, 800)
#: Heights (px) of the Model, Properties and Joints docks in the default layout, which share
#: the left column from below the toolbars to the status bar: the model tree shows about ten
#: rows, a body's Properties form its name, parent, mobilizer and frame, the Joints dock a few
#: sliders (each scrolls for more).
LEFT_COLUMN_SHARES = (230, 240, 180)
#: Width (px) of the left column in the default layout.
LEFT_COLUMN_WIDTH = 360
#: Height (px) of the bottom docks (Plots) in the default layout.
BOTTOM_HEIGHT = 180
#: The docks of the right column in the default layout; in a narrow window they go below the
#: 3-D view instead, as tabs beside Plots (see MainWindow._keep_view_large).
RIGHT_COLUMN = ("Stage inspector", "Cache inspector", "State diff")
#: Below this share of the window's width for the 3-D view, the default layout moves the right
#: column below the view.
MIN_VIEW_SHARE = 0.4


@functools.cache
def icon_file(filename: str) -> QIcon:
    """The icon of ``resources/icons/filename`` (a null QIcon if there is no such file), one
    QIcon per file for the process. Qt caches the pixmaps an icon is drawn at (the window
    icon at six sizes for the window manager, toolbar icons per size and state) in
    QPixmapCache under the icon's own serial number, so every window sharing the one icon
    shares those pixmaps; an icon made per window would add its own until the cache's limit."""
    path = ICONS_DIR / filename
    return QIcon(str(path)) if path.is_file() else QIcon()


def app_icon() -> QIcon:
    return icon_file("mbstudio.svg")


def grab_window(window: QWidget) -> QPixmap:
    """Screenshot of ``window`` as shown on screen (``QWidget.grab()`` misses the VTK view)."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    frame = window.frameGeometry()
    return screen.grabWindow(0, frame.x(), frame.y(), frame.width(), frame.height())


def fit_to_screen(window: QWidget) -> None:
    """Shrink and move ``window`` (frame included) into its screen's available area: a saved
    or default size larger than the screen (a high QT_SCALE_FACTOR) never spills off it."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    if screen is None or window.isMaximized() or window.isFullScreen():
        return
    area = screen.availableGeometry()
    frame = window.frameGeometry()
    extra_w, extra_h = frame.width() - window.width(), frame.height() - window.height()
    width = min(window.width(), area.width() - extra_w)
    height = min(window.height(), area.height() - extra_h)
    if (width, height) != (window.width(), window.height()):
        window.resize(width, height)
    x = min(max(frame.x(), area.left()), area.right() + 1 - (width + extra_w))
    y = min(max(frame.y(), area.top()), area.bottom() + 1 - (height + extra_h))
    if (x, y) != (frame.x(), frame.y()):
        window.move(x, y)


def format_time(t: float) -> str:
    return f"t = {t:.3f} s"


def _placeholder(text: str) -> QLabel:
    label = QLabel(text)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setWordWrap(True)
    label.setEnabled(False)  # greyed: nothing to interact with yet
    label.setMargin(12)
    return label


def _scroll_when_short(dock: QDockWidget) -> None:
    """Put ``dock``'s form in a scroll area unless it is one or fits BOTTOM_HEIGHT already:
    a dock below the 3-D view scrolls its form rather than grow over the view."""
    widget = dock.widget()
    if widget is None or isinstance(widget, QAbstractScrollArea):
        return
    if widget.minimumSizeHint().height() <= BOTTOM_HEIGHT // 2:
        return
    area = QScrollArea()
    area.setObjectName(f"{dock.objectName()} scroll")
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidgetResizable(True)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    area.setWidget(widget)  # (takes it from the dock)
    dock.setWidget(area)


class MainWindow(QMainWindow):
    """The studio window. ``settings`` defaults to QSettings("mbstudio", "studio")."""

    def __init__(
        self,
        model_path: Path | None = None,
        settings: QSettings | None = None,
        restore_layout: bool = True,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        # garbage is collected on this thread from now on, until the last window closes
        self._open_window = gui_collector.window_opened()
        self.destroyed.connect(self._open_window.closed)
        self.setObjectName("mainWindow")
        self.setWindowTitle("mbstudio")
        self.setWindowIcon(app_icon())
        self.model_path = model_path
        self._settings = settings if settings is not None else QSettings("mbstudio", "studio")

        self.viewport = ViewportWidget(self)
        self.setCentralWidget(self.viewport)

        self.docks: dict[str, QDockWidget] = {}
        self._create_docks()
        self.sim_actions: dict[str, QAction] = {}
        self._create_toolbar()
        self._create_menus()

        self.time_label = QLabel(format_time(0.0))
        self.time_label.setObjectName("timeLabel")
        self.time_label.setMinimumWidth(110)
        self.statusBar().addPermanentWidget(self.viewport.out_of_view)
        self.statusBar().addPermanentWidget(self.time_label)
        self.statusBar().showMessage("No model loaded" if model_path is None else "Ready")

        from app.simulation_ui import install_simulation

        self.simulation = install_simulation(self)

        from app.timeline_ui import install_timeline

        self.timeline = install_timeline(self)

        from app.overlays_ui import install_overlays
        from app.recording import install_recording

        self.overlays = install_overlays(self, self.simulation)  # View > Teaching overlays
        self.recording = install_recording(self, self.simulation)  # Save image, Record video

        from app.tree.editor import install_model_editor

        self.model_editor = install_model_editor(self)  # tree, properties, File/Edit menus

        from app.view_controls import install_view_controls

        self.view_controls = install_view_controls(self)  # camera, keys, pulling bodies

        from app.importers.urdf.gui import install_urdf_import

        self.urdf_import = install_urdf_import(self)  # File > Import URDF…, .urdf drops

        from app.ensemble_ui import install_ensemble

        self.ensemble = install_ensemble(self)  # Simulation > Ensemble…
        if model_path is not None:
            self.model_editor.open_path(model_path, modal=False)

        self.resize(*DEFAULT_SIZE)
        self._share_left_column()
        #: Whether the window still has the default dock layout, which it adapts to a narrow
        #: window (a layout restored from the settings is the user's and left as it is).
        self.adapts_layout = True
        if restore_layout:
            self.adapts_layout = not self._restore_layout()
        else:
            self._settings.remove("main_window")
        fit_to_screen(self)

    # -- construction -----------------------------------------------------------------------------

    def _create_docks(self) -> None:
        texts = {
            "Model": "No model loaded."
            if self.model_path is None
            else f"Opening {self.model_path.name}…",
            "Stage inspector": "System stages appear here.",
            "Cache inspector": "Cache entries appear here.",
            "Plots": "Plots of simulated quantities appear here.",
        }
        for title, area in DOCKS:
            dock = QDockWidget(title, self)
            dock.setObjectName(title)
            dock.setWidget(_placeholder(texts[title]))
            self.addDockWidget(area, dock)
            self.docks[title] = dock
        # The left column (model tree, Properties, joint sliders) runs to the bottom of the
        # window, beside the Plots dock.
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.tabifyDockWidget(self.docks["Stage inspector"], self.docks["Cache inspector"])
        self.docks["Stage inspector"].raise_()
        self.resizeDocks([self.docks["Model"]], [LEFT_COLUMN_WIDTH], Qt.Orientation.Horizontal)
        self.resizeDocks([self.docks["Plots"]], [BOTTOM_HEIGHT], Qt.Orientation.Vertical)

    def _share_left_column(self) -> None:
        """Share the left column's height between the model tree, the Properties form and
        the joint sliders (``LEFT_COLUMN_SHARES``)."""
        left = [self.docks.get(k) for k in ("Model", "Properties", "Joints")]
        if all(dock is not None for dock in left):
            self.resizeDocks(left, list(LEFT_COLUMN_SHARES), Qt.Orientation.Vertical)

    def _icon(self, filename: str, fallback: QStyle.StandardPixmap) -> QIcon:
        icon = icon_file(filename)
        return icon if not icon.isNull() else self.style().standardIcon(fallback)

    def _create_toolbar(self) -> None:
        toolbar = QToolBar("Simulation", self)
        toolbar.setObjectName("simulationToolbar")
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        for key, (text, shortcut, tip, icon_file, fallback) in SIMULATION_ACTIONS.items():
            action = QAction(self._icon(icon_file, fallback), text, self)
            action.setObjectName(f"{key}Action")
            action.setShortcut(QKeySequence(shortcut))
            action.setToolTip(f"{tip} ({shortcut})")
            action.setStatusTip(tip)
            action.setEnabled(False)  # no simulation to drive yet
            toolbar.addAction(action)
            self.sim_actions[key] = action
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, toolbar)
        self.toolbar = toolbar

    def _create_menus(self) -> None:
        menu_bar = self.menuBar()
        file_menu = menu_bar.addMenu("&File")
        quit_action = file_menu.addAction("&Quit")
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)

        view_menu = menu_bar.addMenu("&View")
        for dock in self.docks.values():
            view_menu.addAction(dock.toggleViewAction())
        view_menu.addSeparator()
        view_menu.addAction(self.toolbar.toggleViewAction())

        sim_menu = menu_bar.addMenu("&Simulation")
        sim_menu.addActions(list(self.sim_actions.values()))

        help_menu = menu_bar.addMenu("&Help")
        help_menu.addAction("&About mbstudio", self._show_about)

    def _show_about(self) -> None:
        QMessageBox.about(
            self,
            "About mbstudio",
            "<b>mbstudio</b><p>Multibody dynamics with Simbody's API in Python, "
            "rendered with VTK.</p>",
        )

    # -- state ------------------------------------------------------------------------------------

    def set_time(self, t: float) -> None:
        self.time_label.setText(format_time(t))

    def _restore_layout(self) -> bool:
        """Restore the saved window geometry and dock layout; True if there was a layout."""
        geometry = self._settings.value(SETTINGS_GEOMETRY)
        if geometry is not None:
            self.restoreGeometry(geometry)
        state = self._settings.value(SETTINGS_STATE)
        return state is not None and bool(self.restoreState(state))

    def resizeEvent(self, event) -> None:  # noqa: N802  (Qt's name)
        super().resizeEvent(event)
        self._keep_view_large()

    def showEvent(self, event) -> None:  # noqa: N802  (Qt's name)
        super().showEvent(event)
        self._keep_view_large()

    def _keep_view_large(self) -> None:
        """In the default layout, keep the 3-D view the largest area of a narrow window
        (1024 px, say): the right column's docks go below the view, as tabs beside Plots,
        and the left column and the bottom docks are brought back to their default sizes.
        The docks' forms scroll rather than take the view's room."""
        if not self.adapts_layout or self.isMinimized():
            return
        layout = self.layout()
        if layout is not None:
            layout.activate()  # the central widget's geometry for the current window size
        view = self.centralWidget()
        if view.width() >= MIN_VIEW_SHARE * self.width():
            return
        plots = self.docks.get("Plots")
        right = [
            self.docks[k]
            for k in RIGHT_COLUMN
            if k in self.docks
            and not self.docks[k].isFloating()
            and self.dockWidgetArea(self.docks[k]) == Qt.DockWidgetArea.RightDockWidgetArea
        ]
        if plots is not None and not plots.isFloating() and right:
            for dock in right:
                _scroll_when_short(dock)
                self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
                self.tabifyDockWidget(plots, dock)
            plots.raise_()
            self.resizeDocks([plots], [BOTTOM_HEIGHT], Qt.Orientation.Vertical)
        left = self.docks.get("Model")
        if left is not None and left.width() > LEFT_COLUMN_WIDTH:
            self.resizeDocks([left], [LEFT_COLUMN_WIDTH], Qt.Orientation.Horizontal)

    def save_layout(self) -> None:
        self._settings.setValue(SETTINGS_GEOMETRY, self.saveGeometry())
        self._settings.setValue(SETTINGS_STATE, self.saveState())
        self._settings.sync()

    def closeEvent(self, event) -> None:
        if not self.model_editor.confirm_discard():
            event.ignore()
            return
        self.model_editor.shutdown()
        self.save_layout()
        self.recording.shutdown()
        self.ensemble.shutdown()
        self.simulation.shutdown()
        self.viewport.close_view()
        super().closeEvent(event)
        self._open_window.closed()
