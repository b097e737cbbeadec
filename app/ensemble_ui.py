"""Simulation > Ensemble…: many runs of the open model with one parameter varied, run in the
background through the Study machinery (``app.studies.Study(ensemble=True)``, the batched
``engine.EnsembleIntegrator``), shown as one curve per member in the Ensemble dock and as
translucent ghosts (a sphere at each body's mass centre) in the 3-D view at the time the
dock's slider chooses, coloured by the parameter. The plot's Display box switches between every
member's curve and a band of the members: min to max, or the 5th to the 95th percentile, with
the median, at each sample time. Clicking a ghost in the 3-D view, or choosing a member in the
list and pressing Open (or double-clicking it), opens that member's model as a normal run.

The ghosts belong to the study shown in the dock, and are drawn only while its Ghosts box is
ticked: once another model is opened in the editor (a member opened as a run, or any other
file) the 3-D view shows that model and the ghosts are hidden, the box unticked; the dock keeps
the study (curves, members, Open) and ticking Ghosts overlays it again. Stop (or closing the
window) cancels a running study within about a quarter of a second.

The dialog chooses a parameter path (``BODY.q0``, ``BODY.mass``, ``gravity.magnitude`` ...,
as ``mbstudio sweep --set``), a variation and N:

- *Sweep*: N values from the current value in steps of the spread (the double pendulum's
  chaos: ``lower.q0``, spread 1e-6, N = 100);
- *Perturbation*: the current value plus a normal draw of standard deviation the spread
  (seed 0, so the ensemble can be repeated).

The study runs in a Python thread (the kernels release the interpreter); a QTimer on the GUI
thread reads its progress and its result, so Qt and VTK are touched only there.
"""

from __future__ import annotations

import threading

import numpy as np
from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QAction, QColor
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDockWidget,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QProgressBar,
    QPushButton,
    QSlider,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

MODES = ("Sweep (current value + k × spread)", "Perturbation (normal, σ = spread)")

#: what the plot shows: every member's curve, or a band with its lower and upper percentiles
DISPLAYS = {
    "Every member": None,
    "Band: min–max": (0.0, 100.0),
    "Band: 5–95 %": (5.0, 95.0),
}

#: the longest the window's closing waits for a cancelled study's thread (s)
SHUTDOWN_WAIT_S = 1.5

#: a press and release at most this many pixels apart is a click on a ghost
CLICK_TOLERANCE_PX = 3

#: Radius (m) of a ghost's sphere at a member's body mass centre.
GHOST_RADIUS = 0.09


def member_table(frame, name: str) -> tuple[np.ndarray, np.ndarray]:
    """The sample times (s, (T,)) and the values of column ``name`` of every run at them
    ((T, M), runs in order; NaN where a failed run has no sample)."""
    table = frame.pivot_table(index="time_index", columns="run", values=name, dropna=False)
    times = frame.groupby("time_index")["t"].first().reindex(table.index)
    return times.to_numpy(dtype=float), table.sort_index(axis=1).to_numpy(dtype=float)


