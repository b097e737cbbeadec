"""Stage inspector: the System stage and every subsystem's stage, with their stage versions.

A table: one row for the System and one per subsystem, one column per stage (Topology ..
Report). A cell shows that stage's version number; green when the stage is realized, grey when
not; orange when the last edit invalidated it (the cascade), with the edit named above the
table. Below it, which paths run compiled (Position..Acceleration in one kernel call, integrator
steps in compiled runs) and, where not, why. When the simulation is paused, "Realize next
stage" and "Realize to" (at the top, where changing text never moves them) advance the State
one stage at a time (through the session's worker) and the timings of the stages realized,
as far as the State still holds them, are listed under the table.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from engine.common.stage import Stage


def compact_version(version: int) -> str:
    """A stage version short enough for the table's narrow columns (three or four narrow
    characters, rounded down: 999, 1.2k, 12k, .1M, 12M, .1G, 12G); the cell's tooltip has
    the exact number."""
    v = int(version)
    if v < 1000:
        return str(v)
    if v < 10_000:
        return f"{v // 1000}.{v // 100 % 10}k"
    if v < 100_000:
        return f"{v // 1000}k"
    for unit, size in (("M", 10**6), ("G", 10**9)):
        if v < size:
            return f".{v // (size // 10)}{unit}"
        if v < 100 * size:
            return f"{v // size}{unit}"
    return f"{v // 10**12}T"


STAGES = tuple(Stage(k) for k in range(Stage.Topology, Stage.Report + 1))
SHORT = {
    "Topology": "Top",
    "Model": "Mod",
    "Instance": "Ins",
    "Time": "Tim",
    "Position": "Pos",
    "Velocity": "Vel",
    "Dynamics": "Dyn",
    "Acceleration": "Acc",
    "Report": "Rep",
}
SUBSYSTEM_LABELS = {
    "DefaultSystemSubsystem": "Default",
    "MultibodySystemGlobalSubsystem": "Global",
    "SimbodyMatterSubsystem": "Matter",
    "GeneralForceSubsystem": "Forces",
    "DecorationSubsystem": "Decorations",
    "ContactTrackerSubsystem": "Tracker",
    "CompliantContactSubsystem": "Contact",
    "GeneralContactSubsystem": "GenContact",
}


def short_name(subsystem: str) -> str:
    """A compact row label: 'SimbodyMatterSubsystem' -> 'Matter' (full name in the tooltip)."""
    if subsystem in SUBSYSTEM_LABELS:
        return SUBSYSTEM_LABELS[subsystem]
    return subsystem[: -len("Subsystem")] if subsystem.endswith("Subsystem") else subsystem


VALID = QColor(186, 228, 186)
INVALID = QColor(226, 226, 226)
CASCADE = QColor(255, 186, 110)


class StageTable(QTableWidget):
    """The stage table; a cell's tooltip is written when it is asked for (``tip_for(row,
    column)``), not on every refresh of a running model, whose versions change at 5 Hz."""

    def __init__(self, rows: int, columns: int, parent: QWidget | None = None) -> None:
        super().__init__(rows, columns, parent)
        self.tip_for = lambda row, column: None

    def viewportEvent(self, event) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.ToolTip:
            index = self.indexAt(event.pos())
            tip = self.tip_for(index.row(), index.column()) if index.isValid() else None
            if tip:
                QToolTip.showText(event.globalPos(), tip, self.viewport())
                return True
        return super().viewportEvent(event)


NEXT_TIP = "Realize the State one stage further (paused only)"
TO_TIP = "Realize stage by stage up to the chosen stage (paused only)"


class StageInspector(QWidget):
    """See the module docstring. Feed it snapshots with ``update_snapshot``."""

    realize_next_requested = Signal()
    realize_to_requested = Signal(object)  # Stage

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("stageInspector")
        self.summary = QLabel("No model")
        self.summary.setObjectName("stageSummary")
        self.summary.setWordWrap(True)
        self.cascade_label = QLabel("")
        self.cascade_label.setObjectName("cascadeLabel")
        self.cascade_label.setWordWrap(True)
        self.compiled_label = QLabel("")
        self.compiled_label.setObjectName("compiledLabel")
        self.compiled_label.setWordWrap(True)
        self.compiled_label.setToolTip(
            "Whether the engine realizes Position..Acceleration in one compiled kernel call "
            "and takes integrator steps in compiled runs, and if not, what keeps it in Python "
            "(a Measure, a Custom force or mobilizer, constraints, event witnesses, ...)"
        )

        self.table = StageTable(0, len(STAGES), self)
        self.table.tip_for = self._cell_tip
        self.table.setObjectName("stageTable")
        self.table.setHorizontalHeaderLabels([SHORT.get(s.getName(), s.getName()) for s in STAGES])
        for col, stage in enumerate(STAGES):
            self.table.horizontalHeaderItem(col).setToolTip(stage.getName())
        font = self.table.font()  # a little smaller, so that compact versions fit the columns
        font.setPointSizeF(0.9 * font.pointSizeF())
        self.table.setFont(font)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.horizontalHeader().setMinimumSectionSize(26)
        # a version is never shown cut ("3..."): compact_version keeps it short enough
        self.table.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setToolTip(
            "Version number of each stage; green = realized, grey = not realized, "
            "orange = invalidated by the last edit"
        )

        self.next_button = QPushButton("Realize next stage")
        self.next_button.setObjectName("realizeNextButton")
        self.next_button.setToolTip(NEXT_TIP)
        self.next_button.clicked.connect(self.realize_next_requested)
        self.target = QComboBox()
        self.target.setObjectName("realizeTarget")
        for stage in STAGES[1:]:
            self.target.addItem(stage.getName(), stage)
        self.target.setCurrentText("Acceleration")
        self.to_button = QPushButton("Realize to")
        self.to_button.setObjectName("realizeToButton")
        self.to_button.setToolTip(TO_TIP)
        self.to_button.clicked.connect(
            lambda: self.realize_to_requested.emit(self.target.currentData())
        )
        self.target.currentIndexChanged.connect(lambda _i: self._update_buttons())
        self.timings = QLabel("")
        self.timings.setObjectName("stageTimings")
        self.timings.setWordWrap(True)

        # The buttons come first, so text of changing height below them never moves them.
        buttons = QHBoxLayout()
        buttons.addWidget(self.next_button)
        buttons.addWidget(self.to_button)
        buttons.addWidget(self.target)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        # narrow margins: the inspector also fits a bottom dock of about 180 px (see
        # MainWindow's layout of a small window)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addLayout(buttons)
        layout.addWidget(self.summary)
        layout.addWidget(self.cascade_label)
        layout.addWidget(self.compiled_label)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.timings)
        self._row_keys: list = []
        self._last = None
        self._labels: list[str] = []
        self._cells: dict = {}  # (row, col) -> (text, colour, tooltip) shown
        self._paused = True
        self._stage: Stage | None = None  # the System stage shown; None before a model
        self.set_paused(True)

    def _cell_tip(self, row: int, column: int) -> str | None:
        """The tooltip of a stage cell: its stage, whether it is realized, its exact version
        and what last invalidated it."""
        cell = self._cells.get((row, column))
        if cell is None:
            return None
        stage, realized, version, bumped_by, last_cause = cell[2]
        tip = f"{stage.getName()}: {'realized' if realized else 'not realized'}"
        if version is not None:
            tip += f", version {version}"
        if bumped_by:
            tip += f"; invalidated by {bumped_by}"
        if last_cause:
            tip += f"; last invalidated by {last_cause}"
        return tip

    def set_paused(self, paused: bool) -> None:
        self._paused = paused
        self._update_buttons()

    def _update_buttons(self) -> None:
        """Enable each realize button only where it can act (paused, with a model, below its
        stage), its tooltip saying why when it cannot."""
        stage = self._stage
        target = self.target.currentData()
        self.target.setEnabled(self._paused and stage is not None)
        if stage is None:
            why = "No model is loaded"
            next_why = to_why = why
        elif not self._paused:
            next_why = to_why = "Pause the simulation first (the integrator realizes every step)"
        else:
            next_why = (
                f"The State is already at {stage.getName()}, the last stage"
                if stage >= Stage.Report
                else None
            )
            to_why = (
                f"The State is already at {stage.getName()}, at or above {target.getName()}"
                if target is not None and stage >= target
                else None
            )
        for button, why, tip in (
            (self.next_button, next_why, NEXT_TIP),
            (self.to_button, to_why, TO_TIP),
        ):
            button.setEnabled(why is None)
            text = tip if why is None else f"{why}.\n{tip}"
            if button.toolTip() != text:
                button.setToolTip(text)

    def row_stage(self, row: int) -> Stage:
        """The stage shown in ``row`` (0 = System)."""
        return self._stages_of_row[row]

    def update_snapshot(self, snap) -> None:
        info = snap.stages
        key = (info, snap.cascade, snap.stage_timings, snap.time)  # a scrub changes t only
        if self._last == key:
            return
        self._last = key
        self._stage = info.system_stage
        self.set_paused(not snap.running)
        rows = [("System", info.system_stage, info.system_versions, None)]
        rows += [(s.name, s.stage, s.versions, s.index) for s in info.subsystems]
        self._stages_of_row = [r[1] for r in rows]
        if self.table.rowCount() != len(rows):
            self.table.setRowCount(len(rows))
        labels = [short_name(r[0]) for r in rows]
        if labels != self._labels:
            self._labels = labels
            self._cells = {}
            self.table.setVerticalHeaderLabels(labels)
        for row, r in enumerate(rows):
            header = self.table.verticalHeaderItem(row)
            tip = f"{r[0]}: at {r[1].getName()} stage"
            if header.toolTip() != tip:
                header.setToolTip(tip)
        cascade = snap.cascade.stages if snap.cascade is not None else {}
        for row, (_name, stage, versions, sub) in enumerate(rows):
            bumped = set(cascade.get(sub, ()))
            for col, st in enumerate(STAGES):
                version = versions[st] if st < len(versions) else None
                text = "" if version is None else compact_version(version)
                realized = st <= stage
                color = VALID if realized else (CASCADE if st in bumped else INVALID)
                bumped_by = snap.cascade.cause if st in bumped else None
                last_cause = info.causes[st] if sub is None and not realized else None
                tip = (st, realized, version, bumped_by, last_cause)
                item = self.table.item(row, col)
                if item is None:
                    item = QTableWidgetItem()
                    item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                    self.table.setItem(row, col, item)
                    self._cells.pop((row, col), None)
                old = self._cells.get((row, col))
                if old == (text, color, tip):
                    continue  # unchanged: no item signals, no repaint (this runs at 5 Hz)
                self._cells[(row, col)] = (text, color, tip)
                if old is None or old[0] != text:
                    item.setText(text)
                if old is None or old[1] != color:
                    item.setBackground(QBrush(color))
        self.summary.setText(f"System stage: {info.system_stage.getName()}  (t = {snap.time:.6g})")
        if self.compiled_label.text() != info.compiled:
            self.compiled_label.setText(info.compiled)
        if snap.cascade is not None and snap.cascade.stages:
            lowest = snap.cascade.lowest()
            self.cascade_label.setText(
                f"Last edit: {snap.cascade.cause} invalidated {lowest.getName()} and above"
            )
        elif snap.cascade is not None and snap.cascade.new_state:
            self.cascade_label.setText(
                f"Last edit: {snap.cascade.cause}; a new State, realized to "
                f"{info.system_stage.getName()}"
            )
        else:
            self.cascade_label.setText("")
        # Only the realizations the State still holds (an edit since then invalidated the
        # rest), and none while running (the integrator realizes every step).
        timings = [(st, dt) for st, dt in snap.stage_timings if st <= info.system_stage]
        if snap.running:
            timings = []
        if not timings:
            self.timings.setText("")
        else:
            valid = dict(snap.became_valid)
            lines = []
            for stage, dt in timings:
                names = valid.get(stage, ())
                what = ", ".join(names) if names else "no cache entry"
                lines.append(f"{stage.getName()}: {1000 * dt:.3f} ms; became valid: {what}")
            self.timings.setText("Realized\n" + "\n".join(lines))
