"""StateDiffView: pick two recorded moments and see everything that differs between them.

Two combo boxes choose the moments (the displayed moment or a bookmark); Compare asks for the
comparison (``compare_requested(t_a, t_b)``); the table lists every state variable, derived
quantity and cache entry that differs, largest difference first, and the group box filters
the rows by where they live (state variables, derived quantities, one subsystem). The rows
are ``app.history.DiffRow``s computed elsewhere (the studio's worker). "Ghost" asks for the
other State drawn over the 3-D view (``ghost_toggled``); ``set_moved`` names the bodies that
moved between the two States.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QGridLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

ALL_GROUPS = "All groups"
DISPLAYED = "Displayed moment"
#: The difference (what the rows are sorted by) comes right after the name, so that it shows
#: in a narrow dock without scrolling.
COLUMNS = ("Quantity", "B − A", "A", "B", "Group")
NO_COMPARISON = "Bookmark moments on the timeline (B), then compare two."


def _text(value) -> str:
    return f"{value:.10g}" if isinstance(value, float) else str(value)


class StateDiffView(QWidget):
    """See the module docstring."""

    compare_requested = Signal(float, float)
    ghost_toggled = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("stateDiff")
        self._rows: list = []
        self._displayed_time = 0.0
        self._bookmarks: list[tuple[float, str]] = []
        self.moment_a = QComboBox()
        self.moment_a.setObjectName("momentA")
        self.moment_b = QComboBox()
        self.moment_b.setObjectName("momentB")
        self.compare_button = QPushButton("Compare")
        self.compare_button.setObjectName("compareButton")
        self.compare_button.clicked.connect(self._compare)
        self.group_box = QComboBox()
        self.group_box.setObjectName("groupBox")
        self.group_box.addItem(ALL_GROUPS)
        self.group_box.currentTextChanged.connect(lambda _: self._fill())
        self.ghost_box = QCheckBox("Ghost")
        self.ghost_box.setObjectName("ghostBox")
        self.ghost_box.setChecked(True)
        self.ghost_box.setToolTip(
            "Draw the other State over the 3-D view, translucent; the bodies that moved "
            "between the two States are orange"
        )
        self.ghost_box.toggled.connect(self.ghost_toggled)
        self.moved_label = QLabel()
        self.moved_label.setObjectName("movedBodies")
        self.moved_label.setWordWrap(True)
        self.summary = QLabel(NO_COMPARISON)
        self.summary.setWordWrap(True)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        self.table.setColumnWidth(0, 200)
        self.table.setColumnWidth(1, 80)
        for box in (self.moment_a, self.moment_b, self.group_box):
            box.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            box.setMinimumContentsLength(6)
        layout = QGridLayout(self)
        layout.addWidget(QLabel("A"), 0, 0)
        layout.addWidget(self.moment_a, 0, 1)
        layout.addWidget(QLabel("B"), 0, 2)
        layout.addWidget(self.moment_b, 0, 3)
        layout.addWidget(self.compare_button, 0, 4)
        layout.addWidget(QLabel("Show"), 1, 0)
        layout.addWidget(self.group_box, 1, 1, 1, 3)
        layout.addWidget(self.ghost_box, 1, 4)
        layout.addWidget(self.summary, 2, 0, 1, 5)
        layout.addWidget(self.moved_label, 3, 0, 1, 5)
        layout.addWidget(self.table, 4, 0, 1, 5)
        self.set_moments(0.0, [])

    # -- moments ---------------------------------------------------------------------------

    def set_moments(self, displayed_time: float, bookmarks: list[tuple[float, str]]) -> None:
        """The choosable moments: the displayed one and the bookmarks (kept selections)."""
        self._displayed_time = displayed_time
        if bookmarks == self._bookmarks and self.moment_a.count():
            return
        self._bookmarks = list(bookmarks)
        labels = [DISPLAYED] + [f"{name} (t = {t:.4g} s)" for t, name in bookmarks]
        for box, default in ((self.moment_a, 1), (self.moment_b, 0)):
            keep = box.currentIndex()
            box.blockSignals(True)
            box.clear()
            box.addItems(labels)
            box.setCurrentIndex(keep if 0 <= keep < len(labels) else min(default, len(labels) - 1))
            box.blockSignals(False)
        self.compare_button.setEnabled(len(labels) > 1)

    def _time_of(self, box: QComboBox) -> float:
        i = box.currentIndex()
        return self._displayed_time if i <= 0 else self._bookmarks[i - 1][0]

    def _compare(self) -> None:
        self.summary.setText("Comparing…")
        self.compare_requested.emit(self._time_of(self.moment_a), self._time_of(self.moment_b))

    def set_moved(self, names: list[str] | None) -> None:
        """Name the bodies that moved between the compared States (None: no comparison)."""
        if names is None:
            self.moved_label.setText("")
        elif names:
            self.moved_label.setText("Moved (orange in the view): " + ", ".join(names))
        else:
            self.moved_label.setText("No body moved.")

    # -- rows ------------------------------------------------------------------------------

    def clear(self) -> None:
        """Forget the comparison shown (its States are gone: another model is simulated)."""
        self._rows = []
        self.table.setRowCount(0)
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.summary.setText(NO_COMPARISON)
        self.set_moved(None)

    def show_rows(self, t_a: float, t_b: float, rows: list) -> None:
        """Show the comparison of the recorded States at ``t_a`` and ``t_b``."""
        self._rows = list(rows)
        groups = sorted({r.group for r in rows})
        current = self.group_box.currentText()
        self.group_box.blockSignals(True)
        self.group_box.clear()
        self.group_box.addItems([ALL_GROUPS, *groups])
        self.group_box.setCurrentText(current if current in groups else ALL_GROUPS)
        self.group_box.blockSignals(False)
        self.table.setHorizontalHeaderLabels(
            ["Quantity", "B − A", f"A (t = {t_a:.4g})", f"B (t = {t_b:.4g})", "Group"]
        )
        self._fill()

    def _fill(self) -> None:
        group = self.group_box.currentText()
        rows = [r for r in self._rows if group == ALL_GROUPS or r.group == group]
        self.table.setRowCount(len(rows))
        for i, r in enumerate(rows):
            d = r.difference
            cells = (
                r.name,
                "" if d is None else f"{d:.4g}",
                _text(r.value_a),
                _text(r.value_b),
                r.group,
            )
            for k, cell in enumerate(cells):
                item = QTableWidgetItem(cell)
                if 1 <= k <= 3:
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                self.table.setItem(i, k, item)
        shown = f"{len(rows)} of {len(self._rows)}" if len(rows) != len(self._rows) else len(rows)
        self.summary.setText(
            f"{shown} quantities differ, largest first." if self._rows else "Nothing differs."
        )
