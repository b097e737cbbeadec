"""Plots: pyqtgraph curves of simulated quantities against time, live while running.

The left list holds every quantity the session samples (q, u, udot per coordinate, kinetic /
potential / total energy, constraint-error norms, Measures), with a filter box; checked ones are
plotted. The list is a view over ``QuantityModel``, which holds the names, the checked ones and
the filter's matches (a 20,000-body model has 200,000 quantities: no widget item per name, and
the view draws only the rows in sight). Samples come from the session's ring buffer
(``SampleBuffer``); the widget keeps its own fixed-size ring of the plotted columns, adding
only new rows on each refresh. "Export CSV" writes the time column and the checked quantities
of everything the buffer still holds.
The futures a run left behind (branches of the recorded history, ``set_branches``) are drawn
as dashed curves of the same quantities, so that the current run and the branches overlay.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QAbstractListModel, QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QGraphicsItem,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from app.simulation.samples import QuantityNames
from app.widgets.offset_axis import OffsetAxis
from app.widgets.quantity_units import QuantityUnits

DEFAULT_CHECKED = ("total energy",)
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf")
#: Pixels kept free between the legend and the plot's top and bottom edges.
LEGEND_MARGIN = 6
#: The legend's text size: a little smaller than the axes', so six names take little room.
LEGEND_TEXT_SIZE = "8pt"
#: Margin (a fraction of the range) around the time axis's first second shown for a lone sample.
LONE_MARGIN = 0.04
#: Shown across the plot while the checked quantities have no sample yet.
#: A list of more rows than this is laid out in batches of BATCH_ROWS between turns of the
#: event loop (a 20,000-body model lists 200,000 quantities: a few microseconds of Qt's
#: layout each, which would hold the GUI thread in one go); a shorter one in one pass, so
#: its rows have their places at once.
BATCH_ABOVE = 20000
BATCH_ROWS = 2000
NO_SAMPLES_TEXT = "No samples yet: press Play (F5) or Step (F10) to plot them."


class QuantityModel(QAbstractListModel):
    """The plottable quantities as a checkable list: ``names`` in column order, those in
    ``checked_names`` checked; ``set_filter(text)`` lists only the names containing ``text``
    (any case). ``check_changed`` is emitted when a check box is toggled through the model
    (a click in the view, ``set_checked``)."""

    check_changed = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.names: list[str] = []
        self._lower: list[str] = []
        self._index: dict[str, int] = {}
        #: the QuantityNames of ``names`` (their filter search)
        self._table = QuantityNames([])
        self.checked_names: set[str] = set()
        self._rows: list[int] | None = None  # the listed names' indices (None: all)
        self._filter = ""
        #: the filter's matches are to be found when the next names come (set_filter's
        #: ``scan=False``); nothing is listed meanwhile
        self._unscanned = False

    def set_names(self, names, checked: set) -> None:
        """Hold ``names`` (a list, or QuantityNames with their index made), those in
        ``checked`` checked, with the current filter."""
        table = names if isinstance(names, QuantityNames) else None
        listed = table.names if table is not None else list(names)
        self.beginResetModel()
        if listed != self.names:  # an edit that keeps the columns keeps what they gave
            table = table if table is not None else QuantityNames(listed)
            self.names = table.names
            self._lower = table.lower
            self._index = table.index
            self._table = table
            self._rows = self._matches(self._filter)
        elif self._unscanned:
            self._rows = self._matches(self._filter)
        self._unscanned = False
        self.checked_names = {n for n in checked if n in self._index}
        self.endResetModel()

    def set_filter(self, text: str, scan: bool = True) -> None:
        """List only the names that contain ``text`` (any case; blank: all). ``scan=False``:
        the names held now are known not to match (a body the next names bring): list none
        and find the matches when those names come (``set_names``)."""
        if not scan:
            self._filter, self._unscanned = text, True
            if self._rows != []:
                self.beginResetModel()
                self._rows = []
                self.endResetModel()
            return
        if text == self._filter and not self._unscanned:  # the rows list its matches
            return
        self._filter, self._unscanned = text, False
        rows = self._matches(text)
        if rows == self._rows:
            return
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    def _matches(self, text: str) -> list[int] | None:
        if not text.strip():
            return None
        return self._table.matches(text.lower())

    def listed(self) -> list[str]:
        """The names the list shows, in order."""
        if self._rows is None:
            return list(self.names)
        return [self.names[i] for i in self._rows]

    def has(self, name: str) -> bool:
        return name in self._index

    def checked(self) -> list[str]:
        """The checked names in column order."""
        return sorted(self.checked_names, key=self._index.__getitem__)

    def set_checked(self, name: str, on: bool, notify: bool = True) -> None:
        if name not in self._index:
            raise KeyError(f"no plottable quantity {name!r}")
        if (name in self.checked_names) == on:
            return
        if on:
            self.checked_names.add(name)
        else:
            self.checked_names.discard(name)
        row = self.row_of(name)
        if row is not None:
            index = self.index(row, 0)
            self.dataChanged.emit(index, index, [Qt.ItemDataRole.CheckStateRole])
        if notify:
            self.check_changed.emit()

    def uncheck_all(self) -> None:
        self.checked_names.clear()
        if self.rowCount():
            self.dataChanged.emit(
                self.index(0, 0),
                self.index(self.rowCount() - 1, 0),
                [Qt.ItemDataRole.CheckStateRole],
            )

    def row_of(self, name: str) -> int | None:
        """The list row showing ``name`` (None if it is not listed)."""
        i = self._index.get(name)
        if i is None or self._rows is None:
            return i
        import bisect

        k = bisect.bisect_left(self._rows, i)
        return k if k < len(self._rows) and self._rows[k] == i else None

    def _name(self, row: int) -> str:
        return self.names[row if self._rows is None else self._rows[row]]

    # Qt's model interface

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802, B008  (Qt's names)
        if parent.isValid():
            return 0
        return len(self.names) if self._rows is None else len(self._rows)

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self._name(index.row())
        if role == Qt.ItemDataRole.CheckStateRole:
            on = self._name(index.row()) in self.checked_names
            return Qt.CheckState.Checked if on else Qt.CheckState.Unchecked
        return None

    def setData(self, index, value, role=Qt.ItemDataRole.EditRole) -> bool:  # noqa: N802
        if not index.isValid() or role != Qt.ItemDataRole.CheckStateRole:
            return False
        state = value if isinstance(value, Qt.CheckState) else Qt.CheckState(int(value))
        self.set_checked(self._name(index.row()), state == Qt.CheckState.Checked)
        return True

    def flags(self, index):
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return (
            Qt.ItemFlag.ItemIsEnabled
            | Qt.ItemFlag.ItemIsSelectable
            | Qt.ItemFlag.ItemIsUserCheckable
        )


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
        self.quantity_model = QuantityModel(self)
        self.quantity_model.check_changed.connect(self._selection_changed)
        self.quantities = QListView()
        self.quantities.setObjectName("plotQuantities")
        self.quantities.setUniformItemSizes(True)  # the view lays out only the rows in sight
        self.quantities.setModel(self.quantity_model)
        self.quantities.setBatchSize(BATCH_ROWS)
        self.quantity_model.modelReset.connect(self._choose_layout_mode)
        #: Says why the list is empty (a welded body has no q, u or udot of its own).
        self.empty_hint = QLabel("")
        self.empty_hint.setObjectName("plotsEmptyHint")
        self.empty_hint.setWordWrap(True)
        self.empty_hint.setVisible(False)
        self._body: str | None = None  # the body whose quantities the filter lists
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
        left_layout.addWidget(self.empty_hint)
        left_layout.addWidget(self.quantities, 1)
        row = QHBoxLayout()
        row.addWidget(self.export_button)
        row.addWidget(self.clear_button)
        left_layout.addLayout(row)

        self.plot = pg.PlotWidget(background="w", axisItems={"left": OffsetAxis("left")})
        self.plot.setObjectName("plotArea")
        self.plot.showGrid(x=True, y=True, alpha=0.3)
        self.plot.setLabel("bottom", "t (s)")
        # The legend sits right of the curves' area, outside it (no curve is ever behind
        # it), in as many columns as its entries need to fit the plot's height (see
        # _fit_legend). A click on an entry's sample line hides or shows its curve.
        legend = pg.LegendItem(
            offset=None, labelTextSize=LEGEND_TEXT_SIZE, verSpacing=-6, horSpacing=2, frame=False
        )
        self.plot.plotItem.legend = legend
        layout = self.plot.plotItem.layout
        layout.addItem(legend, 2, 3)  # (row 2: the view box's row)
        legend.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        layout.setAlignment(legend, Qt.AlignmentFlag.AlignTop)
        self.plot.plotItem.vb.sigResized.connect(self._fit_legend)
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
        #: The units of the quantities (set_buffer's), shown in the legend.
        self.units = QuantityUnits({}, {})
        self.curves: dict[str, pg.PlotDataItem] = {}
        self._seen = 0
        self._data = np.empty((0, 1))
        self._plotted: list[str] = []
        self.capacity = 5000
        #: Quantities asked for before the simulated model has them (a measure just added
        #: to the document): checked as soon as a buffer with that column comes.
        self._wanted: set[str] = set()
        self._epoch = 0
        #: Whether the time axis shows a lone sample's first second (not ranged automatically).
        self._lone_range = False
        #: A vertical line at the displayed time while a recorded State is shown.
        self.cursor = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen("#e74c3c", width=2))
        self.cursor.setVisible(False)
        self.plot.addItem(self.cursor, ignoreBounds=True)
        #: Across the middle of the plot while checked quantities have no sample yet (a model
        #: just opened or reset records its first sample when it runs).
        self.no_samples = pg.LabelItem(NO_SAMPLES_TEXT, color="#808080")
        self.no_samples.setParentItem(self.plot.plotItem.vb)
        self.no_samples.anchor(itemPos=(0.5, 0.5), parentPos=(0.5, 0.5))
        self.no_samples.setVisible(False)
        #: (branch name, sample columns, rows) per branch; see set_branches.
        self.branches: list[tuple[str, list[str], np.ndarray]] = []
        #: Dashed curves of the branches: (quantity, branch name) -> curve.
        self.branch_curves: dict[tuple[str, str], pg.PlotDataItem] = {}

    # -- quantities ----------------------------------------------------------------------------

    def set_buffer(self, buffer, units: QuantityUnits | None = None) -> None:
        """Plot from ``buffer`` (a new model or a reset): keeps the checked names that exist.
        ``units``: the model's quantity units, for the legend."""
        if units is not None:
            self.units = units
        # names asked for (an example's quantities) take the default's place
        checked = (set(self.checked()) or set(self._wanted or DEFAULT_CHECKED)) | self._wanted
        if self._wanted:  # the names that came (a large model's: looked up, not copied)
            index = getattr(getattr(buffer, "quantities", None), "index", None)
            if index is None:
                index = set(buffer.columns)
            time_column = buffer.columns[0] if len(buffer.columns) else None
            self._wanted = {n for n in self._wanted if n not in index and n != time_column}
        self.buffer = buffer
        self._set_names(getattr(buffer, "quantities", None) or buffer.columns[1:], checked)
        self._apply_filter(self.filter.text())
        self._reset_range()
        self._rebuild()

    def _set_names(self, names, checked: set) -> None:
        """Make the list hold ``names``, those in ``checked`` checked."""
        self.quantity_model.set_names(names, checked)

    def _reset_range(self) -> None:
        """Forget the previous run's axes (and any zoom): t from 0, automatic ranging on."""
        vb = self.plot.plotItem.vb
        if vb.viewRange() != [[0.0, 1.0], [0.0, 1.0]]:  # not the range of a new plot
            vb.setRange(xRange=(0.0, 1.0), yRange=(0.0, 1.0), padding=0.0)
        vb.enableAutoRange()

    def show_quantities(self, names) -> None:
        """Check the quantities ``names`` (now, or as soon as a buffer with them comes)."""
        for name in names:
            if self.quantity_model.has(name):
                self.set_checked(name)
            else:
                self._wanted.add(name)

    def checked(self) -> list[str]:
        """The checked quantities in column order."""
        return self.quantity_model.checked()

    def listed(self) -> list[str]:
        """The quantities the list shows (those the filter lets through), in order."""
        return self.quantity_model.listed()

    def set_checked(self, name: str, on: bool = True) -> None:
        self.quantity_model.set_checked(name, on)

    def uncheck_all(self) -> None:
        self.quantity_model.uncheck_all()
        self._rebuild()

    def show_body(self, name: str, plotted: bool = True) -> None:
        """List the quantities of body ``name`` (its q, u, udot) for choosing. ``plotted``
        False: the quantities held now are not of ``name`` (a body just renamed or added,
        whose quantities come with the next buffer): it is listed when they come, with no
        search of the names held now."""
        self._body = name if name and name != "Ground" else None
        text = f" {name}." if self._body else ""
        if not plotted and self._body is not None and self.buffer is not None:
            blocked = self.filter.blockSignals(True)
            self.filter.setText(text)
            self.filter.blockSignals(blocked)
            self.quantity_model.set_filter(text, scan=False)
            self.empty_hint.hide()
            return
        if self.filter.text() == text:
            self._update_empty_hint()
        self.filter.setText(text)

    def show_measure(self, name: str) -> None:
        """Plot Measure ``name`` (now, or as soon as the simulated model has it) and list
        the measures for choosing."""
        column = f"measure {name}"
        self.filter.setText("measure ")
        if self.quantity_model.has(column):
            self.set_checked(column)
        else:
            self._wanted.add(column)

    def _choose_layout_mode(self) -> None:
        """Lay the list out in batches when it is long (see BATCH_ABOVE)."""
        long = self.quantity_model.rowCount() > BATCH_ABOVE
        mode = QListView.LayoutMode.Batched if long else QListView.LayoutMode.SinglePass
        if self.quantities.layoutMode() != mode:
            self.quantities.setLayoutMode(mode)

    def _apply_filter(self, text: str) -> None:
        """List only the quantities whose names contain ``text`` (any case)."""
        self.quantity_model.set_filter(text)
        self._update_empty_hint()

    def _update_empty_hint(self) -> None:
        """Above an empty list, say why it is empty."""
        text = self.filter.text()
        hint = ""
        if self.buffer is not None and text and not self.quantity_model.rowCount():
            if self._body is not None and text == f" {self._body}.":
                hint = (
                    f"{self._body} has no mobilities (no q, u or udot): it is welded to its "
                    "parent and moves with it. Select its parent, or clear the filter."
                )
            else:
                hint = f"No quantity contains \u201c{text.strip()}\u201d."
        if hint != self.empty_hint.text():
            self.empty_hint.setText(hint)
        self.empty_hint.setVisible(bool(hint))

    def _selection_changed(self, *_args) -> None:
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
            self.curves[name] = self.plot.plot([], [], pen=pen, name=self.units.label(name))
        cols = self._columns()
        self._epoch = self.buffer.epoch
        rows, self._seen = self.buffer.since(0, cols)
        self._data = rows[-self.capacity :]
        self._draw()
        self._draw_branches()

    def _fit_legend(self, *_args) -> None:
        """Lay the legend's entries out in the columns that keep it within the plot's height
        (six quantities fit one column in a docked plot ~130 px high)."""
        legend = self.plot.plotItem.legend
        if legend is None or not legend.items:
            return
        pitch = max(label.boundingRect().height() for _, label in legend.items)
        pitch += legend.layout.verticalSpacing()
        room = self.plot.plotItem.vb.height() - 2 * LEGEND_MARGIN
        rows = max(1, int(room // max(pitch, 1.0)))
        legend.setColumnCount(max(1, math.ceil(len(legend.items) / rows)))

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
                        rows[:, 0],
                        rows[:, columns.index(name)],
                        pen=pen,
                        name=f"{self.units.label(name)}, {branch}",
                    )
                    curve.setToolTip(f"{name}, {branch}")
                    self.plot.addItem(curve)
                    self.branch_curves[(name, branch)] = curve
        self._fit_legend()

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
            self._draw()
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
        self.no_samples.setVisible(
            self.buffer is not None and bool(self._plotted) and len(self._data) == 0
        )
        if not self._plotted or len(self._data) == 0:
            for curve in self.curves.values():
                curve.setData([], [])
            return
        t = self._data[:, 0]
        # A lone sample (the State a model starts from) is drawn as a dot: a line through
        # one point would show nothing.
        lone = len(t) == 1
        vb = self.plot.plotItem.vb
        if lone:  # the second from the sample on (a margin keeps the dot off the axis)
            vb.setXRange(t[0], t[0] + 1.0, padding=LONE_MARGIN)
            self._lone_range = True
        elif self._lone_range:
            vb.enableAutoRange(axis=vb.XAxis)
            self._lone_range = False
        for k, name in enumerate(self._plotted, start=1):
            curve = self.curves[name]
            if lone:
                colour = COLORS[(k - 1) % len(COLORS)]
                curve.setData(t, self._data[:, k], symbol="o", symbolSize=7, symbolBrush=colour)
            elif curve.opts["symbol"] is not None:
                curve.setData(t, self._data[:, k], symbol=None)
            else:
                curve.setData(t, self._data[:, k])
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
