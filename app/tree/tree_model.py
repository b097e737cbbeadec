"""The model tree: a Qt item model over a ModelDocument.

Rows: "Ground" with the bodies nested by parent (column 2 names the mobilizer), then
"Constraints", "Forces", "Measures" and "Hints". Each row carries a string key in ``KEY_ROLE``:
``"ground"``, ``"body:<name>"``, ``"section:constraints"``, ``"constraints:<index>"``,
``"forces:<index>"``, ``"measures:<index>"`` or ``"hints"`` (``parse_key`` splits it).
The model holds no data of its own: it follows the document. An edit of a few bodies (adding,
removing, renaming or re-parenting them, another mobilizer, undo and redo of those) changes only
their rows (``sync_started`` and ``synced`` bracket such an update); a larger change rebuilds
every row (a model reset).

A body tree deeper than ``MAX_NESTED_DEPTH`` levels (a long chain) is listed flat under
Ground, parents first, each body's parent named in its Type column ("Ball on b4"): Qt's tree
view pays for every row inserted or removed a walk up the whole depth for each expanded row
(O(rows x depth): 7-12 s per edit of a 20,000-body chain), and a 20,000-level indentation
cannot be read anyway. Re-parenting by drag and drop and renaming in place work the same.

A model of more than ``FILL_IN_STEPS_ABOVE`` bodies gets its first rows with the reset and the
others in short steps, one per turn of the event loop (``filling``): opening a 20,000-body
chain never holds the GUI thread for all 20,000 rows. An edit, or a look-up of a row not made
yet, makes the rest first (``finish_filling``).
"""

from __future__ import annotations

import time
from dataclasses import replace
from itertools import compress
from operator import not_

from PySide6.QtCore import QMimeData, Qt, QTimer, Signal
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


_READ_ONLY: list = []  # an item's default flags but editable (made once: setEditable is slow)


