"""What one edit costs the GUI thread of a large model, counted (issue 22: an edit of a
20,000-body chain should show in under 0.5 s): a mass typed in the Properties form updates
the form's texts in place (never makes it again; the form equals one made afresh) and leaves
the simulated System in place; a rename typed in the tree and a body added with the
toolbar's button build the Properties form once; each filters the plot list's quantities at
most once. Counted through real input in the real window."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLineEdit

from tests.app.open_in_window import open_in_window, wait_edit_shown
from tests.app.test_large_model_edits import _chain_document

N = 250  # past the sliders' lazy layout (200 bodies) and the tree's nesting (16 levels)


def _texts(form) -> dict[str, str]:
    """Each field of a Properties form: its text (a line edit's, a combo's current one)."""
    return {
        key: widget.text() if isinstance(widget, QLineEdit) else widget.currentText()
        for key, (widget, _error) in form.fields.items()
        if isinstance(widget, QLineEdit) or hasattr(widget, "currentText")
    }


def _fresh_texts(editor) -> dict:
    """The field texts of a Properties form made afresh for the key ``editor``'s form shows.
    The form is deleted at once: a parentless widget whose fields' signals call back into it
    would otherwise stay alive, through those connections, with the editor and its window."""
    import shiboken6

    from app.tree.property_editor import PropertyEditor

    fresh = PropertyEditor(editor)
    try:
        fresh.show_key(editor.properties.key)
        return _texts(fresh)
    finally:
        shiboken6.delete(fresh)


@pytest.mark.gui
def test_an_edit_builds_the_form_once_and_filters_the_plot_list_once(
    main_window, qtbot, tmp_path, monkeypatch
):
    from app.tree.property_editor import PropertyEditor
    from app.widgets.plots import QuantityModel

    counts = {"form": 0, "filter": 0}
    real_refresh, real_matches = PropertyEditor.refresh, QuantityModel._matches

    def refresh(self):
        counts["form"] += 1
        return real_refresh(self)

    def matches(self, text):
        if text.strip():
            counts["filter"] += 1
        return real_matches(self, text)

    monkeypatch.setattr(PropertyEditor, "refresh", refresh)
    monkeypatch.setattr(QuantityModel, "_matches", matches)

    window = main_window
    editor, panel = window.model_editor, window.simulation
    open_in_window(qtbot, window, tmp_path / "chain.mbs.json", _chain_document(N), plots=True)
    tree, form, document = editor.tree, editor.properties, editor.document

    def settle(serial: int) -> None:
        """Until the edited model is shown, and the events after it are handled."""
        wait_edit_shown(qtbot, panel, document, serial)
        qtbot.wait(100)

    tree.select_body("b100")
    qtbot.waitUntil(lambda: form.key == "body:b100" and "mass" in form.fields, timeout=3000)
    qtbot.wait(100)
    system = panel.session.system

    # a mass typed in the Properties form
    counts.update(form=0, filter=0)
    serial = panel.snapshot.model_serial
    field = form.field("mass")
    field.setFocus()
    field.selectAll()
    qtbot.keyClicks(field, "0.5")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: document.body("b100").mass == 0.5, timeout=5000)
    settle(serial)
    # the mass and inertia rows' texts updated in place: the form is not made again
    assert counts == {"form": 0, "filter": 0}
    assert panel.session.system is system  # set in place, not built again
    assert _texts(form) == _fresh_texts(editor)
    counts.update(form=0, filter=0)

    # a refused mass centre, then a mass typed in: the form again equals one made afresh
    # (the refused text and its message gone), still without being made again
    field = form.field("com")
    field.setFocus()
    field.selectAll()
    qtbot.keyClicks(field, "1, 2")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: bool(form.errors().get("com")), timeout=3000)
    serial = panel.snapshot.model_serial
    field = form.field("mass")
    field.setFocus()
    field.selectAll()
    qtbot.keyClicks(field, "0.25")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: document.body("b100").mass == 0.25, timeout=5000)
    settle(serial)
    assert counts == {"form": 0, "filter": 0}
    assert form.errors() == {}
    assert _texts(form) == _fresh_texts(editor)
    counts.update(form=0, filter=0)

    # a rename typed in the tree (F2): the form shows the new name, built once; the plot
    # list is filtered for the renamed body once
    counts.update(form=0, filter=0)
    serial = panel.snapshot.model_serial
    tree.view.setFocus()
    qtbot.waitUntil(tree.view.hasFocus, timeout=2000)
    qtbot.keyClick(tree.view, Qt.Key.Key_F2)
    qtbot.waitUntil(lambda: isinstance(QApplication.focusWidget(), QLineEdit), timeout=2000)
    line = QApplication.focusWidget()
    line.selectAll()
    qtbot.keyClicks(line, "elbow")
    qtbot.keyClick(line, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "elbow" in document.body_names(), timeout=5000)
    settle(serial)
    assert form.key == "body:elbow"
    assert counts == {"form": 1, "filter": 1}

    # a body added to the selected one with the tree's "Add body" button
    counts.update(form=0, filter=0)
    serial = panel.snapshot.model_serial
    qtbot.mouseClick(tree.add_body_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(document.bodies) == N + 1, timeout=5000)
    settle(serial)
    assert counts["form"] == 1 and counts["filter"] <= 1