def band(values: np.ndarray, low: float, high: float) -> tuple[np.ndarray, ...]:
    """The ``low`` and ``high`` percentiles (0-100) and the median of each row of ``values``
    ((T, M)) over the members, NaNs (missing samples) left out: three (T,) arrays."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a time no member reached: NaN
        lower = np.nanpercentile(values, low, axis=1)
        upper = np.nanpercentile(values, high, axis=1)
        median = np.nanmedian(values, axis=1)
    return lower, upper, median


def _colour(fraction: float) -> QColor:
    """Blue (0) to red (1) through green: the parameter's place in the ensemble's range."""
    return QColor.fromHsvF(max(0.0, min(1.0, 0.66 * (1.0 - fraction))), 0.9, 0.9)


def _fractions(values: np.ndarray) -> np.ndarray:
    span = float(np.ptp(values)) if len(values) else 0.0
    return (values - values.min()) / span if span > 0 else np.full(len(values), 0.5)


class EnsembleDialog(QDialog):
    """Parameter, variation, spread, N, duration and sample interval of an ensemble."""

    def __init__(self, parameters: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ensembleDialog")
        self.setWindowTitle("Ensemble")
        form = QFormLayout(self)
        self.parameter_box = QComboBox()
        self.parameter_box.setEditable(True)
        self.parameter_box.addItems(parameters)
        self.mode_box = QComboBox()
        self.mode_box.addItems(MODES)
        self.spread_box = QLineEdit("1e-6")
        self.members_box = QSpinBox()
        self.members_box.setRange(2, 10000)
        self.members_box.setValue(100)
        self.until_box = QLineEdit("10")
        self.dt_box = QLineEdit("0.02")
        form.addRow("Parameter", self.parameter_box)
        form.addRow("Variation", self.mode_box)
        form.addRow("Spread", self.spread_box)
        form.addRow("Members (N)", self.members_box)
        form.addRow("Duration (s)", self.until_box)
        form.addRow("Sample every (s)", self.dt_box)
        self.error_label = QLabel("")
        self.error_label.setStyleSheet("color: #b00020")
        self.error_label.setWordWrap(True)
        form.addRow(self.error_label)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Run")
        buttons.accepted.connect(self._check_and_accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.values: dict | None = None

    def _check_and_accept(self) -> None:
        try:
            spread = float(self.spread_box.text())
            until = float(self.until_box.text())
            dt = float(self.dt_box.text())
        except ValueError:
            self.error_label.setText("Spread, duration and sample interval must be numbers.")
            return
        if not (np.isfinite(spread) and until > 0 and dt > 0 and np.isfinite(until)):
            self.error_label.setText("The duration and sample interval must be positive.")
            return
        self.values = {
            "path": self.parameter_box.currentText().strip(),
            "perturb": self.mode_box.currentIndex() == 1,
            "spread": spread,
            "members": self.members_box.value(),
            "until": until,
            "dt": dt,
        }
        self.accept()


class EnsemblePanel(QObject):
    """The Ensemble… action, the background study and the Ensemble dock (see module
    docstring)."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.action = QAction("&Ensemble…", window)
        self.action.setObjectName("ensembleAction")
        self.action.setStatusTip("Run many members of the model with one parameter varied")
        self.action.triggered.connect(self.open_dialog)
        for action in window.menuBar().actions():
            if action.text().replace("&", "") == "Simulation" and action.menu() is not None:
                action.menu().addSeparator()
                action.menu().addAction(self.action)
        self.dialog: EnsembleDialog | None = None
        self.study = None
        self.frame = None
        self.error = ""
        self._progress = 0.0
        self._thread: threading.Thread | None = None
        self._cancel = threading.Event()
        self._result = None
        self._timer = QTimer(self)
        self._timer.setInterval(100)
        self._timer.timeout.connect(self._poll)
        self.dock: QDockWidget | None = None
        self._ghosts = None
        self._ghost_rows = np.zeros(0, dtype=np.int64)
        self._curves: list = []
        self._band_items: list = []
        self.band_data: tuple[np.ndarray, ...] | None = None
        self._highlight = None
        self._press: tuple[int, int] | None = None
        self._built = None
        self._time_line = None
        self._times = np.zeros(0)
        window.viewport.interactor_widget.installEventFilter(self)
        window.model_editor.document_replaced.connect(self._document_replaced)

    # -- starting -------------------------------------------------------------------------------
    def _parameters(self) -> list[str]:
        document = self.window.model_editor.document
        names = [b.name for b in document.bodies] if document is not None else []
        out = [f"{n}.q0" for n in reversed(names)] + [f"{n}.u0" for n in reversed(names)]
        out += [f"{n}.mass" for n in names]
        if document is not None:
            out += [f"{f.name}.magnitude" for f in document.forces if f.type == "Gravity"]
        return out

    def open_dialog(self) -> None:
        if self.running:
            self.window.statusBar().showMessage("An ensemble is already running", 5000)
            return
        self.dialog = EnsembleDialog(self._parameters(), self.window)
        self.dialog.accepted.connect(lambda: self.start(**self.dialog.values))
        self.dialog.open()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self, path, perturb, spread, members, until, dt) -> None:
        """Plan the study on the open model and run it in the background."""
        from app.document.specs import ModelData
        from app.studies.parameters import ParameterPath, get_value
        from app.studies.study import Study

        self._ensure_dock()
        cancel = threading.Event()
        try:
            base = Study(self.window.model_editor.document, until=until, dt=dt)
            value = get_value(base.model, ParameterPath.parse(path).resolve(base.model))
            model = ModelData.from_dict(base.model)  # the open model, defaults filled in
            if perturb:
                study = Study(
                    model, until=until, dt=dt, perturb=[f"{path}~normal(0,{spread!r})"],
                    samples=members, seed=0, ensemble=True, on_progress=self._set_progress,
                    accuracy=1e-6, cancel=cancel,
                )  # fmt: skip
            else:
                values = [value + k * spread for k in range(members)]
                study = Study(
                    model, until=until, dt=dt, sets={path: values}, ensemble=True,
                    on_progress=self._set_progress, accuracy=1e-6, cancel=cancel,
                )  # fmt: skip
        except Exception as exc:  # noqa: BLE001  (a bad path or model is shown, not raised)
            self.error = f"Cannot start the ensemble: {exc}"
            self._show_status(self.error)
            return
        self.study, self.frame, self.error, self._progress = study, None, "", 0.0
        self._path = path
        self._result = None
        self._cancel = cancel
        self._built = None  # the ghosts' model: this study's
        self._set_ghosts_shown(False)
        self.ghosts_box.setEnabled(False)
        self.member_list.clear()
        self._clear_plot()
        self.time_slider.setEnabled(False)
        self.open_button.setEnabled(False)
        self.stop_button.setEnabled(True)
        self._show_status(f"Running {len(study.runs)} members of {path}…")
        self._thread = threading.Thread(target=self._work, name="mbstudio-ensemble", daemon=True)
        self._thread.start()
        self._timer.start()

    def _set_progress(self, fraction: float) -> None:
        self._progress = fraction  # the worker thread's; read by _poll

    def _work(self) -> None:
        try:
            frame = self.study.run()
            self._result = ("stopped", None) if self.study.interrupted else ("ok", frame)
        except Exception as exc:  # noqa: BLE001  (shown in the dock)
            self._result = ("error", f"{type(exc).__name__}: {exc}")

    def stop(self) -> None:
        """Cancel the running study (it stops within about a quarter of a second)."""
        self._cancel.set()

    # -- the dock -------------------------------------------------------------------------------
    def _ensure_dock(self) -> None:
        if self.dock is not None:
            return
        import pyqtgraph as pg

        self.dock = QDockWidget("Ensemble", self.window)
        self.dock.setObjectName("Ensemble")
        body = QWidget()
        layout = QVBoxLayout(body)
        top = QHBoxLayout()
        self.progress_bar = QProgressBar()
        self.progress_bar.setRange(0, 1000)
        self.status_label = QLabel("")
        self.quantity_box = QComboBox()
        self.quantity_box.currentTextChanged.connect(lambda _t: self._draw_curves())
        self.display_box = QComboBox()
        self.display_box.setObjectName("ensembleDisplay")
        self.display_box.setToolTip("Every member's curve, or the band the members span")
        self.display_box.addItems(list(DISPLAYS))
        self.display_box.currentTextChanged.connect(lambda _t: self._draw_curves())
        self.stop_button = QPushButton("Stop")
        self.stop_button.setObjectName("ensembleStop")
        self.stop_button.setToolTip("Cancel the running ensemble")
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.stop)
        self.ghosts_box = QCheckBox("Ghosts")
        self.ghosts_box.setObjectName("ensembleGhosts")
        self.ghosts_box.setToolTip("Overlay the members as translucent ghosts in the 3-D view")
        self.ghosts_box.setEnabled(False)
        self.ghosts_box.toggled.connect(self._ghosts_toggled)
        top.addWidget(self.progress_bar, 1)
        top.addWidget(self.stop_button)
        top.addWidget(self.quantity_box)
        top.addWidget(self.display_box)
        top.addWidget(self.ghosts_box)
        layout.addLayout(top)
        layout.addWidget(self.status_label)
        row = QHBoxLayout()
        self.plot = pg.PlotWidget()
        self.plot.setMinimumHeight(140)
        self.plot.setLabel("bottom", "t", units="s")
        row.addWidget(self.plot, 3)
        side = QVBoxLayout()
        self.member_list = QListWidget()
        self.member_list.setObjectName("ensembleMembers")
        self.member_list.currentRowChanged.connect(self._member_selected)
        self.member_list.itemDoubleClicked.connect(lambda _item: self.open_member())
        self.open_button = QPushButton("Open as run")
        self.open_button.setEnabled(False)
        self.open_button.clicked.connect(self.open_member)
        side.addWidget(self.member_list, 1)
        side.addWidget(self.open_button)
        row.addLayout(side, 1)
        layout.addLayout(row)
        self.time_slider = QSlider(Qt.Orientation.Horizontal)
        self.time_slider.setEnabled(False)
        self.time_slider.setToolTip("The time at which the ghosts are drawn")
        self.time_slider.valueChanged.connect(self._slider_moved)
        self.time_label = QLabel("")
        self.time_label.setObjectName("ensembleTime")
        slider_row = QHBoxLayout()
        slider_row.addWidget(self.time_slider, 1)
        slider_row.addWidget(self.time_label)
        layout.addLayout(slider_row)
        self.dock.setWidget(body)
        self.window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.dock)
        plots = self.window.docks.get("Plots")
        if plots is not None:
            self.window.tabifyDockWidget(plots, self.dock)
        self.dock.show()
        self.dock.raise_()

    def _show_status(self, text: str) -> None:
        if self.dock is not None:
            self.status_label.setText(text)
        self.window.statusBar().showMessage(text, 8000)

    def _poll(self) -> None:
        self.progress_bar.setValue(int(round(1000 * self._progress)))
        if self._result is None:
            return
        self._timer.stop()
        self.stop_button.setEnabled(False)
        kind, value = self._result
        if kind == "error":
            self.error = value
            self._show_status(f"The ensemble failed: {value}")
            return
        if kind == "stopped":
            self._show_status("The ensemble was stopped; nothing is kept")
            return
        self.frame = value
        self.progress_bar.setValue(1000)
        self._show_results()

    def _show_results(self) -> None:
        frame = self.frame
        first = frame.groupby("run", sort=True).first()
        self.params = first[f"param:{self._path}"].to_numpy(dtype=float)
        self.fractions = _fractions(self.params)
        self.runs = first.index.to_numpy()
        failed = int((first["status"] != "ok").sum())
        self.member_list.clear()
        for run, value, frac, status in zip(
            self.runs, self.params, self.fractions, first["status"], strict=True
        ):
            item = QListWidgetItem(f"member {run}: {self._path} = {value:.10g}")
            if status != "ok":
                item.setText(item.text() + " (failed)")
            item.setForeground(_colour(frac))
            self.member_list.addItem(item)
        names = [c for c in frame.columns if c.startswith(("q:", "u:")) or "energy" in c]
        self.quantity_box.blockSignals(True)
        self.quantity_box.clear()
        self.quantity_box.addItems(names)
        default = next((n for n in names if n.startswith("q:")), names[0] if names else "")
        self.quantity_box.setCurrentText(default)
        self.quantity_box.blockSignals(False)
        self._times = np.sort(frame["t"].dropna().unique())
        self.time_slider.setRange(0, max(0, len(self._times) - 1))
        self.time_slider.setEnabled(True)
        self._draw_curves()
        self.time_slider.setValue(len(self._times) - 1)
        self.ghosts_box.setEnabled(True)
        self._set_ghosts_shown(True)
        text = f"{len(self.runs)} members of {self._path}"
        self._show_status(text + (f", {failed} failed" if failed else "") + " — done")

    def _clear_plot(self) -> None:
        self.plot.clear()
        self._curves, self._band_items, self.band_data, self._highlight = [], [], None, None
        self._time_line = None
        if hasattr(self, "time_label"):
            self.time_label.setText("")

    def _slider_moved(self, _value: int) -> None:
        self._show_time()
        self._draw_ghosts()

    def shown_time(self) -> float | None:
        """The time (s) the slider chooses: where the ghosts are drawn (None before results)."""
        if self.frame is None or not len(self._times):
            return None
        return float(self._times[min(self.time_slider.value(), len(self._times) - 1)])

    def _show_time(self) -> None:
        """The slider's time in its label and as a dashed vertical line in the plot."""
        import pyqtgraph as pg

        t = self.shown_time()
        if t is None:
            return
        self.time_label.setText(f"t = {t:.4g} s")
        if self._time_line is None:
            pen = pg.mkPen(QColor(200, 200, 200), style=Qt.PenStyle.DashLine)
            self._time_line = pg.InfiniteLine(angle=90, movable=False, pen=pen)
            self.plot.addItem(self._time_line)
        self._time_line.setPos(t)

    def _draw_curves(self) -> None:
        import pyqtgraph as pg

        if self.frame is None:
            return
        name = self.quantity_box.currentText()
        if name not in self.frame.columns:
            return
        self._clear_plot()
        self.plot.setLabel("left", name)
        percentiles = DISPLAYS.get(self.display_box.currentText())
        if percentiles is not None:
            self._draw_band(name, *percentiles)
            self._member_selected(self.member_list.currentRow())
            self._show_time()
            return
        for run, frac in zip(self.runs, self.fractions, strict=True):
            rows = self.frame[self.frame["run"] == run]
            colour = _colour(frac)
            colour.setAlphaF(0.6)
            curve = self.plot.plot(
                rows["t"].to_numpy(), rows[name].to_numpy(), pen=pg.mkPen(colour, width=1)
            )
            self._curves.append(curve)
        self._member_selected(self.member_list.currentRow())
        self._show_time()

    def _draw_band(self, name: str, low: float, high: float) -> None:
        """The band between the members' ``low`` and ``high`` percentiles of column ``name``
        at each sample time, shaded, with the median as a line."""
        import pyqtgraph as pg

        times, values = member_table(self.frame, name)
        lower, upper, median = band(values, low, high)
        self.band_data = (times, lower, upper, median)
        edge = pg.mkPen(QColor(40, 90, 200), width=1)
        lower_item = self.plot.plot(times, lower, pen=edge)
        upper_item = self.plot.plot(times, upper, pen=edge)
        fill = pg.FillBetweenItem(lower_item, upper_item, brush=pg.mkBrush(40, 90, 200, 70))
        self.plot.addItem(fill)
        median_item = self.plot.plot(times, median, pen=pg.mkPen(QColor(20, 40, 120), width=2))
        self._band_items = [lower_item, upper_item, fill, median_item]

    def _member_selected(self, row: int) -> None:
        import pyqtgraph as pg

        self.open_button.setEnabled(row >= 0 and self.frame is not None)
        for k, curve in enumerate(self._curves):
            colour = _colour(self.fractions[k])
            colour.setAlphaF(1.0 if k == row else 0.35)
            curve.setPen(pg.mkPen(colour, width=3 if k == row else 1))
            curve.setZValue(10 if k == row else 0)
        if self._band_items:  # the band: the chosen member's curve over it
            if self._highlight is not None:
                self.plot.removeItem(self._highlight)
                self._highlight = None
            name = self.quantity_box.currentText()
            if 0 <= row < len(self.runs) and name in self.frame.columns:
                rows = self.frame[self.frame["run"] == self.runs[row]]
                pen = pg.mkPen(_colour(self.fractions[row]), width=2)
                self._highlight = self.plot.plot(
                    rows["t"].to_numpy(), rows[name].to_numpy(), pen=pen
                )
                self._highlight.setZValue(10)

    # -- ghosts in the 3-D view -----------------------------------------------------------------
    @property
    def ghosts_shown(self) -> bool:
        """Whether the ghosts are drawn in the 3-D view now."""
        return self._ghosts is not None and bool(self._ghosts.actor.GetVisibility())

    def _set_ghosts_shown(self, shown: bool) -> None:
        """Tick or untick the Ghosts box (without its signal) and draw or hide the ghosts."""
        self.ghosts_box.blockSignals(True)
        self.ghosts_box.setChecked(shown)
        self.ghosts_box.blockSignals(False)
        self._ghosts_toggled(shown)

    def _ghosts_toggled(self, shown: bool) -> None:
        if shown and self.frame is not None:
            self._draw_ghosts()
            self._ghosts.actor.VisibilityOn()
            # (members that start elsewhere than the model shown may swing out of its view)
            self.window.viewport.bring_into_view(self._ghosts.points(), GHOST_RADIUS)
        elif self._ghosts is not None:
            self._ghosts.actor.VisibilityOff()
        self.window.viewport.request_render()

    def _document_replaced(self, _document) -> None:
        """Another model is open in the editor (a member opened as a run, or another file):
        the 3-D view shows it, so the study's ghosts go; the dock keeps the study."""
        if self.ghosts_shown:
            self._set_ghosts_shown(False)
            self._show_status(
                "The ensemble's ghosts are hidden while another model is open; tick Ghosts in "
                "the Ensemble dock to overlay them again"
            )

    def _draw_ghosts(self) -> None:
        """Translucent spheres at every member's body mass centres at the slider's time,
        coloured by the member's parameter (the study model's kinematics at the member's q)."""
        if self.frame is None or not len(self._times):
            return
        from viz.ensemble_ghosts import EnsembleGhosts

        t = self.shown_time()
        if self._ghosts is None:
            self._ghosts = EnsembleGhosts(self.window.viewport.renderer, radius=GHOST_RADIUS)
            self._ghosts.actor.VisibilityOff()
        if self._built is None:
            from app.studies.runner import build_model

            self._built = build_model(self.study.model)
            self._scratch = self._built.state.copy()
        built, state = self._built, self._scratch
        qcols = [c for c in self.frame.columns if c.startswith("q:")]
        at = self.frame[np.isclose(self.frame["t"], t, rtol=0, atol=1e-12)].set_index("run")
        from engine import Stage

        points, colours, rows = [], [], []
        for row, (run, frac) in enumerate(zip(self.runs, self.fractions, strict=True)):
            if run not in at.index:
                continue
            state.setQ(at.loc[run, qcols].to_numpy(dtype=float))
            built.system.realize(state, Stage.Position)
            for name in built.body_name_of_index[1:]:  # not Ground
                mb = built.mobilized_bodies[name]
                station = mb.getBodyMassCenterStation(state)
                points.append(np.array(mb.findStationLocationInGround(state, station)))
                colours.append(_colour(frac).getRgbF()[:3])
                rows.append(row)
        self._ghosts.update(np.array(points).reshape(-1, 3), np.array(colours).reshape(-1, 3))
        self._ghost_rows = np.array(rows, dtype=np.int64)
        self.window.viewport.request_render()

    def ghost_member(self, x: float, y: float) -> int | None:
        """The row (in the member list) of the member whose ghost is drawn at VTK display
        point (x, y), or None."""
        if self._ghosts is None or self.frame is None:
            return None
        k = self._ghosts.hit(x, y)
        return None if k is None or k >= len(self._ghost_rows) else int(self._ghost_rows[k])

    def eventFilter(self, watched, event) -> bool:  # noqa: N802  (Qt's name)
        """A left click (press and release in one place, no modifier) on a ghost in the 3-D
        view opens that member; the view still gets every event (the camera's drag)."""
        kind = event.type()
        if kind == QEvent.Type.MouseButtonPress:
            plain = event.modifiers() == Qt.KeyboardModifier.NoModifier
            left = event.button() == Qt.MouseButton.LeftButton
            self._press = (event.position().x(), event.position().y()) if plain and left else None
        elif kind == QEvent.Type.MouseButtonRelease and self._press is not None:
            (x0, y0), self._press = self._press, None
            x, y = event.position().x(), event.position().y()
            if max(abs(x - x0), abs(y - y0)) <= CLICK_TOLERANCE_PX:
                ratio = watched.devicePixelRatioF()
                height = self.window.viewport.render_window.GetSize()[1]
                row = self.ghost_member(x * ratio, height - 1 - y * ratio)
                if row is not None:  # after the view has handled the release
                    QTimer.singleShot(0, lambda: self._open_row(row))
        return False

    def _open_row(self, row: int) -> None:
        self.member_list.setCurrentRow(row)
        self.open_member()

    # -- opening a member -----------------------------------------------------------------------
    def open_member(self) -> None:
        """Open the selected member's model (the parameter set to its value) as a normal run;
        the editor asks first if the open model has unsaved changes."""
        row = self.member_list.currentRow()
        if self.frame is None or row < 0:
            return
        from app.document.document import ModelDocument
        from app.document.specs import ModelData
        from app.studies.parameters import apply_values

        spec = self.study.runs[int(self.runs[row])]
        editor = self.window.model_editor
        if not editor.confirm_discard():
            return
        data = ModelData.from_dict(apply_values(self.study.model, spec.values))
        editor.set_document(ModelDocument(data), None)
        self.window.statusBar().showMessage(f"Opened ensemble member {spec.run}", 5000)

    def shutdown(self) -> None:
        """The window closes: cancel a running study and wait for its thread (it stops
        within about a quarter of a second; the wait is bounded)."""
        self._timer.stop()
        self._cancel.set()
        if self._thread is not None and self._thread.is_alive():
            self._thread.join(timeout=SHUTDOWN_WAIT_S)


def install_ensemble(window: QMainWindow) -> EnsemblePanel:
    """Add Simulation > Ensemble… to ``window``."""
    return EnsemblePanel(window)
