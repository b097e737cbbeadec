"""The model tree: a Qt item model over a ModelDocument.

Rows: "Ground" with the bodies nested by parent (column 2 names the mobilizer), then
"Constraints", "Forces", "Measures" and "Hints". Each row carries a string key in ``KEY_ROLE``:
``"ground"``, ``"body:<name>"``, ``"section:constraints"``, ``"constraints:<index>"``,
``"forces:<index>"``, ``"measures:<index>"`` or ``"hints"`` (``parse_key`` splits it).
The model holds no data of its own: it is rebuilt from the document whenever the document changes.
"""

from __future__ import annotations

from PySide6.QtCore import QMimeData, Qt, QTimer
from PySide6.QtGui import QStandardItem, QStandardItemModel

from app.document import GROUND, ModelDocument
from app.document.registry import is_available

KEY_ROLE = Qt.ItemDataRole.UserRole + 1
MIME_TYPE = "application/x-mbstudio-body"


def body_key(name: str) -> str:
    return f"body:{name}"


def parse_key(key: str | None) -> tuple[str, str]:
    """("body", name), ("constraints", "0"), ("ground", ""), ("hints", "")..."""
    if not key:
        return ("", "")
    kind, _, rest = key.partition(":")
    return kind, rest


def _item(text: str, key: str, tooltip: str = "") -> QStandardItem:
    item = QStandardItem(text)
    item.setData(key, KEY_ROLE)
    item.setEditable(False)
    if tooltip:
        item.setToolTip(tooltip)
    return item


def _body_tooltip(b) -> str:
    return f"{b.name}: {b.mobilizer} mobilizer, {b.mass:g} kg"


class ModelTreeModel(QStandardItemModel):
    def __init__(self, document: ModelDocument | None = None, parent=None) -> None:
        super().__init__(parent)
        self.setHorizontalHeaderLabels(["Model", "Type"])
        self.document: ModelDocument | None = None
        self.last_change = None
        self._body_items: dict = {}  # body name (and "Ground") -> its row's first item
        # Called as rename_handler(old, new) after a body's name is edited in place; the
        # document is the only store (the tree is rebuilt from it when it accepts).
        self.rename_handler = None
        # Called as reparent_handler(body, new_parent) when a body row is dropped on another
        # body (or Ground).
        self.reparent_handler = None
        if document is not None:
            self.set_document(document)

    def set_document(self, document: ModelDocument) -> None:
        if self.document is not None:
            self.document.remove_listener(self._changed)
        self.document = document
        document.add_listener(self._changed)
        self.rebuild()

    def detach(self) -> None:
        if self.document is not None:
            self.document.remove_listener(self._changed)
            self.document = None

    def _changed(self, change) -> None:
        self.last_change = change
        if not self._update_body_row(change):
            self.rebuild()
        self.last_change = None

    def _update_body_row(self, change) -> bool:
        """Bring one body's row up to date after an edit of its own fields that leaves the
        tree's shape and names alone (mass, frames, geometry, initial q/u); False if the edit
        needs a rebuild."""
        if change.kind not in ("parameters", "initial_state") or "name" in change.fields:
            return False
        item = self._body_items.get(change.target)
        if item is None or self.document is None:
            return False
        try:
            b = self.document.body(change.target)
        except ValueError:
            return False
        item.setToolTip(_body_tooltip(b))
        return True

    def rebuild(self) -> None:
        self.beginResetModel()
        self.blockSignals(True)
        try:
            self.removeRows(0, self.rowCount())
            self._body_items = {}
            doc = self.document
            if doc is None:
                return
            root = self.invisibleRootItem()
            ground = _item(GROUND, "ground", "The fixed ground body")
            ground.setDropEnabled(True)
            items = {GROUND: ground}
            self._body_items = items
            root.appendRow([ground, _item("", "ground")])
            for b in doc.bodies:
                item = _item(b.name, f"body:{b.name}", _body_tooltip(b))
                item.setEditable(True)
                item.setDragEnabled(True)
                item.setDropEnabled(True)
                items[b.name] = item
                items[b.parent].appendRow([item, _item(b.mobilizer, f"body:{b.name}")])
            for section, title in (
                ("constraints", "Constraints"),
                ("forces", "Forces"),
                ("measures", "Measures"),
            ):
                head = _item(title, f"section:{section}")
                root.appendRow([head, _item(str(len(getattr(doc, section))), f"section:{section}")])
                for i, e in enumerate(getattr(doc, section)):
                    bodies = [v for k, v in e.args.items() if isinstance(v, str)]
                    text = e.label() + (f" ({', '.join(bodies)})" if bodies else "")
                    if section == "measures":
                        text = e.name
                    row = _item(text, f"{section}:{i}")
                    if not is_available(section, e.type):
                        row.setToolTip(f"this engine has no {e.type} yet")
                        row.setForeground(Qt.GlobalColor.gray)
                    head.appendRow([row, _item(e.type, f"{section}:{i}")])
            root.appendRow([_item("Hints", "hints", "System hints"), _item("", "hints")])
        finally:
            self.blockSignals(False)
            self.endResetModel()

    def setData(self, index, value, role=Qt.ItemDataRole.EditRole) -> bool:  # noqa: N802
        """In-place rename of a body goes through the document (never stored here)."""
        if role == Qt.ItemDataRole.EditRole:
            kind, name = parse_key(index.data(KEY_ROLE))
            if kind == "body" and index.column() == 0 and self.rename_handler is not None:
                new = str(value)
                if new != name:
                    # After the view has closed its editor: the rename rebuilds this model.
                    QTimer.singleShot(0, lambda: self.rename_handler(name, new))
            return False
        return super().setData(index, value, role)

    def mimeTypes(self) -> list[str]:  # noqa: N802
        return [MIME_TYPE]

    def mimeData(self, indexes):  # noqa: N802
        keys = []
        for index in indexes:
            key = index.data(KEY_ROLE)
            if key and key.startswith("body:") and key not in keys:
                keys.append(key)
        data = QMimeData()
        data.setData(MIME_TYPE, "\n".join(keys).encode())
        return data

    def supportedDropActions(self):  # noqa: N802
        return Qt.DropAction.MoveAction

    def dropMimeData(self, data, action, row, column, parent) -> bool:  # noqa: N802
        """Dropping body rows on a body (or Ground) re-parents them through the document;
        returns False so the view never moves rows itself (the document rebuilds them)."""
        if not data.hasFormat(MIME_TYPE) or self.reparent_handler is None:
            return False
        kind, target = parse_key(parent.data(KEY_ROLE)) if parent.isValid() else ("", "")
        if kind == "ground":
            target = GROUND
        elif kind != "body":
            return False
        names = [k.partition(":")[2] for k in bytes(data.data(MIME_TYPE)).decode().split("\n") if k]
        for name in names:
            QTimer.singleShot(0, lambda n=name: self.reparent_handler(n, target))
        return False

    def index_of(self, key: str):
        """The model index (column 0) of the row with ``key`` (invalid if none)."""
        stack = [self.invisibleRootItem()]
        while stack:
            parent = stack.pop()
            for row in range(parent.rowCount()):
                child = parent.child(row, 0)
                if child.data(KEY_ROLE) == key:
                    return child.index()
                stack.append(child)
        return self.index(-1, -1)
