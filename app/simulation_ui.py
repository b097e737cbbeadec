"""The simulation side of the main window: wires a SimulationSession to the view, the docks,
the toolbar and the status bar.

``install_simulation(window)`` (called by MainWindow) creates a ``SimulationPanel`` that

* fills the "Stage inspector", "Cache inspector" and "Plots" docks and adds a "Joints" dock
  of sliders;
* enables the toolbar's play / pause / step / reset actions and adds integrator, accuracy,
  pacing and speed controls;
* adds real-time-rate and frames-per-second labels to the status bar, and a banner above the
  3-D view that says why a run stopped;
* polls the session's latest snapshot on a GUI timer (~60 Hz). Only this GUI thread touches Qt
  or VTK; the worker never does. The GUI never takes the State lock: it only reads snapshots.

Load a model with ``load_built(built)`` or ``load_document(document)`` (a ModelDocument: every
change of the document rebuilds the System and hands it to the worker, which carries the state
over). ``shutdown()`` stops the worker (the window calls it on close).
"""

from __future__ import annotations

import collections
import math
import sys
import time

import numpy as np
from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDockWidget,
    QDoubleSpinBox,
    QLabel,
    QLineEdit,
    QMainWindow,
    QVBoxLayout,
    QWidget,
)

from app.camera_reach import model_reach
from app.simulation.integrators import (
    DEFAULT_ACCURACY,
    DEFAULT_INTEGRATOR,
    INTEGRATORS,
    has_error_control,
)
from app.simulation.session import Pacing, SimulationSession
from app.widgets.accuracy_box import AccuracyBox, format_accuracy, parse_accuracy
from app.widgets.cache_inspector import CacheInspector
from app.widgets.joint_sliders import JointSliders
from app.widgets.stage_inspector import StageInspector

TICK_MS = 15
GIL_SWITCH_INTERVAL = 0.002  # s
SETTINGS_KEY = "simulation/"
PLOT_INTERVAL = 0.25  # s between plot refreshes while running (pyqtgraph paints are costly)
SLIDER_INTERVAL = 0.25  # s between slider refreshes while running
STAGE_INTERVAL = 0.2  # s between stage-table refreshes while running
CACHE_INTERVAL = 0.1  # s between cache-inspector refreshes while running (>= 5 Hz)
CLOSE_WAIT = 0.5  # s the closing window waits for the simulation worker
WAITING_AFTER = 1.0  # s running without a new frame before the status bar says why
WAITING_TEXT = (
    "Running: waiting for the next steps (a model's first run loads its compiled code, "
    "which takes a few seconds)"
)
#: The selected body's highlight: a shell this much larger, this colour and opacity.
HIGHLIGHT_SCALE = 1.12
HIGHLIGHT_COLOR = (1.0, 0.85, 0.0)
HIGHLIGHT_OPACITY = 0.45
#: The selection triad's axes reach this fraction of the body's half size past it.
TRIAD_OVERHANG = 1.0
ACCURACIES = ("1e-2", "1e-3", "1e-4", "1e-5", "1e-6", "1e-8")
BANNER_STYLE = "QLabel { background: #c0392b; color: white; padding: 6px; font-weight: bold; }"


class _ModelVersion:
    """One version of a ModelDocument's content (``data``, ``base_dir``), as ``build`` takes
    it: the document replaces its data on every edit and never changes it in place."""

    __slots__ = ("data", "base_dir")

    def __init__(self, document) -> None:
        self.data = document.data
        self.base_dir = getattr(document, "base_dir", None)


def format_rate(rate: float) -> str:
    return "rate –" if math.isnan(rate) else f"rate {rate:.2f}×"


