"""The "Model" dock: the tree view with add / remove buttons and selection sync.

Signals: ``body_selected(name)`` when a body becomes the current row (the 3-D view follows),
``key_selected(key)`` for any row (the property editor follows). Slot ``select_body(name)``
selects a body's row (the 3-D view's picking calls it).
"""

from __future__ import annotations

from collections.abc import Iterator

from PySide6.QtCore import QEvent, QItemSelectionModel, Qt, Signal, Slot
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QMenu,
    QToolButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from app.document import GROUND
from app.document.measure_types import MEASURE_TYPES
from app.document.registry import CONSTRAINT_TYPES, FORCE_TYPES, is_available
from app.tree.tree_model import KEY_ROLE, ModelTreeModel, body_key, parse_key

#: Pixels a child row is indented under its parent: a robot arm's tenth link still leaves room
#: for the Type column in the default-width Model dock.
TREE_INDENT = 14
#: The narrowest the name column is made to leave room for the Type column (px).
MIN_NAME_WIDTH = 120
#: Ancestors of a removed selected body looked up one by one (a scan of the bodies each)
#: before a map of every body's parent is made for the rest.
ANCESTORS_LOOKED_UP = 4


class ModelTreeWidget(QWidget):
    body_selected = Signal(str)
    key_selected = Signal(str)

    def __init__(self, editor, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("modelTree")
        self.editor = editor
        self.model = ModelTreeModel(parent=self)
        self.view = QTreeView(self)
        self.view.setObjectName("modelTreeView")
        self.view.setModel(self.model)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.setUniformRowHeights(True)
        self.view.setAlternatingRowColors(True)
        self.view.setIndentation(TREE_INDENT)
        self.view.viewport().installEventFilter(self)
        self.view.setToolTip(
            "Select a body to edit it; Ctrl-click to pick several bodies for a constraint or force"
        )
        #: Whether the user has dragged the name column's width: from then on it is theirs,
        #: and neither a refill of the tree nor a resize of the dock fits it again.
        self.user_sized_names = False
        self._header_pressed = False  # a mouse button is down on the column headers
        self.view.header().viewport().installEventFilter(self)
        self.view.header().sectionResized.connect(self._section_resized)
        self._current_key = ""
        #: The document content the current key was chosen in (its ancestors are looked up
        #: there when the body is gone).
        self._current_data = None
        self._selecting = False

        self.add_body_button = self._button(
            "Add body", "Add a body under the selected body (or Ground)", editor.add_body
        )
        self.remove_button = self._button(
            "Remove",
            "Remove the selected item (a body with its descendants)",
            editor.remove_selected,
        )
        self.constraint_menu = self._type_menu("constraints", CONSTRAINT_TYPES)
        self.force_menu = self._type_menu("forces", FORCE_TYPES)
        self.measure_menu = self._type_menu("measures", MEASURE_TYPES)
        self.add_constraint_button = self._menu_button(
            "Constraint", "Add a constraint between the selected bodies", self.constraint_menu
        )
        self.add_force_button = self._menu_button(
            "Force", "Add a force on the selected bodies", self.force_menu
        )
        self.add_measure_button = self._menu_button(
            "Measure",
            "Add a Measure (a probe on the selected body, or an operation on the selected "
            "measure) to plot",
            self.measure_menu,
        )
        self.message = QLabel(self)
        self.message.setObjectName("treeMessage")
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #b03a2e")
        self.message.hide()

        # Two rows of buttons (bodies; constraints, forces, measures): one row would make the
        # dock about 400 px wide at least, too wide beside the 3-D view of a 1024 px window.
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        for row in (
            (self.add_body_button, self.remove_button),
            (self.add_constraint_button, self.add_force_button, self.add_measure_button),
        ):
            buttons = QHBoxLayout()
            buttons.setContentsMargins(0, 0, 0, 0)
            for b in row:
                buttons.addWidget(b)
            buttons.addStretch(1)
            layout.addLayout(buttons)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.message)
        self.model.rename_handler = self._rename
        self.model.reparent_handler = self._reparent
        self.view.setDragEnabled(True)
        self.view.setAcceptDrops(True)
        self.view.setDropIndicatorShown(True)
        self.view.setDragDropMode(QAbstractItemView.DragDropMode.DragDrop)
        self.view.setDefaultDropAction(Qt.DropAction.MoveAction)
        self.view.setEditTriggers(
            QAbstractItemView.EditTrigger.EditKeyPressed
            | QAbstractItemView.EditTrigger.DoubleClicked
        )
        delete = QAction("Remove", self.view)
        delete.setShortcut(QKeySequence(QKeySequence.StandardKey.Delete))
        delete.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        delete.triggered.connect(lambda: editor.remove_selected())
        self.view.addAction(delete)
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._context_menu)
        self.model.modelReset.connect(self._after_reset)
        self.model.sync_started.connect(self._before_sync)
        self.model.synced.connect(self._after_sync)
        self.model.filled.connect(self._after_fill)
        # The view keeps one selection model for its model, across resets.
        self.view.selectionModel().currentChanged.connect(self._current_changed)

    # -- construction
    def _button(self, text: str, tip: str, slot) -> QToolButton:
        b = QToolButton(self)
        b.setText(text)
        b.setToolTip(tip)
        b.setObjectName(text.replace(" ", "") + "Button")
        b.clicked.connect(lambda: slot())
        return b

    def _menu_button(self, text: str, tip: str, menu: QMenu) -> QToolButton:
        b = QToolButton(self)
        b.setText(f"+ {text}")
        b.setToolTip(tip)
        b.setObjectName(f"add{text}Button")
        b.setMenu(menu)
        b.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        return b

    def _type_menu(self, section: str, types: dict) -> QMenu:
        menu = QMenu(self)
        self.type_actions = getattr(self, "type_actions", {})
        for name, spec in types.items():
            action = QAction(name, menu)
            action.setToolTip(spec.doc)
            action.setStatusTip(spec.doc)
            action.triggered.connect(
                lambda _=False, s=section, n=name: self.editor.add_element(s, n)
            )
            menu.addAction(action)
            self.type_actions[(section, name)] = action
        menu.aboutToShow.connect(lambda: self._refresh_availability(section))
        self._refresh_availability(section)
        return menu

    def _refresh_availability(self, section: str) -> None:
        for (s, name), action in self.type_actions.items():
            if s == section:
                ok = is_available(section, name)
                action.setEnabled(ok)
                if not ok:
                    action.setToolTip(f"this engine has no {name} yet")

    def _rename(self, old: str, new: str) -> bool:
        from app.document import DocumentError

        try:
            self.editor.rename_body(old, new)
        except DocumentError as exc:
            self.show_message(f"Cannot rename {old!r}: {exc.message}")
            return False
        self.show_message("")
        return True

    def _reparent(self, body: str, parent: str) -> bool:
        from app.document import DocumentError

        doc = self.editor.document
        if doc is None or body not in doc.body_names() or doc.body(body).parent == parent:
            return False
        try:
            self.editor.edit(f"Re-parent {body}", lambda d: d.set_body(body, parent=parent))
        except DocumentError as exc:
            self.show_message(f"Cannot move {body!r} under {parent!r}: {exc.message}")
            return False
        self.show_message("")
        return True

    def _context_menu(self, pos) -> None:
        index = self.view.indexAt(pos)
        kind, _ = parse_key(index.data(KEY_ROLE)) if index.isValid() else ("", "")
        menu = QMenu(self)
        menu.addAction("Add body here", lambda: self.editor.add_body())
        if kind == "body":
            menu.addAction("Rename", lambda: self.view.edit(index.siblingAtColumn(0)))
        if kind in ("body", "constraints", "forces", "measures"):
            menu.addAction("Remove", lambda: self.editor.remove_selected())
        menu.addSeparator()
        menu.addMenu(self.constraint_menu).setText("Add constraint")
        menu.addMenu(self.force_menu).setText("Add force")
        menu.addMenu(self.measure_menu).setText("Add measure")
        menu.popup(self.view.viewport().mapToGlobal(pos))

    # -- document
    def set_document(self, document) -> None:
        self.model.set_document(document)

    def detach(self) -> None:
        self.model.detach()

    def _after_reset(self) -> None:
        self.view.expandAll()
        self._fit_columns()
        self._restore_selection()

    def eventFilter(self, watched, event) -> bool:  # noqa: N802
        if watched is self.view.header().viewport():
            if event.type() == QEvent.Type.MouseButtonPress:
                self._header_pressed = True
            elif event.type() == QEvent.Type.MouseButtonRelease:
                self._header_pressed = False
        if watched is self.view.viewport() and event.type() == QEvent.Type.Resize:
            if event.oldSize().width() != event.size().width():
                self._fit_columns()
        return super().eventFilter(watched, event)

    def _section_resized(self, section: int, _old: int, _new: int) -> None:
        if section == 0 and self._header_pressed:  # the user drags the columns' divider
            self.user_sized_names = True

    def _fit_columns(self) -> None:
        """Size the name column to its longest name, but no wider than leaves the Type column
        (each body's mobilizer) in view: a longer name is elided, its tooltip names it in full.
        A width the user dragged is kept. Costs O(rows)."""
        if self.user_sized_names:
            return
        view = self.view
        view.resizeColumnToContents(0)
        header = view.header()
        room = view.viewport().width() - view.sizeHintForColumn(1)
        if header.sectionSize(0) > room:
            header.resizeSection(0, max(MIN_NAME_WIDTH, room))

    def _restore_selection(self) -> None:
        """Select the current key's row again (its new name, or its nearest surviving
        ancestor when it is gone)."""
        key = self._current_key
        change = self.model.last_change
        if key and self.model.index_of(key).isValid():
            self._select_key(key, emit=False)
        elif key.startswith("body:") and change is not None and change.fields == ("name",):
            self._select_key(body_key(change.target))  # the selected body was renamed
        elif key.startswith("body:"):
            # The selected body is gone (removed, or its addition undone): select the nearest
            # surviving ancestor, so the view never points at a body that no longer exists.
            for name in self._ancestors(self._current_key, self._current_data):
                if self._select_key("ground" if name == GROUND else body_key(name)):
                    break
        elif key:
            self._current_key = ""
            self.key_selected.emit("")

    def _after_fill(self, parents: list) -> None:
        """A step of a large model's rows was made: expand the rows that got children."""
        for item in parents:
            self.view.expand(item.index())

    def _before_sync(self) -> None:
        self._selecting = True  # rows taken out move the current index: not the user's choice

    def _after_sync(self) -> None:
        """Rows were changed in place: expand those added or moved (with what they hold) and
        keep the selection on the same item (renamed, or its nearest surviving ancestor when
        it is gone), as after a reset."""
        self._selecting = False
        for item in self.model.inserted:
            self.view.expandRecursively(item.index())
        renamed = [self.model.index_of(body_key(n)) for n in self.model.renamed.values()]
        self._fit_name_column([item.index() for item in self.model.inserted] + renamed)
        kind, name = parse_key(self._current_key)
        if kind == "body" and name in self.model.renamed:
            self._select_key(body_key(self.model.renamed[name]))
            return
        self._restore_selection()

    def _fit_name_column(self, indexes) -> None:
        """Widen the name column so that the rows ``indexes`` (added or renamed; their
        descendants are not looked at) show their names in full; it never narrows, so a
        width the user chose stays (a width they dragged is never changed). Costs
        O(len(indexes)), not O(rows)."""
        if self.user_sized_names:
            return
        header = self.view.header()
        need = header.sectionSize(0)
        for index in indexes:
            if not index.isValid():
                continue
            depth, parent = 1, index.parent()
            while parent.isValid():
                depth, parent = depth + 1, parent.parent()
            width = self.view.sizeHintForIndex(index.siblingAtColumn(0)).width()
            need = max(need, depth * self.view.indentation() + width)
        room = max(MIN_NAME_WIDTH, self.view.viewport().width() - self._type_width())
        need = min(need, max(room, header.sectionSize(0)))
        if need > header.sectionSize(0):
            header.resizeSection(0, need)

    def _type_width(self) -> int:
        """The room (px) kept for the Type column beside a name widened in place: a mobilizer
        name such as "Universal" with the cell's margins (O(1), no rows looked at)."""
        return self.view.fontMetrics().horizontalAdvance("Universal") + 16

    # -- selection
    def _current_changed(self, current, _previous) -> None:
        if self._selecting:
            return
        key = current.data(KEY_ROLE) if current.isValid() else ""
        self._set_current(key or "")

    def _set_current(self, key: str) -> None:
        self._current_key = key
        self._current_data = self._document_data()
        self.key_selected.emit(key)
        kind, rest = parse_key(key)
        if kind == "body":
            self.body_selected.emit(rest)
        elif kind == "ground":
            self.body_selected.emit(GROUND)

    def _document_data(self):
        doc = self.model.document
        return doc.data if doc is not None else None

    @staticmethod
    def _ancestors(key: str, data) -> Iterator[str]:
        """Parent, grandparent, ... Ground of the body ``key`` names in the document content
        ``data`` (nothing for other keys), one at a time: the first few looked up one by one
        (the nearest surviving ancestor of a removed body is most often its parent), then
        through a map of every body's parent."""
        kind, name = parse_key(key)
        if kind != "body" or data is None:
            return
        bodies = data.bodies
        for _ in range(ANCESTORS_LOOKED_UP):
            body = next((b for b in bodies if b.name == name), None)
            if body is None:
                return
            name = body.parent
            yield name
        parent_of = {b.name: b.parent for b in bodies}
        steps = 0
        while name in parent_of and steps <= len(parent_of):
            name = parent_of[name]
            steps += 1
            yield name

    def _select_key(self, key: str, emit: bool = True) -> bool:
        index = self.model.index_of(key)
        if not index.isValid():
            return False
        self._selecting = True
        try:
            self.view.selectionModel().setCurrentIndex(
                index,
                QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QItemSelectionModel.SelectionFlag.Rows,
            )
            self.view.scrollTo(index)
            self._scroll_name_into_view(index)
        finally:
            self._selecting = False
        if emit:
            self._set_current(key)
        else:
            self._current_key = key
            self._current_data = self._document_data()
        return True

    def _scroll_name_into_view(self, index) -> None:
        """Scroll sideways so the name of the row at ``index`` shows: in a deep tree (a long
        chain) it is indented past the view's right edge, or scrolled off its left edge."""
        rect = self.view.visualRect(index)
        width = self.view.viewport().width()
        if rect.isEmpty() or 0 <= rect.left() <= width // 2:
            return
        bar = self.view.horizontalScrollBar()
        bar.setValue(bar.value() + rect.left() - 2 * self.view.indentation())

    @Slot(str)
    def select_body(self, name: str) -> None:
        """Select body ``name`` (or Ground) in the tree, as if clicked."""
        key = "ground" if name == GROUND else body_key(name)
        if key == self._current_key:
            return
        self._select_key(key)

    def select_key(self, key: str) -> bool:
        return self._select_key(key)

    def current_key(self) -> str:
        return self._current_key

    def selected_measure(self) -> str | None:
        """The name of the measure on the current row, if any."""
        kind, rest = parse_key(self._current_key)
        doc = self.model.document
        if kind == "measures" and doc is not None and int(rest) < len(doc.measures):
            return doc.measures[int(rest)].name
        return None

    def selected_bodies(self) -> list[str]:
        """Bodies of the selected rows, in the order they were picked (Ground included)."""
        out: list[str] = []
        for index in self.view.selectionModel().selectedRows(0):
            kind, rest = parse_key(index.data(KEY_ROLE))
            name = rest if kind == "body" else (GROUND if kind == "ground" else None)
            if name and name not in out:
                out.append(name)
        return out

    def show_message(self, text: str) -> None:
        self.message.setText(text)
        self.message.setVisible(bool(text))
