"""ModelEditor: the document being edited in the studio, its undo stack, the model tree and
property docks, and the File (open, save, save as, recent files, examples) and Edit (undo,
redo) menus.

``install_model_editor(window)`` creates it for a MainWindow: the tree goes into the "Model"
dock, the property editor into a new "Properties" dock; File entries are inserted before Quit;
an Edit menu follows File. The simulation panel (``window.simulation``) is given every
document opened (``load_document``) and the tree for selection sync (``connect_tree``).

A file that cannot be opened never replaces the open model: the reason is shown (message box
and ``last_error``) and nothing else changes. Saving is atomic (model_io.save).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QSettings, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence, QUndoStack
from PySide6.QtWidgets import QDockWidget, QFileDialog, QMainWindow, QMenu, QMessageBox
from shiboken6 import isValid

from app.document import (
    GROUND,
    BodySpec,
    DocumentError,
    ElementSpec,
    FrameSpec,
    GeometrySpec,
    ModelDocument,
    model_io,
)
from app.document.background_load import load_and_build
from app.document.examples import EXAMPLES_DIR, example_of_path, examples
from app.document.measure_types import MEASURE_TYPES, default_measure_args, measure_args
from app.document.mesh_cache import mesh_names_for
from app.document.registry import element_types, is_available
from app.tree.commands import run_edit
from app.tree.element_defaults import pose_dependent_defaults, pose_lookup
from app.tree.property_editor import PropertyEditor
from app.tree.tree_model import body_key, parse_key
from app.tree.tree_widget import ModelTreeWidget

RECENT_KEY = "files/recent"
MAX_RECENT = 8
#: Edits the Edit menu can undo; each holds the document's content before and after it (the
#: lists of immutable specs), so an unbounded stack would grow with every edit of a session.
UNDO_LIMIT = 500
FILE_FILTER = "mbstudio models (*.mbs.json *.json);;All files (*)"
OPEN_FILTER = (
    "mbstudio models and recordings (*.mbs.json *.json *.npz);;mbstudio models (*.mbs.json "
    "*.json);;Recordings (*.npz);;All files (*)"
)


class ModelEditor(QObject):
    document_replaced = Signal(object)  # the new ModelDocument
    error_reported = Signal(str)

    def __init__(
        self, window: QMainWindow | None = None, settings: QSettings | None = None
    ) -> None:
        super().__init__(window)
        self.window = window
        self.settings = (
            settings
            if settings is not None
            else getattr(window, "_settings", None) or QSettings("mbstudio", "studio")
        )
        self.document: ModelDocument | None = None
        self.path: Path | None = None
        self.last_error = ""
        self.interactive = True  # show message boxes (tests may turn this off)
        self.undo_stack = QUndoStack(self)
        self.undo_stack.setUndoLimit(UNDO_LIMIT)  # only while the stack is empty
        self.tree = ModelTreeWidget(self)
        self.properties = PropertyEditor(self)
        self.tree.key_selected.connect(self.properties.show_key)
        self.undo_stack.cleanChanged.connect(lambda _clean: self._update_title())
        self.actions: dict[str, QAction] = {}
        self._create_actions()
        self.recent_menu = QMenu("Open &Recent", window)
        self.recent_menu.setObjectName("recentMenu")
        self.examples_menu = QMenu("&Examples", window)
        self.examples_menu.setObjectName("examplesMenu")
        for e in examples():
            action = self.examples_menu.addAction(e.title)
            action.setToolTip(e.description)
            action.setStatusTip(e.description)
            action.setObjectName(f"example_{e.key}")
            action.triggered.connect(lambda _=False, p=e.path: self.open_path(p, as_example=True))
        self._refresh_recent_menu()
        self.set_document(ModelDocument(), None, simulate=False)

    # -- actions
    def _create_actions(self) -> None:
        def make(key, text, shortcut, tip, slot):
            action = QAction(text, self)
            action.setObjectName(f"{key}Action")
            if shortcut is not None:
                action.setShortcut(QKeySequence(shortcut))
            action.setToolTip(tip)
            action.setStatusTip(tip)
            action.triggered.connect(lambda _=False: slot())
            self.actions[key] = action
            return action

        make("new", "&New", QKeySequence.StandardKey.New, "Start an empty model", self.new_document)
        make("open", "&Open…", QKeySequence.StandardKey.Open, "Open a model file", self.open_dialog)
        make("save", "&Save", QKeySequence.StandardKey.Save, "Save the model", self.save)
        make(
            "save_as",
            "Save &As…",
            QKeySequence.StandardKey.SaveAs,
            "Save the model to a new file",
            self.save_as_dialog,
        )
        undo = self.undo_stack.createUndoAction(self, "&Undo")
        undo.setShortcut(QKeySequence.StandardKey.Undo)
        undo.setObjectName("undoAction")
        redo = self.undo_stack.createRedoAction(self, "&Redo")
        redo.setShortcuts([QKeySequence(QKeySequence.StandardKey.Redo), QKeySequence("Ctrl+Y")])
        redo.setObjectName("redoAction")
        self.actions["undo"] = undo
        self.actions["redo"] = redo
        make(
            "ground_plane",
            "Add &ground contact plane",
            None,
            "Add a contact half space on Ground whose surface is the drawn floor",
            self.add_ground_plane,
        )

    def install_menus(self, window: QMainWindow) -> None:
        """File entries before Quit, an Edit menu after File."""
        bar = window.menuBar()
        file_menu = next(
            (a.menu() for a in bar.actions() if a.menu() and a.text().replace("&", "") == "File"),
            None,
        )
        if file_menu is None:
            file_menu = bar.addMenu("&File")
        first = file_menu.actions()[0] if file_menu.actions() else None
        for key in ("new", "open"):
            file_menu.insertAction(first, self.actions[key])
        file_menu.insertMenu(first, self.recent_menu)
        file_menu.insertMenu(first, self.examples_menu)
        file_menu.insertSeparator(first)
        for key in ("save", "save_as"):
            file_menu.insertAction(first, self.actions[key])
        if first is not None:
            file_menu.insertSeparator(first)
        edit_menu = QMenu("&Edit", window)
        edit_menu.setObjectName("editMenu")
        edit_menu.addAction(self.actions["undo"])
        edit_menu.addAction(self.actions["redo"])
        edit_menu.addSeparator()
        edit_menu.addAction(self.actions["ground_plane"])
        actions = bar.actions()
        after = actions[1] if len(actions) > 1 else None
        bar.insertMenu(after, edit_menu)
        self.edit_menu = edit_menu
        self.file_menu = file_menu

    # -- the document
    def set_document(
        self, document: ModelDocument, path: Path | None, simulate: bool = True, built=None
    ) -> None:
        """Edit ``document`` (saved at ``path``); with ``simulate`` hand it to the simulation
        panel now (``built``: its BuiltModel if already built), else when it is first edited."""
        if self.document is not None:
            self.document.remove_listener(self._document_changed)
        self.document = document
        self.path = Path(path) if path is not None else None
        self.undo_stack.clear()
        self.tree.set_document(document)
        document.add_listener(self._document_changed)
        self.properties.show_key("")
        self._update_title()
        self.document_replaced.emit(document)
        if simulate:
            self._simulate(document, built)

    def _simulate(self, document: ModelDocument, built=None) -> None:
        simulation = getattr(self.window, "simulation", None)
        if simulation is None or not hasattr(simulation, "load_document"):
            return
        try:
            if built is not None:
                simulation.load_document(document, built=built)
            else:
                simulation.load_document(document)
        except Exception as exc:  # noqa: BLE001  (the model stays open for editing)
            self.report(f"The model cannot be simulated: {exc}", modal=False)

    def _document_changed(self, change) -> None:
        self.properties.document_changed(change)
        self._update_title()
        simulation = getattr(self.window, "simulation", None)
        if simulation is not None and getattr(simulation, "document", None) is not self.document:
            self._simulate(self.document)

    def edit(self, text: str, fn) -> object:
        """Apply ``fn(document)`` as one undoable command (DocumentError propagates)."""
        return run_edit(self.undo_stack, self.document, text, fn)

    def is_modified(self) -> bool:
        return not self.undo_stack.isClean()

    def _update_title(self) -> None:
        if self.window is None or self.document is None or not isValid(self.window):
            return
        if self.path is None and not self.document.bodies and not self.is_modified():
            self.window.setWindowModified(False)
            self.window.setWindowTitle("mbstudio")  # nothing open yet
            return
        name = self.path.name if self.path is not None else (self.document.name or "Untitled")
        self.window.setWindowTitle(f"{name}[*] — mbstudio")
        self.window.setWindowModified(self.is_modified())

    def report(self, message: str, modal: bool = True) -> None:
        self.last_error = message
        self.error_reported.emit(message)
        if self.window is not None:
            self.window.statusBar().showMessage(message, 10000)
            banner = getattr(getattr(self.window, "simulation", None), "show_error", None)
            if banner is not None and not modal:
                banner(message)
        if modal and self.interactive and self.window is not None:
            box = QMessageBox(
                QMessageBox.Icon.Warning,
                "mbstudio",
                message,
                QMessageBox.StandardButton.Ok,
                self.window,
            )
            box.setObjectName("errorBox")
            box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            box.open()

    # -- tree edits
    def add_body(self, parent: str | None = None) -> str | None:
        doc = self.document
        if parent is None:
            picked = self.tree.selected_bodies()
            parent = picked[0] if picked else GROUND
        name = doc.unique_body_name("body")
        body = BodySpec(
            name=name,
            parent=parent,
            mobilizer="Pin",
            X_BM=FrameSpec((0.0, 0.5, 0.0)),
            mass=1.0,
            inertia=(0.01, 0.01, 0.01, 0.0, 0.0, 0.0),
            geometry=(GeometrySpec("sphere", {"radius": 0.1}, color=(0.8, 0.5, 0.2)),),
        )
        try:
            self.edit(f"Add body {name}", lambda d: d.add_body(body))
        except DocumentError as exc:
            self.tree.show_message(str(exc))
            return None
        self.tree.show_message("")
        self.tree.select_key(body_key(name))
        return name

    def remove_selected(self) -> None:
        kind, rest = parse_key(self.tree.current_key())
        try:
            if kind == "body":
                self.edit(f"Remove {rest}", lambda d: d.remove_body(rest))
            elif kind in ("constraints", "forces", "measures"):
                self.edit(
                    f"Remove {kind[:-1]} {int(rest) + 1}",
                    lambda d: d.remove_element(kind, int(rest)),
                )
            else:
                self.tree.show_message("Select a body, constraint, force or measure to remove.")
                return
        except DocumentError as exc:
            self.tree.show_message(str(exc))
            return
        self.tree.show_message("")

    def add_element(
        self, section: str, type_name: str, bodies: list[str] | None = None
    ) -> int | None:
        """Add a constraint or force of ``type_name`` between ``bodies`` (default: the bodies
        selected in the tree); returns its index, or None (message shown) when refused."""
        if section == "measures":
            return self.add_measure(type_name, bodies)
        spec = element_types(section)[type_name]
        if not is_available(section, type_name):
            self.tree.show_message(f"This engine has no {type_name} yet.")
            return None
        picked = list(bodies) if bodies is not None else self.tree.selected_bodies()
        needed = len(spec.body_args())
        if needed and not picked:
            self.tree.show_message(
                f"Select the bod{'y' if needed == 1 else 'ies'} for the {type_name} first "
                "(Ctrl-click to pick several)."
            )
            return None
        args = spec.default_args(tuple(picked))
        simulation = getattr(self.window, "simulation", None)
        args = pose_dependent_defaults(type_name, args, pose_lookup(simulation, self.document))
        return self._add_and_select(section, ElementSpec(type_name, args))

    def add_measure(
        self, type_name: str, bodies: list[str] | None = None, operands: list[str] | None = None
    ) -> int | None:
        """Add a Measure of ``type_name``: a probe on ``bodies`` (default: the selected body)
        or an operation on ``operands`` (default: the selected measure, else the latest);
        returns its index, or None (message shown) when refused."""
        doc = self.document
        spec = MEASURE_TYPES[type_name]
        picked = list(bodies) if bodies is not None else self.tree.selected_bodies()
        picked = [b for b in picked if b != GROUND]
        if spec.body_args() and not picked:
            picked = doc.body_names()[:1]
            if not picked:
                self.tree.show_message(f"A {type_name} measure needs a body: add one first.")
                return None
        names = doc.measure_names()
        if operands is None:
            chosen = self.tree.selected_measure()
            operands = [chosen] if chosen else []
        names = [n for n in names if n not in operands] + list(operands)
        if measure_args(spec) and not names:
            self.tree.show_message(
                f"A {type_name} measure works on another measure: add one first."
            )
            return None
        args = default_measure_args(type_name, tuple(picked), names)
        base = type_name[0].lower() + type_name[1:]
        if spec.body_args():
            base = f"{base} {picked[0]}"
        element = ElementSpec(type_name, args, doc.unique_measure_name(base))
        return self._add_and_select("measures", element)

    def _add_and_select(self, section: str, element: ElementSpec) -> int | None:
        """Add ``element`` to ``section`` as one undoable edit and select it; its index, or
        None with the document's refusal shown."""
        type_name = element.type
        try:
            index = self.edit(f"Add {type_name}", lambda d: d.add_element(section, element))
        except DocumentError as exc:
            self.tree.show_message(f"Cannot add {type_name}: {exc.message}")
            return None
        self.tree.show_message("")
        self.tree.select_key(f"{section}:{index}")
        return index

    def add_ground_plane(self) -> int | None:
        """Add a ground contact half space aligned with the up direction and the drawn floor
        (one undoable edit) and show Ground's properties; its index, or None if refused."""
        try:
            index = self.edit("Add ground contact plane", lambda d: d.add_ground_plane())
        except DocumentError as exc:
            self.tree.show_message(str(exc))
            return None
        self.tree.show_message("")
        self.tree.select_key("ground")
        return index

    def rename_body(self, old: str, new: str) -> None:
        self.edit(f"Rename {old}", lambda d: d.rename_body(old, new))
        if self.tree.current_key() != body_key(new):  # the tree keeps a renamed selection
            self.tree.select_key(body_key(new))

    # -- files
    def confirm_discard(self) -> bool:
        """True if there are no unsaved changes, or the user saved them or chose to discard
        them; False if the user cancelled (or saving failed or was cancelled)."""
        if not self.is_modified() or not self.interactive:
            return True
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "mbstudio",
            "The model has unsaved changes. Save them first?",
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel,
            self.window,
        )
        box.setObjectName("unsavedChangesBox")
        box.setDefaultButton(QMessageBox.StandardButton.Save)
        box.setEscapeButton(QMessageBox.StandardButton.Cancel)
        answer = box.exec()
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def new_document(self) -> None:
        """Start an empty model; the simulation runs it at once (nothing moves), so the old
        model's run, its joint sliders, stages and plots are gone."""
        if self.confirm_discard():
            self.set_document(ModelDocument(), None, simulate=True)

    def open_path(self, path, as_example: bool = False, modal: bool = True) -> bool:
        """Open a model file (or a recording, with its model); on failure report why and keep
        the open model untouched."""
        path = Path(path)
        timeline = getattr(self.window, "timeline", None)
        if path.suffix == ".npz" and timeline is not None:
            return timeline.open_recording(path, modal)
        try:
            loaded = load_and_build(path, self.window)
        except model_io.ModelFileError as exc:
            self.report(f"Cannot open {path.name}: {exc.field}: {exc.message}", modal)
            return False
        except Exception as exc:  # noqa: BLE001  (never crash on a bad file)
            self.report(f"Cannot open {path.name}: {exc}", modal)
            return False
        if loaded is None:
            if self.window is not None:
                self.window.statusBar().showMessage(f"Opening {path.name} cancelled", 5000)
            return False
        document, built, _build_error = loaded  # a build error is reported by _simulate
        if not self.confirm_discard():
            return False
        as_example = as_example or path.resolve().parent == EXAMPLES_DIR.resolve()
        # An example opens as a new untitled model, so Save never overwrites the bundled file.
        self.set_document(document, None if as_example else path, built=built)
        if as_example:
            self._show_example_plots(path)
        if not as_example:
            self.add_recent(path)
        if self.window is not None:
            self.window.statusBar().showMessage(f"Opened {path}", 5000)
        return True

    def _show_example_plots(self, path: Path) -> None:
        """Tick the plots the example is about (the Gimbal's rates in the gimbal-lock demo)."""
        example = example_of_path(path)
        simulation = getattr(self.window, "simulation", None)
        session = getattr(simulation, "session", None)
        if example is not None and example.follow:
            self._follow_body(example.follow)
        if example is None or not example.plots or session is None:
            return
        # the example's quantities alone: beside a total energy of kJ they would plot flat
        simulation.plots.uncheck_all()
        simulation.plots.show_quantities(example.plot_columns(session.samples.columns))

    def _follow_body(self, name: str) -> None:
        """Select body ``name`` and make the camera follow it, once the simulation panel
        shows a model that has it (View > Follow selected body)."""
        simulation = getattr(self.window, "simulation", None)
        controls = getattr(self.window, "view_controls", None)
        if simulation is None or controls is None or "follow" not in controls.actions:
            return

        def attempt(_snap=None) -> None:
            snap = simulation.snapshot
            if snap is None or snap.model is None:
                return
            simulation.snapshot_shown.disconnect(attempt)
            if name in snap.model.body_names:
                self.tree.select_body(name)
                controls.actions["follow"].setChecked(True)

        simulation.snapshot_shown.connect(attempt)
        attempt()

    def open_dialog(self) -> None:
        start = str(self.path.parent) if self.path else ""
        name, _ = QFileDialog.getOpenFileName(self.window, "Open model", start, OPEN_FILTER)
        if name:
            self.open_path(name)

    def save(self) -> bool:
        if self.path is None:
            return self.save_as_dialog()
        return self.save_to(self.path)

    def save_as_dialog(self) -> bool:
        start = str(self.path) if self.path else f"{self.document.name or 'model'}.mbs.json"
        name, _ = QFileDialog.getSaveFileName(self.window, "Save model as", start, FILE_FILTER)
        return self.save_to(name) if name else False

    def save_to(self, path) -> bool:
        """Save the document as ``path``; mesh file names are written relative to its
        directory (an imported robot's meshes stay found when file and meshes move)."""
        path = Path(path)
        try:
            data = mesh_names_for(self.document.data, path.parent, self.document.base_dir)
            model_io.save(data, path)
        except OSError as exc:
            self.report(f"Cannot save {path}: {exc.strerror or exc}")
            return False
        self.path = path
        self.undo_stack.setClean()
        self.add_recent(path)
        self._update_title()
        if self.window is not None:
            self.window.statusBar().showMessage(f"Saved {path}", 5000)
        return True

    # -- recent files
    def recent_files(self) -> list[str]:
        value = self.settings.value(RECENT_KEY, [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or [])]

    def add_recent(self, path) -> None:
        p = str(Path(path).resolve())
        files = [p] + [f for f in self.recent_files() if f != p]
        self.settings.setValue(RECENT_KEY, files[:MAX_RECENT])
        self._refresh_recent_menu()

    def _refresh_recent_menu(self) -> None:
        self.recent_menu.clear()
        files = self.recent_files()
        for f in files:
            action = self.recent_menu.addAction(Path(f).name)
            action.setToolTip(f)
            action.setStatusTip(f)
            action.triggered.connect(lambda _=False, f=f: self.open_path(f))
        if not files:
            none = self.recent_menu.addAction("(none)")
            none.setEnabled(False)
        else:
            self.recent_menu.addSeparator()
            self.recent_menu.addAction("Clear", self._clear_recent)

    def _clear_recent(self) -> None:
        self.settings.setValue(RECENT_KEY, [])
        self._refresh_recent_menu()

    def shutdown(self) -> None:
        if self.document is not None:
            self.document.remove_listener(self._document_changed)
        self.tree.detach()


def install_model_editor(window: QMainWindow) -> ModelEditor:
    """Create the model editor of ``window`` (see the module docstring)."""
    editor = ModelEditor(window)
    model_dock = getattr(window, "docks", {}).get("Model")
    if model_dock is None:
        model_dock = QDockWidget("Model", window)
        model_dock.setObjectName("Model")
        window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, model_dock)
    model_dock.setWidget(editor.tree)
    props = QDockWidget("Properties", window)
    props.setObjectName("Properties")
    props.setWidget(editor.properties)
    window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, props)
    window.splitDockWidget(model_dock, props, Qt.Orientation.Vertical)
    if hasattr(window, "docks"):
        window.docks["Properties"] = props
    editor.install_menus(window)
    view_menu = next(
        (
            a.menu()
            for a in window.menuBar().actions()
            if a.menu() and a.text().replace("&", "") == "View"
        ),
        None,
    )
    if view_menu is not None:
        view_menu.insertAction(
            view_menu.actions()[1] if len(view_menu.actions()) > 1 else None,
            props.toggleViewAction(),
        )
    simulation = getattr(window, "simulation", None)
    if simulation is not None and hasattr(simulation, "connect_tree"):
        simulation.connect_tree(editor.tree)
    return editor
