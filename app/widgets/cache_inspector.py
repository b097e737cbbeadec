"""Cache inspector: every cache entry of every subsystem, and the state variables.

A tree: "State variables" (t, q, u, z, qErr, uErr, udotErr, multipliers, discrete variables),
then one branch per subsystem with its cache entries. Columns, as shown: name, status (valid /
stale), value preview, stages (earliest .. latest, or "lazy"), why stale, owner. Arrays and
structured values (dataclasses such as the matter subsystem's position cache) expand into
their fields and rows.
A stale entry's status cell says which change made it stale (tooltip and "why" column).
Items are updated in place, so expansion survives live updates.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

NAME, STAGES, STATUS, VALUE, WHY, OWNER = range(6)
HEADERS = ("Name", "Stages", "Status", "Value", "Why stale", "Owner")
#: The columns left to right as shown (the items keep the logical order above).
VISUAL_ORDER = (NAME, STATUS, VALUE, STAGES, WHY, OWNER)
STALE = QColor(200, 80, 60)
VALID = QColor(40, 130, 40)
MAX_ROWS = 100
PREVIEW_CHARS = 80


def preview(value) -> str:
    """A one-line description of ``value``."""
    if isinstance(value, np.ndarray):
        if value.size <= 6 and value.dtype.kind in "fiub":
            return "[" + ", ".join(f"{v:.4g}" for v in value.reshape(-1).tolist()) + "]"
        if value.size <= 6:
            return repr(value.reshape(-1).tolist())
        return f"array {value.shape} {value.dtype}"
    if dataclasses.is_dataclass(value):
        return f"{type(value).__name__}({', '.join(f.name for f in dataclasses.fields(value))})"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, (tuple, list)) and (
        len(value) > 6 or any(isinstance(v, np.ndarray) and v.size > 6 for v in value)
    ):
        return f"{type(value).__name__} of {len(value)}"
    text = repr(value)
    return text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 3] + "..."


def children_of(value) -> list[tuple[str, object]]:
    """(label, sub-value) pairs a value expands into (none for scalars)."""
    if isinstance(value, np.ndarray):
        if value.ndim == 0 or value.size <= 1:
            return []
        rows = value if value.ndim > 1 else value.reshape(-1)
        return [(f"[{i}]", rows[i]) for i in range(min(len(rows), MAX_ROWS))]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [(f.name, getattr(value, f.name)) for f in dataclasses.fields(value)]
    if isinstance(value, (tuple, list)) and len(value) > 1:
        return [(f"[{i}]", v) for i, v in enumerate(value[:MAX_ROWS])]
    return []


class CacheInspector(QWidget):
    """See the module docstring. Feed it snapshots with ``update_snapshot``."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("cacheInspector")
        self.header = QLabel("No model")
        self.header.setObjectName("cacheHeader")
        self.header.setWordWrap(True)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("cacheTree")
        self.tree.setColumnCount(len(HEADERS))
        self.tree.setHeaderLabels(list(HEADERS))
        self.tree.setColumnWidth(NAME, 170)
        self.tree.setColumnWidth(STAGES, 140)
        self.tree.setColumnWidth(STATUS, 80)
        self.tree.setColumnWidth(VALUE, 200)
        # Shown in the order a docked inspector (~350 px) needs: what, whether it is valid,
        # its value; the stages, why it is stale and its owner further right.
        header = self.tree.header()
        for visual, column in enumerate(VISUAL_ORDER):
            header.moveSection(header.visualIndex(column), visual)
        self.tree.setUniformRowHeights(True)
        self.tree.itemExpanded.connect(self._fill_children)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.header)
        layout.addWidget(self.tree)
        self._variables_root = QTreeWidgetItem(self.tree, ["State variables"])
        self._variables_root.setExpanded(True)
        self._subsystem_roots: dict[int, QTreeWidgetItem] = {}
        self._entries: dict[tuple, QTreeWidgetItem] = {}
        self._report = None
        self.updates = 0

    # -- lookup helpers (tests and the plots use them) ------------------------------------------

    def entry_item(self, owner_contains: str, name: str) -> QTreeWidgetItem | None:
        for (sub, _idx), item in self._entries.items():
            owner = self._subsystem_roots[sub].text(NAME)
            if isinstance(_idx, int) and owner_contains in owner and item.text(NAME) == name:
                return item
        return None

    def variable_item(self, name: str) -> QTreeWidgetItem | None:
        for i in range(self._variables_root.childCount()):
            item = self._variables_root.child(i)
            if item.text(NAME) == name:
                return item
        return None

    # -- updates --------------------------------------------------------------------------------

    def update_snapshot(self, snap) -> None:
        report = snap.cache
        if report is None or report is self._report:
            return
        self._report = report
        self.updates += 1
        stale = sum(1 for e in report.entries if not e.realized)
        self.header.setText(
            f"t = {snap.time:.6g}   {len(report.entries)} cache entries, {stale} stale   "
            f"system stage {snap.stages.system_stage.getName()}"
        )
        self._update_variables(report.variables)
        seen = set()
        for e in report.entries:
            root = self._subsystem_roots.get(e.subsystem)
            if root is None:
                root = QTreeWidgetItem(self.tree, [e.owner])
                root.setFirstColumnSpanned(False)
                root.setExpanded(True)
                self._subsystem_roots[e.subsystem] = root
            root.setText(NAME, e.owner)
            root.setToolTip(NAME, e.owner)
            key = (e.subsystem, e.index)
            seen.add(key)
            item = self._entries.get(key)
            if item is None:
                item = QTreeWidgetItem(root)
                self._entries[key] = item
            span = "lazy" if e.lazy else e.latest.getName()
            item.setText(NAME, e.name)
            item.setToolTip(NAME, f"{e.name} ({e.owner})")
            item.setText(OWNER, e.owner)
            item.setText(STAGES, f"{e.earliest.getName()} .. {span}")
            item.setText(STATUS, "valid" if e.realized else "stale")
            item.setForeground(STATUS, QBrush(VALID if e.realized else STALE))
            item.setText(WHY, e.stale_reason)
            item.setToolTip(STATUS, e.stale_reason or "realized: the value is current")
            self._set_value(item, e.value)
        for key in [k for k in self._entries if k not in seen and isinstance(k[1], int)]:
            item = self._entries.pop(key)
            item.parent().removeChild(item)

    def _update_variables(self, variables) -> None:
        root = self._variables_root
        for i, var in enumerate(variables):
            item = root.child(i) if i < root.childCount() else QTreeWidgetItem(root)
            item.setText(NAME, var.name)
            item.setText(OWNER, var.group)
            item.setText(STATUS, var.note)
            item.setToolTip(STATUS, var.note)
            self._set_value(item, var.value)
        while root.childCount() > len(variables):
            root.removeChild(root.child(root.childCount() - 1))

    def _set_value(self, item: QTreeWidgetItem, value) -> None:
        item.setText(VALUE, preview(value))
        item.setData(VALUE, Qt.ItemDataRole.UserRole, value)
        expandable = bool(children_of(value))
        item.setChildIndicatorPolicy(
            QTreeWidgetItem.ChildIndicatorPolicy.ShowIndicator
            if expandable
            else QTreeWidgetItem.ChildIndicatorPolicy.DontShowIndicatorWhenChildless
        )
        if item.isExpanded():
            self._fill_children(item)

    def _fill_children(self, item: QTreeWidgetItem) -> None:
        value = item.data(VALUE, Qt.ItemDataRole.UserRole)
        kids = children_of(value)
        for i, (label, sub) in enumerate(kids):
            child = item.child(i) if i < item.childCount() else QTreeWidgetItem(item)
            child.setText(NAME, label)
            self._set_value(child, sub)
        while item.childCount() > len(kids):
            item.removeChild(item.child(item.childCount() - 1))
