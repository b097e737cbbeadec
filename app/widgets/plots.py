"""Plots: pyqtgraph curves of simulated quantities against time, live while running.

The left list holds every quantity the session samples (q, u, udot per coordinate, kinetic /
potential / total energy, constraint-error norms, Measures), with a filter box; checked ones are
plotted. Samples come from the session's ring buffer (``SampleBuffer``); the widget keeps its
own fixed-size ring of the plotted columns, adding only new rows on each refresh. "Export CSV"
writes the time column and the checked quantities of everything the buffer still holds.
The futures a run left behind (branches of the recorded history, ``set_branches``) are drawn
as dashed curves of the same quantities, so that the current run and the branches overlay.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QGraphicsItem,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.widgets.offset_axis import OffsetAxis

DEFAULT_CHECKED = ("total energy",)
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf")


class PlotsWidget(QWidget):
    """See the module docstring. ``set_buffer(buffer)`` on a new model, ``refresh()`` per frame."""

    exported = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("plotsWidget")
        self.filter = QLineEdit()
        self.filter.setObjectName("plotFilter")
        self.filter.setPlaceholderText("filter quantities…")
        self.filter.setClearButtonEnabled(True)
        self.filter.setToolTip(
            "Show only quantities containing this text (a body chosen in the "
            "model tree or the 3-D view lists its q, u and udot)"
        )
        self.filter.textChanged.connect(self._apply_filter)
        self.quantities = QListWidget()
        self.quantities.setObjectName("plotQuantities")
        self.quantities.itemChanged.connect(self._selection_changed)
        self.export_button = QPushButton("Export CSV…")
        self.export_button.setObjectName("exportCsvButton")
        self.export_button.setToolTip("Write time and the checked quantities to a CSV file")
        self.export_button.clicked.connect(self._export_dialog)
        self.clear_button = QPushButton("Clear")
        self.clear_button.setToolTip("Uncheck every quantity")
        self.clear_button.clicked.connect(self.uncheck_all)

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.filter)
        left_layout.addWidget(self.quantities, 1)
        row = QHBoxLayout()
        row.addWidget(self.export_button)
        row.addWidget(self.clear_button)
        left_layout.addLayout(row)

        self.plot = pg.PlotWidget(background="w", axisItems={"left": OffsetAxis("left")})
        self.plot.setObjectName("plotArea")
        self.plot.showGrid(x=True, y=True, alpha=0.3)
        self.plot.setLabel("bottom", "t")
        self.plot.addLegend(offset=(5, 5))
        for axis in ("left", "bottom"):  # no unit prefixes: no label re-layout on re-ranging
            self.plot.getAxis(axis).enableAutoSIPrefix(False)
            # An axis draws its grid over the whole plot: cached as a pixmap, a moving
            # cursor line (a scrub of the timeline) repaints by copying it, not by drawing
            # every grid line and tick label again.
            self.plot.getAxis(axis).setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(left)
        splitter.addWidget(self.plot)
        splitter.setStretchFactor(1, 4)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(splitter)

        self.buffer = None
        self.curves: dict[str, pg.PlotDataItem] = {}
        self._seen = 0
        self._data = np.empty((0, 1))
        self._plotted: list[str] = []
        self.capacity = 5000
        self._updating = False
        #: Quantities asked for before the simulated model has them (a measure just added
        #: to the document): checked as soon as a buffer with that column comes.
        self._wanted: set[str] = set()
        self._epoch = 0
        #: A vertical line at the displayed time while a recorded State is shown.
        self.cursor = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen("#e74c3c", width=2))
        self.cursor.setVisible(False)
        self.plot.addItem(self.cursor, ignoreBounds=True)
        #: (branch name, sample columns, rows) per branch; see set_branches.
        self.branches: list[tuple[str, list[str], np.ndarray]] = []
        #: Dashed curves of the branches: (quantity, branch name) -> curve.
        self.branch_curves: dict[tuple[str, str], pg.PlotDataItem] = {}

    # -- quantities ----------------------------------------------------------------------------

    def set_buffer(self, buffer) -> None:
        """Plot from ``buffer`` (a new model or a reset): keeps the checked names that exist."""
        checked = (set(self.checked()) or set(DEFAULT_CHECKED)) | self._wanted
        self._wanted -= set(buffer.columns)
        self.buffer = buffer
        self._set_names(buffer.columns[1:], checked)
        self._apply_filter(self.filter.text())
        self._reset_range()
        self._rebuild()

    def _set_names(self, names, checked: set) -> None:
        """Make the list hold ``names``, those in ``checked`` checked, changing the text and
        check state of the items in place and adding or taking items at the end only, with
        the list's model quiet meanwhile and the view reset once after: a new model's list
        (tens of thousands of quantities) costs O(n), where clearing it and adding the items
        one by one cost O(n^2) (every change moves the view's hidden rows)."""
        widget = self.quantities
        model = widget.model()
        self._updating = True
        widget.reset()  # the view forgets its hidden rows (each would be moved per change)
        blocked = model.blockSignals(True)
        try:
            if widget.count() > len(names):
                model.removeRows(len(names), widget.count() - len(names))
            for i, name in enumerate(names):
                state = Qt.CheckState.Checked if name in checked else Qt.CheckState.Unchecked
                item = widget.item(i)
                if item is None:
                    item = QListWidgetItem(name)
                    item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                    item.setCheckState(state)
                    widget.addItem(item)
                    continue
                if item.text() != name:
                    item.setText(name)
                if item.checkState() != state:
                    item.setCheckState(state)
        finally:
            model.blockSignals(blocked)
            self._updating = False
        widget.reset()  # the view reads the list afresh (and forgets its hidden rows)

    def _reset_range(self) -> None:
        """Forget the previous run's axes (and any zoom): t from 0, automatic ranging on."""
        vb = self.plot.plotItem.vb
        if vb.viewRange() != [[0.0, 1.0], [0.0, 1.0]]:  # not the range of a new plot
            vb.setRange(xRange=(0.0, 1.0), yRange=(0.0, 1.0), padding=0.0)
        vb.enableAutoRange()

    def show_quantities(self, names) -> None:
        """Check the quantities ``names`` (now, or as soon as a buffer with them comes)."""
        for name in names:
            if self.quantities.findItems(name, Qt.MatchFlag.MatchExactly):
                self.set_checked(name)
            else:
                self._wanted.add(name)

    def checked(self) -> list[str]:
        model = self.quantities.model()
        found = model.match(
            model.index(0, 0),
            Qt.ItemDataRole.CheckStateRole,
            Qt.CheckState.Checked,
            -1,
            Qt.MatchFlag.MatchExactly,
        )
        return [index.data() for index in sorted(found, key=lambda index: index.row())]

    def set_checked(self, name: str, on: bool = True) -> None:
        items = self.quantities.findItems(name, Qt.MatchFlag.MatchExactly)
        if not items:
            raise KeyError(f"no plottable quantity {name!r}")
        items[0].setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)

    def uncheck_all(self) -> None:
        self._updating = True
        for i in range(self.quantities.count()):
            self.quantities.item(i).setCheckState(Qt.CheckState.Unchecked)
        self._updating = False
        self._rebuild()

    def show_body(self, name: str) -> None:
        """List the quantities of body ``name`` (its q, u, udot) for choosing."""
        self.filter.setText(f" {name}." if name and name != "Ground" else "")

    def show_measure(self, name: str) -> None:
        """Plot Measure ``name`` (now, or as soon as the simulated model has it) and list
        the measures for choosing."""
        column = f"measure {name}"
        self.filter.setText("measure ")
        if self.quantities.findItems(column, Qt.MatchFlag.MatchExactly):
            self.set_checked(column)
        else:
            self._wanted.add(column)

    def _apply_filter(self, text: str) -> None:
        """Hide the quantities whose names do not contain ``text`` (any case); the matches
        are found by the list's model, only rows whose state changes are touched."""
        widget = self.quantities
        shown = None
        if text.strip():
            model = widget.model()
            found = model.match(
                model.index(0, 0), Qt.ItemDataRole.DisplayRole, text, -1, Qt.MatchFlag.MatchContains
            )
            shown = {index.row() for index in found}
        for row in range(widget.count()):
            hide = shown is not None and row not in shown
            if widget.isRowHidden(row) != hide:
                widget.setRowHidden(row, hide)

    def _selection_changed(self, _item) -> None:
        if not self._updating:
            self._rebuild()

    # -- data -----------------------------------------------------------------------------------

    def _rebuild(self) -> None:
        """Re-read the whole held history of the plotted columns (after a selection change)."""
        for curve in self.curves.values():
            self.plot.removeItem(curve)
        self.curves.clear()
        legend = self.plot.plotItem.legend
        if legend is not None:
            legend.clear()
        self._plotted = self.checked()
        if self.buffer is None:
            return
        for k, name in enumerate(self._plotted):
            pen = pg.mkPen(COLORS[k % len(COLORS)], width=1.5)
            self.curves[name] = self.plot.plot([], [], pen=pen, name=name)
        cols = self._columns()
        self._epoch = self.buffer.epoch
        rows, self._seen = self.buffer.since(0, cols)
        self._data = rows[-self.capacity :]
        self._draw()
        self._draw_branches()

    def set_branches(self, branches: list[tuple[str, list[str], np.ndarray]]) -> None:
        """Overlay the branches: (name, sample columns, rows) each, drawn dashed."""
        self.branches = list(branches)
        self._draw_branches()

    def _draw_branches(self) -> None:
        for curve in self.branch_curves.values():
            self.plot.removeItem(curve)
        self.branch_curves.clear()
        for k, name in enumerate(self._plotted):
            colour = pg.mkColor(COLORS[k % len(COLORS)])
            colour.setAlpha(150)
            pen = pg.mkPen(colour, width=1.5, style=Qt.PenStyle.DashLine)
            for branch, columns, rows in self.branches:
                if name in columns and len(rows):
                    curve = pg.PlotDataItem(
                        rows[:, 0], rows[:, columns.index(name)], pen=pen, name=f"{name}, {branch}"
                    )
                    curve.setToolTip(f"{name}, {branch}")
                    self.plot.addItem(curve)
                    self.branch_curves[(name, branch)] = curve

    def _columns(self) -> list[int]:
        names = self.buffer.columns
        return [0] + [names.index(n) for n in self._plotted]

    def refresh(self) -> int:
        """Add the rows sampled since the last refresh; returns how many were added."""
        if self.buffer is None:
            return 0
        if self.buffer.epoch != self._epoch:  # rows were dropped: read them all again
            self._epoch, self._seen = self.buffer.epoch, 0
            self._data = np.empty((0, self._data.shape[1]))
        rows, self._seen = self.buffer.since(self._seen, self._columns())
        if len(rows):
            self._data = np.concatenate((self._data, rows))[-self.capacity :]
            self._draw()
        return len(rows)

    def set_cursor(self, t: float | None) -> None:
        """Show the cursor line at time ``t``, or hide it (None)."""
        self.cursor.setVisible(t is not None)
        if t is not None:
            self.cursor.setValue(t)

    def _draw(self) -> None:
        if not self._plotted or len(self._data) == 0:
            for curve in self.curves.values():
                curve.setData([], [])
            return
        t = self._data[:, 0]
        for k, name in enumerate(self._plotted, start=1):
            self.curves[name].setData(t, self._data[:, k])
        self._settle_range()

    def _settle_range(self) -> None:
        """Do the view box's automatic ranging now rather than while painting: pyqtgraph
        otherwise re-ranges inside the paint, which schedules a second full repaint of the
        plot for every refresh."""
        vb = self.plot.plotItem.vb
        vb.updateAutoRange()
        vb.updateMatrix()
        if getattr(vb, "_autoRangeNeedsUpdate", False):
            vb.updateAutoRange()

    def plotted_data(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(t, values) of a plotted quantity as drawn."""
        x, y = self.curves[name].getData()
        return (np.empty(0), np.empty(0)) if x is None else (np.asarray(x), np.asarray(y))

    # -- export ---------------------------------------------------------------------------------

    def export_csv(self, path) -> None:
        """Write t and the checked quantities (all, if none is checked) to ``path``."""
        if self.buffer is None:
            raise RuntimeError("there is no simulation to export")
        self.buffer.to_csv(path, self.checked() or None)
        self.exported.emit(str(path))

    def _export_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export plot data", "plots.csv", "CSV (*.csv)")
        if path:
            self.export_csv(path)
