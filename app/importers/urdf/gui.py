"""File > Import URDF… (Ctrl+I) and dropping a .urdf file onto the studio window.

The URDF becomes the edited document (unsaved; its mesh file names are absolute), simulated
and shown like an opened model. Problems that stop the import are reported with element and
line; when they are repairable (non-physical inertias) or the import finds tiny masses, the
user is offered to fix them. Missing meshes are listed after the import (placeholders stand
in for them).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QFileDialog,
    QGridLayout,
    QMainWindow,
    QMessageBox,
)

URDF_FILTER = "URDF robot descriptions (*.urdf *.URDF *.xml);;All files (*)"
URDF_SUFFIXES = (".urdf",)


class UrdfImport(QObject):
    """The import action and drop target of a studio window (``window.model_editor``)."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.dialog: QFileDialog | None = None
        self.floating_box: QCheckBox | None = None
        self.contact_box: QCheckBox | None = None
        self.action = QAction("&Import URDF…", self)
        self.action.setObjectName("importUrdfAction")
        self.action.setShortcut(QKeySequence("Ctrl+I"))
        tip = "Import a robot description (URDF) with its meshes"
        self.action.setToolTip(tip)
        self.action.setStatusTip(tip)
        self.action.triggered.connect(lambda _=False: self.open_dialog())
        window.addAction(self.action)  # the shortcut works wherever the focus is
        editor = window.model_editor
        menu = getattr(editor, "file_menu", None)
        if menu is not None:
            actions = menu.actions()
            after_open = next(
                (i for i, a in enumerate(actions) if a is editor.actions.get("open")), None
            )
            before = actions[after_open + 1] if after_open is not None else None
            menu.insertAction(before, self.action)
        window.setAcceptDrops(True)
        window.installEventFilter(self)

    # -- the dialog
    def open_dialog(self) -> QFileDialog:
        """Show the (non-native) file dialog; choosing a file imports it."""
        editor = self.window.model_editor
        start = str(editor.path.parent) if editor.path is not None else ""
        dialog = QFileDialog(self.window, "Import URDF", start, URDF_FILTER)
        dialog.setObjectName("importUrdfDialog")
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptOpen)
        box = QCheckBox("Floating base (a free joint instead of welding the root to the ground)")
        box.setObjectName("floatingBaseCheck")
        layout = dialog.layout()
        if isinstance(layout, QGridLayout):
            layout.addWidget(box, layout.rowCount(), 0, 1, layout.columnCount())
        self.floating_box = box
        contact = QCheckBox(
            "Contact surfaces from the collision geometry, and a ground contact plane"
        )
        contact.setObjectName("contactFromCollisionCheck")
        if isinstance(layout, QGridLayout):
            layout.addWidget(contact, layout.rowCount(), 0, 1, layout.columnCount())
        self.contact_box = contact
        dialog.fileSelected.connect(
            lambda name: self.import_path(
                name, floating=box.isChecked(), contact=contact.isChecked()
            )
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.dialog = dialog
        dialog.open()
        return dialog

    # -- drag and drop
    @staticmethod
    def _urdf_of(event) -> Path | None:
        mime = event.mimeData()
        if mime is None or not mime.hasUrls():
            return None
        for url in mime.urls():
            if url.isLocalFile() and Path(url.toLocalFile()).suffix.lower() in URDF_SUFFIXES:
                return Path(url.toLocalFile())
        return None

    def eventFilter(self, watched, event) -> bool:  # noqa: N802  (Qt virtual)
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove):
            if self._urdf_of(event) is not None:
                event.acceptProposedAction()
                return True
        elif kind == QEvent.Type.Drop:
            path = self._urdf_of(event)
            if path is not None:
                event.acceptProposedAction()
                self.import_path(path)
                return True
        return super().eventFilter(watched, event)

    # -- importing
    def _ask(self, title: str, text: str) -> bool:
        editor = self.window.model_editor
        if not editor.interactive:
            return False
        answer = QMessageBox.question(
            self.window,
            title,
            text,
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.Yes,
        )
        return answer == QMessageBox.StandardButton.Yes

    def import_path(
        self, path, floating: bool = False, fix_inertias: bool = False, contact: bool = False
    ) -> bool:
        """Import the URDF at ``path`` as the edited document (with ``contact``: contact
        surfaces from its collision geometry and a ground plane); False when nothing
        changed."""
        from app.document import ModelDocument
        from app.importers.urdf import UrdfImportError, import_urdf

        path = Path(path)
        editor = self.window.model_editor
        if not editor.confirm_discard():
            return False
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            result = import_urdf(path, floating=floating, fix_inertias=fix_inertias)
        except UrdfImportError as exc:
            QApplication.restoreOverrideCursor()
            lines = "\n".join(f"• {f}" for f in exc.findings[:12])
            if exc.fixable and self._ask(
                "Import URDF",
                f"{path.name} has non-physical inertias:\n{lines}\n\n"
                "Import it with the nearest physical inertias instead?",
            ):
                return self.import_path(path, floating, fix_inertias=True, contact=contact)
            editor.report(f"Cannot import {path.name}:\n{lines}")
            return False
        except Exception as exc:  # noqa: BLE001  (a bad file never takes the studio down)
            QApplication.restoreOverrideCursor()
            editor.report(f"Cannot import {path.name}: {exc}")
            return False
        QApplication.restoreOverrideCursor()
        if result.fixable and not fix_inertias:
            lines = "\n".join(f"• {f}" for f in result.fixable[:12])
            if self._ask(
                "Import URDF",
                f"{path.name} has links of (almost) no mass that joints move; the model cannot "
                f"be simulated as it is:\n{lines}\n\nGive them a small mass "
                "(1 g) instead?",
            ):
                return self.import_path(path, floating, fix_inertias=True, contact=contact)
        notes = []
        if contact:
            from app.importers.urdf.contact import add_collision_contact

            result.data, notes = add_collision_contact(result.data)
        viewport = getattr(self.window, "viewport", None)
        if viewport is not None and hasattr(viewport, "aim_camera_on_next_frame"):
            viewport.aim_camera_on_next_frame()  # the camera frames the robot
        editor.set_document(ModelDocument(result.data), None)
        editor.undo_stack.resetClean()  # not saved yet: the title says so, closing asks
        others = [f for f in result.warnings if not f.fixable or fix_inertias] + notes
        if others:
            lines = "\n".join(f"• {f}" for f in others[:12])
            more = f"\n… and {len(others) - 12} more" if len(others) > 12 else ""
            editor.report(f"Imported {path.name} with warnings:\n{lines}{more}", modal=False)
        self.window.statusBar().showMessage(
            f"Imported {path.name}: {len(result.data.bodies)} links, "
            f"{len(result.meshes)} mesh files",
            8000,
        )
        return True


def install_urdf_import(window: QMainWindow) -> UrdfImport:
    return UrdfImport(window)