class SimulationPanel(QObject):
    """See the module docstring."""

    snapshot_shown = Signal(object)
    body_picked = Signal(str)
    #: A ModelDocument is now simulated (``open_path`` / ``load_document``): views of the
    #: document (the model tree) attach to this same object.
    document_loaded = Signal(object)
    #: The worker published a snapshot while paused (a scrub, an edit): shown at once.
    _published_paused = Signal()

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.session: SimulationSession | None = None
        self.document = None
        self.snapshot = None
        self.selected_body: str | None = None
        #: The document's revision the worker was last handed (or None), and whether the
        #: model of that edit is still to be shown: a selection made meanwhile is drawn with
        #: that model (one render per edit, never the model before it with the new selection).
        self._revision_sent = None
        self._edit_awaited = False
        self._model_serial = None
        self._last_serial = None
        self._drawn = None  # (geometry tuple, hints) the 3-D view shows
        self._last_plot = 0.0
        self._last_cache = 0.0
        self._last_sliders = 0.0
        self._last_stages = 0.0
        self._fps = math.nan
        self._fps_mark = (time.perf_counter(), 0)
        self.tick_times: collections.deque = collections.deque(maxlen=2000)

        self.stage_inspector = StageInspector()
        self.cache_inspector = CacheInspector()
        self._plots = None  # created after the first frame (importing pyqtgraph takes ~1 s)
        self.sliders = JointSliders()
        window.docks["Stage inspector"].setWidget(self.stage_inspector)
        window.docks["Cache inspector"].setWidget(self.cache_inspector)
        placeholder = QLabel("Plots appear here.")
        placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        window.docks["Plots"].setWidget(placeholder)
        joints = QDockWidget("Joints", window)
        joints.setObjectName("Joints")
        joints.setWidget(self.sliders)
        window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, joints)
        window.docks["Joints"] = joints
        self._add_view_menu_entry(joints)

        window.docks["Cache inspector"].visibilityChanged.connect(self._cache_shown)
        self.stage_inspector.realize_next_requested.connect(self._realize_next)
        self.stage_inspector.realize_to_requested.connect(self._realize_to)
        self.sliders.q_changed.connect(self._set_q)
        self.sliders.quaternion_changed.connect(self._set_qs)
        window.viewport.picked.connect(self._picked)
        window.viewport.set_render_hook(self._rendering)

        self._create_banner()
        #: True when a failure explainer above the view shows a run's error (in plain words,
        #: with the engine's text under Details): the banner then shows only errors of
        #: opening a model, not the same run error a second time.
        self.run_errors_explained = False
        self._create_controls()
        self._restore_controls()
        self._create_status()
        self._update_actions(running=False, loaded=False)

        # The worker is Python too: hand the interpreter to a waiting GUI thread within ~2 ms
        # (Python's default is 5 ms) so that the event loop stays responsive while it steps.
        sys.setswitchinterval(min(sys.getswitchinterval(), GIL_SWITCH_INTERVAL))
        self.timer = QTimer(self)
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.timeout.connect(self._tick)
        self.timer.start(TICK_MS)
        self._published_paused.connect(self._tick, Qt.ConnectionType.QueuedConnection)

    # -- construction ---------------------------------------------------------------------------

    def _add_view_menu_entry(self, dock: QDockWidget) -> None:
        for action in self.window.menuBar().actions():
            if action.text().replace("&", "") == "View" and action.menu() is not None:
                action.menu().addAction(dock.toggleViewAction())
                return

    def _create_banner(self) -> None:
        """A dialog-free banner above the 3-D view, shown when a run stops with an error."""
        window = self.window
        viewport = window.takeCentralWidget()
        container = QWidget()
        container.setObjectName("centralContainer")
        layout = QVBoxLayout(container)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.banner = QLabel("")
        self.banner.setObjectName("errorBanner")
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet(BANNER_STYLE)
        self.banner.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.banner.hide()
        layout.addWidget(self.banner)
        layout.addWidget(viewport, 1)
        window.setCentralWidget(container)

    def _create_controls(self) -> None:
        window = self.window
        actions = window.sim_actions
        actions["play"].triggered.connect(self.play)
        actions["pause"].triggered.connect(self.pause)
        actions["step"].triggered.connect(self.step)
        actions["reset"].triggered.connect(self.reset)
        toolbar = window.toolbar
        toolbar.addSeparator()

        self.integrator_box = QComboBox()
        self.integrator_box.setObjectName("integratorBox")
        self.integrator_box.addItems(list(INTEGRATORS))
        self.integrator_box.setCurrentText(DEFAULT_INTEGRATOR)
        self.integrator_box.setToolTip("Integration method")
        self.integrator_box.currentTextChanged.connect(self._settings_changed)
        toolbar.addWidget(QLabel(" Integrator "))
        toolbar.addWidget(self.integrator_box)

        self.accuracy_box = AccuracyBox(ACCURACIES, DEFAULT_ACCURACY)
        self.accuracy_box.setObjectName("accuracyBox")
        self.accuracy_box.accuracy_changed.connect(self._settings_changed)
        self.accuracy_box.refused.connect(
            lambda message: window.statusBar().showMessage(message, 10000)
        )
        toolbar.addWidget(QLabel(" Accuracy "))
        toolbar.addWidget(self.accuracy_box)

        # methods without error control step with a fixed step size (empty: the default)
        self.step_size_edit = QLineEdit()
        self.step_size_edit.setObjectName("stepSizeEdit")
        self.step_size_edit.setPlaceholderText("auto")
        self.step_size_edit.setMaximumWidth(80)
        self.step_size_edit.setToolTip(
            "Fixed step size (model time units) of integrators without error control "
            "(SemiExplicitEuler, ExplicitEuler, Verlet); empty: 1/1000 of the time scale"
        )
        self.step_size_edit.editingFinished.connect(self._settings_changed)
        toolbar.addWidget(QLabel(" Step "))
        toolbar.addWidget(self.step_size_edit)
        self._update_step_size_enabled()
        self.integrator_box.currentTextChanged.connect(self._update_step_size_enabled)

        self.pacing_box = QComboBox()
        self.pacing_box.setObjectName("pacingBox")
        for mode in Pacing:
            self.pacing_box.addItem(mode.value, mode)
        self.pacing_box.setToolTip(
            "Real time: simulated time follows the clock times the speed factor. "
            "As fast as possible: no waiting, the view shows the latest state. "
            "Sampled: every reporting interval is drawn as a frame."
        )
        self.pacing_box.currentIndexChanged.connect(self._settings_changed)
        toolbar.addWidget(QLabel(" Pacing "))
        toolbar.addWidget(self.pacing_box)

        self.speed_box = QDoubleSpinBox()
        self.speed_box.setObjectName("speedBox")
        self.speed_box.setRange(0.01, 100.0)
        self.speed_box.setDecimals(2)
        self.speed_box.setValue(1.0)
        self.speed_box.setSuffix("×")
        self.speed_box.setToolTip("Speed factor for real-time pacing")
        self.speed_box.valueChanged.connect(self._settings_changed)
        toolbar.addWidget(self.speed_box)

    def _restore_controls(self) -> None:
        """Integrator, accuracy, pacing and speed as the last session left them."""
        settings = getattr(self.window, "_settings", None)
        if settings is None:
            return
        integrator = settings.value(SETTINGS_KEY + "integrator")
        if integrator in INTEGRATORS:
            self.integrator_box.setCurrentText(integrator)
        accuracy = settings.value(SETTINGS_KEY + "accuracy")
        if accuracy and parse_accuracy(str(accuracy)) is not None:
            self.accuracy_box.set_accuracy(parse_accuracy(str(accuracy)))
        pacing = settings.value(SETTINGS_KEY + "pacing")
        index = self.pacing_box.findText(str(pacing)) if pacing else -1
        if index >= 0:
            self.pacing_box.setCurrentIndex(index)
        try:
            speed = float(settings.value(SETTINGS_KEY + "speed", 1.0))
        except (TypeError, ValueError):
            speed = 1.0
        self.speed_box.setValue(speed)

    def _save_controls(self) -> None:
        settings = getattr(self.window, "_settings", None)
        if settings is None:
            return
        settings.setValue(SETTINGS_KEY + "integrator", self.integrator_box.currentText())
        settings.setValue(SETTINGS_KEY + "accuracy", format_accuracy(self.accuracy_box.accuracy()))
        settings.setValue(SETTINGS_KEY + "pacing", self.pacing_box.currentText())
        settings.setValue(SETTINGS_KEY + "speed", self.speed_box.value())
        settings.sync()

    def _ensure_plots(self) -> None:
        if self.timer.isActive():  # not shut down
            _ = self.plots

    @property
    def plots(self):
        """The plots widget (created on first use: pyqtgraph is imported then)."""
        if self._plots is None:
            from app.widgets.plots import PlotsWidget

            self._plots = PlotsWidget()
            self.window.docks["Plots"].setWidget(self._plots)
            snap = self.snapshot
            if snap is not None and snap.model is not None:
                self._plots.set_buffer(snap.model.samples, _units(snap.model))
        return self._plots

    def _create_status(self) -> None:
        bar = self.window.statusBar()
        self.rate_label = QLabel(format_rate(math.nan))
        self.rate_label.setObjectName("rateLabel")
        self.rate_label.setToolTip("Simulated seconds per wall-clock second")
        self.fps_label = QLabel("fps –")
        self.fps_label.setObjectName("fpsLabel")
        self.fps_label.setToolTip("Frames drawn per second by the 3-D view")
        bar.addPermanentWidget(self.rate_label)
        bar.addPermanentWidget(self.fps_label)

    # -- models ---------------------------------------------------------------------------------

    def load_built(self, built) -> None:
        """Simulate ``built`` (a BuiltModel), replacing any running session."""
        self._stop_session()
        self._model_serial = None
        self._last_serial = None
        self._drawn = None
        self.window.viewport.expect_new_model()  # a different model: aim the camera at it
        settings = self._settings()

        def start():
            # the worker's first realization, sample columns, decorations and snapshot of a
            # large model take seconds: made off the GUI thread, which keeps drawing
            session = SimulationSession(built, settings=settings, on_publish=self._on_publish)
            session.start()
            return session

        from app.document.background_load import run_in_worker
        from app.simulation import model_heap

        large = model_heap.is_large(built.matter.getNumBodies())
        session = run_in_worker(start, "Preparing the simulation…", self.window, large)
        if not self.timer.isActive():  # the window was closed meanwhile
            session.stop(CLOSE_WAIT)
            return
        self._stop_session()  # one loaded meanwhile (a second open) gives way to this one
        self.session = session
        self._update_actions(running=False, loaded=True)

    def open_path(self, path) -> bool:
        """Load the model file ``path`` and simulate it; False (with the reason shown in the
        banner) if it cannot be loaded or built."""
        try:
            from app.document import model_io

            document = model_io.load(path)
            self.load_document(document)
        except Exception as exc:  # noqa: BLE001  (any load failure is reported, not raised)
            self.show_error(f"Cannot open {path}: {exc}")
            return False
        self.window.statusBar().showMessage(f"Opened {path}", 5000)
        return True

    @staticmethod
    def _build(document):
        if hasattr(document, "build"):
            return document.build()
        from app.document import build

        return build(document)

    def load_document(self, document, built=None) -> None:
        """Simulate a ModelDocument (``built``: its BuiltModel, if already built) and follow its
        changes."""
        built = built if built is not None else self._build(document)
        if self.document is not None:
            self.document.remove_listener(self._document_changed)
        self.document = document
        self._revision_sent = getattr(document, "revision", None)
        self.load_built(built)
        document.add_listener(self._document_changed)
        self.document_loaded.emit(document)

    def _document_changed(self, change) -> None:
        """The document was edited: the worker rebuilds the System from this version of its
        content between batches (the GUI thread never builds; see SimulationSession.rebuild)."""
        document = self.document
        self._revision_sent = getattr(document, "revision", None)
        if self.session is None or document is None:
            return
        model = document if hasattr(document, "build") else _ModelVersion(document)
        self.session.rebuild(model, getattr(change, "kind", "topology"))
        self._edit_awaited = True  # until the worker's next snapshot is shown

    def _edit_pending(self) -> bool:
        """Whether the worker has an edit of the document whose snapshot is not shown yet
        (or the document was just edited and its listener here has not run yet)."""
        document = self.document
        revision = getattr(document, "revision", None) if document is not None else None
        return self._edit_awaited or revision != self._revision_sent

    def _on_publish(self, snap) -> None:
        """The worker's thread: a snapshot published while paused (the answer to a scrub
        or an edit) wakes the GUI at once instead of at its next timer tick."""
        if not snap.running:
            try:
                self._published_paused.emit()
            except RuntimeError:  # the window is gone; the worker is ending
                pass

    # -- commands -------------------------------------------------------------------------------

    def play(self) -> None:
        if self.session is not None:
            self._frame_at = time.perf_counter()
            self.session.play()
            self._update_actions(running=True, loaded=True)

    def pause(self) -> None:
        if self.session is not None:
            self.session.pause()
            self._update_actions(running=False, loaded=True)

    def step(self) -> None:
        if self.session is not None:
            self.session.step()
            # Pause (and Stop) drop a step that takes long; Play and Step wait for it
            self._update_actions(running=True, loaded=True)

    def reset(self) -> None:
        if self.session is not None:
            self.session.reset()
            self._reaim_at_reset = True  # with the first snapshot of the reset State
            self._update_actions(running=False, loaded=True)

    def _cache_in_view(self) -> bool:
        """Whether the cache inspector can be seen (a dock behind another's tab is "visible"
        to Qt, but nothing of it is in view)."""
        inspector = self.cache_inspector
        return inspector.isVisible() and not inspector.visibleRegion().isEmpty()

    def _cache_shown(self, visible: bool) -> None:
        if visible and self.session is not None:
            self.session.want_cache = True
            self.session.request_cache_report()

    def _realize_next(self) -> None:
        if self.session is not None:
            self.session.realize_next_stage()

    def _realize_to(self, stage) -> None:
        if self.session is not None:
            self.session.realize_to(stage)

    def _set_q(self, body: str, which: int, value: float) -> None:
        if self.session is not None and not self.session.running:
            self.session.set_q(body, which, value)

    def _set_qs(self, body: str, first: int, values) -> None:
        if self.session is not None and not self.session.running:
            self.session.set_qs(body, first, values)

    def _update_step_size_enabled(self, *_args) -> None:
        self.step_size_edit.setEnabled(not has_error_control(self.integrator_box.currentText()))

    def _field_value(self, widget, text: str, what: str, low: float, high: float):
        """float(text) if in (low, high); otherwise None, with the field marked and a message
        in the status bar (a bad value is refused, not silently replaced)."""
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        ok = low < value < high
        widget.setStyleSheet("" if ok else "background: #f6c6c6;")
        if not ok:
            self.window.statusBar().showMessage(
                f"{what} must be a number between {low:g} and {high:g}; got {text!r} "
                "(the previous value stays in use)",
                8000,
            )
        return value if ok else None

    def _settings(self) -> dict:
        step_text = self.step_size_edit.text().strip()
        step_size = (
            self._field_value(self.step_size_edit, step_text, "The step size", 0.0, math.inf)
            if step_text
            else None
        )
        if not step_text:
            self.step_size_edit.setStyleSheet("")
        from app.simulation.session import Settings

        current = self.session.settings if self.session is not None else Settings()
        return Settings(
            integrator=self.integrator_box.currentText(),
            accuracy=self.accuracy_box.accuracy(),
            step_size=current.step_size if step_text and step_size is None else step_size,
            pacing=self.pacing_box.currentData(),
            speed=self.speed_box.value(),
        )

    def _settings_changed(self, *_args) -> None:
        if self.session is None:
            return
        s = self._settings()
        self.session.set_settings(
            integrator=s.integrator,
            accuracy=s.accuracy,
            step_size=s.step_size,
            pacing=s.pacing,
            speed=s.speed,
        )

    def _picked(self, result) -> None:
        snap = self.snapshot
        if result is None or snap is None or snap.model is None:
            return
        names = snap.model.body_names
        b = int(result.body_id)
        name = names.get(b) if isinstance(names, dict) else names[b] if b < len(names) else None
        if name:
            self.select_body(str(name))
            self.body_picked.emit(str(name))

    def select_body(self, name: str) -> None:
        """Mark body ``name`` as selected: a yellow frame triad on it in the 3-D view (the tree
        calls this when its selection changes)."""
        self.window.statusBar().showMessage(f"Selected {name}", 3000)
        self.selected_body = name
        self.sliders.scroll_to_body(name)  # its joint's rows come into view
        snap = self.snapshot
        if self._plots is not None:
            # a body renamed or added just now has its quantities in the next model's buffer
            model = snap.model if snap is not None else None
            plotted = model is None or name == "Ground" or name in model.body_names
            self._plots.show_body(name, plotted)
        # During an edit the next snapshot (the edited model's, which show_snapshot draws with
        # the selection) comes soon: drawing the model before it with the new selection now
        # would cost a second render of the whole view for one edit.
        if snap is not None and not self._edit_pending():
            self.window.viewport.update_frame(snap.x_gb, self._dynamic_geometry(snap))

    def _dynamic_geometry(self, snap) -> list:
        geometry = list(snap.dynamic_geometry)
        names = list(snap.model.body_names) if snap.model is not None else []
        if self.selected_body in names and snap.x_gb is not None:
            from engine.common.decorative_geometry import DecorativeFrame

            body = names.index(self.selected_body)
            triad = DecorativeFrame(self._triad_length(snap, body))
            triad.setBodyId(body)
            triad.setColor([1.0, 0.85, 0.0])
            triad.setLineThickness(3)
            geometry.append(triad)
            geometry.extend(self._highlight(snap.geometry, names.index(self.selected_body)))
        return geometry

    def _triad_length(self, snap, body: int) -> float:
        """Axis length (m) of the selection triad on ``body``: a little past the half size of
        what is drawn of the body, so it shows outside a ball and does not hide a small
        body (0.5 length scales for Ground and a body drawn with lines only). Made once per
        model and selection."""
        key = (id(snap.geometry), body)
        cached = getattr(self, "_triad_cache", None)
        if cached is not None and cached[0] == key and cached[1] is snap.geometry:
            return cached[2]
        scale = float(snap.model.length_scale)
        # (Ground's decorations span the scene: its triad keeps the fixed length)
        half = self.window.viewport.scene.body_half_size(body) if body > 0 else None
        if not half:  # (a body whose decorations the view has not added yet is not cached)
            return 0.5 * scale
        length = half + min(TRIAD_OVERHANG * half, 0.25 * scale)
        self._triad_cache = (key, snap.geometry, length)
        return length

    def _highlight(self, drawn: tuple, body: int) -> list:
        """A translucent yellow shell, a little larger, over each solid decoration of ``body``
        (the selected body shows tinted and outlined, as in MuJoCo's simulate); it goes with
        the selection. Made once per model and selection."""
        key = (id(drawn), body)
        cached = getattr(self, "_highlight_cache", None)
        if cached is not None and cached[0] == key and cached[1] is drawn:
            return cached[2]
        from engine.common.decorations.annotations import (
            DecorativeFrame,
            DecorativeLine,
            DecorativePoint,
            DecorativeText,
        )

        skip = (DecorativeFrame, DecorativeLine, DecorativePoint, DecorativeText)
        bodies = getattr(drawn, "bodies", None)  # (a KeyedGeometry knows each one's body)
        if bodies is not None and len(bodies) == len(drawn):
            on_body = [drawn[i] for i in np.flatnonzero(bodies == body).tolist()]
        else:
            on_body = [g for g in drawn if g.getBodyId() == body]
        shells = []
        for g in on_body:
            if isinstance(g, skip):
                continue
            shell = g.clone()
            factors = np.where(g.getScaleFactors() > 0.0, g.getScaleFactors(), 1.0)
            shell.setScaleFactors(HIGHLIGHT_SCALE * factors)
            shell.setColor(HIGHLIGHT_COLOR)
            shell.setOpacity(HIGHLIGHT_OPACITY)
            shells.append(shell)
        self._highlight_cache = (key, drawn, shells)
        return shells

    def connect_tree(self, tree) -> None:
        """Two-way selection between the model tree and the 3-D view."""
        self.body_picked.connect(tree.select_body)
        tree.body_selected.connect(self.select_body)
        if hasattr(tree, "key_selected"):  # the model tree: measures are chosen there
            tree.key_selected.connect(lambda key: self._tree_key_selected(tree, key))

    def _tree_key_selected(self, tree, key: str) -> None:
        """A measure chosen in the tree is plotted (checked in the Plots dock)."""
        if not key.startswith("measures:"):
            return
        name = tree.selected_measure()
        if name:
            self.plots.show_measure(name)

    # -- GUI timer ------------------------------------------------------------------------------

    def _tick(self) -> None:
        now = time.perf_counter()
        self.tick_times.append(now)
        self._update_fps(now)
        if self.session is None:
            return
        self.session.want_cache = self._cache_in_view()
        snap = self.session.latest()
        if snap is None or snap.serial == self._last_serial:
            # No new frame (the view does not draw in this tick): the time to bring the
            # inspectors and plots up to date without adding to a frame's drawing time.
            if self.snapshot is not None and self.snapshot.running:
                self._refresh_panels(self.snapshot, now, slack=1.0)
                self._say_if_waiting(now)
            return
        self._last_serial = snap.serial
        self._frame_at = now
        self.show_snapshot(snap)

    def _say_if_waiting(self, now: float) -> None:
        """While running with no new frame for WAITING_AFTER seconds (the worker is in a long
        call: a first run loading or compiling the model's kernels), say so in the status bar
        rather than show a still model beside "Running"."""
        if now - getattr(self, "_frame_at", now) < WAITING_AFTER:
            return
        bar = self.window.statusBar()
        if bar.currentMessage() != WAITING_TEXT:
            bar.showMessage(WAITING_TEXT)
            self._shown_status = None  # the next frame shows the run's status again

    def _rendering(self, busy: bool) -> None:
        """The view starts (True) or ends (False) drawing a frame: the worker pauses between
        steps meanwhile (see SimulationSession.gui_idle)."""
        session = self.session
        if session is None:
            return
        if busy:
            session.gui_idle.clear()
        else:
            session.gui_idle.set()

    def _update_fps(self, now: float) -> None:
        t0, n0 = self._fps_mark
        if now - t0 >= 1.0:
            n = self.window.viewport.frames_rendered
            self._fps = (n - n0) / (now - t0)
            self._fps_mark = (now, n)
            # paused, the view draws only on a change: a frame rate would mean nothing
            running = self.snapshot is not None and self.snapshot.running
            if running:
                text = f"fps {self._fps:.0f}"
            else:
                text = "fps – (paused)" if self.snapshot is not None else "fps –"
            if self.fps_label.text() != text:
                self.fps_label.setText(text)

    @property
    def fps(self) -> float:
        return self._fps

    def show_snapshot(self, snap) -> None:
        """Draw ``snap`` everywhere (GUI thread)."""
        self.snapshot = snap
        self._edit_awaited = False  # (the worker publishes after every command it applies)
        window = self.window
        if snap.model_serial != self._model_serial and snap.model is not None:
            self._model_serial = snap.model_serial
            model = snap.model
            hints = {
                "up": model.up,
                "uniform_background": model.uniform_background,
                "length_scale": model.length_scale,
            }
            session = self.session
            # where the bodies can go: the camera is aimed at that room (a run never moves it)
            window.viewport.model_reach = model_reach(getattr(session, "built", None))
            drawn = self._drawn
            if drawn is None or snap.geometry is not drawn[0] or hints != drawn[1]:
                self._drawn = (snap.geometry, hints)
                window.viewport.show_model(snap.geometry, hints)
            self.sliders.set_model(
                model.mobilizer_types, model.q_index, model.length_scale, model.joint_layout
            )
            if self._plots is not None:
                if snap.model.samples is not self._plots.buffer:  # not an edit that kept it
                    self._plots.set_buffer(snap.model.samples, _units(snap.model))
            else:
                QTimer.singleShot(100, self._ensure_plots)  # after this first frame
        if getattr(self, "_reaim_at_reset", False) and snap.time == 0.0 and not snap.running:
            self._reaim_at_reset = False
            window.viewport.reaim_if_kept()
        window.viewport.update_frame(snap.x_gb, self._dynamic_geometry(snap))
        window.set_time(snap.time)
        now = time.perf_counter()
        self.rate_label.setText(format_rate(snap.real_time_rate))
        # While running, the panels are refreshed in the ticks between frames (see _tick);
        # here only when that has not happened for twice their interval.
        self._refresh_panels(snap, now, slack=2.0)
        stepping = self.session is not None and self.session.stepping
        self._update_actions(running=snap.running or stepping, loaded=True)
        if snap.error:
            if not self.run_errors_explained:
                self.show_error(snap.error)
        else:
            self.banner.hide()
        bar = window.statusBar()
        if snap.status != getattr(self, "_shown_status", None) or not bar.currentMessage():
            # only a change of status: a message shown meanwhile (a refused field value, a
            # selection) would otherwise be replaced by every frame of a run
            self._shown_status = snap.status
            bar.showMessage(snap.status)
        self.snapshot_shown.emit(snap)

    def _refresh_panels(self, snap, now: float, slack: float) -> None:
        """Update the stage and cache inspectors, sliders and plots from ``snap``: all of them
        when paused, else each one whose interval (times ``slack``) has passed."""
        running = snap.running
        if not running or now - self._last_stages >= slack * STAGE_INTERVAL:
            self._last_stages = now
            self.stage_inspector.update_snapshot(snap)
        if self._cache_in_view() and (
            not running or now - self._last_cache >= slack * CACHE_INTERVAL
        ):
            self._last_cache = now
            self.cache_inspector.update_snapshot(snap)
        if not running or now - self._last_sliders >= slack * SLIDER_INTERVAL:
            self._last_sliders = now
            self.sliders.update_snapshot(snap)
        visible = self._plots is not None and self._plots.isVisible()
        if visible and (not running or now - self._last_plot >= slack * PLOT_INTERVAL):
            self._last_plot = now
            self.plots.refresh()

    def show_error(self, message: str) -> None:
        self.banner.setText(message)
        self.banner.setToolTip(message)
        self.banner.show()

    def _update_actions(self, running: bool, loaded: bool) -> None:
        actions = self.window.sim_actions
        actions["play"].setEnabled(loaded and not running)
        actions["pause"].setEnabled(loaded and running)
        actions["step"].setEnabled(loaded and not running)
        actions["reset"].setEnabled(loaded)

    # -- shutdown -------------------------------------------------------------------------------

    def _stop_session(self, wait: float = 5.0) -> None:
        if self.session is None:
            return
        session, self.session = self.session, None
        stopped = session.stop(wait)
        from app.simulation import model_heap

        if not stopped or not model_heap.is_large(session.matter.getNumBodies()):
            return
        # a large model is freed now by reference counting, not by a full collection of the
        # whole heap at the next settle (which holds this thread for most of a second)
        model_heap.freed_by_refcount(session.break_model_cycles())

    def shutdown(self) -> None:
        """Stop the timer and the worker thread (idempotent)."""
        self._save_controls()
        self.timer.stop()
        if self.document is not None:
            self.document.remove_listener(self._document_changed)
            self.document = None
        # The window closes at once: a worker busy in one long call (a cold compile of the
        # stepping kernels, a rebuild) is left to end by itself; it never touches Qt.
        self._stop_session(wait=CLOSE_WAIT)


def install_simulation(window: QMainWindow) -> SimulationPanel:
    """Create the simulation panel of ``window`` (see the module docstring)."""
    return SimulationPanel(window)


def _units(model):
    """The plotted quantities' units of ``model`` (a ModelInfo)."""
    from app.widgets.quantity_units import QuantityUnits

    return QuantityUnits(model.mobilizer_types, model.q_index)