def _item(text: str, key: str, tooltip: str = "", editable: bool = False) -> QStandardItem:
    """A row's item (an item's default flags: selectable, draggable, a drop target; editable
    only if ``editable``)."""
    item = QStandardItem(text)
    item.setData(key, KEY_ROLE)
    if not editable:
        if not _READ_ONLY:
            _READ_ONLY.append(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
        item.setFlags(_READ_ONLY[0])
    if tooltip:
        item.setToolTip(tooltip)
    return item


def _body_tooltip(b) -> str:
    return f"{b.name}: {b.mobilizer} mobilizer, {b.mass:g} kg"


def _type_text(b, flat: bool) -> str:
    """The Type column of body ``b``: its mobilizer (and its parent in a flat list)."""
    return f"{b.mobilizer} on {b.parent}" if flat else b.mobilizer


def _body_row(b, flat: bool = False) -> list[QStandardItem]:
    """The two items of body ``b``'s row: its name (editable, draggable) and its mobilizer
    (and, in a flat list, its parent)."""
    item = _item(b.name, body_key(b.name), _body_tooltip(b), editable=True)
    return [item, _item(_type_text(b, flat), body_key(b.name))]


#: A body tree deeper than this many levels is listed flat under Ground: deeper nesting runs off
#: the right of the Model dock (a 50-link chain), where a flat list names each parent.
MAX_NESTED_DEPTH = 16


def tree_depth(bodies, above: int | None = None) -> int:
    """The number of levels of the body tree (0 without bodies); O(n). A parent missing or
    a loop (refused by validation) counts as Ground. With ``above``: any depth over it as
    soon as one is found (whether the tree is deeper than ``above`` is then known; a chain
    listed parents first shows it at its body ``above + 1``)."""
    limit = above if above is not None else len(bodies) + 1
    depth = {GROUND: 0}
    get = depth.get
    for b in bodies:  # the usual case: parents before children, one look-up per body
        d = get(b.parent)
        if d is None:
            break
        if d >= limit:
            return d + 1
        depth[b.name] = d + 1
    else:
        return max(depth.values())
    depth = {GROUND: 0}
    parent_of = {b.name: b.parent for b in bodies}
    deepest = 0
    for b in bodies:
        name = b.name
        if name in depth:
            continue
        path = []
        while name not in depth and name in parent_of and len(path) <= len(parent_of):
            path.append(name)
            name = parent_of[name]
        d = depth.get(name, 0)
        for n in reversed(path):
            d += 1
            depth[n] = d
        deepest = max(deepest, d)
        if deepest > limit:
            return deepest
    return deepest


def _not_in(bodies, ids: set) -> list:
    """The bodies of ``bodies`` whose ids are not in ``ids``, in order (at C speed)."""
    return list(compress(bodies, map(not_, map(ids.__contains__, map(id, bodies)))))


def _remove_rows(parent: QStandardItem, rows: list[int]) -> None:
    """Remove the rows ``rows`` of ``parent``: each run of adjacent rows in one call, the
    last run first (a removed subtree of a chain listed flat is one run: one call, not one
    per body, each of which the view follows)."""
    rows = sorted(rows)
    end = len(rows)
    while end:
        start = end - 1
        while start and rows[start - 1] == rows[start] - 1:
            start -= 1
        parent.removeRows(rows[start], end - start)
        end = start


#: A model with more bodies than this gets the rows of its first ``FIRST_ROWS`` bodies at
#: once and the others in steps of about ``FILL_STEP_SECONDS`` of the GUI thread, one per
#: turn of the event loop, so that opening it never holds the GUI thread for long.
FILL_IN_STEPS_ABOVE = 3000
FIRST_ROWS = 500
FILL_STEP_SECONDS = 0.03

#: More bodies added or removed than this (and than half the model) rebuild the whole tree.
SYNC_LIMIT = 200

SECTIONS = (("constraints", "Constraints"), ("forces", "Forces"), ("measures", "Measures"))


class ModelTreeModel(QStandardItemModel):
    #: Rows are about to be changed in place (not a reset): the view keeps its selection.
    sync_started = Signal()
    #: Rows were changed in place: ``inserted`` holds the top items of the bodies added or
    #: moved (their subtrees are under them), ``renamed`` maps old to new body names.
    synced = Signal()
    #: A step of a large model's rows was made: the rows (first items) that got their first
    #: child in it, for the view to expand.
    filled = Signal(list)

    def __init__(self, document: ModelDocument | None = None, parent=None) -> None:
        super().__init__(parent)
        self.setHorizontalHeaderLabels(["Model", "Type"])
        self.document: ModelDocument | None = None
        self.last_change = None
        self._body_items: dict = {}  # body name (and "Ground") -> its row's first item
        self._sections: dict = {}  # section -> (head item, count item)
        self._shown = None  # the document content the rows show (ModelData)
        self.flat = False  # bodies listed flat under Ground (a tree too deep to nest)
        self.inserted: list[QStandardItem] = []
        #: (the bodies, how many of them have rows) while a large model's rows are made
        self._filling: tuple | None = None
        self._fill_timer = QTimer(self)
        self._fill_timer.setInterval(0)
        self._fill_timer.timeout.connect(self._fill_step)
        self.renamed: dict[str, str] = {}
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
        self.finish_filling()
        if self._update_body_row(change):
            self._shown = self.document.data
        elif not self._sync():
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
            self.flat = tree_depth(doc.data.bodies, MAX_NESTED_DEPTH) > MAX_NESTED_DEPTH
            bodies = doc.data.bodies
            self._filling = None
            self._fill_timer.stop()
            if len(bodies) > FILL_IN_STEPS_ABOVE:
                self._filling = (bodies, FIRST_ROWS)  # the rest: one step per event-loop turn
                self._fill_timer.start()
            self._make_rows(bodies[: FIRST_ROWS if self._filling else len(bodies)])
            self._sections = {}
            for section, title in SECTIONS:
                head = _item(title, f"section:{section}")
                count = _item("", f"section:{section}")
                root.appendRow([head, count])
                self._sections[section] = (head, count)
                self._fill_section(section)
            root.appendRow([_item("Hints", "hints", "System hints"), _item("", "hints")])
            self._shown = doc.data
        finally:
            self.blockSignals(False)
            self.endResetModel()

    def _make_rows(self, bodies) -> list[QStandardItem]:
        """Append the rows of ``bodies`` (in document order: each parent's row is made
        before its children's); returns the (first) items of the body rows that got their
        first child here."""
        items, flat = self._body_items, self.flat
        ground = items[GROUND]
        parents = []
        for b in bodies:
            row = _body_row(b, flat)
            items[b.name] = row[0]
            if flat:
                ground.appendRow(row)
            else:
                parent = items[b.parent]
                if not parent.hasChildren() and parent is not ground:
                    parents.append(parent)
                parent.appendRow(row)
        return parents

    def _fill_step(self) -> None:
        """Make the next rows of a large model's body list, as many as take about
        ``FILL_STEP_SECONDS`` (``filled`` then carries the rows that got their first child,
        for the view to expand)."""
        if self._filling is None:
            self._fill_timer.stop()
            return
        bodies, done = self._filling
        end = time.perf_counter() + FILL_STEP_SECONDS
        parents: list[QStandardItem] = []
        while done < len(bodies) and time.perf_counter() < end:
            parents += self._make_rows(bodies[done : done + 100])
            done += 100
        self._filling = (bodies, done) if done < len(bodies) else None
        if self._filling is None:
            self._fill_timer.stop()
        self.filled.emit(parents)

    def filling(self) -> bool:
        """Whether the body rows of a large model are still being made in steps."""
        return self._filling is not None

    def finish_filling(self) -> None:
        """Make every body row not made yet, now (before an edit or a look-up needs them)."""
        if self._filling is not None:
            bodies, done = self._filling
            self._filling = None
            self._fill_timer.stop()
            self.filled.emit(self._make_rows(bodies[done:]))

    def _fill_section(self, section: str) -> None:
        """(Re)make the rows of the constraints, forces or measures of the document."""
        head, count = self._sections[section]
        elements = getattr(self.document.data, section)
        if head.rowCount():
            head.removeRows(0, head.rowCount())
        count.setText(str(len(elements)))
        for i, e in enumerate(elements):
            bodies = [v for k, v in e.args.items() if isinstance(v, str)]
            text = e.label() + (f" ({', '.join(bodies)})" if bodies else "")
            if section == "measures":
                text = e.name
            row = _item(text, f"{section}:{i}")
            if not is_available(section, e.type):
                row.setToolTip(f"this engine has no {e.type} yet")
                row.setForeground(Qt.GlobalColor.gray)
            head.appendRow([row, _item(e.type, f"{section}:{i}")])

    def _sync(self) -> bool:
        """Bring the rows from the content they show to the document's, changing only the
        rows of bodies added, removed, renamed, moved or otherwise edited and the element
        sections that changed (the changed bodies are found at C speed; the tree's depth
        and, after a re-parenting, a flat list's order take one pass; Qt sees only the changed
        rows); False (nothing done) if the change is too large for that (then rebuild)."""
        old, doc = self._shown, self.document
        if old is None or doc is None:
            return False
        new = doc.data
        # The bodies that are not the other content's very objects (specs are immutable: an
        # edit replaces only the bodies it changes), picked at C speed; only they are diffed.
        old_ids, new_ids = set(map(id, old.bodies)), set(map(id, new.bodies))
        old_bodies = {b.name: b for b in _not_in(old.bodies, new_ids)}
        new_bodies = {b.name: b for b in _not_in(new.bodies, old_ids)}
        removed = [n for n in old_bodies if n not in new_bodies]
        added = [n for n in new_bodies if n not in old_bodies]
        if len(removed) + len(added) > max(SYNC_LIMIT, len(new.bodies) // 2):
            return False
        renamed: dict[str, str] = {}
        if len(removed) == len(added) == 1:
            o, n = old_bodies[removed[0]], new_bodies[added[0]]
            if replace(o, name=n.name) == n:
                renamed = {o.name: n.name}
        if renamed:
            removed, added = [], []
        old_name = {v: k for k, v in renamed.items()}
        moved = []  # bodies kept (perhaps renamed) under another parent
        for name, b in new_bodies.items():
            before = old_bodies.get(old_name.get(name, name))
            if before is not None and renamed.get(before.parent, before.parent) != b.parent:
                moved.append(name)
        if self.flat and not removed and not moved:
            flat = True  # bodies added to a tree too deep to nest leave it as deep
        else:
            flat = tree_depth(new.bodies, MAX_NESTED_DEPTH) > MAX_NESTED_DEPTH
        if flat != self.flat:
            return False  # nested to flat or back: every row changes
        if flat and moved:
            # the rows kept must keep their order (a re-parenting may reorder the bodies)
            gone, fresh = set(removed), set(added)
            kept_before = [renamed.get(b.name, b.name) for b in old.bodies if b.name not in gone]
            if kept_before != [b.name for b in new.bodies if b.name not in fresh]:
                return False
        if flat:
            moved = []  # a flat row stays where it is; its Type column names the new parent
        self.sync_started.emit()
        try:
            items = self._body_items
            for o, n in renamed.items():
                item = items.pop(o)
                items[n] = item
                item.setText(n)
                item.setData(body_key(n), KEY_ROLE)
                self._type_item(item).setData(body_key(n), KEY_ROLE)
            gone = set(removed)
            taken: dict[str, list[QStandardItem]] = {}
            for name in moved:
                item = items[name]
                taken[name] = item.parent().takeRow(item.row())
            rows_of: dict[int, tuple] = {}  # parent item -> (it, the rows to remove under it)
            for name in removed:
                if flat or old_bodies[name].parent not in gone:
                    item = items[name]
                    parent = item.parent()
                    rows_of.setdefault(id(parent), (parent, []))[1].append(item.row())
            for parent, rows in rows_of.values():
                _remove_rows(parent, rows)
            for name in removed:
                del items[name]
            inserted = []
            if flat and added:
                fresh = set(added)
                runs: list[list] = []  # [first row, its bodies]: rows added next to each other
                for position, b in enumerate(new.bodies):
                    if b.name in fresh:
                        if runs and runs[-1][0] + len(runs[-1][1]) == position:
                            runs[-1][1].append(b)
                        else:
                            runs.append([position, [b]])
                ground = items[GROUND]
                for first, run in runs:  # (in order: each run's rows are final when made)
                    ground.insertRows(first, len(run))  # one insertion the view follows
                    for k, b in enumerate(run):
                        row = _body_row(b, flat)
                        items[b.name] = row[0]
                        for column, cell in enumerate(row):
                            ground.setChild(first + k, column, cell)
            placed = set() if flat else set(added) | set(moved)
            if placed:
                from app.document.document import _parents_first

                rank: dict[str, int] = {}  # body -> its place among its parent's children
                siblings: dict[str, int] = {}
                for b in new.bodies:
                    rank[b.name] = siblings.get(b.parent, 0)
                    siblings[b.parent] = rank[b.name] + 1
                for b in _parents_first(new.bodies):
                    if b.name not in placed:
                        continue
                    row = taken.get(b.name) or _body_row(b)
                    items[b.name] = row[0]
                    parent = items[b.parent]
                    position = min(rank[b.name], parent.rowCount())
                    parent.insertRow(position, row)
                    if b.parent not in placed:  # the top of what is added or moved
                        inserted.append(row[0])
            for name, b in new_bodies.items():  # (the changed bodies)
                before = old_bodies.get(old_name.get(name, name))
                if before is not None:
                    item = items[name]
                    item.setToolTip(_body_tooltip(b))
                    if before.mobilizer != b.mobilizer or (flat and before.parent != b.parent):
                        self._type_item(item).setText(_type_text(b, flat))
            for section, _title in SECTIONS:
                if getattr(old, section) != getattr(new, section):
                    self._fill_section(section)
            self._shown = new
            self.inserted = inserted
            self.renamed = renamed
        except Exception:  # noqa: BLE001  (whatever went wrong, the rows are made afresh)
            self.rebuild()
        finally:
            self.synced.emit()
            self.inserted = []
            self.renamed = {}
        return True

    def _type_item(self, item: QStandardItem) -> QStandardItem:
        """The second-column item (the mobilizer's name) of a body row."""
        return item.parent().child(item.row(), 1)

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
        kind, name = parse_key(key)
        if kind in ("body", "ground"):
            item = self._body_items.get(GROUND if kind == "ground" else name)
            if item is None and self._filling is not None:
                self.finish_filling()
                item = self._body_items.get(name)
            return item.index() if item is not None else self.index(-1, -1)
        root = self.invisibleRootItem()
        for row in range(root.rowCount()):  # the sections and their elements
            child = root.child(row, 0)
            if child.data(KEY_ROLE) == key:
                return child.index()
            if child.data(KEY_ROLE).startswith("section:"):
                for k in range(child.rowCount()):
                    if child.child(k, 0).data(KEY_ROLE) == key:
                        return child.child(k, 0).index()
        return self.index(-1, -1)
