"""One render of the 3-D view per edit (issue 22: at 20,000 bodies a render of the whole view
takes 0.12-0.2 s of the GUI thread under software OpenGL). An edit made through real input in
the real window (a mass typed in the Properties form, a rename typed in the tree, a body
added with the tree's button, a mobilizer chosen in the form, the added body removed with
Delete) is drawn once, with the edited model and the selection the edit left: neither the
model before it with the new selection, nor the edited model a second time."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLineEdit

from tests.app.open_in_window import open_in_window, wait_edit_shown
from tests.app.test_large_model_edits import _chain_document

N = 250


@pytest.mark.gui
def test_each_edit_renders_the_view_once(main_window, qtbot, tmp_path):
    window = main_window
    editor, panel, viewport = window.model_editor, window.simulation, window.viewport
    open_in_window(qtbot, window, tmp_path / "chain.mbs.json", _chain_document(N), plots=True)
    tree, form, document = editor.tree, editor.properties, editor.document
    tree.select_body("b100")
    qtbot.waitUntil(lambda: form.key == "body:b100" and "mass" in form.fields, timeout=3000)
    qtbot.wait(300)

    def renders(edit, done) -> int:
        """Renders of the view from ``edit()`` (real input) until the edited model is shown
        and the events after it (queued renders, snapshots published again) are handled."""
        serial = panel.snapshot.model_serial
        frames = viewport.frames_rendered
        edit()
        qtbot.waitUntil(done, timeout=5000)
        wait_edit_shown(qtbot, panel, document, serial)
        qtbot.wait(600)
        return viewport.frames_rendered - frames

    def type_mass() -> None:
        field = form.field("mass")
        field.setFocus()
        field.selectAll()
        qtbot.keyClicks(field, "0.5")
        qtbot.keyClick(field, Qt.Key.Key_Return)

    def rename() -> None:
        tree.view.setFocus()
        qtbot.waitUntil(tree.view.hasFocus, timeout=2000)
        qtbot.keyClick(tree.view, Qt.Key.Key_F2)
        qtbot.waitUntil(lambda: isinstance(QApplication.focusWidget(), QLineEdit), timeout=2000)
        line = QApplication.focusWidget()
        line.selectAll()
        qtbot.keyClicks(line, "elbow")
        qtbot.keyClick(line, Qt.Key.Key_Return)

    def choose_pin() -> None:
        combo = form.field("mobilizer")
        combo.setFocus()
        qtbot.keyClicks(combo, "Pin")

    def delete() -> None:
        tree.view.setFocus()
        qtbot.waitUntil(tree.view.hasFocus, timeout=2000)
        qtbot.keyClick(tree.view, Qt.Key.Key_Delete)

    counts = {
        "mass": renders(type_mass, lambda: document.body("b100").mass == 0.5),
        "rename": renders(rename, lambda: "elbow" in document.body_names()),
    }
    qtbot.waitUntil(lambda: form.key == "body:elbow" and "mobilizer" in form.fields, timeout=3000)
    counts["mobilizer"] = renders(choose_pin, lambda: document.body("elbow").mobilizer == "Pin")
    counts["add"] = renders(
        lambda: qtbot.mouseClick(tree.add_body_button, Qt.MouseButton.LeftButton),
        lambda: len(document.bodies) == N + 1,
    )
    added = document.bodies[-1].name
    assert tree.current_key() == f"body:{added}"
    counts["remove"] = renders(delete, lambda: len(document.bodies) == N)
    assert counts == {"mass": 1, "rename": 1, "mobilizer": 1, "add": 1, "remove": 1}
    # the one render drew the selection the edit left: the removed body's parent, with its
    # triad among the view's per-frame decorations
    assert tree.current_key() == "body:elbow" and panel.selected_body == "elbow"
    assert viewport._has_dynamic  # noqa: SLF001
